"""AWX: the custom credential type, the example job templates, and their playbooks run through
ansible-runner (the engine AWX runs jobs with) with nothing but what AWX would give them: the
environment AWX derives from a credential of our type, the survey answers as extra variables,
and an inventory that holds only each device's address, port and type.

What AWX does with a credential is reproduced here from AWX's own source (ansible/awx, read at
commit e21dd0a0933fd544d1fe2513c54fe41203775eb5), not from our reading of its documentation:

* Credential type check (awx/main/fields.py, CredentialTypeInputField and
  CredentialTypeInjectorField): field ids are unique and not ``tower``; a ``default`` must have
  the field's type (str for string, bool for boolean); ``choices``, ``secret``, ``multiline`` and
  ``format`` are allowed on strings only; every injector template must render in Jinja's
  immutable sandbox with StrictUndefined when each field is the string ``EXAMPLE``; environment
  variables starting with ``ANSIBLE_`` are refused.
* Storing a credential (fields.py, CredentialInputField.validate): an input given empty (any
  falsy value) is replaced by ``default_for_field`` of the credential type
  (awx/main/models/credential.py), which is the field's FIRST CHOICE, or "" / False; it is not
  the field's ``default``. The inputs are then checked against a Draft 4 JSON schema whose
  properties are the fields (choices become an enum, no other keys allowed). Inputs the
  credential leaves out stay out: nothing fills in a field's ``default``.
* Launch (awx/main/models/unified_jobs.py, UnifiedJob.pre_start): a job does not start when a
  required field of a credential is absent or empty (Credential.has_input: missing, "" or None);
  the job explanation lists the missing fields, sorted.
* Injection (credential.py, CredentialType.inject_credential): the template namespace holds
  each input the credential has (booleans as they are, strings only when not empty); every
  boolean field the credential leaves out is put in as False; each ``env`` injector is
  rendered with jinja2's ImmutableSandboxedEnvironment and its default Undefined, so a field
  left out renders as the empty string, and the variable is set anyway.
"""

import json
import os
import shutil
import subprocess
import sys

import jsonschema
import pytest
import yaml
from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from bm_simulator import swu
from bm_simulator.fleet import running_fleet
from tests.functional.conftest import ROOT
from tests.functional.device_api import login

AWX = os.path.join(ROOT, "extensions", "awx")
ENV_PREFIX = "BROADCAST_MONITORING_"
PASSWORD = "awx-Secret-7"


def load(name):
    with open(os.path.join(AWX, name), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def connection_env_names():
    """The environment variables the modules fall back to (plugins/module_utils/_connection.py)."""
    with open(os.path.join(ROOT, "plugins", "module_utils", "_connection.py"), encoding="utf-8") as handle:
        source = handle.read()
    names = ("HOST", "PORT", "PROTOCOL", "VALIDATE_CERTS", "CA_PATH", "TIMEOUT", "BUSY_TIMEOUT", "ROLE", "PASSWORD",
             "TOKEN", "DEVICE_TYPE")
    return {ENV_PREFIX + name for name in names if '_env("%s")' % name in source}


# -- AWX, as its source behaves -------------------------------------------------------------

class AwxRefused(Exception):
    """What AWX would answer with an error (saving a type or credential, launching a job)."""


def check_credential_type(credential_type):
    """AWX's checks of a credential type's inputs and injectors."""
    fields = credential_type["inputs"]["fields"]
    ids = [field["id"] for field in fields]
    if "tower" in ids or len(ids) != len(set(ids)):
        raise AwxRefused("field ids must be unique and not 'tower': %s" % ids)
    for field in fields:
        kind = field.get("type", "string")
        if "default" in field and not isinstance(field["default"], {"string": str, "boolean": bool}[kind]):
            raise AwxRefused("%s: default is not a %s" % (field["id"], kind))
        for key in ("choices", "multiline", "format", "secret"):
            if key in field and kind != "string":
                raise AwxRefused("%s: %s not allowed for %s" % (field["id"], key, kind))
    example = {field["id"]: "EXAMPLE" for field in fields}
    for name, template in credential_type["injectors"].get("env", {}).items():
        if name.startswith("ANSIBLE_"):
            raise AwxRefused("%s may affect Ansible configuration" % name)
        try:
            ImmutableSandboxedEnvironment(undefined=StrictUndefined).from_string(template).render(example)
        except TemplateError as error:  # UndefinedError, SecurityError, TemplateSyntaxError
            raise AwxRefused("%s uses an undefined field or is not a valid template (%s)" % (name, error)) from None


def first_choice_or_empty(field):
    """CredentialType.default_for_field: the first choice, else "" or False (never ``default``)."""
    if "choices" in field:
        return field["choices"][0]
    return {"string": "", "boolean": False}[field.get("type", "string")]


def store_credential(credential_type, inputs):
    """The inputs AWX saves for a new credential (CredentialInputField.validate)."""
    fields = {field["id"]: field for field in credential_type["inputs"]["fields"]}
    stored = dict(inputs)
    for key in [key for key, value in stored.items() if not value]:
        if key in fields:
            stored[key] = first_choice_or_empty(fields[key])
    properties = {}
    for field in fields.values():
        schema = {"type": field.get("type", "string")}
        if field.get("choices"):
            schema["enum"] = list(field["choices"])
        properties[field["id"]] = schema
    errors = list(jsonschema.Draft4Validator(
        {"type": "object", "properties": properties, "additionalProperties": False}).iter_errors(stored))
    if errors:
        raise AwxRefused("; ".join(error.message for error in errors))
    return stored


def pre_start(credential_type, stored, name="Broadcast fleet"):
    """UnifiedJob.pre_start's check of the credential's required fields."""
    defined = [field["id"] for field in credential_type["inputs"]["fields"]]
    missing = [field for field in credential_type["inputs"].get("required", [])
               if field in defined and stored.get(field) in (None, "")]
    if missing:
        raise AwxRefused("Job cannot start because Credential %s does not provide one or more required fields (%s)."
                         % (name, ", ".join(sorted(missing))))


def inject(credential_type, stored):
    """The environment CredentialType.inject_credential adds for the credential's inputs."""
    namespace = {}
    for key, value in stored.items():
        if isinstance(value, bool):  # (AWX compares the exact type; a bool has no subclasses)
            namespace[key] = value
        elif len(value):
            namespace[key] = value
    for field in credential_type["inputs"]["fields"]:
        if field.get("type") == "boolean" and field["id"] not in stored:
            namespace[field["id"]] = False
    sandbox = ImmutableSandboxedEnvironment()
    return {name: sandbox.from_string(template).render(**namespace)
            for name, template in credential_type["injectors"].get("env", {}).items()}


def launch_environment(inputs, credential_type=None):
    """Save a credential with ``inputs`` and launch a job with it, as AWX does: its environment."""
    credential_type = credential_type or load("credential_type.yml")
    check_credential_type(credential_type)
    stored = store_credential(credential_type, inputs)
    pre_start(credential_type, stored)
    return inject(credential_type, stored)


# -- the credential type and the job templates --------------------------------------------

def test_credential_type_is_valid_and_injects_only_settings_the_modules_read():
    credential_type = load("credential_type.yml")
    check_credential_type(credential_type)
    fields = {field["id"]: field for field in credential_type["inputs"]["fields"]}
    injected = credential_type["injectors"]["env"]
    assert set(injected) <= connection_env_names(), set(injected) - connection_env_names()
    assert fields["password"]["secret"] is True
    # the address and port are per device: the inventory gives them, never a credential
    assert ENV_PREFIX + "HOST" not in injected and ENV_PREFIX + "PORT" not in injected
    assert credential_type["inputs"]["required"] == ["password"]
    for field in fields.values():  # an input given empty becomes the first choice: the modules' default
        assert field.get("choices", ["admin"])[0] in ("admin", "http"), field
        assert field.get("help_text"), "every input is explained: %s" % field["id"]


def test_a_credential_holding_only_the_password_launches_and_leaves_every_default_to_the_modules():
    env = launch_environment({"password": PASSWORD})
    assert env[ENV_PREFIX + "PASSWORD"] == PASSWORD
    # what AWX injects for the inputs left out: empty strings, which the modules read as unset;
    # above all no VALIDATE_CERTS=False from the boolean AWX sets to False when absent
    assert {name: value for name, value in env.items() if name != ENV_PREFIX + "PASSWORD"} == {
        ENV_PREFIX + "ROLE": "", ENV_PREFIX + "PROTOCOL": "", ENV_PREFIX + "VALIDATE_CERTS": ""}


def test_awx_refuses_a_launch_without_the_password():
    with pytest.raises(AwxRefused, match=r"required fields \(password\)"):
        launch_environment({"role": "user"})
    with pytest.raises(AwxRefused, match=r"required fields \(password\)"):
        launch_environment({"password": ""})


def test_only_an_explicit_choice_turns_the_certificate_check_off():
    assert launch_environment({"password": PASSWORD, "skip_certificate_check": False})[
        ENV_PREFIX + "VALIDATE_CERTS"] == ""
    assert launch_environment({"password": PASSWORD, "skip_certificate_check": True})[
        ENV_PREFIX + "VALIDATE_CERTS"] == "false"
    env = launch_environment({"password": PASSWORD, "role": "user", "protocol": "https"})
    assert (env[ENV_PREFIX + "ROLE"], env[ENV_PREFIX + "PROTOCOL"]) == ("user", "https")


def test_the_reproduction_catches_what_awx_catches():
    """The AWX functions above refuse what AWX refuses (so the tests using them can fail): the
    credential type of 0.1.0's first draft, whose role and protocol were required and whose
    validate_certs boolean defaulted to true."""
    old = {
        "inputs": {"fields": [
            {"id": "role", "label": "Role", "type": "string", "choices": ["admin", "user"], "default": "admin"},
            {"id": "password", "label": "Password", "type": "string", "secret": True},
            {"id": "protocol", "label": "Protocol", "type": "string", "choices": ["http", "https"], "default": "http"},
            {"id": "validate_certs", "label": "Verify", "type": "boolean", "default": True}],
            "required": ["role", "password", "protocol"]},
        "injectors": {"env": {ENV_PREFIX + "VALIDATE_CERTS": "{{ validate_certs }}", ENV_PREFIX + "ROLE": "{{ role }}"}},
    }
    with pytest.raises(AwxRefused, match=r"required fields \(protocol, role\)"):
        launch_environment({"password": PASSWORD}, old)
    stored = store_credential(old, {"password": PASSWORD})
    assert inject(old, stored)[ENV_PREFIX + "VALIDATE_CERTS"] == "False"  # certificate checks off
    # an input given empty is stored as the first choice, or False for a boolean (not its default true)
    assert store_credential(old, {"password": PASSWORD, "validate_certs": False})["validate_certs"] is False
    with pytest.raises(AwxRefused):
        store_credential(old, {"password": PASSWORD, "protocol": "ftp"})
    with pytest.raises(AwxRefused):
        check_credential_type(dict(old, injectors={"env": {"X": "{{ no_such_field }}"}}))


def test_job_templates_name_existing_playbooks_and_their_variables():
    templates = load("job_templates.yml")["job_templates"]
    assert {t["playbook"] for t in templates} == {"playbooks/site.yml", "playbooks/firmware_rollout.yml",
                                                  "playbooks/backup.yml", "playbooks/restore.yml",
                                                  "playbooks/report.yml"}
    roles_text = ""
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "roles")):
        roles_text += "".join(open(os.path.join(folder, name), encoding="utf-8").read()
                              for name in files if name.endswith(".yml"))
    for template in templates:
        playbook = os.path.join(ROOT, template["playbook"])
        assert os.path.exists(playbook), template["playbook"]
        text = open(playbook, encoding="utf-8").read() + roles_text
        for question in template.get("survey_spec", {"spec": []})["spec"]:
            assert question["variable"] in text, (template["name"], question["variable"])
            assert question["type"] in ("text", "textarea", "password", "integer", "float", "multiplechoice",
                                        "multiselect"), question


def test_awx_guide_shows_the_files_as_they_are():
    with open(os.path.join(ROOT, "docs", "awx.md"), encoding="utf-8") as handle:
        guide = handle.read()
    for name in ("credential_type.yml", "job_templates.yml", "workflow_firmware_rollout.yml"):
        with open(os.path.join(AWX, name), encoding="utf-8") as handle:
            assert "```yaml\n" + handle.read() + "```" in guide, "docs/awx.md: paste extensions/awx/%s again" % name


# -- AWX's rules for job templates, surveys and workflows ---------------------------------

#: The parameters of awx.awx.job_template (awx_collection/plugins/modules/job_template.py,
#: main's argument_spec) that job_templates.yml uses, with their types.
JOB_TEMPLATE_PARAMETERS = {
    "name": str, "description": str, "job_type": str, "playbook": str, "extra_vars": dict,
    "ask_limit_on_launch": bool, "ask_diff_mode_on_launch": bool, "ask_job_type_on_launch": bool,
    "ask_job_slice_count_on_launch": bool, "survey_enabled": bool, "survey_spec": dict, "job_slice_count": int}
#: The parameters of awx.awx.workflow_job_template (workflow_job_template.py, main's argument_spec)
#: that the workflow uses, with their types.
WORKFLOW_PARAMETERS = {"name": str, "description": str, "survey_enabled": bool, "survey_spec": dict,
                       "workflow_nodes": list}
#: What create_workflow_nodes and create_workflow_nodes_association (workflow_job_template.py) read
#: of a node: its fields (copied when set), unified_job_template (name, type; an approval's name,
#: description, timeout) and the related nodes by identifier.
NODE_FIELDS = {"identifier", "extra_data", "scm_branch", "job_type", "job_tags", "skip_tags", "limit", "diff_mode",
               "verbosity", "forks", "job_slice_count", "timeout", "all_parents_must_converge", "state",
               "unified_job_template", "related", "inventory", "execution_environment"}
NODE_EDGES = {"success_nodes", "failure_nodes", "always_nodes"}
#: The job template field each node prompt needs to be accepted (JobTemplate._accept_or_ignore_job_kwargs,
#: awx/main/models/jobs.py: an unprompted field is rejected): limit and job_slice_count here.
NODE_PROMPTS = {"limit": "ask_limit_on_launch", "job_slice_count": "ask_job_slice_count_on_launch",
                "extra_data": "ask_variables_on_launch"}
#: awx/main/constants.py, SURVEY_TYPE_MAPPING
SURVEY_TYPE_MAPPING = {"text": str, "textarea": str, "password": str, "multiplechoice": str, "multiselect": str,
                       "integer": int, "float": (float, int)}


def check_survey(survey):
    """JobTemplateSurveySpec._validate_spec_data (awx/api/views/__init__.py), for what our surveys use."""
    for field, kind in (("name", str), ("description", str), ("spec", list)):
        if not isinstance(survey.get(field), kind):
            raise AwxRefused("survey %s: missing or not a %s" % (field, kind.__name__))
    if not survey["spec"]:
        raise AwxRefused("'spec' doesn't contain any items.")
    seen = set()
    for index, item in enumerate(survey["spec"]):
        for field in ("type", "question_name", "variable", "required"):
            if field not in item:
                raise AwxRefused("'%s' missing from survey question %d" % (field, index))
            if not isinstance(item[field], bool if field == "required" else str):
                raise AwxRefused("'%s' in survey question %d has the wrong type" % (field, index))
        if item["variable"] in seen:
            raise AwxRefused("'variable' '%s' duplicated in survey question %d" % (item["variable"], index))
        seen.add(item["variable"])
        if item["type"] not in SURVEY_TYPE_MAPPING:
            raise AwxRefused("'%s' in survey question %d is not an allowed question type" % (item["type"], index))
        expected = SURVEY_TYPE_MAPPING[item["type"]]
        if "default" in item and item["default"] != "" and not isinstance(item["default"], expected):
            raise AwxRefused("Default value %r in survey question %d has the wrong type" % (item["default"], index))
        for key in ("min", "max"):
            if item.get(key) is not None and not isinstance(item[key], int):
                raise AwxRefused("The %s limit in survey question %d expected to be integer." % (key, index))


def check_parameters(item, parameters):
    for key, value in item.items():
        if key not in parameters:
            raise AwxRefused("%s: not a parameter" % key)
        if not isinstance(value, parameters[key]) or (parameters[key] is int and isinstance(value, bool)):
            raise AwxRefused("%s: %r is not a %s" % (key, value, parameters[key].__name__))
    if item.get("job_slice_count", 1) < 0:  # JobTemplate.job_slice_count: a PositiveIntegerField
        raise AwxRefused("job_slice_count: not a positive integer")
    if "survey_spec" in item:
        check_survey(item["survey_spec"])


def check_workflow(workflow, job_templates):
    """The workflow as awx.awx.workflow_job_template creates it, and the rules AWX applies to it."""
    check_parameters(workflow, WORKFLOW_PARAMETERS)
    nodes = {node["identifier"]: node for node in workflow["workflow_nodes"]}
    if len(nodes) != len(workflow["workflow_nodes"]):
        raise AwxRefused("node identifiers are not unique")
    by_name = {t["name"]: t for t in job_templates}
    for node in nodes.values():
        if set(node) - NODE_FIELDS:
            raise AwxRefused("%s: %s" % (node["identifier"], set(node) - NODE_FIELDS))
        target = node["unified_job_template"]
        if target["type"] == "workflow_approval":
            # WorkflowApprovalTemplate: name, description, timeout (an IntegerField)
            if set(target) - {"name", "description", "timeout", "type"} or not isinstance(target.get("timeout", 0), int):
                raise AwxRefused("approval %s: %s" % (node["identifier"], target))
        elif target["type"] == "job_template":
            if target["name"] not in by_name:
                raise AwxRefused("Unable to Find unified_job_template: %s" % target["name"])
            for prompt, ask in NODE_PROMPTS.items():
                if prompt in node and not by_name[target["name"]].get(ask):
                    raise AwxRefused("%s: %s is not configured to prompt on launch" % (node["identifier"], prompt))
        else:
            raise AwxRefused("%s: unexpected type %s" % (node["identifier"], target["type"]))
        for edge, children in node.get("related", {}).items():
            if edge not in NODE_EDGES or any(child["identifier"] not in nodes for child in children):
                raise AwxRefused("%s: %s %s" % (node["identifier"], edge, children))
    # a workflow is a directed acyclic graph (SimpleDAG.has_cycle, awx/main/scheduler/dag_simple.py, checked on
    # linking nodes in awx/api/views/__init__.py)
    children = {name: [c["identifier"] for cs in node.get("related", {}).values() for c in cs]
                for name, node in nodes.items()}
    visiting, done = set(), set()

    def visit(name):
        if name in visiting:
            raise AwxRefused("Workflow graph has a cycle through %s" % name)
        if name not in done:
            visiting.add(name)
            for child in children[name]:
                visit(child)
            visiting.discard(name)
            done.add(name)
    for name in nodes:
        visit(name)
    return nodes, by_name


def test_job_templates_and_their_surveys_are_what_awx_accepts():
    templates = load("job_templates.yml")["job_templates"]
    for job_template in templates:
        check_parameters(job_template, JOB_TEMPLATE_PARAMETERS)
    rollout = [t for t in templates if t["playbook"] == "playbooks/firmware_rollout.yml"]
    launched_alone = [t for t in rollout if "extra_vars" not in t][0]
    # AWX tells a slice nothing that marks it as one: the rollout template never slices
    assert launched_alone["job_slice_count"] == 1 and launched_alone["ask_job_slice_count_on_launch"] is False
    phases = {t["extra_vars"]["firmware_rollout_phase"]: t for t in rollout if "extra_vars" in t}
    assert phases["canary"]["job_slice_count"] == 1 and phases["after_canary"]["job_slice_count"] > 1
    assert not any(t.get("ask_job_slice_count_on_launch") for t in rollout)


def test_the_canary_workflow_is_what_awx_accepts_and_gates_the_slices():
    templates = load("job_templates.yml")["job_templates"]
    workflow = load("workflow_firmware_rollout.yml")
    nodes, by_name = check_workflow(workflow, templates)
    phase = {name: by_name[node["unified_job_template"]["name"]].get("extra_vars", {}).get("firmware_rollout_phase")
             for name, node in nodes.items() if node["unified_job_template"]["type"] == "job_template"}
    canary = [name for name, value in phase.items() if value == "canary"]
    rest = [name for name, value in phase.items() if value == "after_canary"]
    approvals = [name for name, node in nodes.items() if node["unified_job_template"]["type"] == "workflow_approval"]
    assert len(canary) == len(rest) == len(approvals) == 1
    # canary -(success)-> approval -(success)-> the rest: nothing else leads to the rest
    assert nodes[canary[0]]["related"]["success_nodes"] == [{"identifier": approvals[0]}]
    assert nodes[approvals[0]]["related"] == {"success_nodes": [{"identifier": rest[0]}]}
    parents = [name for name, node in nodes.items()
               for children in node.get("related", {}).values() for child in children if child["identifier"] == rest[0]]
    assert parents == approvals
    # the survey's variables are the rollout's (the workflow's extra variables reach every node's job)
    text = open(os.path.join(ROOT, "playbooks", "firmware_rollout.yml"), encoding="utf-8").read()
    text += open(os.path.join(ROOT, "playbooks", "report.yml"), encoding="utf-8").read()
    text += open(os.path.join(ROOT, "roles", "firmware_rollout", "meta", "argument_specs.yml"), encoding="utf-8").read()
    for question in workflow["survey_spec"]["spec"]:
        assert question["variable"] in text, question["variable"]


def test_the_reproduction_of_awx_rules_refuses_what_awx_refuses():
    templates = load("job_templates.yml")["job_templates"]
    workflow = load("workflow_firmware_rollout.yml")
    broken_survey = {"name": "x", "description": "", "spec": [{"question_name": "q", "variable": "v", "type": "integer",
                                                               "required": True, "default": "2"}]}
    with pytest.raises(AwxRefused, match="Default value"):
        check_survey(broken_survey)
    with pytest.raises(AwxRefused, match="duplicated"):
        check_survey({"name": "x", "description": "", "spec": [dict(broken_survey["spec"][0], default=2)] * 2})
    with pytest.raises(AwxRefused, match="not a parameter"):
        check_parameters({"name": "x", "slice_count": 2}, JOB_TEMPLATE_PARAMETERS)
    with pytest.raises(AwxRefused, match="not a int"):
        check_parameters({"name": "x", "job_slice_count": "2"}, JOB_TEMPLATE_PARAMETERS)
    sliced_by_prompt = dict(workflow, workflow_nodes=[dict(n, job_slice_count=4) if n["identifier"] == "rest" else n
                                                      for n in workflow["workflow_nodes"]])
    with pytest.raises(AwxRefused, match="not configured to prompt"):
        check_workflow(sliced_by_prompt, templates)
    cycle = dict(workflow, workflow_nodes=[dict(n, related={"success_nodes": [{"identifier": "canary"}]})
                                           if n["identifier"] == "report" else n for n in workflow["workflow_nodes"]])
    with pytest.raises(AwxRefused, match="cycle"):
        check_workflow(cycle, templates)


# -- the four job templates through ansible-runner ----------------------------------------

@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=1, fm=1, time_scale=0.02) as runner:
        yield runner


def template(playbook):
    return next(t for t in load("job_templates.yml")["job_templates"] if t["playbook"] == playbook
                and "extra_vars" not in t)


def survey_answers(job_template, **answers):
    """The extra variables of a launch: each survey question's answer, else its default."""
    values = {}
    for question in job_template["survey_spec"]["spec"]:
        if question["variable"] in answers:
            values[question["variable"]] = answers.pop(question["variable"])
        elif "default" in question:
            values[question["variable"]] = question["default"]
        else:
            raise AssertionError("the survey requires an answer to %s" % question["variable"])
    assert not answers, "not survey questions: %s" % answers
    return values


def awx_inventory(fleet):
    """An AWX inventory of the devices: groups by type, and per host only address, port and type."""
    inventory = fleet.fleet.inventory()
    del inventory["all"]["vars"]  # the simulator's connection/interpreter settings are not AWX's
    for group in inventory["all"]["children"].values():
        for hostvars in group["hosts"].values():
            assert set(hostvars) == {"ansible_host", "device_port", "device_type"}, hostvars
    return inventory


def run_job(fleet, collections_path, workdir, playbook, credential, extra_vars=None, injected=None, inventory_vars=None,
            **answers):
    """Run a job template's playbook the way an AWX job runs: ansible-runner in a private data
    dir holding the credential's environment, the launch's extra variables and the inventory,
    from a process environment without any BROADCAST_MONITORING_* variable of ours."""
    job_template = template(playbook)
    private = workdir / ("job-%s" % os.path.basename(playbook).split(".")[0])
    if private.exists():
        shutil.rmtree(private)
    for folder in ("inventory", "env"):
        (private / folder).mkdir(parents=True)
    inventory = awx_inventory(fleet)
    if inventory_vars:
        inventory["all"]["vars"] = inventory_vars
    (private / "inventory" / "hosts.yml").write_text(yaml.safe_dump(inventory, sort_keys=False))
    envvars = dict(injected) if injected is not None else launch_environment(credential)
    # What the execution environment provides: the collection, and modules run by the Python that
    # runs Ansible (this machine's interpreter discovery could find a broken pyenv shim instead).
    envvars.update(ANSIBLE_COLLECTIONS_PATH=collections_path, ANSIBLE_NOCOLOR="1", ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    (private / "env" / "envvars").write_text(yaml.safe_dump(envvars))
    (private / "env" / "extravars").write_text(yaml.safe_dump(dict(survey_answers(job_template, **answers),
                                                                   **(extra_vars or {}))))
    bindir = os.path.dirname(sys.executable)
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(ENV_PREFIX) and key not in ("PYTHONPATH", "ANSIBLE_COLLECTIONS_PATH")}
    environment["PATH"] = bindir + os.pathsep + environment.get("PATH", "")
    proc = subprocess.run([os.path.join(bindir, "ansible-runner"), "run", str(private), "--project-dir", ROOT,
                           "-p", playbook, "--ident", "job"], capture_output=True, text=True, env=environment,
                          timeout=600, check=False)
    events = []
    folder = private / "artifacts" / "job" / "job_events"
    for name in sorted(os.listdir(folder)) if folder.exists() else []:
        events.append(json.loads((folder / name).read_text()))
    status = (private / "artifacts" / "job" / "status").read_text().strip()
    output = proc.stdout + proc.stderr
    for secret in {credential.get("password"), *[s for d in fleet.devices for s in fleet.call(d.issued_secrets)]}:
        if secret and secret not in ("admin", "user"):
            assert secret not in output, "a secret reached the job output"
    return status, output, events


def results(events, task, event="runner_on_ok"):
    """The result of ``task`` per host, from the job's events (runner_on_ok or runner_on_failed)."""
    return {e["event_data"]["host"]: e["event_data"]["res"] for e in events
            if e["event"] == event and e["event_data"].get("task") == task}


def reset(fleet, admin=PASSWORD, user="user"):
    for device in fleet.devices:
        fleet.call(device.reset)
        fleet.call(lambda device=device: device.state["passwords"].update(admin=admin, user=user))


def token_roles(fleet, device):
    return set(fleet.call(lambda: dict(device.state["tokens"])).values())


def test_configure_devices_template_with_the_password_alone(fleet, collections_path, tmp_path):
    reset(fleet)
    # the declared state (launch-time extra variables here; normally the inventory's group vars)
    state = {"ts_analyzer_time": {"timezone": "Europe/Berlin"}, "fm_monitor_time": {"timezone": "2"}}
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/site.yml", {"password": PASSWORD},
                                     extra_vars=state)
    assert status == "successful", output
    done = results(events, "Apply the declared state of the device")
    assert set(done) == {"ts-001", "fm-001"} and all(res["changed"] for res in done.values()), done
    for device in fleet.devices:
        assert len(fleet.call(device.writes)) == 1  # the timezone, over the http the modules default to
        assert token_roles(fleet, device) == {"admin"}


def test_backup_and_restore_templates_with_the_password_alone(fleet, collections_path, tmp_path):
    reset(fleet)
    backups = tmp_path / "backups"
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/backup.yml",
                                     {"password": PASSWORD}, backup_dir=str(backups))
    assert status == "successful", output
    assert sorted(os.listdir(backups)) == ["fm-001.json", "history", "ts-001.json"]

    # the units are replaced: factory state, factory password
    device = fleet.fleet.by_name("ts-001")
    fleet.call(device.reset)
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/restore.yml",
                                     {"password": PASSWORD}, restore_hosts="ts-001",
                                     restore_backup_dir=str(backups), restore_factory_address=device.address)
    assert status == "successful", output
    assert results(events, "Set the fleet admin password (it checks by logging in with it)")["ts-001"]["changed"]
    # the fleet password is the credential's, given to the device by the restore role
    assert login(device, PASSWORD).status_code == 200


def test_firmware_rollout_template_with_the_password_alone(fleet, collections_path, tmp_path):
    reset(fleet)
    bundle = tmp_path / "analyzer-2.4.1.swu"
    bundle.write_bytes(swu.build("2.4.1"))
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/firmware_rollout.yml",
                                     {"password": PASSWORD}, firmware_rollout_bundle=str(bundle),
                                     extra_vars={"firmware_rollout_backup_dir": str(tmp_path / "backups"),
                                                 "firmware_rollout_report_dir": str(tmp_path / "reports"),
                                                 "firmware_rollout_timeout": 60})
    assert status == "successful", output
    checked = results(events, "Check the version the device reports")
    assert set(checked) == {"ts-001", "fm-001"}, output
    assert "runs firmware 2.4.1" in json.dumps(checked)


def test_a_credential_saying_https_never_falls_back_to_http(fleet, collections_path, tmp_path):
    """The simulated devices speak plain HTTP: with the credential's https the job fails at the
    TLS handshake, and no request reaches a device in the clear."""
    reset(fleet)
    state = {"ts_analyzer_time": {"timezone": "Europe/Berlin"}, "fm_monitor_time": {"timezone": "2"}}
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/site.yml",
                                     {"password": PASSWORD, "protocol": "https"}, extra_vars=state)
    assert status == "failed", output
    # every device fails at the TLS handshake, each on its own (one play for both types)
    failed = results(events, "Apply the declared state of the device", "runner_on_failed")
    assert set(failed) == {"ts-001", "fm-001"}, output
    assert "TLS handshake failed" in failed["ts-001"]["msg"], failed
    assert "https://" in failed["ts-001"]["msg"]
    for device in fleet.devices:
        assert fleet.call(lambda device=device: list(device.requests)) == []


def test_a_setting_in_the_inventory_wins_over_the_credential(fleet, collections_path, tmp_path):
    reset(fleet)
    state = {"ts_analyzer_time": {"timezone": "Europe/Berlin"}, "fm_monitor_time": {"timezone": "2"}}
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/site.yml",
                                     {"password": PASSWORD, "protocol": "https"}, extra_vars=state,
                                     inventory_vars={"broadcast_monitoring_protocol": "http"})
    assert status == "successful", output
    for device in fleet.devices:
        assert len(fleet.call(device.writes)) == 1


def test_a_credential_with_role_user_is_honoured_by_the_backup_role(fleet, collections_path, tmp_path):
    # only the user password is the credential's: a login as admin would fail
    reset(fleet, admin="admin-Other-9", user=PASSWORD)
    backups = tmp_path / "backups"
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/backup.yml",
                                     {"password": PASSWORD, "role": "user"}, backup_dir=str(backups))
    assert status == "successful", output
    assert sorted(os.listdir(backups)) == ["fm-001.json", "history", "ts-001.json"]
    for device in fleet.devices:
        assert token_roles(fleet, device) == {"user"}


def test_without_any_password_the_roles_say_where_to_put_one(fleet, collections_path, tmp_path):
    """A job whose credential gave no password (run without one, as from a terminal) fails with
    a message naming the variable and the environment variable."""
    reset(fleet)
    credential_type = load("credential_type.yml")
    no_password = dict(credential_type, inputs=dict(credential_type["inputs"], required=[]))
    for playbook, task, answers in (
            ("playbooks/backup.yml", "Read the configuration into the device's backup file",
             {"backup_dir": str(tmp_path / "backups")}),
            ("playbooks/site.yml", "Apply the declared state of the device", {}),
            ("playbooks/restore.yml", "Check that there is a fleet password to give the device",
             {"restore_hosts": "ts-001", "restore_factory_address": "127.0.0.1"})):
        envvars = inject(no_password, store_credential(no_password, {}))
        assert envvars[ENV_PREFIX + "PASSWORD"] == ""
        status, output, events = run_job(fleet, collections_path, tmp_path, playbook, {}, injected=envvars,
                                         extra_vars={"ts_analyzer_time": {"timezone": "UTC"}}, **answers)
        assert status == "failed", output
        message = results(events, task, "runner_on_failed")["ts-001"]["msg"]
        assert "broadcast_monitoring_password" in message and "BROADCAST_MONITORING_PASSWORD" in message, message


def test_without_any_password_the_firmware_rollout_says_where_to_put_one(fleet, collections_path, tmp_path):
    """The rollout's login task has no_log (its result holds the token), so the job event's result
    is censored; ansible-core still prints the module's message in the task's error line, which
    is the job output AWX shows."""
    reset(fleet)
    credential_type = load("credential_type.yml")
    no_password = dict(credential_type, inputs=dict(credential_type["inputs"], required=[]))
    envvars = inject(no_password, store_credential(no_password, {}))
    status, output, events = run_job(fleet, collections_path, tmp_path, "playbooks/firmware_rollout.yml", {},
                                     injected=envvars, firmware_rollout_bundle="/nonexistent.swu")
    assert status == "failed", output
    assert "Task failed: Module failed: password: no password to log in with" in output, output
    assert "broadcast_monitoring_password" in output and "BROADCAST_MONITORING_PASSWORD" in output, output

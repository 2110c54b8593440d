"""AWX: the custom credential type, the example job templates, and a playbook run through
ansible-runner (the engine AWX runs jobs with) whose only connection settings are the
credential's injected environment variables plus the inventory's address and port."""

import glob
import json
import os
import subprocess
import sys

import jinja2
import yaml

from tests.functional.conftest import ROOT

AWX = os.path.join(ROOT, "extensions", "awx")
ENV_PREFIX = "BROADCAST_MONITORING_"


def load(name):
    with open(os.path.join(AWX, name), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def connection_env_names():
    """The environment variables the modules fall back to (plugins/module_utils/connection.py)."""
    with open(os.path.join(ROOT, "plugins", "module_utils", "connection.py"), encoding="utf-8") as handle:
        source = handle.read()
    names = ("HOST", "PORT", "PROTOCOL", "VALIDATE_CERTS", "CA_PATH", "TIMEOUT", "BUSY_TIMEOUT", "ROLE", "PASSWORD",
             "TOKEN", "DEVICE_TYPE")
    return {ENV_PREFIX + name for name in names if '_env("%s")' % name in source}


def inject(credential_type, inputs):
    """The environment AWX gives a job for a credential of this type (injector templates
    rendered with the credential's inputs and the fields' defaults)."""
    values = {field["id"]: field["default"] for field in credential_type["inputs"]["fields"] if "default" in field}
    values.update(inputs)
    return {key: jinja2.Template(template).render(**values) for key, template in credential_type["injectors"]["env"].items()}


def test_credential_type_injects_connection_settings_the_modules_read():
    credential_type = load("credential_type.yml")
    fields = {field["id"]: field for field in credential_type["inputs"]["fields"]}
    injected = credential_type["injectors"]["env"]
    assert set(injected) <= connection_env_names(), set(injected) - connection_env_names()
    assert ENV_PREFIX + "PASSWORD" in injected and fields["password"]["secret"] is True
    # the address and port are per device: the inventory gives them, never a credential
    assert ENV_PREFIX + "HOST" not in injected and ENV_PREFIX + "PORT" not in injected
    for field in credential_type["inputs"]["fields"]:
        assert field["id"] in credential_type["inputs"]["required"] or "default" in field or field["type"] == "boolean", field


def test_job_templates_name_existing_playbooks_and_their_variables():
    templates = load("job_templates.yml")["job_templates"]
    assert {t["playbook"] for t in templates} == {"playbooks/site.yml", "playbooks/firmware_rollout.yml",
                                                  "playbooks/backup.yml", "playbooks/restore.yml"}
    roles_text = "".join(open(path, encoding="utf-8").read()
                         for path in glob.glob(os.path.join(ROOT, "roles", "*", "*", "*.yml")))
    for template in templates:
        playbook = os.path.join(ROOT, template["playbook"])
        assert os.path.exists(playbook), template["playbook"]
        text = open(playbook, encoding="utf-8").read() + roles_text
        for question in template["survey_spec"]["spec"]:
            assert question["variable"] in text, (template["name"], question["variable"])
            assert question["type"] in ("text", "textarea", "password", "integer", "float", "multiplechoice",
                                        "multiselect"), question


PLAY = [{
    "name": "Clock of every device, connection from the AWX credential",
    "hosts": "ts-002,fm-002",
    "gather_facts": False,
    "module_defaults": {"group/broadcast.monitoring.all": {"host": "{{ ansible_host }}", "port": "{{ device_port }}"}},
    "tasks": [
        {"name": "Timezone", "register": "first",
         "broadcast.monitoring.device_time": {"timezone": "{{ ts_timezone if device_type == 'ts_analyzer' else fm_timezone }}"}},
        {"name": "Timezone again", "register": "second",
         "broadcast.monitoring.device_time": {"timezone": "{{ ts_timezone if device_type == 'ts_analyzer' else fm_timezone }}"}},
        {"name": "Inputs, read only", "when": "device_type == 'ts_analyzer'",
         "broadcast.monitoring.ts_input": {"state": "gathered"}},
        {"name": "Second run changed nothing", "ansible.builtin.assert": {"that": ["first is changed", "second is not changed"]}},
    ],
}]


def test_playbook_through_ansible_runner_with_credential_environment(sim, collections_path, tmp_path):
    devices = [sim.fleet.by_name("ts-002"), sim.fleet.by_name("fm-002")]
    for device in devices:
        sim.call(device.reset)
    # a non-factory password proves it reaches the modules through the injected environment
    password = "awx-Secret-7"
    for device in devices:
        sim.call(lambda device=device: device.state["passwords"].update(admin=password))

    private = tmp_path / "runner"
    for folder in ("project", "inventory", "env"):
        (private / folder).mkdir(parents=True)
    (private / "project" / "play.yml").write_text(yaml.safe_dump(PLAY, sort_keys=False))
    sim.write_inventory(str(private / "inventory" / "hosts.yml"))
    envvars = inject(load("credential_type.yml"), {"password": password})
    envvars.update(ANSIBLE_COLLECTIONS_PATH=collections_path, ANSIBLE_NOCOLOR="1")
    (private / "env" / "envvars").write_text(yaml.safe_dump(envvars))
    (private / "env" / "extravars").write_text(yaml.safe_dump({"ts_timezone": "Europe/Berlin", "fm_timezone": "2"}))

    bindir = os.path.dirname(sys.executable)
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith(ENV_PREFIX) and key not in ("PYTHONPATH", "ANSIBLE_COLLECTIONS_PATH")}
    environment["PATH"] = bindir + os.pathsep + environment.get("PATH", "")
    proc = subprocess.run([os.path.join(bindir, "ansible-runner"), "run", str(private), "-p", "play.yml",
                           "--ident", "job"], capture_output=True, text=True, env=environment, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert password not in proc.stdout

    events = [json.loads((private / "artifacts" / "job" / "job_events" / name).read_text())
              for name in os.listdir(private / "artifacts" / "job" / "job_events")]
    ok = [e["event_data"] for e in events if e["event"] == "runner_on_ok"]
    first = {e["host"]: e["res"] for e in ok if e["task"] == "Timezone"}
    assert set(first) == {"ts-002", "fm-002"} and all(res["changed"] for res in first.values()), first
    assert (private / "artifacts" / "job" / "status").read_text().strip() == "successful"
    for device in devices:
        writes = sim.call(device.writes)
        assert len(writes) == 1, writes  # one timezone write per device, none on the second run


def test_runner_sees_no_connection_settings_but_the_credential(tmp_path):
    """The play passes only host and port; without the injected password the module fails,
    so the runner test above can only pass through the credential."""
    defaults = PLAY[0]["module_defaults"]["group/broadcast.monitoring.all"]
    assert set(defaults) == {"host", "port"}
    assert "password" not in json.dumps(PLAY)


def test_awx_guide_shows_the_files_as_they_are():
    with open(os.path.join(ROOT, "docs", "awx.md"), encoding="utf-8") as handle:
        guide = handle.read()
    for name in ("credential_type.yml", "job_templates.yml"):
        with open(os.path.join(AWX, name), encoding="utf-8") as handle:
            assert "```yaml\n" + handle.read() + "```" in guide, "docs/awx.md: paste extensions/awx/%s again" % name

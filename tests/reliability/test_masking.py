"""No secret in any output channel, whatever the secret holds (issue 42, part 2): properties
over random passwords with quotes, backslashes, ``%``, non-ASCII and surrogate-escaped text,
through real ansible-playbook runs at -vvvv against the simulator, in both execution modes.

The device is made to put each secret where an output would carry it: an echo fault (the
simulator's firmware that repeats a refused request: the body as sent, its fields decoded, the
Authorization header, the query) puts the password, the session token and the one-time
download token into errors; alert profiles named after the password (two of one name, so that
the module warns naming them) put it into results, warnings, diffs and the backup. The channels
searched: the play's output and log file (results, warnings, errors, diffs at -vvvv), the
registered results, the backup file, the validate role's reports, and the simulator's own log
(its Python log and request log). Each secret is searched in every form it can take there: as
is, JSON-escaped (ASCII or not), as a Python literal, percent-encoded.

Ansible's no_log alone hides the password only as is: the escaped forms in an echo, and the
tokens a device issued, would show (the tests fail without _errors.masked). Examples are few
(each is a playbook run); tests/unit/plugins/module_utils/test_masking.py runs many more
against the function itself.
"""

import contextlib
import copy
import json
import logging
import urllib.parse

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.conftest import factory_device
from tests.functional.conftest import ROOT, ansible_playbook
from tests.functional.device_api import Api
from tests.functional.test_ts_recording import small_capture

#: characters a password of the devices may hold (any text: "`password` is a string"; the FM
#: monitor refuses control characters, the analyzer blank ones), the hostile ones
HOSTILE = ['"', "'", "\\", "%", "+", "/", "@", ":", " ", "&", "=", "?", "#", "*", "é", "ü", "中", "😀", "\u00a0"]
#: surrogate-escaped bytes (what Python makes of bytes that are not UTF-8 in the environment)
SURROGATES = ["\udcff", "\udce9", "\udc80"]
CORE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#: a few examples per channel (each is a playbook run), the same in every run (as the suite's
#: other property tests), nothing written to .hypothesis
FEW = settings(max_examples=3, deadline=None, derandomize=True, database=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@st.composite
def passwords(draw, surrogates):
    """A password: a random core of 8 letters and digits (as any real one has) with hostile
    text before, inside and after it; surrogate-escaped bytes only where the environment
    carries it (a YAML play cannot)."""
    alphabet = HOSTILE + (SURROGATES if surrogates else [])
    hostile = st.text(alphabet=st.sampled_from(alphabet), min_size=1, max_size=5)
    core = draw(st.text(alphabet=CORE, min_size=8, max_size=10))
    at = draw(st.integers(1, len(core) - 1))
    return draw(hostile) + core[:at] + draw(hostile) + core[at:] + draw(hostile)


@st.composite
def credentials(draw):
    """(password, how it is given): a module argument (module_defaults) or the environment
    (BROADCAST_MONITORING_PASSWORD, as an AWX credential gives it)."""
    given_by = draw(st.sampled_from(["argument", "environment"]))
    password = draw(passwords(surrogates=given_by == "environment"))
    if given_by == "argument":  # Ansible templates a play's strings: a password is no template
        password = password.replace("{", "(").replace("}", ")")
    return password, given_by


def forms(secret):
    """Every form ``secret`` can take in an output (written here, not taken from the code under test)."""
    data = secret.encode("utf-8", "surrogateescape")
    found = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1], repr(secret)[1:-1],
             repr(secret + '"')[1:-2], urllib.parse.quote(data, safe=""), urllib.parse.quote_plus(data, safe="")}
    return found


def leaked(secrets, texts):
    """[(secret's first characters, where)] of every form of ``secrets`` found in ``texts`` ({where: text})."""
    return [(secret[:3] + "…", where) for secret in secrets for where, text in texts.items()
            if any(form in text for form in forms(secret))]


@pytest.fixture(params=["direct", "module process"])
def execution(request):
    return {} if request.param == "direct" else {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"}


class SimulatorLog(logging.Handler):
    """What the simulator logs while a play runs (its devices run in this process)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def simulator_log():
    handler = SimulatorLog()
    loggers = [logging.getLogger(name) for name in ("simulator", "aiohttp")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def issued(sim, device):
    """Every password and token ``device`` issued or was given (the simulator keeps them)."""
    return [s for s in sim.call(device.issued_secrets) if s not in ("admin", "user")]


def run(sim, collections_path, workdir, device, tasks, password, given_by, execution):
    """``tasks`` as one play against ``device`` at -vvvv with --diff; (results, texts searched)."""
    workdir.mkdir()
    inventory, playbook, results = workdir / "hosts.yml", workdir / "play.yml", workdir / "results.json"
    sim.write_inventory(str(inventory))
    defaults = {"host": device.address, "port": device.port}
    env, options = dict(execution), []
    if given_by == "argument":
        # from a variables file (as a vault is), not written in the play: ansible-core 2.19 shows
        # the lines of the play around a failed task, literal values included
        (workdir / "secret.json").write_text(json.dumps({"masking_password": password}))
        defaults["password"] = "{{ masking_password }}"
        options = ["-e", "@%s" % (workdir / "secret.json")]
    else:
        env["BROADCAST_MONITORING_PASSWORD"] = password
    registered = ["result_%d" % index for index in range(len(tasks))]
    play = [{"name": "Masking", "hosts": device.name, "gather_facts": False,
             "module_defaults": {"group/broadcast.monitoring.all": defaults},
             "tasks": [dict(task, register=name, ignore_errors=True) for task, name in zip(tasks, registered)] + [
                 {"name": "Save the registered results", "check_mode": False, "diff": False,
                  "ansible.builtin.copy": {"dest": str(results),
                                           "content": "{{ {%s} | to_json }}" % ", ".join(
                                               "'%s': %s" % (name, name) for name in registered)}}]}]
    playbook.write_text(yaml.safe_dump(play, sort_keys=False, allow_unicode=True))
    with simulator_log() as log:
        proc = ansible_playbook(sim, collections_path, workdir, ["-i", str(inventory), "--diff", str(playbook)] + options,
                                verbosity=4, env=env)
    assert results.exists(), proc.output[-3000:]
    logs = "".join(path.read_text(errors="surrogateescape") for path in workdir.glob("ansible-*.log"))
    texts = {"output": proc.output, "log file": logs, "registered results": results.read_text(errors="surrogateescape"),
             "simulator log": "\n".join(log.lines),
             "simulator request log": json.dumps(sim.call(lambda: copy.deepcopy(device.requests)), ensure_ascii=False)}
    return json.loads(results.read_text()), texts


def plant_profiles(sim, device, password):
    """Two alert profiles named after the password (as a device may hold text equal to a
    secret): gathered shows them, the module warns naming the copies, the backup holds them."""
    api = Api(device, password)
    made = api.post("/profiles", {"name": "Leak %s" % password})

    def twin():
        profile = next(p for p in device.state["profiles"] if p["id"] == made["id"])
        device.state["profiles"].append(dict(copy.deepcopy(profile), id=max(p["id"] for p in device.state["profiles"]) + 1))
    sim.call(twin)
    return api


def echoing(sim, name, password, paths):
    """The device ``name`` in factory state with the admin password ``password``, whose next
    request to each of ``paths`` is refused with the request repeated (the echo fault)."""
    device = factory_device(sim, name)
    sim.call(device.state["passwords"].update, {"admin": password})
    for path in paths:
        sim.call(device.faults.add, {"kind": "echo", "count": 1, "path": path})
    return device


@FEW
@given(credential=credentials())
def test_analyzer_outputs_hold_no_secret(sim, collections_path, tmp_path_factory, execution, credential):
    password, given_by = credential
    ts = echoing(sim, "ts-001", password, [])
    api = plant_profiles(sim, ts, password)
    capture = small_capture(api, api.add_input("Mux 1")["id"])
    for path in ("/api/user/login", "/api/snmp/settings", "/api/sdcard/download$"):  # after the test's own requests
        sim.call(ts.faults.add, {"kind": "echo", "count": 1, "path": path})
    workdir = tmp_path_factory.mktemp("masking")
    backup = workdir / "ts.json"
    tasks = [
        {"name": "login echoed", "broadcast.monitoring.ts_alert_profile": {"state": "gathered"}},
        {"name": "token echoed", "broadcast.monitoring.ts_snmp": {"enabled": True}},
        {"name": "results and warnings", "broadcast.monitoring.ts_alert_profile": {"state": "gathered"}},
        {"name": "backup", "broadcast.monitoring.device_backup": {"device_type": "ts_analyzer", "dest": str(backup)}},
        {"name": "diff", "broadcast.monitoring.ts_alert_profile": {"state": "overridden", "config": [{"name": "Default"}]}},
        {"name": "download token echoed", "broadcast.monitoring.ts_recording": {
            "operation": "download", "filename": capture, "dest": str(workdir / "capture.ts")}},
    ]
    results, texts = run(sim, collections_path, workdir / "play", ts, tasks, password, given_by, execution)
    outcome = [results["result_%d" % i].get("failed", False) for i in range(len(tasks))]
    assert outcome == [True, True, False, False, False, True], results
    assert "request refused" in results["result_0"]["msg"] and "Authorization: Bearer ********" in results["result_1"]["msg"]
    assert "token=********" in results["result_5"]["msg"]
    assert any("several" in warning for warning in results["result_2"].get("warnings", [])), results["result_2"]
    assert results["result_4"]["changed"] is True and "Leak ********" in json.dumps(results["result_4"])
    assert "Leak ********" in backup.read_text(errors="surrogateescape")
    assert any("holds a password or token" in warning for warning in results["result_3"]["warnings"])
    texts["backup file"] = backup.read_text(errors="surrogateescape")
    secrets = [password] + issued(sim, ts)
    assert len(secrets) >= 4  # the password, the test's and the modules' session tokens, the download token
    assert leaked(secrets, texts) == []


@FEW
@given(credential=credentials())
def test_fm_monitor_errors_hold_no_secret(sim, collections_path, tmp_path_factory, execution, credential):
    password, given_by = credential
    fm = echoing(sim, "fm-001", password, ["/api/login", "/api/status"])
    tasks = [{"name": "login echoed", "broadcast.monitoring.fm_info": {"gather_subset": ["status"]}},
             {"name": "token echoed", "broadcast.monitoring.fm_info": {"gather_subset": ["status"]}},
             {"name": "answers", "broadcast.monitoring.fm_info": {"gather_subset": ["status"]}}]
    results, texts = run(sim, collections_path, tmp_path_factory.mktemp("masking") / "play", fm, tasks, password,
                         given_by, execution)
    assert [results["result_%d" % i].get("failed", False) for i in range(3)] == [True, True, False], results
    assert "Authorization: Bearer ********" in results["result_1"]["msg"]
    assert leaked([password] + issued(sim, fm), texts) == []


@settings(FEW, max_examples=2)
@given(password=passwords(surrogates=True))
def test_validate_reports_hold_no_secret(sim, collections_path, tmp_path_factory, execution, password):
    """The validate role's reports (JUnit, Markdown, JSON) of a device whose login answer
    echoes the password: the failure is reported, the password is not."""
    ts = echoing(sim, "ts-002", password, ["/api/user/login"])
    workdir = tmp_path_factory.mktemp("reports")
    inventory = workdir / "hosts.yml"
    sim.write_inventory(str(inventory))
    data = yaml.safe_load(inventory.read_text())
    data["all"]["vars"]["validate_confirm_delay"] = 0
    inventory.write_text(yaml.safe_dump(data, sort_keys=False))
    env = dict(execution, BROADCAST_MONITORING_PASSWORD=password)
    with simulator_log() as log:
        proc = ansible_playbook(sim, collections_path, workdir, [
            "-i", str(inventory), ROOT + "/playbooks/validate.yml", "--limit", ts.name, "-e", "validate_report_dir=reports"],
            verbosity=4, env=env, cwd=str(workdir))
    reports = {name: (workdir / "reports" / name).read_text(errors="surrogateescape")
               for name in ("validate.xml", "validate.md", "validate.json")}
    assert proc.returncode != 0 and "request refused" in reports["validate.json"], proc.output[-3000:]
    texts = dict(reports, output=proc.output, simulator_log="\n".join(log.lines))
    assert leaked([password] + issued(sim, ts), texts) == []

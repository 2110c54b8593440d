"""Outside text is data (issue 42, 1.; docs/docsite/rst/security.rst): a template planted in every string
of every event kind the EDA source emits, and of every artifact kind the playbooks hand on, is never
evaluated by the playbooks that take them, given as ansible-rulebook and users give them:

- events: ``ansible_eda: {event, ruleset, rule}`` written with ``yaml.dump`` into a file passed with
  ``-e @file`` (ansible-rulebook's run_playbook writes ``env/extravars`` so, and ansible-runner passes
  ``-e @env/extravars``); run through eda_diagnose.yml and eda_capture.yml against a simulated analyzer
  whose input, and an FM monitor whose tuner, carry a template in their names (so the device's own answers,
  registered module results, are planted too), in both execution modes;
- artifacts: ``-e @artifacts.json`` (report.yml's header) through report.yml and firmware_rollout.yml's
  canary gate;
- device answers: audit.yml shows the planted input and tuner names (registered module results) in its drift
  table and report, in both execution modes.

Every payload is ``{{ lookup('pipe', 'touch "$R"-<field>') }}``, $R a path in the test's folder:
no such file may appear; where the playbooks show the text (info.json, the reports) it is there intact.

With BM_ANSIBLE_BINS (directories holding other ansible-core releases' ansible-playbook, separated by
``:``), every case also runs with each of them (the release's own ansible-playbook)."""

import copy
import json
import os
import re
import subprocess
import sys
import time

import pytest
import yaml

from .conftest import ROOT, leak_watch
from .device_api import Api

#: the pipe lookup runs in the playbook's folder: the marker goes where $R says (the test's own folder)
PAYLOAD = "{{ lookup('pipe', 'touch \"$R\"-%s') }}"
#: the names a device holds: an analyzer input and an FM tuner (registered results carry them)
INPUT_NAME = PAYLOAD % "input-name"
TUNER_NAME = "{{lookup('pipe','touch $R-t')}}"  # a tuner name holds 32 characters
BINS = [os.path.dirname(sys.executable)] + [d for d in os.environ.get("BM_ANSIBLE_BINS", "").split(":") if d]


def kinds_emitted():
    """The event kinds device_events.py emits, read from its source and from each device
    folder's events.py, where a device type's item events are built (a new kind must be added
    below)."""
    path = os.path.join(ROOT, "extensions", "eda", "plugins", "event_source", "device_events.py")
    with open(path, encoding="utf-8") as handle:
        kinds = set(re.findall(r"\.event\(\s*\"([a-z_]+)\"", handle.read()))
    module_utils = os.path.join(ROOT, "plugins", "module_utils")
    for folder in sorted(os.listdir(module_utils)):
        path = os.path.join(module_utils, folder, "events.py")
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as handle:
                kinds |= set(re.findall(r"events\.append\(\(\s*\"([a-z_]+)\"", handle.read()))
    return kinds


TS_ITEM = {"state": "no_signal", "monitoring": True, "receiving": False, "bitrate": 0, "priority1": "critical",
           "priority1_errors": ["ts_sync_loss", "pat_error2"], "alarms": ["input_bitrate_error"]}
FM_ITEM = {"state": "enabled", "frequency": 94800, "tuned": False, "signal_ok": False, "alarms": ["rds", "level"]}
#: (kind, device type, detail) of every event device_events.py emits, as it builds them; an alert record of each
#: device type. The object is None for the device as a whole (DEVICE_KINDS).
EVENTS = [
    ("receiving_stopped", "ts_analyzer", TS_ITEM), ("receiving_started", "ts_analyzer", TS_ITEM),
    ("errors_raised", "ts_analyzer", TS_ITEM), ("errors_cleared", "ts_analyzer", TS_ITEM),
    ("alert_record", "ts_analyzer", {"record": {"error_name": "pat_error2", "pid": 0, "start_time": "2026-11-26 10:15:00",
                                                "end_time": "2026-11-26 10:15:02", "service_name": "S1", "count": 3,
                                                "severity": "critical"}}),
    ("lock_lost", "fm_monitor", FM_ITEM), ("lock_regained", "fm_monitor", FM_ITEM),
    ("alarms_changed", "fm_monitor", dict(FM_ITEM, raised=["rds"], cleared=["level"])),
    ("alert_record", "fm_monitor", {"record": {"tuner_id": 0, "type": "rds", "from": "2026-11-26T10:15:00Z",
                                               "to": "2026-11-26T10:16:00Z", "severity": "warning"}}),
    ("restarted", "ts_analyzer", {"uptime": 12, "uptime_before": 86400}),
    ("reachable", "fm_monitor", {"uptime": 12}),
    ("unreachable", "ts_analyzer", {"error": "GET /api/system/alive: connection refused"}),
    ("poll_failed", "fm_monitor", {"error": "POST /api/login: 401 wrong password", "error_kind": "credentials"}),
]
DEVICE_KINDS = ("restarted", "reachable", "unreachable", "poll_failed")
#: the kinds the example rulebooks run a playbook for
ACTED_ON = ("receiving_stopped", "errors_raised", "lock_lost")
#: the playbooks an event can be given to (the example rulebooks run them)
EVENT_PLAYBOOKS = {"ts_analyzer": ("eda_diagnose.yml", "eda_capture.yml"), "fm_monitor": ("eda_diagnose.yml",)}


def planted(value, path="", skip=()):
    """``value`` with every string in it (and every mapping key) replaced by a payload naming where it is;
    the paths in ``skip`` keep their value."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            inner = "%s.%s" % (path, key) if path else key
            out[key] = planted(item, inner, skip)
            if isinstance(item, (str, int, float, bool)) and inner not in skip:
                out[PAYLOAD % re.sub("[^a-z0-9]+", "-", ("key-" + inner).lower())] = item
        return out
    if isinstance(value, list):
        return [planted(item, "%s-%d" % (path, i), skip) for i, item in enumerate(value)]
    if isinstance(value, str) and path not in skip:
        return PAYLOAD % re.sub("[^a-z0-9]+", "-", path.lower())
    return value


def strings(value, keys=True):
    """Every string in ``value``; with ``keys`` its mappings' keys too."""
    if isinstance(value, dict):
        for key, item in value.items():
            if keys:
                yield key
            yield from strings(item, keys)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, keys)
    elif isinstance(value, str):
        yield value


def event_for(kind, device, detail):
    device_type = device.kind
    obj = None
    if kind not in DEVICE_KINDS:
        obj = {"type": "input" if device_type == "ts_analyzer" else "tuner", "id": device.object_id, "name": device.object_name}
    event = {"device": device.name, "device_type": device_type, "host": device.address, "object": obj, "kind": kind,
             "severity": "critical", "time": "2026-11-26T10:15:00Z", "detail": copy.deepcopy(detail),
             # what ansible-rulebook adds (insert_meta_info): source, time received, uuid; hosts from the source
             "meta": {"hosts": device.name, "source": {"name": "devices", "type": "broadcast.monitoring.device_events"},
                      "received_at": "2026-11-26T10:15:01.000000Z", "uuid": "0b7a1c5e-2f59-4bd4-9a49-1f1d0c9c0f20"}}
    # the object's id and name are the device's (the name itself a template); every other string is planted
    event = planted(event, skip=("object.id", "object.name"))
    return {"ansible_eda": {"ruleset": PAYLOAD % "ruleset", "rule": PAYLOAD % "rule", "event": event}}


def run(bin_dir, sim, collections_path, workdir, args, env=None):
    """ansible-playbook of ``bin_dir`` with ``args``, in ``workdir`` (where a payload would touch its file)."""
    command = [os.path.join(bin_dir, "ansible-playbook")] + list(args) + ["-vvv"]
    environment = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path, ANSIBLE_NOCOLOR="1",
                       ANSIBLE_HOST_KEY_CHECKING="0", ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_LOCALHOST_WARNING="0",
                       ANSIBLE_INVENTORY_UNPARSED_WARNING="0", BROADCAST_MONITORING_PASSWORD="admin",
                       R=str(workdir / "ran"))
    environment.pop("PYTHONPATH", None)
    environment.update(env or {})
    proc = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300, check=False,
                          cwd=str(workdir))
    proc.output = proc.stdout + proc.stderr
    leak_watch(sim, proc.output)
    return proc


def wait_card_free(api):
    """The analyzer's one-second capture has ended (the card takes one at a time)."""
    for _attempt in range(200):
        if api.post("/sdcard/status")["recording"] is None:
            return
        time.sleep(0.05)
    raise AssertionError("the capture did not end")


def executed(workdir):
    return sorted(name for name in os.listdir(str(workdir)) if name.startswith("ran-"))


@pytest.fixture(scope="module")
def planted_devices(sim):
    """The analyzer's input and the FM monitor's tuner 0 named with a template; restored afterwards."""
    ts, fm = sim.fleet.by_name("ts-001"), sim.fleet.by_name("fm-001")
    ts_api, fm_api = Api(ts), Api(fm)
    created = ts_api.add_input(INPUT_NAME)
    ts.object_id, ts.object_name = created["id"], INPUT_NAME
    before = fm_api.get("/tuner/0")
    fm_api.post("/tuner/0/settings", {"name": TUNER_NAME})
    fm.object_id, fm.object_name = 0, TUNER_NAME
    yield ts, fm, ts_api
    ts_api.call("DELETE", "/inputs/%d" % created["id"])
    fm_api.post("/tuner/0/settings", {"name": before["name"]})


def test_the_table_covers_every_kind_the_source_emits():
    assert kinds_emitted() and kinds_emitted() == {kind for kind, _type, _detail in EVENTS}, "device_events.py emits %s" % sorted(kinds_emitted())


@pytest.mark.parametrize("bin_dir", BINS)
@pytest.mark.parametrize("direct", [True, False], ids=["direct", "processes"])
def test_every_event_kind_planted_executes_nothing(sim, collections_path, tmp_path, planted_devices, bin_dir, direct):
    ts, fm, ts_api = planted_devices
    inventory = tmp_path / "hosts.yml"
    sim.write_inventory(str(inventory))
    env = {} if direct else {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"}
    ran = []
    # the event never reaches a module process but as arguments: with module processes, the kinds the
    # example rulebooks act on are enough (CI time); in the controller's process, every kind
    events = EVENTS if direct else [event for event in EVENTS if event[0] in ACTED_ON]
    for kind, device_type, detail in events:
        device = ts if device_type == "ts_analyzer" else fm
        extravars = tmp_path / ("extravars-%s-%s" % (kind, device_type))
        extravars.write_text(yaml.dump(event_for(kind, device, detail)))  # as ansible-rulebook writes env/extravars
        for playbook in EVENT_PLAYBOOKS[device_type]:
            incidents = tmp_path / ("diagnostics-%s-%s-%s" % (kind, device_type, playbook))
            proc = run(bin_dir, sim, collections_path, tmp_path,
                       ["-i", str(inventory), os.path.join(ROOT, "playbooks", playbook), "--limit", device.name,
                        "-e", "@" + str(extravars), "-e", "eda_diagnostics_dir=%s" % incidents,
                        "-e", "eda_capture_seconds=1"], env=env)
            assert executed(tmp_path) == [], "%s with a %s event evaluated outside text:\n%s" % (
                playbook, kind, proc.output[-4000:])
            if kind in DEVICE_KINDS:  # no object: nothing to diagnose or record, and it says so
                assert proc.returncode != 0
                continue
            assert proc.returncode == 0, "%s with a %s event:\n%s" % (playbook, kind, proc.output[-6000:])
            if playbook == "eda_diagnose.yml":
                (folder,) = incidents.iterdir()
                # the incident folder's name holds nothing from outside but letters of the type and the id
                assert re.fullmatch(r"%s-[a-z]*-%d-[0-9TZ]*" % (device.name, device.object_id), folder.name), folder.name
                info = json.loads((folder / "info.json").read_text())
                assert device.object_name in strings(info)  # the device's name, shown intact as data
            else:
                assert json.dumps(INPUT_NAME) in proc.output  # the recording of the input named so
                wait_card_free(ts_api)
            ran.append((kind, playbook))
    assert len(ran) == (14 if direct else 5)


def validation_artifact():
    """A validate role result, made by the validation_result filter from a reading of an input named with a
    template, then every string of it planted."""
    from ansible_collections.broadcast.monitoring.plugins.filter.validation_result import FilterModule

    result = FilterModule().filters()["validation_result"]
    reading = {"snapshot": {"device_type": "ts_analyzer", "firmware_version": "1.0.0", "inputs": [
        {"id": 1, "name": INPUT_NAME, "monitoring": True, "state": "no_signal", "receiving": False, "bitrate": 0,
         "priority1": "ok", "priority1_errors": [], "alarms": []}]}}
    declared = {"device_type": "ts_analyzer", "inputs": [{"name": INPUT_NAME, "monitoring": "started"}]}
    return result([reading, reading], declared, host="ts-001")


ROLLOUT_DEVICE = {"host": "ts-001", "status": "upgraded", "bundle": "ts-2.0.swu", "backup": "backups/ts-001.json",
                  "firmware_before": "1.0.0", "firmware_after": "2.0.0", "message": "done",
                  "regressions": [{"check": "receiving", "item": "Mux 1", "message": "input Mux 1 stopped receiving"}],
                  "transient": [{"check": "priority1", "item": "Mux 2", "message": "priority-1 errors on Mux 2"}],
                  "changes": [{"item": "Mux 1", "what": "bitrate", "before": "12000000", "after": "0"},
                              {"item": "device", "what": "firmware_version", "before": "1.0.0", "after": "2.0.0"}]}
AUDIT_DEVICE = {"drift": [{"section": "inputs", "changed": True, "failed": False, "reboot_needed": True,
                           "details": ["input Mux 1: monitoring started -> stopped"], "not_declared": ["Mux 9"]},
                          {"section": "snmp", "changed": False, "failed": False, "reboot_needed": False, "details": []}]}


def artifacts():
    """One artifact of each kind, as two AWX jobs hand them on, with a template in every string and key."""
    planted_validation = planted({"ts-001": validation_artifact()}, "validation")
    return {
        "broadcast_monitoring_audit_101": planted({"ts-001": AUDIT_DEVICE, "fm-001": {"failed": "no answer"}}, "audit")
        | {PAYLOAD % "audit-host": AUDIT_DEVICE},  # a host name too
        "broadcast_monitoring_rollout_102": planted({"ts-001": ROLLOUT_DEVICE}, "rollout"),
        "broadcast_monitoring_validation": planted_validation,
    }


@pytest.mark.parametrize("bin_dir", BINS)
def test_every_artifact_kind_planted_executes_nothing(sim, collections_path, tmp_path, bin_dir):
    given = artifacts()
    (tmp_path / "artifacts.json").write_text(json.dumps(given))
    reports = tmp_path / "reports"
    proc = run(bin_dir, sim, collections_path, tmp_path, [os.path.join(ROOT, "playbooks", "report.yml"),
                                                          "-e", "report_dir=%s" % reports, "-e", "@artifacts.json"])
    assert executed(tmp_path) == [], proc.output[-4000:]
    assert proc.returncode == 0, proc.output[-6000:]
    # shown intact, as data: every planted string of the audit reaches the JSON report, each kind has its reports
    audit = json.loads((reports / "audit-report.json").read_text())
    assert {s for s in strings(given["broadcast_monitoring_audit_101"], keys=False) if s.startswith("{{")} <= set(
        strings(audit))
    assert PAYLOAD % "audit-host" in audit["drift"]
    assert PAYLOAD % "rollout-ts-001-status" in (reports / "firmware_rollout.md").read_text()
    assert json.loads((reports / "validate.json").read_text()) == given["broadcast_monitoring_validation"]

    # the rollout's canary gate reads the same artifacts: a canary whose status is a template did not pass
    inventory = tmp_path / "hosts.yml"
    sim.write_inventory(str(inventory))
    proc = run(bin_dir, sim, collections_path, tmp_path, [
        "-i", str(inventory), os.path.join(ROOT, "playbooks", "firmware_rollout.yml"), "-e", "@artifacts.json",
        "-e", "firmware_rollout_phase=after_canary"])
    assert executed(tmp_path) == [], proc.output[-4000:]
    assert proc.returncode != 0 and "the canary failed on" in proc.output, proc.output[-4000:]


@pytest.mark.parametrize("bin_dir", BINS)
@pytest.mark.parametrize("direct", [True, False], ids=["direct", "processes"])
def test_device_text_in_registered_results_is_data(sim, collections_path, tmp_path, planted_devices, bin_dir, direct):
    """audit.yml shows what the devices hold (an input it does not declare, a tuner's name) in its drift
    table (a debug msg) and report, templated from the modules' registered results: shown, never run."""
    ts, fm, unused = planted_devices
    inventory = tmp_path / "hosts.yml"
    sim.write_inventory(str(inventory))
    data = yaml.safe_load(inventory.read_text())
    data["all"]["children"]["ts_analyzers"]["vars"] = {"ts_analyzer_inputs": []}
    data["all"]["children"]["fm_monitors"]["vars"] = {"fm_monitor_tuners": [{"tuner_id": 0, "name": "Radio One"}]}
    inventory.write_text(yaml.safe_dump(data))
    report = tmp_path / "drift.json"
    proc = run(bin_dir, sim, collections_path, tmp_path, [
        "-i", str(inventory), os.path.join(ROOT, "playbooks", "audit.yml"), "--limit", "%s,%s" % (ts.name, fm.name),
        "-e", "audit_report=%s" % report], env={} if direct else {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"})
    assert executed(tmp_path) == [], proc.output[-4000:]
    assert proc.returncode == 0, proc.output[-6000:]
    result = json.loads(report.read_text())
    assert INPUT_NAME in result["not_declared"][ts.name]["inputs"]
    assert any(difference["current"] == TUNER_NAME
               for entry in result["drift"][fm.name] for difference in entry["differences"]), result
    # the drift table (written beside the report, and shown) holds each name as written, quoted as a
    # YAML scalar where it must be
    table = (tmp_path / "drift.txt").read_text()
    assert all(name in table or "'%s'" % name.replace("'", "''") in table for name in (INPUT_NAME, TUNER_NAME)), table

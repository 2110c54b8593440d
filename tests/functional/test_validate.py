"""playbooks/validate.yml (issue 34): the checks derived from the device roles' variables, over
real HTTP against the simulated fleet. A healthy fleet passes every check; an input that lost
its signal (the simulator's signal control) is a JUnit failure naming it; a tuner whose signal
comes back before the second reading is not a failure; skip and waive; --limit reports only
the hosts that ran. Device text (a hostile input name) stays inert in the reports."""

import json
import threading
import xml.etree.ElementTree as ET

import pytest

from bm_simulator.ts import PRIORITY_1

from .device_api import Api
from .conftest import ROOT, ansible_playbook, recap

HOSTILE = 'Sport <b>&"x</b> ]]> [l](http://e) | *'
TRAP = "192.0.2.100:162"


def healthy_analyzer(sim, name):
    """Two inputs receiving, under a profile that does not raise the simulated streams' random
    priority-1 errors (tests/simulator/README.md, analyzer "Lost signals"), and a trap receiver."""
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    api = Api(device)
    profile = api.post("/profiles", {"name": "Quiet", "entries": [
        {"error_name": error, "threshold": 100} for error in PRIORITY_1]})["id"]
    for index, label in enumerate(("News", HOSTILE)):
        api.add_input(label, {"eth": {"stream_protocol": 0, "multicast": {
            "multicast_address": "239.1.1.%d" % (index + 1), "multicast_port": 5000}}}, profile_id=profile)
    api.post("/snmp/settings", {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": [TRAP]})
    return device


def healthy_monitor(sim, name):
    """Tuner 0 enabled on a strong station and streaming."""
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    frequency = sorted(f for f, station in device.band.items() if station["rssi"] >= 30)[0]

    def on_air():
        tuner = device.state["tuners"][0]
        tuner.update(frequency=frequency, state=1)
        tuner["stream"]["enabled"] = True
    sim.call(on_air)
    return device


DECLARED = {
    "ts-001": {"ts_analyzer_inputs": [{"name": "News", "monitoring": "started"}, {"name": HOSTILE},
                                      {"name": "ASI backup", "monitoring": "stopped"}],
               "ts_analyzer_snmp": {"enabled": True, "trap_addresses": [TRAP]},
               "validate_firmware_version": "1.0.0"},
    "fm-001": {"fm_monitor_tuners": [{"tuner_id": 0, "operating_state": "enabled", "stream": {"enabled": True}},
                                     {"tuner_id": 3, "operating_state": "sleep"}]},
}


@pytest.fixture(scope="module")
def fleet(sim):
    healthy_analyzer(sim, "ts-001")
    healthy_monitor(sim, "fm-001")
    return sim


def validate(sim, collections_path, workdir, host_vars=None, limit="ts-001,fm-001", extra=None):
    """validate.yml on the session fleet, reports into workdir/reports; (code, output, reports)."""
    import yaml
    inventory = workdir / "hosts.yml"
    sim.write_inventory(str(inventory))
    data = yaml.safe_load(inventory.read_text())
    data["all"]["vars"].update(broadcast_monitoring_password="admin", validate_confirm_delay=1)
    for group in data["all"]["children"].values():
        for name, hostvars in group["hosts"].items():
            hostvars.update(DECLARED.get(name, {}))
            hostvars.update((host_vars or {}).get(name, {}))
    inventory.write_text(yaml.safe_dump(data, sort_keys=False))
    reports = workdir / "reports"
    args = ["-i", str(inventory), str(ROOT + "/playbooks/validate.yml"), "--limit", limit,
            "-e", "validate_report_dir=reports"] + list(extra or [])
    proc = ansible_playbook(sim, collections_path, workdir, args, cwd=str(workdir),
                            env={"ANSIBLE_SHOW_CUSTOM_STATS": "1"})
    return proc.returncode, proc.output, reports


def junit(reports):
    root = ET.parse(str(reports / "validate.xml")).getroot()
    return {(case.get("classname"), case.get("name")): case for case in root.iter("testcase")}, root


def test_a_healthy_fleet_passes_every_check_and_limit_reports_only_the_hosts_that_ran(fleet, collections_path, tmp_path):
    for name in ("ts-001", "fm-001", "ts-002", "fm-002"):
        fleet.call(fleet.fleet.by_name(name).requests.clear)
    code, output, reports = validate(fleet, collections_path, tmp_path)
    assert code == 0, output
    assert set(recap(output)) == {"ts-001", "fm-001"}, output
    cases, root = junit(reports)
    assert root.get("failures") == "0" and root.get("tests") == str(len(cases)), ET.tostring(root)
    assert {case[0] for case in cases} == {"ts-001", "fm-001"}
    assert [c for c in cases.values() if c.find("failure") is not None] == []
    passed = {key for key, case in cases.items() if case.find("skipped") is None}
    assert passed == {
        ("ts-001", "device_answers"), ("ts-001", "input_receiving[News]"), ("ts-001", "input_priority1[News]"),
        ("ts-001", "input_receiving[%s]" % HOSTILE), ("ts-001", "input_priority1[%s]" % HOSTILE),
        ("ts-001", "snmp_traps"), ("ts-001", "firmware"),
        ("fm-001", "device_answers"), ("fm-001", "tuner_signal[0]"), ("fm-001", "tuner_streaming[0]")}, passed
    skipped = {key for key in cases if key not in passed}
    assert skipped == {("ts-001", "input_receiving[ASI backup]"), ("ts-001", "input_priority1[ASI backup]"),
                       ("fm-001", "tuner_signal[3]"), ("fm-001", "tuner_streaming[3]")}
    results = json.loads((reports / "validate.json").read_text())
    assert set(results) == {"ts-001", "fm-001"} and {r["status"] for r in results.values()} == {"passed"}
    markdown = (reports / "validate.md").read_text()
    assert "<b>" not in markdown and "\\<b\\>" in markdown and "2 device(s), 2 passed, 0 failed." in markdown
    # the job's artifact: both hosts' results under one key (set_stats, aggregated)
    stats = output.split("CUSTOM STATS", 1)[1]
    assert "broadcast_monitoring_validation" in stats and "ts-001" in stats and "fm-001" in stats
    # --limit: the other devices were not contacted; nothing was written to any device
    for name in ("ts-002", "fm-002"):
        assert fleet.call(lambda: list(fleet.fleet.by_name(name).requests)) == [], name
    for name in ("ts-001", "fm-001"):
        assert [r for r in fleet.call(lambda: list(fleet.fleet.by_name(name).requests)) if r["kind"] == "write"] == []


def test_a_lost_input_fails_naming_it_and_a_tuner_back_by_the_second_reading_does_not(
        fleet, collections_path, tmp_path):
    analyzer, monitor = fleet.fleet.by_name("ts-001"), fleet.fleet.by_name("fm-001")
    hostile_id = [i for i in fleet.call(lambda: list(analyzer.state["inputs"].values())) if i["name"] == HOSTILE][0]["id"]
    fleet.call(analyzer.lose_signal, hostile_id)
    fleet.call(monitor.lose_signal, 0)
    fleet.call(monitor.requests.clear)
    done = threading.Event()

    def restore_after_first_reading():  # the tuner list is the last read of a snapshot
        while not done.wait(0.02):
            if any(r["path"] == "/api/tuners/all" for r in fleet.call(lambda: list(monitor.requests))):
                fleet.call(monitor.restore_signal, 0)
                return
    watcher = threading.Thread(target=restore_after_first_reading, daemon=True)
    watcher.start()
    try:
        code, output, reports = validate(fleet, collections_path, tmp_path)
    finally:
        done.set()
        watcher.join()
        fleet.call(analyzer.restore_signal, hostile_id)
    assert code != 0, output
    counts = recap(output)
    assert counts["ts-001"]["failed"] == 1 and counts["fm-001"]["failed"] == 0, output
    cases, root = junit(reports)
    failed = {key: case.find("failure").get("message") for key, case in cases.items() if case.find("failure") is not None}
    assert set(failed) == {("ts-001", "input_receiving[%s]" % HOSTILE), ("ts-001", "input_priority1[%s]" % HOSTILE)}, failed
    message = failed[("ts-001", "input_receiving[%s]" % HOSTILE)]
    assert "does not receive its stream (state no_signal" in message and "in both readings" in message
    assert "validate_waive: [input_receiving[%s]]" % HOSTILE in message
    tuner = json.loads((reports / "validate.json").read_text())["fm-001"]["checks"]
    assert [c for c in tuner if c["id"] == "tuner_signal[0]"][0]["status"] == "passed"
    assert "failed at the first reading" in [c for c in tuner if c["id"] == "tuner_signal[0]"][0]["message"]
    assert [r["path"] for r in fleet.call(lambda: list(monitor.requests))].count("/api/tuners/all") == 2
    assert "ts-001: 2 check(s) failed" in output


def test_skip_and_waive_per_device_and_an_unknown_check_is_refused(fleet, collections_path, tmp_path):
    analyzer = fleet.fleet.by_name("ts-001")
    fleet.call(analyzer.lose_signal, 1)  # News
    try:
        code, output, reports = validate(fleet, collections_path, tmp_path, host_vars={"ts-001": {
            "validate_waive": ["input_receiving[News]"], "validate_skip": ["input_priority1", "snmp_traps"]}})
    finally:
        fleet.call(analyzer.restore_signal, 1)
    assert code == 0, output
    checks = {c["id"]: c for c in json.loads((reports / "validate.json").read_text())["ts-001"]["checks"]}
    assert checks["input_receiving[News]"]["status"] == "waived"
    assert "waived by validate_waive: input_receiving[News]" in checks["input_receiving[News]"]["message"]
    assert {checks[k]["status"] for k in checks if k.startswith("input_priority1")} == {"skipped"}
    assert checks["snmp_traps"]["status"] == "skipped"
    cases = junit(reports)[0]
    assert cases[("ts-001", "input_receiving[News]")].find("skipped") is not None

    fleet.call(fleet.fleet.by_name("ts-002").requests.clear)
    code, output = validate(fleet, collections_path, tmp_path, limit="ts-002",
                            host_vars={"ts-002": {"validate_skip": ["input_bitrate"]}})[:2]
    assert code != 0 and "validate_skip/validate_waive: unknown check(s) input_bitrate" in output, output
    assert fleet.call(lambda: list(fleet.fleet.by_name("ts-002").requests)) == []


def test_an_error_of_ansible_is_not_blamed_on_the_device(fleet, collections_path, tmp_path):
    """Issue 41: the analyzer's port is a template that fails (an Ansible error: the device is
    never asked), the monitor's port is closed (the device does not answer). Only the monitor
    fails device_answers; the analyzer fails task_error, naming the task, though it waives
    device_answers."""
    code, output, reports = validate(fleet, collections_path, tmp_path, host_vars={
        "ts-001": {"ts_analyzer_port": "{{ port_of_no_one_defined }}", "validate_waive": ["device_answers"]},
        "fm-001": {"fm_monitor_port": 1}})
    assert code != 0, output
    results = json.loads((reports / "validate.json").read_text())
    analyzer, monitor = results["ts-001"], results["fm-001"]
    assert [(c["id"], c["status"]) for c in analyzer["checks"]] == [("task_error", "failed")], analyzer
    message = analyzer["checks"][0]["message"]
    assert "task 'Read what the device is doing' failed with an error of Ansible or of this collection" in message
    assert "port_of_no_one_defined" in message and "did not answer" not in message, message
    assert [(c["id"], c["status"]) for c in monitor["checks"]] == [("device_answers", "failed")], monitor
    assert "the device did not answer" in monitor["checks"][0]["message"]
    cases = junit(reports)[0]
    assert cases[("ts-001", "task_error")].find("failure") is not None

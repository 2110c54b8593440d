"""Automatic revert (issue 34): a device role with *_revert_on_regression backs the device up,
applies, snapshots and validates; a change after which an input stops receiving (a unicast
listen address the unit does not have: the simulator then reports no_signal, README
"Input state") or a tuner loses lock (a frequency with no station) is reverted, the device's
configuration read back raw equals what it answered before the change, and the host fails
naming what regressed and what was reverted. With the option off nothing is reverted."""

import json
import threading

import pytest

from bm_simulator import swu
from bm_simulator.ts import PRIORITY_1

from .device_api import Api
from .conftest import run_playbook

#: what a configuration is on the analyzer's answers: everything but measurements
MEASURED = ("state", "status", "errors", "metrics")


def raw_analyzer(api):
    """The analyzer's configuration as it answers it: inputs (by name, measurements left out),
    alert profiles, SNMP settings."""
    inputs = {i["name"]: {k: v for k, v in i.items() if k not in MEASURED + ("id",)} for i in api.get("/inputs")}
    return {"inputs": inputs, "profiles": api.get("/profiles"), "snmp": api.get("/snmp/settings")}


def receiving_analyzer(sim, name):
    """One input, News, receiving under a profile without the simulated streams' random
    priority-1 errors, and a trap receiver."""
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    api = Api(device)
    profile = api.post("/profiles", {"name": "Quiet", "entries": [
        {"error_name": error, "threshold": 100} for error in PRIORITY_1]})["id"]
    api.add_input("News", {"eth": {"stream_protocol": 0, "multicast": {
        "multicast_address": "239.1.1.1", "multicast_port": 5000}}}, profile_id=profile)
    api.post("/snmp/settings", {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["192.0.2.100:162"]})
    return device, api


@pytest.fixture
def analyzer(sim):
    return receiving_analyzer(sim, "ts-002")


def site(sim, collections_path, tmp_path, host, host_vars):
    base = {"broadcast_monitoring_password": "admin", "validate_confirm_delay": 1,
            "ts_analyzer_snapshot_confirm_interval": 0.3, "fm_monitor_snapshot_confirm_interval": 0.3,
            "ts_analyzer_revert_backup_dir": "pre-change", "fm_monitor_revert_backup_dir": "pre-change"}
    return run_playbook(sim, collections_path, tmp_path, "site.yml", host_vars={host: dict(base, **host_vars)},
                        options=["--limit", host])


UNREACHABLE_SOURCE = {"unicast": {"address": "192.0.2.77", "port": 5004}}


def test_an_input_that_stops_receiving_is_reverted_to_its_configuration_before_the_change(
        sim, collections_path, tmp_path, analyzer):
    device, api = analyzer
    before = raw_analyzer(api)
    code, output, counts = site(sim, collections_path, tmp_path, "ts-002", {
        "ts_analyzer_revert_on_regression": True,
        "ts_analyzer_inputs": [{"name": "News", "source": UNREACHABLE_SOURCE, "alert_profile": "Quiet"}],
        "ts_analyzer_snmp": {"trap_addresses": ["192.0.2.101:162"]}})
    assert code != 0 and counts["ts-002"]["failed"] == 1, output
    assert "the change caused 2 regression(s)" in output and "input News (id 1): was receiving its stream, now does not" in output
    assert "Reverted (ts_analyzer_revert_on_regression)" in output
    assert "what worked before the change works again" in output, output
    after = raw_analyzer(api)
    # field by field: every configuration field the device answers is as it was before the change
    assert after["inputs"].keys() == before["inputs"].keys()
    for name, fields in before["inputs"].items():
        for key, value in fields.items():
            assert after["inputs"][name][key] == value, (name, key)
    assert after["profiles"] == before["profiles"] and after["snmp"] == before["snmp"]
    assert api.get("/inputs")[0]["state"] == "ok"
    # the pre-change backup the message names is the configuration the device had
    backups = list((tmp_path / "pre-change").iterdir())
    assert len(backups) == 1 and backups[0].name.startswith("ts-002-") and str(backups[0]) in output.replace("\n", "")
    saved = json.loads(backups[0].read_text())
    assert "admin" not in json.dumps(saved.get("device", {}))


def test_without_the_option_nothing_is_reverted(sim, collections_path, tmp_path, analyzer):
    device, api = analyzer
    code, output, counts = site(sim, collections_path, tmp_path, "ts-002", {
        "ts_analyzer_inputs": [{"name": "News", "source": UNREACHABLE_SOURCE, "alert_profile": "Quiet"}]})
    assert code == 0 and counts["ts-002"]["failed"] == 0, output
    news = api.get("/inputs")[0]
    assert news["config"]["eth"]["unicast"] == {"listen_address": "192.0.2.77", "listen_port": 5004}
    assert news["state"] == "no_signal"
    assert not (tmp_path / "pre-change").exists()


def test_a_tuner_that_loses_lock_is_reverted(sim, collections_path, tmp_path):
    device = sim.fleet.by_name("fm-002")
    sim.call(device.reset)
    station = sorted(f for f, s in device.band.items() if s["rssi"] >= 30)[0]
    empty = next(f for f in range(87600, 108001, 100) if all(abs(f - s) >= 300 for s in device.band))

    def on_air():
        device.state["tuners"][0].update(frequency=station, state=1)
    sim.call(on_air)
    code, output, counts = site(sim, collections_path, tmp_path, "fm-002", {
        "fm_monitor_revert_on_regression": True, "fm_monitor_tuners": [{"tuner_id": 0, "frequency": empty}]})
    assert code != 0 and counts["fm-002"]["failed"] == 1 and "the change caused" in output, output
    assert "tuner 0 (Tuner 1): was tuned (locked onto its frequency), now is not" in output
    assert "Reverted (fm_monitor_revert_on_regression)" in output
    assert sim.call(lambda: device.state["tuners"][0]["frequency"]) == station


def test_a_rollout_with_a_regression_restores_the_configuration_before_the_upgrade_and_stops(
        sim, collections_path, tmp_path):
    """ts-001's stream stops with the new firmware (a loss armed for the boot into it), and its
    input's port is changed while it upgrades (as a firmware's migration could): the
    configuration before the upgrade goes back, the firmware stays, the rollout stops before ts-002."""
    device, api = receiving_analyzer(sim, "ts-001")
    before = raw_analyzer(api)
    untouched = sim.fleet.by_name("ts-002")
    sim.call(untouched.reset)
    sim.call(device.lose_signal, 1, True)
    bundle = tmp_path / "analyzer-2.4.1.swu"
    bundle.write_bytes(swu.build("2.4.1"))
    done = threading.Event()

    def change_during_upgrade():
        while not done.wait(0.02):
            if any(r["path"] == "/api/system/upgrade" for r in sim.call(lambda: list(device.requests))):
                sim.call(lambda: device.state["inputs"]["1"]["config"]["eth"]["multicast"].update(multicast_port=5999))
                return
    watcher = threading.Thread(target=change_during_upgrade, daemon=True)
    watcher.start()
    try:
        code, output, counts = run_playbook(
            sim, collections_path, tmp_path, "firmware_rollout.yml",
            all_vars={"broadcast_monitoring_password": "admin", "firmware_rollout_bundle": str(bundle),
                      "firmware_rollout_timeout": 30, "firmware_rollout_snapshot_confirm_interval": 0.3,
                      "firmware_rollout_revert_on_regression": True},
            options=["-e", "firmware_rollout_hosts=ts_analyzers"])
        after = raw_analyzer(Api(device))
    finally:
        done.set()
        watcher.join()
        sim.call(device.reset)
    assert code != 0 and counts["ts-001"]["failed"] == 1 and "ts-002" not in counts, output
    assert "Reverted (firmware_rollout_revert_on_regression)" in output and "sections written: inputs" in output
    assert "the firmware stays at 2.4.1" in output and "The rollout stops here." in output
    assert after == before
    assert sim.call(lambda: list(untouched.requests)) == []


#: the SNMP part (written before the inputs) changes, then the inputs' write is answered 500
FAILING_CHANGE = {"ts_analyzer_revert_on_regression": True,
                  "ts_analyzer_snmp": {"trap_addresses": ["192.0.2.101:162"]},
                  "ts_analyzer_inputs": [{"name": "News", "source": {"multicast": {"address": "239.1.1.9", "port": 5000}},
                                          "alert_profile": "Quiet"}]}
INPUTS_WRITE_FAILS = {"kind": "error", "count": 1, "method": "write", "path": "/api/inputs"}


def pre_change_backup(tmp_path, output):
    backups = list((tmp_path / "pre-change").iterdir())
    assert len(backups) == 1 and str(backups[0]) in output.replace("\n", ""), output
    return backups[0]


def test_a_change_that_fails_part_way_is_reverted_naming_what_failed_and_what_was_restored(
        sim, collections_path, tmp_path, analyzer):
    device, api = analyzer
    before = raw_analyzer(api)
    sim.call(device.faults.add, INPUTS_WRITE_FAILS)
    code, output, counts = site(sim, collections_path, tmp_path, "ts-002", FAILING_CHANGE)
    assert code != 0 and counts["ts-002"]["failed"] == 1, output
    flat = " ".join(output.split())
    assert "the change failed part-way: inputs:" in flat and "applied before it: snmp (changed)" in flat, output
    assert "Reverted (ts_analyzer_revert_on_regression)" in flat and "(sections written: snmp)" in flat, output
    assert "what worked before the change works again" in flat, output
    pre_change_backup(tmp_path, output)
    assert raw_analyzer(api) == before


def test_a_failed_change_on_a_device_that_is_gone_names_the_backup(sim, collections_path, tmp_path, analyzer):
    """The device stops answering once the inputs' write has failed: the restore cannot run,
    and the failure names the pre-change backup to restore."""
    device, api = analyzer
    snmp_before = api.get("/snmp/settings")
    sim.call(device.faults.add, INPUTS_WRITE_FAILS)
    done = threading.Event()

    def gone_after_the_failed_write():
        while not done.wait(0.02):
            if any(r["status"] == 500 for r in sim.call(lambda: list(device.requests))):
                sim.call(device.faults.add, {"kind": "drop", "seconds": 120})
                return
    watcher = threading.Thread(target=gone_after_the_failed_write, daemon=True)
    watcher.start()
    try:
        code, output, counts = site(sim, collections_path, tmp_path, "ts-002", FAILING_CHANGE)
    finally:
        done.set()
        watcher.join()
        sim.call(device.faults.replace, [])
    assert code != 0 and counts["ts-002"]["failed"] == 1, output
    flat = " ".join(output.split())
    assert "the change failed part-way (inputs:" in flat and "the revert did not complete" in flat, output
    saved = json.loads(pre_change_backup(tmp_path, output).read_text())
    assert api.get("/snmp/settings") != snmp_before  # not restored: the device was gone
    assert "192.0.2.101:162" not in json.dumps(saved) and "192.0.2.100:162" in json.dumps(saved)


def test_a_change_refused_by_its_plan_is_not_restored(sim, collections_path, tmp_path, analyzer):
    """Nothing was written: the device fails with the plan's message, and no restore runs."""
    device, api = analyzer
    sim.call(device.requests.clear)
    code, output, counts = site(sim, collections_path, tmp_path, "ts-002", dict(
        FAILING_CHANGE, ts_analyzer_inputs=[dict(FAILING_CHANGE["ts_analyzer_inputs"][0], alert_profile="Missing")]))
    assert code != 0 and counts["ts-002"]["failed"] == 1, output
    assert "nothing was written" in output and "Reverted" not in output and "sections written" not in output, output
    assert [r for r in sim.call(device.writes) if r["path"].startswith(("/api/snmp", "/api/inputs"))] == []


def test_a_change_that_fails_before_it_runs_fails_with_its_own_message(sim, collections_path, tmp_path, analyzer):
    """A role variable the role does not know stops the apply before any part runs: the device
    fails with that message, and no restore runs."""
    device, api = analyzer
    sim.call(device.requests.clear)
    code, output, counts = site(sim, collections_path, tmp_path, "ts-002", dict(FAILING_CHANGE, ts_analyzer_inptus=[]))
    assert code != 0 and counts["ts-002"]["failed"] == 1, output
    assert "ts_analyzer_inptus" in output and "Reverted" not in output and "sections written" not in output, output
    assert [r for r in sim.call(device.writes) if r["path"].startswith(("/api/snmp", "/api/inputs"))] == []


def test_without_the_option_a_failed_change_is_not_reverted(sim, collections_path, tmp_path, analyzer):
    device, api = analyzer
    sim.call(device.faults.add, INPUTS_WRITE_FAILS)
    change = {key: value for key, value in FAILING_CHANGE.items() if key != "ts_analyzer_revert_on_regression"}
    code, output, counts = site(sim, collections_path, tmp_path, "ts-002", change)
    assert code != 0 and counts["ts-002"]["failed"] == 1 and counts["ts-002"]["ignored"] == 0, output
    assert "applied before it: snmp (changed)" in " ".join(output.split())
    assert "192.0.2.101:162" in api.get("/snmp/settings")["trap_addresses"]
    assert not (tmp_path / "pre-change").exists()


def test_an_fm_change_that_fails_part_way_is_reverted(sim, collections_path, tmp_path):
    """The monitor's time zone is written, then the tuner's write is answered 500: the time zone
    goes back."""
    device = sim.fleet.by_name("fm-002")
    sim.call(device.reset)
    stations = sorted(f for f, s in device.band.items() if s["rssi"] >= 30)
    zone = sim.call(lambda: device.state["datetime"]["timezone"])
    sim.call(device.faults.add, {"kind": "error", "count": 1, "method": "write", "path": "/api/tuner"})
    code, output, counts = site(sim, collections_path, tmp_path, "fm-002", {
        "fm_monitor_revert_on_regression": True, "fm_monitor_time": {"timezone": "2"},
        "fm_monitor_tuners": [{"tuner_id": 0, "frequency": stations[1]}]})
    flat = " ".join(output.split())
    assert code != 0 and counts["fm-002"]["failed"] == 1, output
    assert "the change failed part-way: tuners:" in flat and "applied before it: time (changed)" in flat, output
    assert "Reverted (fm_monitor_revert_on_regression)" in flat, output
    assert sim.call(lambda: device.state["datetime"]["timezone"]) == zone

"""The device roles end to end: playbooks/site.yml converges the session fleet, a second run
changes nothing, one login per device per play, and playbooks/audit.yml (check mode) writes
nothing and reports drift made behind the roles' back."""

import json
import os
import re
import shutil
import time

import pytest
import yaml

from .conftest import ROOT, ansible_playbook, recap
from .device_api import Api, login

DEVICES = ("ts-001", "ts-002", "fm-001", "fm-002")


@pytest.fixture
def fleet(sim, collections_path, tmp_path):
    for name in DEVICES:
        sim.call(sim.fleet.by_name(name).reset)
    hosts = tmp_path / "hosts.yml"
    sim.write_inventory(str(hosts))
    return Runner(sim, collections_path, tmp_path, hosts)


class Runner:
    def __init__(self, sim, collections_path, workdir, hosts):
        self.sim, self.collections_path, self.workdir, self.hosts = sim, collections_path, workdir, hosts

    def clear(self):
        for name in DEVICES:
            self.sim.call(self.sim.fleet.by_name(name).requests.clear)

    def requests(self, name):
        return self.sim.call(lambda: list(self.sim.fleet.by_name(name).requests))

    def playbook(self, path, *args, password="admin"):
        """``path`` with the example inventory, which takes the password from the environment."""
        proc = ansible_playbook(self.sim, self.collections_path, self.workdir,
                                ["-i", str(self.hosts), "-i", os.path.join(ROOT, "playbooks", "inventory"), path] + list(args),
                                env={"BROADCAST_MONITORING_PASSWORD": password})
        return proc.returncode, proc.output


def site(runner, *args):
    return runner.playbook(os.path.join(ROOT, "playbooks", "site.yml"), *args)


def audit(runner, *args):
    report = runner.workdir / "drift.json"
    code, output = runner.playbook(os.path.join(ROOT, "playbooks", "audit.yml"), "-e", "audit_report=%s" % report, *args)
    assert code == 0, output
    return json.loads(report.read_text()), output


def drifted(report):
    """{host: {section: details}} of the sections that differ."""
    return {host: {e["section"]: e["details"] for e in entries if e["changed"]}
            for host, entries in report["drift"].items() if any(e["changed"] for e in entries)}


def test_site_converges_idempotent_one_login_and_audit(fleet):
    fleet.clear()
    code, output = site(fleet)
    assert code == 0, output
    first = recap(output)
    assert set(first) == set(DEVICES), output
    assert all(first[name]["changed"] > 0 and first[name]["failed"] == 0 for name in DEVICES), first
    for name in DEVICES:
        assert [r["kind"] for r in fleet.requests(name)].count("login") == 1, name
    declared = yaml.safe_load(open(os.path.join(ROOT, "playbooks", "inventory", "group_vars", "ts_analyzers.yml")))
    inputs = fleet.sim.call(lambda: fleet.sim.fleet.by_name("ts-001").state["inputs"])
    assert sorted(i["name"] for i in inputs.values()) == sorted(i["name"] for i in declared["ts_analyzer_inputs"])

    # Second run: nothing to do, nothing written, still one login per device.
    fleet.clear()
    code, output = site(fleet)
    assert code == 0, output
    assert all(counts["changed"] == 0 for counts in recap(output).values()), output
    # one task per device (issue 44): nothing deferred, so the batch ends in Ansible's main process
    assert all(counts["ok"] == 1 and counts["skipped"] == 0 for counts in recap(output).values()), output
    for name in DEVICES:
        kinds = [r["kind"] for r in fleet.requests(name)]
        assert kinds.count("login") == 1, (name, kinds)
        assert "write" not in kinds and "action" not in kinds, (name, kinds)

    # Audit right after: no drift, zero writes or actions on any device.
    fleet.clear()
    report, output = audit(fleet)
    assert report["devices_with_drift"] == [] and drifted(report) == {}, output
    assert "0 of 4 device(s) differ" in output
    for name in DEVICES:
        kinds = [r["kind"] for r in fleet.requests(name)]
        assert kinds.count("login") == 1 and "write" not in kinds and "action" not in kinds, (name, kinds)

    # Behind the roles' back: pause an input on ts-001, retune a tuner on fm-001, add an input on ts-002.
    code, output = fleet.playbook(str(_behind_their_back(fleet)))
    assert code == 0, output
    fleet.clear()
    report, output = audit(fleet, "-e", "ts_analyzer_purge=true")  # with purge, an undeclared input is drift too
    drift = drifted(report)
    # Issue 21 item 4: the report says what differs, field by field, as text and as data
    assert drift["ts-001"] == {"inputs": ["update Mux 1: monitoring stopped -> started,"
                                          " source.multicast.port 5002 -> 5000"]}, output
    assert drift["ts-002"] == {"inputs": ["delete Stray"]}, output
    assert drift["fm-001"] == {"tuners": ["update tuner 0: frequency 99900 -> 94800"]}, output
    entry = [e for e in report["drift"]["ts-001"] if e["section"] == "inputs"][0]
    assert sorted(entry["differences"], key=lambda d: d["path"]) == [
        {"key": "Mux 1", "action": "update", "path": "monitoring", "current": "stopped", "declared": "started"},
        {"key": "Mux 1", "action": "update", "path": "source.multicast.port", "current": 5002, "declared": 5000}]
    assert "source.multicast.port 5002 -> 5000" in output  # the table shows it too
    assert "fm-002" not in drift
    assert sorted(report["devices_with_drift"]) == ["fm-001", "ts-001", "ts-002"]
    assert "3 of 4 device(s) differ" in output
    for name in DEVICES:
        kinds = [r["kind"] for r in fleet.requests(name)]
        assert kinds.count("login") == 1 and "write" not in kinds and "action" not in kinds, (name, kinds)

    # site.yml repairs exactly what drifted, and says so (issue 30 item 7): one line per object
    # without -v, and with --diff one diff per object, headed with its name.
    code, output = site(fleet, "-e", "ts_analyzer_purge=true", "--diff")
    assert code == 0, output
    lines = [line.rstrip() for line in output.splitlines()]
    for line in ('ts-001: inputs: update Mux 1: monitoring "stopped" -> "started", source.multicast.port 5002 -> 5000',
                 "ts-002: inputs: delete Stray", "fm-001: tuners: update tuner 0: frequency 99900 -> 94800",
                 "--- before: inputs: Mux 1", "+++ after: inputs: Stray", "--- before: tuners: tuner 0"):
        assert line in lines, (line, output)
    counts = recap(output)
    assert {name: counts[name]["changed"] for name in DEVICES} == {"ts-001": 1, "ts-002": 1, "fm-001": 1, "fm-002": 0}, output
    assert not fleet.sim.call(lambda: [i for i in fleet.sim.fleet.by_name("ts-002").state["inputs"].values()
                                       if i["name"] == "Stray"])


def _behind_their_back(fleet):
    def conn(name):
        device = fleet.sim.fleet.by_name(name)
        return {"host": device.address, "port": device.port, "password": "admin"}
    play = [{"name": "Change devices outside the roles", "hosts": "localhost", "gather_facts": False, "tasks": [
        {"name": "Pause Mux 1 on ts-001 and move its port", "broadcast.monitoring.ts_input": dict(
            conn("ts-001"), config=[{"name": "Mux 1", "monitoring": "stopped",
                                     "source": {"multicast": {"address": "239.1.1.1", "port": 5002}}}])},
        {"name": "Add an input on ts-002", "broadcast.monitoring.ts_input": dict(
            conn("ts-002"), config=[{"name": "Stray", "source": {"multicast": {"address": "239.9.9.9", "port": 5000}}}])},
        {"name": "Retune tuner 0 on fm-001", "broadcast.monitoring.fm_tuner": dict(
            conn("fm-001"), config=[{"tuner_id": 0, "frequency": 99900}])},
    ]}]
    path = fleet.workdir / "behind.yml"
    path.write_text(yaml.safe_dump(play, sort_keys=False))
    return path


def test_audit_of_new_devices_and_a_purged_profile_swap(fleet):
    """Issue 24 items 4 and 5 through the playbooks: audit.yml (check mode) on devices that
    have none of the declared profiles yet, and site.yml with purge replacing the profile the
    inputs use by another in one run."""
    limit = ("-l", "ts-001,localhost")
    fleet.clear()
    report, output = audit(fleet, *limit)
    drift = drifted(report)["ts-001"]
    assert drift["alert_profiles"] == ["create Contribution"], output
    assert drift["inputs"] == ["create Mux 1", "create Mux 2", "create ASI backup"], output
    assert all(r["kind"] not in ("write", "action") for r in fleet.requests("ts-001"))

    code, output = site(fleet, *limit)
    assert code == 0, output
    declared = yaml.safe_load(open(os.path.join(ROOT, "playbooks", "inventory", "group_vars", "ts_analyzers.yml")))
    swapped = {
        "ts_analyzer_purge": True,
        "ts_analyzer_alert_profiles": [dict(p, name=p["name"] + " B") for p in declared["ts_analyzer_alert_profiles"]],
        "ts_analyzer_inputs": [dict(i, alert_profile=i["alert_profile"] + " B") if "alert_profile" in i else i
                               for i in declared["ts_analyzer_inputs"]],
    }
    extra = fleet.workdir / "swapped.yml"
    extra.write_text(yaml.safe_dump(swapped))
    fleet.clear()
    report, output = audit(fleet, *limit, "-e", "@%s" % extra)
    drift = drifted(report)["ts-001"]
    assert drift["alert_profiles"] == ["create Contribution B", "delete Contribution"], output
    assert drift["inputs"] == ["update Mux 1: alert_profile Contribution -> Contribution B",
                               "update Mux 2: alert_profile Contribution -> Contribution B"], output
    assert all(r["kind"] not in ("write", "action") for r in fleet.requests("ts-001"))
    for expected_changed in (1, 0):
        code, output = site(fleet, *limit, "-e", "@%s" % extra)
        assert code == 0, output
        assert recap(output)["ts-001"]["changed"] == expected_changed, output
    profiles = fleet.sim.call(lambda: fleet.sim.fleet.by_name("ts-001").state["profiles"])
    assert sorted(p["name"] for p in profiles) == ["Contribution B", "Default"]


def _sleeping(fleet, name, tuner_ids):
    device = fleet.sim.fleet.by_name(name)
    return fleet.sim.call(lambda: all(device.state["tuners"][tid]["state"] == 2 for tid in tuner_ids))


def test_the_schedule_puts_tuners_to_sleep_and_site_leaves_them_asleep(fleet):
    """Issue 21 item 2: the example inventory's weekday schedule sends tuners 0 and 1 to sleep
    at 22:00; site.yml run after that event must not wake them (the schedule owns the state
    of a tuner whose schedule is active; spec: "a schedule event is reached ... state of the
    event"), and reports changed=0 on every device."""
    code, output = site(fleet)
    assert code == 0, output
    device = fleet.sim.fleet.by_name("fm-001")
    # The device clock, set through its API with NTP off, to three seconds before Monday 22:00
    # local time (the inventory's timezone is 1): the simulator's clock then runs in real time.
    api = Api(device)
    api.post("/conf/datetime", {"enable_ntp": False, "datetime": "2026-11-23T20:59:57Z", "timezone": 1})
    for tid in (0, 1):  # on air, as the 06:00 event left them (site.yml ran at the real time of day)
        api.post("/tuner/%d/state" % tid, {"state": 1})
    assert not _sleeping(fleet, "fm-001", (0, 1))
    deadline = time.monotonic() + 30  # a bound on waiting for the event, not a measurement
    while not _sleeping(fleet, "fm-001", (0, 1)) and time.monotonic() < deadline:
        api.get("/tuners/all")  # the simulator applies schedule events when a request comes in
        time.sleep(0.5)
    assert _sleeping(fleet, "fm-001", (0, 1)), "the 22:00 event did not fire"

    # fm_monitor_time left unmanaged, or site.yml would switch NTP back on and move the clock
    fleet.clear()
    code, output = site(fleet, "-e", '{"fm_monitor_time": null}')
    assert code == 0, output
    assert all(counts["changed"] == 0 for counts in recap(output).values()), output
    assert _sleeping(fleet, "fm-001", (0, 1))
    assert "write" not in [r["kind"] for r in fleet.requests("fm-001")]


def test_purge_per_part(fleet):
    """Issue 21 item 3: an exact SNMP trap list without deleting undeclared inputs
    (ts_analyzer_purge_snmp alone), and a part's own false over the role-wide true."""
    limit = ("-l", "ts-001,localhost")
    code, output = site(fleet, *limit)
    assert code == 0, output
    device = fleet.sim.fleet.by_name("ts-001")
    conn = {"host": device.address, "port": device.port, "password": "admin"}
    play = [{"name": "Change ts-001 outside the roles", "hosts": "localhost", "gather_facts": False, "tasks": [
        {"name": "Add an input", "broadcast.monitoring.ts_input": dict(
            conn, config=[{"name": "Stray", "source": {"multicast": {"address": "239.9.9.9", "port": 5000}}}])},
        {"name": "Add a trap receiver", "broadcast.monitoring.ts_snmp": dict(
            conn, trap_addresses=["192.0.2.250:162"], lists="add")},
    ]}]
    behind = fleet.workdir / "behind.yml"
    behind.write_text(yaml.safe_dump(play, sort_keys=False))
    code, output = fleet.playbook(str(behind))
    assert code == 0, output

    def names():
        return fleet.sim.call(lambda: sorted(i["name"] for i in device.state["inputs"].values()))

    def traps():
        return fleet.sim.call(lambda: device.state["snmp"]["trap_addresses"])

    inputs_before = names()
    assert "Stray" in inputs_before and "192.0.2.250:162" in str(traps())

    # check mode first: it plans the SNMP removal and writes nothing
    fleet.clear()
    code, output = site(fleet, *limit, "-e", "ts_analyzer_purge_snmp=true", "--check")
    assert code == 0 and recap(output)["ts-001"]["changed"] == 1, output
    assert all(r["kind"] not in ("write", "action") for r in fleet.requests("ts-001"))

    for expected_changed in (1, 0):
        code, output = site(fleet, *limit, "-e", "ts_analyzer_purge_snmp=true")
        assert code == 0 and recap(output)["ts-001"]["changed"] == expected_changed, output
    assert "192.0.2.250:162" not in str(traps()) and "192.0.2.100:162" in str(traps())
    assert names() == inputs_before  # the undeclared input stays: inputs are not purged

    # the role-wide switch with the inputs' own false: the input still stays
    code, output = site(fleet, *limit, "-e", '{"ts_analyzer_purge": true, "ts_analyzer_purge_inputs": false}')
    assert code == 0, output
    assert names() == inputs_before
    # the role-wide switch alone purges the inputs too
    code, output = site(fleet, *limit, "-e", "ts_analyzer_purge=true")
    assert code == 0, output
    assert "Stray" not in names()


def free_frequency(band):
    """An FM frequency (kHz) with no station on the air around the device (simulator's band)."""
    return next(f for f in range(87600, 108000, 100) if all(abs(f - s) >= 300 for s in band))


def test_a_change_that_reboots_and_enables_disabled_tuners_passes_the_gate(fleet):
    """Issue 30 item 1: site.yml with fm_monitor_reboot enables two tuners that were disabled at
    the factory, one on a station (it locks) and one on a frequency where nothing is on the air
    (it raises rfl_low and snr_low). Neither was enabled and tuned before, so neither can
    regress: the run passes, and the change is listed. A tuner that was locked and is not after
    the reboot still fails the monitor, naming it and the variable that waives the check."""
    device = fleet.sim.fleet.by_name("fm-001")
    band = fleet.sim.call(lambda: dict(device.band))
    station = max(band, key=lambda f: band[f]["rssi"])
    tuners = [{"tuner_id": 3, "name": "Relay", "frequency": station, "operating_state": "enabled"},
              {"tuner_id": 4, "name": "Spare", "frequency": free_frequency(band), "operating_state": "enabled"}]
    changed = {"fm_monitor_network": {"dns": ["192.0.2.99"]}, "fm_monitor_reboot": True,
               "fm_monitor_tuners": tuners, "fm_monitor_schedules_all": None,  # tuner states set here, not by a schedule
               "fm_monitor_snapshot_confirm_interval": 0.5}
    code, output = site(fleet, "--limit", "fm-001", "-e", json.dumps(changed))
    assert code == 0, output
    assert [r["path"] for r in fleet.requests("fm-001") if r["path"].endswith("/reboot")], "no reboot"
    after = Api(device).get("/tuners/all")
    assert (after[3]["state"], after[3]["tuned"]) == (1, True)
    assert (after[4]["state"], after[4]["tuned"]) == (1, False) and "rfl_low" in after[4]["quality"]["alarms"]
    assert "quality alarm(s) raised" not in output, output

    # a real regression: tuner 3 worked before this change, and loses its signal at the reboot
    fleet.sim.call(device.lose_signal, 3, False, True)
    again = dict(changed, fm_monitor_network={"dns": ["192.0.2.98"]})
    code, output = site(fleet, "--limit", "fm-001", "-e", json.dumps(again))
    assert code != 0 and recap(output)["fm-001"]["failed"] == 1, output
    assert "tuner 3 (Relay): was tuned (locked onto its frequency), now is not [check tuned]" in output, output
    assert "waive the check(s) with fm_monitor_snapshot_ignore: [tuned" in output, output
    assert "tuner 4 (Spare)" not in output.split("regression(s)", 1)[1].split("waive", 1)[0], output


def test_a_change_that_reboots_is_gated_by_snapshots(fleet):
    """Issue 23: with ts_analyzer_reboot, site.yml takes a snapshot before the change and, when
    the device rebooted, after it. On ts-001 the reboot leaves every input receiving: the run
    passes. On ts-002 the reboot loses the stream of input 1 (the simulator's loss armed for the
    next boot): the device fails, naming the input."""
    code, output = site(fleet, "--limit", "ts-001:ts-002")
    assert code == 0, output
    changed = json.dumps({"ts_analyzer_network": {"dns": ["192.0.2.99"]}, "ts_analyzer_reboot": True,
                          # the simulated streams' short priority-1 errors under the factory profile clear
                          # before a confirming snapshot 0.5 s later (25 simulated seconds)
                          "ts_analyzer_snapshot_confirm_interval": 0.5})
    fleet.clear()
    code, output = site(fleet, "--limit", "ts-001", "-e", changed)
    assert code == 0, output
    assert [r["path"] for r in fleet.requests("ts-001") if r["path"].endswith("/reboot")] == ["/api/system/reboot"]
    broken = fleet.sim.fleet.by_name("ts-002")
    fleet.sim.call(broken.lose_signal, 1, False, True)
    code, output = site(fleet, "--limit", "ts-002", "-e", changed)
    assert "waive the check(s) with ts_analyzer_snapshot_ignore: [receiving" in output, output
    assert code != 0 and recap(output)["ts-002"]["failed"] == 1, output
    assert "(id 1): was receiving its stream, now does not" in output, output


def test_in_batches_a_deferred_change_is_written_in_its_batch_under_the_gate(fleet):
    """site_serial=1 with the snapshot gate: ts-001 (first batch) defers its change to the gate,
    which writes it between the snapshots; ts-002 (second batch) has nothing to change, and
    only its one task runs (the gate's tasks are for the device that deferred a change)."""
    gated = {"ts_analyzer_network": {"dns": ["192.0.2.98"]}, "ts_analyzer_reboot": True,
             "ts_analyzer_snapshot_confirm_interval": 0.5}
    # ts-002 first brought to that state: a first run from another state may leave a reboot pending,
    # which the next one carries out
    for _attempt in range(3):
        code, output = site(fleet, "--limit", "ts-002", "-e", json.dumps(gated))
        assert code == 0, output
        if recap(output)["ts-002"]["changed"] == 0:
            break
    assert recap(output)["ts-002"]["changed"] == 0, output
    fleet.clear()
    code, output = site(fleet, "--limit", "ts-001:ts-002", "-e", json.dumps(dict(gated, site_serial=1)))
    assert code == 0, output
    assert output.count("PLAY [TS analyzers and FM monitors]") == 2, output  # two batches
    reboots = {name: [r["path"] for r in fleet.requests(name) if r["path"].endswith("/reboot")]
               for name in ("ts-001", "ts-002")}
    assert reboots == {"ts-001": ["/api/system/reboot"], "ts-002": []}, reboots
    assert [r for r in fleet.requests("ts-002") if r["kind"] in ("write", "action")] == []
    counts = recap(output)
    assert counts["ts-001"]["failed"] == 0 and counts["ts-001"]["changed"] >= 2, output  # deferred, then written
    assert counts["ts-002"]["ok"] == 1 and counts["ts-002"]["changed"] == 0, output
    assert "Snapshot after the reboot" in output, output


def test_the_example_inventory_has_no_fallback_password(fleet):
    """Without BROADCAST_MONITORING_PASSWORD (or a vaulted variable) the example inventory gives
    no password: the roles stop naming both places, and no device is asked to log in."""
    fleet.clear()
    code, output = fleet.playbook(os.path.join(ROOT, "playbooks", "site.yml"), "--check", password="")
    assert code != 0, output
    assert "broadcast_monitoring_password" in output and "BROADCAST_MONITORING_PASSWORD" in output, output
    assert all(fleet.requests(name) == [] for name in DEVICES), [fleet.requests(name) for name in DEVICES]


def test_the_roles_set_the_passwords_declared_and_a_rotation_settles(fleet):
    """Issue 43: ts_analyzer_passwords and fm_monitor_passwords rotate the fleet password in
    site.yml itself: in check mode nothing is written; the run with the old password sets the
    new ones (the user role's first); the next run, with the new password, changes nothing."""
    new = {"admin": "Rotated-Admin-7", "user": "Rotated-User-7"}
    passwords = fleet.workdir / "passwords.yml"
    passwords.write_text(yaml.safe_dump({"ts_analyzer_passwords": new, "fm_monitor_passwords": new}))
    code, output = site(fleet)  # the declared state first, so that only the passwords change below
    assert code == 0, output
    fleet.clear()
    code, output = site(fleet, "--check", "-e", "@%s" % passwords)
    assert code == 0 and all(counts["changed"] > 0 for counts in recap(output).values()), output
    assert all(r["kind"] in ("login", "read") for name in DEVICES for r in fleet.requests(name))
    code, output = site(fleet, "-e", "@%s" % passwords)
    assert code == 0 and all(counts["changed"] > 0 for counts in recap(output).values()), output
    for name in DEVICES:
        device = fleet.sim.fleet.by_name(name)
        assert login(device, new["admin"]).status_code == 200 and login(device, new["user"], "user").status_code == 200
        assert login(device, "admin").status_code != 200, name
    fleet.clear()
    code, output = fleet.playbook(os.path.join(ROOT, "playbooks", "site.yml"), "-e", "@%s" % passwords,
                                  password=new["admin"])
    assert code == 0 and all(counts["changed"] == 0 for counts in recap(output).values()), output
    assert not [r for name in DEVICES for r in fleet.requests(name) if r["kind"] in ("write", "action")]


def test_under_the_snapshot_gate_the_passwords_are_set_after_the_change_and_its_snapshot(fleet):
    """With the gate on (ts_analyzer_reboot), the change is written between the snapshots, which
    log in with the password given, and the passwords declared are set only then; the next run,
    with the new password and the gate still on, changes nothing."""
    new = {"admin": "Gated-Admin-8", "user": "Gated-User-8"}
    gated = {"ts_analyzer_network": {"dns": ["192.0.2.97"]}, "ts_analyzer_reboot": True,
             "ts_analyzer_snapshot_confirm_interval": 0.5, "ts_analyzer_passwords": new}
    variables = fleet.workdir / "gated.yml"  # a file: -vvvv shows the extra variables of the command line
    variables.write_text(yaml.safe_dump(gated))
    device = fleet.sim.fleet.by_name("ts-001")
    code, output = site(fleet, "--limit", "ts-001")
    assert code == 0, output
    fleet.clear()
    code, output = site(fleet, "--limit", "ts-001", "-e", "@%s" % variables)
    assert code == 0, output
    assert "Snapshot after the reboot" in output and "Set the passwords of the analyzer's roles" in output, output
    paths = [r["path"] for r in fleet.requests("ts-001")]
    assert "/api/system/reboot" in paths, paths
    assert login(device, new["admin"]).status_code == 200 and login(device, new["user"], "user").status_code == 200
    assert new["admin"] not in output and new["user"] not in output
    fleet.clear()
    code, output = fleet.playbook(os.path.join(ROOT, "playbooks", "site.yml"), "--limit", "ts-001",
                                  "-e", "@%s" % variables, password=new["admin"])
    assert code == 0 and recap(output)["ts-001"]["changed"] == 0, output


def test_a_bad_password_declared_fails_the_device_before_any_request(fleet):
    """device_password's own checks, made by the role's first task before it logs in: the
    variable is named, the password is not shown, nothing is asked of the device."""
    variables = fleet.workdir / "bad.yml"  # a file: -vvvv shows the extra variables of the command line
    variables.write_text(yaml.safe_dump({"ts_analyzer_passwords": {"admin": "x" * 200}}))
    fleet.clear()
    code, output = site(fleet, "--limit", "ts-001", "-e", "@%s" % variables)
    assert code != 0, output
    assert "ts_analyzer_passwords.admin: must be at most" in output and "x" * 200 not in output, output
    assert fleet.requests("ts-001") == []


def test_site_in_batches_stops_at_the_first_failed_device(fleet):
    """site_serial and site_max_fail_percentage (the guide's batches): ts-001 refuses the login,
    so its batch fails and ts-002, in the next batch, is never contacted."""
    first = fleet.sim.fleet.by_name("ts-001")
    fleet.sim.call(lambda: first.state["passwords"].update(admin="changed-by-hand"))
    fleet.clear()
    try:
        code, output = fleet.playbook(os.path.join(ROOT, "playbooks", "site.yml"), "--limit", "ts_analyzers",
                                      "-e", "site_serial=1", "-e", "site_max_fail_percentage=0")
        contacted = {name: fleet.requests(name) for name in ("ts-001", "ts-002")}
    finally:
        fleet.sim.call(first.reset)
    assert code != 0 and "Wrong credentials" in output, output
    assert output.count("PLAY [TS analyzers and FM monitors]") == 1, output  # the second batch never started
    assert contacted["ts-001"] and contacted["ts-002"] == [], contacted


def test_a_mistake_in_one_device_types_group_vars_does_not_stop_the_other_type(fleet):
    """Issue 43 item 4: a misspelt variable in the analyzers' group_vars fails every analyzer;
    site.yml still brings the FM monitors to their declared state in the same run."""
    inventory = fleet.workdir / "inventory"
    shutil.copytree(os.path.join(ROOT, "playbooks", "inventory"), str(inventory))
    shutil.copy(str(fleet.hosts), str(inventory / "hosts.yml"))
    with open(inventory / "group_vars" / "ts_analyzers.yml", "a", encoding="utf-8") as handle:
        handle.write("ts_analyzer_inptus: []  # misspelt\n")
    fleet.clear()
    proc = ansible_playbook(fleet.sim, fleet.collections_path, fleet.workdir,
                            ["-i", str(inventory), os.path.join(ROOT, "playbooks", "site.yml")],
                            env={"BROADCAST_MONITORING_PASSWORD": "admin"})
    counts = recap(proc.output)
    assert proc.returncode != 0 and "ts_analyzer_inptus" in proc.output, proc.output
    assert set(counts) == set(DEVICES), proc.output
    assert all(counts[name]["failed"] == 1 for name in ("ts-001", "ts-002")), counts
    assert all(counts[name]["failed"] == 0 and counts[name]["changed"] > 0 for name in ("fm-001", "fm-002")), counts
    for name in ("fm-001", "fm-002"):
        tuners = fleet.sim.call(lambda name=name: fleet.sim.fleet.by_name(name).state["tuners"])
        assert "Radio One" in json.dumps(tuners), (name, tuners)


def _tuner_states(fleet, name):
    device = fleet.sim.fleet.by_name(name)
    return fleet.sim.call(lambda: {tid: (t["state"], t["schedule"]["active"])
                                   for tid, t in enumerate(device.state["tuners"][:2])})


def test_a_purge_leaves_a_scheduled_tuner_in_the_state_its_schedule_gives_now(fleet):
    """Issue 30 item 3: tuner 0's declared schedule is active but was turned off by hand on the
    device, the tuner still enabled (Thursday 10:00, between the 06:00 and 22:00 events).
    The audit with purge plans the schedule's re-activation and no state change, and
    site.yml with purge re-activates it and leaves the tuner enabled, not at factory
    "disabled". On Monday 05:00, a schedule re-activated by hand-off puts its tuner in the
    state of its latest event before now, wrapping around the week: Friday 22:00, sleep."""
    limit = ("-l", "fm-001,localhost")
    no_time = ("-e", '{"fm_monitor_time": null}')  # or site.yml would switch NTP on and move the clock
    api = Api(fleet.sim.fleet.by_name("fm-001"))
    # device local time Thursday 2026-11-26 10:00 (timezone +1)
    api.post("/conf/datetime", {"enable_ntp": False, "datetime": "2026-11-26T09:00:00Z", "timezone": 1})
    code, output = site(fleet, *limit, *no_time)
    assert code == 0, output
    assert _tuner_states(fleet, "fm-001") == {0: (1, True), 1: (1, True)}, output  # factory disabled: enabled by "now"

    api.post("/tuner/0/schedule", {"active": False})  # by hand; the tuner stays enabled
    assert _tuner_states(fleet, "fm-001")[0] == (1, False)
    fleet.clear()
    report, output = audit(fleet, *limit, *no_time, "-e", "fm_monitor_purge=true")
    drift = drifted(report)["fm-001"]
    assert drift == {"schedules": ["update tuner 0: active false -> true"]}, output
    code, output = site(fleet, *limit, *no_time, "-e", "fm_monitor_purge=true")
    assert code == 0, output
    assert _tuner_states(fleet, "fm-001")[0] == (1, True), output
    states = [r["path"] for r in fleet.requests("fm-001") if r["path"].endswith("/state")]
    assert states == [], states  # never switched off, not even for a moment

    # Monday 05:00: the latest event is Friday 22:00 (sleep), across the week's end
    api.post("/conf/datetime", {"enable_ntp": False, "datetime": "2026-11-30T04:00:00Z", "timezone": 1})
    api.post("/tuner/1/schedule", {"active": False})
    api.post("/tuner/1/state", {"state": 1})
    report, output = audit(fleet, *limit, *no_time, "-e", "fm_monitor_purge=true")
    assert drifted(report)["fm-001"] == {
        "schedules": ["update tuner 1: active false -> true, operating_state enabled -> sleep"]}, output
    for expected_changed in (1, 0):
        code, output = site(fleet, *limit, *no_time, "-e", "fm_monitor_purge=true")
        assert code == 0 and recap(output)["fm-001"]["changed"] == expected_changed, output
        assert _tuner_states(fleet, "fm-001") == {0: (1, True), 1: (2, True)}, output


def test_audit_scoped_with_limit_reports_the_hosts_that_ran_and_keeps_each_run(fleet):
    """Issue 30 item 4: audit.yml --limit ts-001 (localhost not named) writes a report of
    ts-001 alone, lists the other devices as not audited (neither failed nor drifted), and
    keeps each run's report under its own UTC timestamp, the latest copied to audit_report.
    A device whose audit fails is reported as failed, apart from those not audited."""
    latest = fleet.workdir / "drift.json"
    report, output = audit(fleet)  # every device: the report a scoped run must not leave in place
    assert sorted(report["audited"]) == sorted(DEVICES) and report["not_audited"] == [], output
    first = report["report"]
    time.sleep(1.1)  # the next run's report gets another (whole-second) timestamp
    report, output = audit(fleet, "--limit", "ts-001")
    assert "skipping: no hosts matched" not in output, output
    assert report["audited"] == ["ts-001"] and list(report["drift"]) == ["ts-001"], output
    assert sorted(report["not_audited"]) == ["fm-001", "fm-002", "ts-002"], output
    assert report["failed"] == {} and report["devices_with_drift"] == ["ts-001"], output
    assert "1 of 1 device(s) differ from the declared state; 3 not audited" in output, output
    assert "fm-001     (not audited)    -      not in this run" in output, output
    runs = sorted(p.name for p in fleet.workdir.glob("drift-*.json"))
    assert len(runs) == 2 and os.path.basename(first) == runs[0], runs
    assert re.fullmatch(r"drift-\d{8}T\d{6}Z\.json", runs[1]) and report["report"].endswith(runs[1]), runs
    assert json.loads((fleet.workdir / runs[1]).read_text()) == json.loads(latest.read_text())
    assert json.loads((fleet.workdir / runs[0]).read_text())["audited"] != ["ts-001"]  # the earlier run is kept

    # ts-002 cannot log in: its audit failed; fm-00x were not audited; ts-001 was
    inventory = yaml.safe_load(fleet.hosts.read_text())
    for group in inventory["all"]["children"].values():
        if "ts-002" in (group.get("hosts") or {}):
            group["hosts"]["ts-002"]["ts_analyzer_password"] = "not-the-password"
    broken = fleet.workdir / "broken.yml"
    broken.write_text(yaml.safe_dump(inventory))
    proc = ansible_playbook(fleet.sim, fleet.collections_path, fleet.workdir,
                            ["-i", str(broken), "-i", os.path.join(ROOT, "playbooks", "inventory"),
                             os.path.join(ROOT, "playbooks", "audit.yml"), "-e", "audit_report=%s" % latest,
                             "--limit", "ts-001,ts-002,localhost"],
                            env={"BROADCAST_MONITORING_PASSWORD": "admin"})
    assert proc.returncode != 0 and recap(proc.output)["ts-002"]["failed"] == 1, proc.output
    report = json.loads(latest.read_text())
    assert report["audited"] == ["ts-001"] and list(report["failed"]) == ["ts-002"], report
    assert "login" in report["failed"]["ts-002"], report
    assert sorted(report["not_audited"]) == ["fm-001", "fm-002"] and "ts-002" not in report["drift"], report
    assert "ts-002     (audit failed)   FAILED" in proc.output, proc.output
    assert "1 of 1 device(s) differ from the declared state; 1 failed; 2 not audited" in proc.output, proc.output


def test_audit_names_what_a_reboot_waits_for_and_lists_what_is_not_declared(fleet):
    """Issue 30 item 9: after site.yml changed network and logging without a reboot, the
    device reports a reboot pending but not after what: the audit says so, without naming
    sections that do not change now; a network change the audit plans is named alone. An
    input added by hand is listed, without purge, as on the device and not declared
    (information: neither drift nor failure); with purge it is drift."""
    limit = ("--limit", "ts-001")
    code, output = site(fleet, *limit)
    assert code == 0, output
    code, output = fleet.playbook(str(_stray_input(fleet)))
    assert code == 0, output

    report, output = audit(fleet, *limit)
    assert report["devices_with_drift"] == [] and drifted(report) == {}, output
    assert report["not_declared"] == {"ts-001": {"inputs": ["Stray"]}}, report["not_declared"]
    assert "ts-001     inputs           info   on the device, not declared: Stray" in output, output
    assert report["reboot_pending"] == {"ts-001": {"after": [], "earlier_change": True}}, output
    assert "pending after" not in output and "reboot pending from an earlier change" in output, output

    report, output = audit(fleet, *limit, "-e", '{"ts_analyzer_network": {"dns": ["192.0.2.99"]}}')
    assert list(drifted(report)["ts-001"]) == ["network"], output
    assert report["reboot_pending"]["ts-001"]["after"] == ["network"], report["reboot_pending"]
    table = [line for line in output.splitlines() if "(reboot)" in line]
    assert table and "pending after: network" in table[0], (table, report["reboot_pending"])

    report, output = audit(fleet, *limit, "-e", "ts_analyzer_purge=true")
    assert drifted(report)["ts-001"] == {"inputs": ["delete Stray"]}, output
    assert report["not_declared"] == {}, report["not_declared"]


def test_audit_sees_every_list_entry_added_by_hand(fleet):
    """Issue 43 item 2: a trap receiver and an SNMP listen address added by hand appear in the
    audit as on the device and not declared (information: the role adds to the lists), and as
    drift with purge (lists: replace); a DNS server added by hand is drift (the role sets the
    list whole). Each difference's declared is exactly what the inventory declares, and the
    table gives each list difference in full."""
    limit = ("--limit", "ts-001")
    code, output = site(fleet, *limit)
    assert code == 0, output
    code, output = fleet.playbook(str(_by_hand(fleet, "ts-001", [
        {"broadcast.monitoring.ts_snmp": {"trap_addresses": ["192.0.2.77:162"], "listen_addresses": ["10.1.1.1"]}},
        {"broadcast.monitoring.device_network": {"device_type": "ts_analyzer",
                                                 "dns": ["192.0.2.53", "192.0.2.54", "192.0.2.99"]}},
        {"broadcast.monitoring.device_time": {"device_type": "ts_analyzer",
                                              "ntp_servers": ["0.pool.ntp.org", "1.pool.ntp.org", "2.pool.ntp.org"]}}])))
    assert code == 0, output

    report, output = audit(fleet, *limit)
    assert report["not_declared"] == {"ts-001": {"snmp.trap_addresses": ["192.0.2.77:162"],
                                                 "snmp.listen_addresses": ["10.1.1.1"]}}, report["not_declared"]
    assert drifted(report) == {"ts-001": {"network": ["dns: remove 192.0.2.99"],
                                          "time": ["ntp_servers: remove 2.pool.ntp.org"]}}, output
    table = (fleet.workdir / "drift.txt").read_text()
    assert re.search(r"^ts-001 +snmp.trap_addresses +info +on the device, not declared: 192.0.2.77:162$", table, re.M), table
    assert re.search(r"^ts-001 +network +yes +dns: remove 192.0.2.99$", table, re.M), table
    assert table.splitlines()[0].startswith("DEVICE") and "\\" not in output.split("Show the drift table")[1], output
    network = next(e for e in report["drift"]["ts-001"] if e["section"] == "network")
    assert network["differences"] == [{"key": None, "action": "update", "path": "dns",
                                       "current": ["192.0.2.53", "192.0.2.54", "192.0.2.99"],
                                       "declared": ["192.0.2.53", "192.0.2.54"]}], network

    declared = ["192.0.2.100:162", "192.0.2.101:162"]
    report, output = audit(fleet, *limit, "-e", json.dumps({"ts_analyzer_snmp": {"trap_addresses": declared}}))
    snmp = next(e for e in report["drift"]["ts-001"] if e["section"] == "snmp")
    assert snmp["details"] == ["trap_addresses: add 192.0.2.101:162"], snmp
    assert [(d["path"], d["declared"]) for d in snmp["differences"]] == [("trap_addresses", declared)], snmp

    report, output = audit(fleet, *limit, "-e", "ts_analyzer_purge_snmp=true")
    assert drifted(report)["ts-001"]["snmp"] == ["listen_addresses: remove 10.1.1.1",
                                                 "trap_addresses: remove 192.0.2.77:162"], output
    assert "snmp.trap_addresses" not in report["not_declared"].get("ts-001", {}), report["not_declared"]


def test_audit_sees_schedule_events_added_by_hand_on_days_not_declared(fleet):
    """Issue 43 item 2: an event added by hand on a day the inventory does not declare (the
    example schedules declare Monday to Friday) is listed as on the device and not declared,
    named as the diff names the tuner; with purge it is drift. One on a declared day is drift."""
    limit = ("--limit", "fm-001")
    no_time = ("-e", '{"fm_monitor_time": null}')  # site.yml would switch NTP on and move the clock
    code, output = site(fleet, *limit, *no_time)
    assert code == 0, output
    code, output = fleet.playbook(str(_by_hand(fleet, "fm-001", [{"broadcast.monitoring.fm_schedule": {"config": [
        {"tuner_id": 0, "events": {"saturday": [{"time": "08:00", "state": "enabled"}],
                                   "monday": [{"time": "06:00", "state": "enabled"}, {"time": "12:00", "state": "sleep"},
                                              {"time": "22:00", "state": "sleep"}]}}]}}])))
    assert code == 0, output

    report, output = audit(fleet, *limit, *no_time)
    assert report["not_declared"] == {"fm-001": {"schedules.events": ["tuner 0 saturday 08:00 enabled"]}}, output
    schedules = drifted(report)["fm-001"]["schedules"]
    assert len(schedules) == 1 and schedules[0].startswith("update tuner 0: events.monday "), schedules
    assert "12:00" in schedules[0] and "..." not in schedules[0], schedules  # in full, never cut

    report, output = audit(fleet, *limit, *no_time, "-e", "fm_monitor_purge_schedules=true")
    assert "saturday" in " ".join(drifted(report)["fm-001"]["schedules"]), output
    assert report["not_declared"] == {}, report["not_declared"]


def _by_hand(fleet, name, tasks):
    """A play that makes ``tasks`` (module: options, without the connection) on ``name`` directly."""
    device = fleet.sim.fleet.by_name(name)
    connection = {"host": device.address, "port": device.port, "password": "admin"}
    play = [{"name": "Change %s by hand" % name, "hosts": "localhost", "gather_facts": False, "tasks": [
        {"name": "By hand: %s" % module, module: dict(options, **connection)}
        for task in tasks for module, options in task.items()]}]
    path = fleet.workdir / "by-hand.yml"
    path.write_text(yaml.safe_dump(play, sort_keys=False))
    return path


def _stray_input(fleet):
    device = fleet.sim.fleet.by_name("ts-001")
    play = [{"name": "Add an input by hand", "hosts": "localhost", "gather_facts": False, "tasks": [
        {"name": "Add Stray on ts-001", "broadcast.monitoring.ts_input": {
            "host": device.address, "port": device.port, "password": "admin",
            "config": [{"name": "Stray", "source": {"multicast": {"address": "239.9.9.9", "port": 5000}}}]}}]}]
    path = fleet.workdir / "stray.yml"
    path.write_text(yaml.safe_dump(play, sort_keys=False))
    return path

"""Check mode, for every module that writes and each of its option families and states.

Each case starts from a factory-reset device (set up further by real module runs where it
needs something to act on), runs the module with check mode and diff, and then the same
parameters for real:

- the check-mode run sends no write or action request (simulator request log) and writes
  no local file;
- the real run reports the same ``changed``, the same ``diff`` and (where the module
  returns them) the same ``changes``.

Info modules (ts_info, fm_info, device_login) run in check mode and send no write.
Modules run in process over real HTTP (inprocess.py); the first test shows that a real
ansible-playbook run gives the same result.
"""

import datetime
import os
import time

import pytest

from tests.reliability import figures
from tests.functional.conftest import connection
from tests.reliability.inprocess import CONTROLLER_KEYS, run_module
from bm_simulator import swu

SECTION = "check_mode"
COVERED = set()

MUX = {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}
ASI = {"name": "ASI 1", "source": {"asi": {"port": 1}}, "monitoring": "stopped"}
# no signal (listens on an address that is not the analyzer's): nothing accumulates, so
# statistics and alert logs stay the same between the check run and the real run
QUIET = {"name": "Quiet", "source": {"unicast": {"address": "10.9.9.9", "port": 6000}}}
CONVERTER = {"asi_port": 1, "running": True, "multicast_address": "239.5.5.5", "multicast_port": 6000,
             "interface": "eth0", "ttl": 16}
STRICT = {"name": "Strict", "errors": {"continuity_count_error": {"alert_type": "critical", "snmp_trap": True}}}


class Env:
    """One case's device, its connection options and a scratch folder."""

    def __init__(self, sim, device, tmp_path):
        self.sim = sim
        self.device = device
        self.tmp = tmp_path
        self.conn = connection(device)
        self.kind = device.kind

    def run(self, module, check=False, **args):
        result = run_module(module, dict(self.conn, **args), check=check)
        assert not result.get("failed"), (module, args, result.get("msg"))
        return result

    def path(self, name):
        return str(self.tmp / name)

    def wait_up(self, timeout=10):
        """Until the device is back from a reboot the module did not wait for: it goes away
        shortly after answering the reboot request, then comes back."""
        deadline = time.monotonic() + timeout
        for away in (True, False):
            while self.sim.call(lambda: self.device.down) != away:
                assert time.monotonic() < deadline, "the device did not %s" % ("go away" if away else "come back")
                time.sleep(0.02)


# -- set-ups (real runs) -------------------------------------------------------------------------
def inputs(*config):
    def setup(env):
        env.run("ts_input", state="overridden", config=list(config))
    return setup


def profiles(*config):
    def setup(env):
        env.run("ts_alert_profile", config=list(config))
    return setup


def traps(env):
    env.run("ts_snmp", enabled=True, trap_addresses=["10.0.0.1:162", "10.0.0.2:162"], listen_addresses=["0.0.0.0"])


def converter_running(env):
    env.run("ts_converter", config=[CONVERTER])


def recording(env):
    inputs(MUX)(env)
    env.run("ts_recording", operation="start", input="Mux 1")


def capture_file(env):
    """A finished capture file on the card; returns its name."""
    inputs(MUX)(env)
    env.run("ts_recording", operation="start", input="Mux 1", duration=1)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        files = env.run("ts_recording", operation="list")["files"]
        if files and not any(f.get("recording") for f in files):
            return files[0]["filename"]
        time.sleep(0.05)
    raise AssertionError("no finished capture file")


def tuner_changed(env):
    env.run("fm_tuner", config=[{"tuner_id": 1, "muted": True, "hw_settings": {"lna_gain": 7}, "name": "Old"}])


def scanned(env):
    env.run("fm_station", state="scanned", tuner_id=7)


def first_station(env):
    return env.run("fm_station", state="absent", station_ids=[10 ** 6], check=True)["stations"][0]


def thresholds_changed(env):
    env.run("fm_thresholds", config=[{"tuner_id": 1, "rssi": {"min": 40}, "rds": {"sync_lost": True}}])


def far_day():
    """A weekday three days from now: its events cannot fire while the case runs."""
    days = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    return days[(datetime.datetime.now(datetime.timezone.utc).weekday() + 3) % 7]


def schedule_changed(env):
    env.run("fm_schedule", config=[{"tuner_id": 1, "active": True, "events": {far_day(): [{"time": "06:00", "state": "enabled"}]}}])


def alerts_raised(env):
    """Alerts in the log that no longer grow: an enabled tuner on an empty frequency
    raises RFL/SNR low; disabling it closes them."""
    env.run("fm_tuner", config=[{"tuner_id": 0, "operating_state": "enabled"}])
    time.sleep(0.5)
    env.run("fm_tuner", config=[{"tuner_id": 0, "operating_state": "disabled"}])


def hostname_pending(env):
    env.run("device_network", hostname="pending-name")


def backup_then_reset(env):
    if env.kind == "ts_analyzer":
        inputs(MUX, ASI)(env)
    else:
        tuner_changed(env)
    env.run("device_backup", dest=env.path("restore.json"))
    env.sim.call(env.device.reset)


def bundle(env):
    with open(env.path("fw.swu"), "wb") as handle:
        handle.write(swu.build("2.0.0"))


# -- the matrix --------------------------------------------------------------------------------
class Case:
    """``args(env)`` gives the module options (after ``setup(env)``); ``files`` are local
    paths the module writes (then the change is the file's, not the device's), which check
    mode must not create; ``diff=False`` where the module documents that check mode cannot
    know the outcome (see ``reason``)."""

    def __init__(self, module, name, device, args, setup=None, files=(), diff=True, reason=None, after=None, marks=(),
                 changed=True):
        self.module, self.name, self.device = module, name, device
        self.args, self.setup, self.files = args, setup, files
        self.diff, self.reason, self.after, self.marks = diff, reason, after, marks
        #: what the case is built to do: a change, or none (so a module that never reports one fails)
        self.changed = changed

    def param(self):
        return pytest.param(self, id="%s-%s-%s" % (self.module, self.device, self.name), marks=self.marks)


def fixed(**args):
    def build(env):
        return dict(args)
    return build


def file_arg(key, name, **args):
    def build(env):
        return dict(args, **{key: env.path(name)})
    return build


def both(module, name, args, **kwargs):
    """The same case on each device type (device_* modules)."""
    return [Case(module, name, "ts", args, **kwargs), Case(module, name, "fm", args, **kwargs)]


def fm_or_ts(ts_value, fm_value):
    def pick(env):
        return ts_value if env.kind == "ts_analyzer" else fm_value
    return pick


def with_device_type(build):
    def args(env):
        return dict(build(env), device_type=env.kind)
    return args


def device_fixed(**args):
    def build(env):
        return {key: value(env) if callable(value) else value for key, value in args.items()}
    return with_device_type(build)


UPDATED_MUX = dict(MUX, source={"multicast": {"address": "239.1.1.1", "port": 5002}}, monitoring="stopped", scte35=True,
                   thumbnails={"pid": 256})

CASES = [
    # ts_input: every state, creates, updates (config, monitoring, SCTE-35, thumbnails), deletes
    Case("ts_input", "merged-create", "ts", fixed(config=[MUX, ASI])),
    Case("ts_input", "merged-unchanged", "ts", fixed(config=[MUX]), setup=inputs(MUX), changed=False),
    Case("ts_input", "merged-update-all-parts", "ts", fixed(config=[UPDATED_MUX]), setup=inputs(MUX)),
    Case("ts_input", "replaced", "ts", fixed(state="replaced", config=[MUX]), setup=inputs(UPDATED_MUX)),
    Case("ts_input", "overridden", "ts", fixed(state="overridden", config=[MUX]), setup=inputs(MUX, ASI)),
    Case("ts_input", "deleted-named", "ts", fixed(state="deleted", config=[{"name": "ASI 1"}]), setup=inputs(MUX, ASI)),
    Case("ts_input", "deleted-all", "ts", fixed(state="deleted", config=[]), setup=inputs(MUX, ASI)),
    # ts_alert_profile
    Case("ts_alert_profile", "merged-create", "ts", fixed(config=[STRICT])),
    Case("ts_alert_profile", "merged-update-default", "ts",
         fixed(config=[{"name": "Default", "errors": {"ts_sync_loss": {"snmp_trap": True, "threshold": 3}}}])),
    Case("ts_alert_profile", "replaced", "ts",
         fixed(state="replaced", config=[{"name": "Strict", "errors": {"pcr_accuracy_error": {"enabled": False}}}]),
         setup=profiles(STRICT)),
    Case("ts_alert_profile", "overridden", "ts", fixed(state="overridden", config=[{"name": "Default"}, STRICT]),
         setup=profiles(STRICT, {"name": "Other"})),
    Case("ts_alert_profile", "deleted", "ts", fixed(state="deleted", config=[{"name": "Strict"}]), setup=profiles(STRICT)),
    # ts_snmp: each way lists meet the device's
    Case("ts_snmp", "add", "ts", fixed(enabled=True, listen_addresses=["0.0.0.0"], trap_addresses=["10.0.0.1:162"])),
    Case("ts_snmp", "remove", "ts", fixed(lists="remove", trap_addresses=["10.0.0.1:162"]), setup=traps),
    Case("ts_snmp", "replace", "ts", fixed(lists="replace", listen_addresses=[], trap_addresses=["10.0.0.3:1162"]),
         setup=traps),
    Case("ts_snmp", "unchanged", "ts", fixed(enabled=True, trap_addresses=["10.0.0.2:162"]), setup=traps, changed=False),
    # ts_converter
    Case("ts_converter", "merged-start", "ts", fixed(config=[CONVERTER])),
    Case("ts_converter", "merged-update-running", "ts", fixed(config=[{"asi_port": 1, "ttl": 32}]), setup=converter_running),
    Case("ts_converter", "merged-stop", "ts", fixed(config=[{"asi_port": 1, "running": False}]), setup=converter_running),
    Case("ts_converter", "replaced", "ts", fixed(state="replaced", config=[{"asi_port": 1}]), setup=converter_running),
    # ts_recording: every operation
    Case("ts_recording", "start", "ts", fixed(operation="start", input="Mux 1", duration=600), setup=inputs(MUX)),
    Case("ts_recording", "stop", "ts", fixed(operation="stop", input="Mux 1"), setup=recording),
    Case("ts_recording", "list", "ts", fixed(operation="list"), setup=inputs(MUX), changed=False),
    Case("ts_recording", "download", "ts", None, setup=capture_file, files=("capture.ts",)),
    Case("ts_recording", "delete", "ts", None, setup=capture_file),
    Case("ts_recording", "delete_all", "ts", fixed(operation="delete_all", confirm=True), setup=capture_file),
    Case("ts_recording", "init", "ts", fixed(operation="init", confirm=True)),
    Case("ts_recording", "format", "ts", fixed(operation="format", confirm=True), setup=capture_file),
    # ts_statistics: every operation
    Case("ts_statistics", "reset_inputs", "ts", fixed(operation="reset_inputs", inputs=["Quiet"]), setup=inputs(QUIET)),
    Case("ts_statistics", "reset_current", "ts", fixed(operation="reset_current"), setup=inputs(QUIET)),
    Case("ts_statistics", "clear_archive", "ts", fixed(operation="clear_archive"), setup=inputs(QUIET)),
    Case("ts_statistics", "download_alerts", "ts", file_arg("dest", "alerts.csv", operation="download_alerts", input="Quiet"),
         setup=inputs(QUIET), files=("alerts.csv",)),
    Case("ts_statistics", "download_mib", "ts", file_arg("dest", "ts.mib", operation="download_mib"), files=("ts.mib",)),
    # fm_tuner
    Case("fm_tuner", "merged", "fm",
         fixed(config=[{"tuner_id": 0, "name": "News", "frequency": 99500, "operating_state": "enabled",
                        "stream": {"enabled": True, "codec": "aac", "bitrate": 192}}])),
    Case("fm_tuner", "merged-unchanged", "fm", fixed(config=[{"tuner_id": 1, "muted": True}]), setup=tuner_changed,
         changed=False),
    Case("fm_tuner", "replaced", "fm", fixed(state="replaced", config=[{"tuner_id": 1, "name": "New"}]), setup=tuner_changed),
    Case("fm_tuner", "all_tuners-batch", "fm",
         fixed(all_tuners={"hw_settings": {"lna_gain": 5}}, config=[{"tuner_id": 3, "hw_settings": {"lna_gain": 9}}])),
    Case("fm_tuner", "station_id", "fm", None, setup=scanned),
    # fm_thresholds
    Case("fm_thresholds", "merged", "fm", fixed(config=[{"tuner_id": 0, "rssi": {"min": 30, "max": "disabled"}}])),
    Case("fm_thresholds", "replaced", "fm", fixed(state="replaced", config=[{"tuner_id": 1, "snr": {"min": 12}}]),
         setup=thresholds_changed),
    Case("fm_thresholds", "all_tuners-batch", "fm", fixed(all_tuners={"snr": {"min": "disabled"}, "rssi_interval": 30})),
    # fm_schedule
    Case("fm_schedule", "merged", "fm", None),
    Case("fm_schedule", "replaced", "fm", fixed(state="replaced", config=[{"tuner_id": 1, "active": False}]),
         setup=schedule_changed),
    Case("fm_schedule", "all_tuners-batch", "fm", None),
    # fm_station
    Case("fm_station", "scanned", "fm", fixed(state="scanned", tuner_id=0), diff=False,
         reason="documented: check mode sends no scan request, so the stations a scan would find are unknown"),
    Case("fm_station", "absent-ids", "fm", fixed(state="absent", station_ids=[0, 1]), setup=scanned),
    Case("fm_station", "absent-frequencies", "fm", None, setup=scanned),
    Case("fm_station", "absent-all", "fm", fixed(state="absent", all_stations=True), setup=scanned),
    # fm_actions
    Case("fm_actions", "alerts_csv", "fm", None, files=("alerts.csv",)),
    Case("fm_actions", "mib", "fm", None, files=("fm.mib",)),
    Case("fm_actions", "clear_alerts", "fm", fixed(clear_alerts=True), setup=alerts_raised),
    Case("fm_actions", "monitor", "fm", fixed(monitor={"tuner_id": 3, "muted": True})),
]
CASES += both("device_network", "hostname", device_fixed(hostname="renamed-1"))
CASES += both("device_network", "dns", device_fixed(dns=["10.0.0.53", "10.0.0.54"]))
CASES += both("device_network", "unchanged", device_fixed(hostname=fm_or_ts("ts-001", "fm-001")), changed=False)
CASES += both("device_network", "reboot-pending", device_fixed(reboot=True, wait_host=lambda env: env.device.address),
              setup=hostname_pending)
CASES += both("device_time", "ntp_servers", device_fixed(ntp=True, ntp_servers=["10.0.0.123", "ntp.example.org"]))
CASES += both("device_time", "timezone", device_fixed(timezone=fm_or_ts("Europe/Berlin", "2")))
CASES += both("device_time", "manual-clock", device_fixed(ntp=False, datetime="2031-05-01T12:00:00Z"))
CASES += both("device_logging", "level", device_fixed(level="debug"))
CASES += both("device_logging", "remote_syslog", device_fixed(remote_syslog={"enabled": True, "server": "10.0.0.5"}))
CASES += both("device_password", "changed", device_fixed(target_role="user", new_password="n3w-Secret"))
CASES += both("device_password", "unchanged", device_fixed(target_role="user", new_password="user"), changed=False)
CASES += both("device_reboot", "rebooted", device_fixed())
CASES += both("device_reboot", "only_if_needed-nothing-pending", device_fixed(only_if_needed=True), changed=False)
CASES += both("device_reboot", "only_if_needed-pending", device_fixed(only_if_needed=True), setup=hostname_pending)
CASES += both("device_reboot", "no-wait", device_fixed(wait=False), after=Env.wait_up)
CASES += both("device_reboot", "factory_reset", device_fixed(state="factory_reset", confirm=True))
CASES += both("device_firmware", "upgrade", with_device_type(file_arg("path", "fw.swu")), setup=bundle)
CASES += both("device_backup", "to-file", with_device_type(file_arg("dest", "backup.json")), files=("backup.json",))
CASES += both("device_restore", "from-file", with_device_type(file_arg("src", "restore.json")), setup=backup_then_reset)


def case_args(case, env, setup_value):
    """Options of the cases whose options depend on what the set-up made."""
    if case.args is not None:
        return case.args(env)
    if case.module == "ts_recording":
        args = {"operation": case.name, "filename": setup_value}
        return dict(args, dest=env.path("capture.ts")) if case.name == "download" else args
    if case.name == "station_id":
        return {"config": [{"tuner_id": 2, "station_id": first_station(env)["station_id"]}]}
    if case.name == "absent-frequencies":
        return {"state": "absent", "frequencies": [first_station(env)["frequency"], 87500]}
    if case.module == "fm_schedule":
        events = {far_day(): [{"time": "06:30", "state": "enabled"}, {"time": "22:00", "state": "sleep"}], "monday": []}
        if case.name == "merged":
            return {"config": [{"tuner_id": 0, "active": True, "events": events}]}
        return {"all_tuners": {"active": True, "events": events}, "config": [{"tuner_id": 5, "active": False}]}
    if case.name == "alerts_csv":
        return {"alerts_csv": {"dest": env.path("alerts.csv"), "order": "desc"}}
    if case.name == "mib":
        return {"mib": {"dest": env.path("fm.mib")}}
    raise AssertionError("no arguments for %s" % case.name)


def record(case, outcome, writes=0, mismatch=0):
    COVERED.add(case.module)
    figures.record(SECTION, "modules covered", len(COVERED))
    figures.add(SECTION, "cases", 1)
    figures.add(SECTION, "writes in check mode", writes)
    figures.add(SECTION, "mismatches (changed, diff, changes)", mismatch)
    figures.row(SECTION, "%s %s (%s)" % (case.module, case.name, case.device), outcome)


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_check_mode_predicts_the_real_run(sim, tmp_path, case):
    device = sim.fleet.by_name("ts-001" if case.device == "ts" else "fm-001")
    sim.call(device.reset)
    env = Env(sim, device, tmp_path)
    setup_value = case.setup(env) if case.setup else None
    args = case_args(case, env, setup_value)
    sim.call(device.requests.clear)

    predicted = run_module(case.module, dict(env.conn, **args), check=True)
    writes = sim.call(device.writes)
    created = [name for name in case.files if os.path.exists(env.path(name))]
    record_writes = len(writes)
    assert not predicted.get("failed"), predicted.get("msg")
    real = run_module(case.module, dict(env.conn, **args))
    if case.after:
        case.after(env)
    assert not real.get("failed"), real.get("msg")

    real_writes = sim.call(device.writes)

    compared = ["changed"] + [k for k in ("diff", "changes") if (k in predicted or k in real) and (k != "diff" or case.diff)]
    mismatched = [key for key in compared if predicted.get(key) != real.get(key)]
    outcome = "check: %d writes, changed=%s; real: %d writes, changed=%s; %s" % (
        record_writes, predicted["changed"], len(real_writes), real["changed"],
        "mismatch in " + ", ".join(mismatched) if mismatched else "equal " + "/".join(compared))
    if not case.diff:
        outcome += " (diff not compared: %s)" % case.reason
    if case.marks:
        outcome += " (known bug, xfail)"
    record(case, outcome, record_writes, len(mismatched))
    assert writes == [], "check mode wrote: %s" % writes
    assert created == [], "check mode created %s" % created
    for key in compared:
        assert predicted.get(key) == real.get(key), "%s: check mode %r, real run %r" % (key, predicted.get(key), real.get(key))
    assert real["changed"] is case.changed
    if not case.files:
        # the real run did what check mode announced: writes exactly when it reports a change
        assert bool(real_writes) is case.changed, real_writes


INFO_CASES = [("ts_info", "ts", {"gather_subset": ["all"]}), ("fm_info", "fm", {"gather_subset": ["all"]}),
              ("device_login", "ts", {}), ("device_login", "fm", {})]


@pytest.mark.parametrize("module, kind, args", INFO_CASES, ids=["%s-%s" % (m, k) for m, k, unused in INFO_CASES])
def test_info_modules_in_check_mode_send_no_write(sim, module, kind, args):
    device = sim.fleet.by_name("ts-001" if kind == "ts" else "fm-001")
    sim.call(device.reset)
    conn = connection(device)
    if module == "device_login":
        args = dict(args, device_type=device.kind)
    result = run_module(module, dict(conn, **args), check=True)
    writes = sim.call(device.writes)
    reads = len(sim.call(lambda: list(device.requests)))
    COVERED.add(module)
    figures.record(SECTION, "modules covered", len(COVERED))
    figures.add(SECTION, "info cases", 1)
    figures.add(SECTION, "writes in check mode", len(writes))
    figures.row(SECTION, "%s (%s) info" % (module, kind), "check: %d requests, %d writes, changed=%s" % (
        reads, len(writes), result.get("changed")))
    assert not result.get("failed"), result
    assert result["changed"] is False
    assert writes == []
    assert reads > 0  # it did read the device


def test_in_process_runner_agrees_with_ansible_playbook(play, sim):
    """The same task, run by ansible-playbook and in process, on the same device state:
    the same result keys (but for what the controller adds), changed, diff and changes."""
    device = sim.fleet.by_name("ts-001")
    args = dict(connection(device), state="merged", config=[UPDATED_MUX])
    results = {}
    for how in ("playbook", "in process"):
        sim.call(device.reset)
        env = Env(sim, device, None)
        inputs(MUX)(env)
        if how == "playbook":
            out = play.run([{"broadcast.monitoring.ts_input": args}], device.name, check=True, diff=True)
            results[how] = out[0]
        else:
            results[how] = run_module("ts_input", args, check=True)
    playbook, inproc = results["playbook"], results["in process"]
    assert playbook.get("failed") is not True, playbook
    assert set(playbook) - set(CONTROLLER_KEYS) == set(inproc) - set(CONTROLLER_KEYS), (sorted(playbook), sorted(inproc))
    for key in ("changed", "diff", "changes", "before", "after", "requests"):
        assert playbook[key] == inproc[key], key
    assert inproc["changed"] is True
    figures.row(SECTION, "in-process runner vs ansible-playbook (ts_input merged, check+diff)",
                "same keys, changed, diff, changes, before, after, requests")

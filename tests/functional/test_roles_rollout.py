"""Role firmware_rollout through playbooks/firmware_rollout.yml: a rolling upgrade that halts
at the first refused bundle and leaves the devices after it untouched."""

import json
import os
import threading
import time

import pytest

from bm_simulator import swu
from bm_simulator.fleet import running_fleet
from bm_simulator.ts import PRIORITY_1

from .conftest import ROOT, run_playbook
from .device_api import Api

PLAYBOOK = os.path.join(ROOT, "playbooks", "firmware_rollout.yml")


@pytest.fixture(scope="module", params=["reboots", "pending"])
def fleet(request):
    """The analyzers' document leaves open whether an upgrade reboots: the rollout is tried with
    both; the FM monitor keeps running until rebooted, as its document says."""
    with running_fleet(ts=3, fm=1, time_scale=0.02, ts_upgrade=request.param) as runner:
        yield runner


def run_rollout(fleet, collections_path, workdir, host_vars=None, all_vars=None, extra_vars=None, check=False):
    return run_playbook(fleet, collections_path, workdir, PLAYBOOK, all_vars=all_vars, host_vars=host_vars,
                        extra_vars=extra_vars, options=["--check"] if check else [])


@pytest.fixture
def bundles(tmp_path):
    good, tampered = tmp_path / "good.swu", tmp_path / "tampered.swu"
    good.write_bytes(swu.build("2.4.1"))
    tampered.write_bytes(swu.build("2.4.1", tamper=True))
    return str(good), str(tampered)


def test_rollout_halts_at_the_refused_bundle_and_leaves_the_rest_untouched(fleet, collections_path, tmp_path, bundles):
    good, tampered = bundles
    devices = [fleet.fleet.by_name(n) for n in ("ts-001", "ts-002", "ts-003", "fm-001")]
    for device in devices:
        fleet.call(device.reset)
    backups = tmp_path / "backups"
    code, output, hosts = run_rollout(
        fleet, collections_path, tmp_path,
        all_vars={"firmware_rollout_bundle": good, "firmware_rollout_backup_dir": str(backups),
                  "firmware_rollout_timeout": 30},
        host_vars={"ts-002": {"firmware_rollout_bundle": tampered}},
        extra_vars={"broadcast_monitoring_password": "admin"})
    assert code != 0, output
    # serial 1: ts-001 upgraded, ts-002 refused the bundle, the play stopped there
    logins = [r for r in fleet.call(lambda: list(devices[0].requests)) if r["kind"] == "login"]
    assert len(logins) == 1  # one login per device per play: every module got the token
    assert Api(devices[0]).firmware_version() == "2.4.1"
    assert hosts["ts-001"]["failed"] == 0 and hosts["ts-001"]["changed"] >= 1, output
    assert hosts["ts-002"]["failed"] == 1, output
    # refused on the controller, by the checksums of its sw-description, before the backup and any upload
    assert "bundle %s refused, nothing was uploaded" % tampered in output, output
    assert "its image rootfs.img does not match the sha256 its sw-description lists" in output, output
    assert Api(devices[1]).firmware_version() == "1.0.0"
    assert [r for r in fleet.call(lambda: list(devices[1].requests)) if r["path"] == "/api/system/upgrade"] == []
    assert sorted(name.rsplit("-", 1)[0] for name in os.listdir(backups / "pre-upgrade")) == ["ts-001-1.0.0"]
    for device in devices[2:]:
        assert device.name not in hosts, output  # never reached
        assert fleet.call(lambda d=device: list(d.requests)) == []  # not even a login
        assert Api(device).firmware_version() == "1.0.0"
    assert os.listdir(backups) == ["pre-upgrade"]


def test_rollout_of_the_installed_version_does_nothing(fleet, collections_path, tmp_path, bundles):
    good = bundles[0]
    devices = [fleet.fleet.by_name(n) for n in ("ts-003", "fm-001")]
    for device in devices:
        fleet.call(device.reset)
    settings = {"all_vars": {"firmware_rollout_bundle": good, "firmware_rollout_backup_dir": str(tmp_path / "b"),
                             "firmware_rollout_timeout": 30},
                "extra_vars": {"broadcast_monitoring_password": "admin", "firmware_rollout_hosts": "ts-003:fm-001",
                               "firmware_rollout_alert_check": "true"}}
    code, output, hosts = run_rollout(fleet, collections_path, tmp_path, check=True, **settings)
    assert code == 0, output
    assert all(fleet.call(d.writes) == [] for d in devices)
    assert all(Api(d).firmware_version() == "1.0.0" for d in devices)
    code, output, hosts = run_rollout(fleet, collections_path, tmp_path, **settings)
    assert code == 0, output
    assert [hosts[d.name]["changed"] for d in devices] == [2, 2], output  # backup, upgrade
    assert all(Api(d).firmware_version() == "2.4.1" for d in devices)
    for device in devices:
        fleet.call(device.requests.clear)
    code, output, hosts = run_rollout(fleet, collections_path, tmp_path, **settings)
    assert code == 0, output
    assert [hosts[d.name]["changed"] for d in devices] == [0, 0], output
    assert all(fleet.call(d.writes) == [] for d in devices)
    assert sorted(name.rsplit("-", 1)[0] for name in os.listdir(tmp_path / "b" / "pre-upgrade")) == [
        "fm-001-1.0.0", "ts-003-1.0.0"]  # the second run backed nothing up


def quiet_inputs(device):
    """Two receiving inputs under a profile that leaves out the simulated streams' random
    priority-1 errors (thresholds above any count of one event): only a lost stream shows."""
    api = Api(device)
    entries = [{"error_name": error, "threshold": 100} for error in PRIORITY_1]
    profile = api.post("/profiles", {"name": "Quiet", "entries": entries})["id"]
    for index, name in enumerate(("News", "Sport")):
        source = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1",
                                                              "multicast_port": 5000 + index}}}
        api.add_input(name, source, profile)


def test_rollout_stops_at_the_device_whose_upgrade_broke_an_input(fleet, collections_path, tmp_path, bundles):
    """Issue 23: the snapshots around each upgrade. ts-002's upgrade loses the stream of its
    input Sport (the simulator's loss armed for the boot into the installed firmware): the
    rollout stops there naming it, ts-003 is never reached, and the fleet report says so.
    ts-001's upgrade loses News only until just after the first snapshot: the confirming
    snapshot no longer shows it, so ts-001 passes and the report lists the loss as cleared."""
    good = bundles[0]
    devices = [fleet.fleet.by_name(n) for n in ("ts-001", "ts-002", "ts-003")]
    for device in devices:
        fleet.call(device.reset)
        quiet_inputs(device)
        fleet.call(device.requests.clear)
    fleet.call(devices[0].lose_signal, 1, True)
    fleet.call(devices[1].lose_signal, 2, True)
    reports = tmp_path / "reports"
    done = threading.Event()

    def back_after_the_first_snapshot():  # its last read is GET /api/inputs, the first after the upgrade
        while not done.wait(0.02):
            paths = [r["path"] for r in fleet.call(lambda: list(devices[0].requests))]
            if "/api/system/upgrade" in paths and "/api/inputs" in paths[paths.index("/api/system/upgrade"):]:
                time.sleep(0.1)
                fleet.call(devices[0].restore_signal, 1)
                return
    watcher = threading.Thread(target=back_after_the_first_snapshot, daemon=True)
    watcher.start()
    try:
        code, output, hosts = run_rollout(
            fleet, collections_path, tmp_path,
            all_vars={"firmware_rollout_bundle": good, "firmware_rollout_backup": False, "firmware_rollout_timeout": 30,
                      "firmware_rollout_snapshot_confirm_interval": 1,
                      "firmware_rollout_report_dir": str(reports)},
            extra_vars={"broadcast_monitoring_password": "admin", "firmware_rollout_hosts": "ts_analyzers"})
    finally:
        done.set()
        watcher.join()
    assert code != 0, output
    assert hosts["ts-001"]["failed"] == 0 and hosts["ts-002"]["failed"] == 1, output
    assert "input Sport (id 2)" in output and "ts-003" not in hosts, output
    assert "[check receiving]" in output and "waive the check(s) with firmware_rollout_snapshot_ignore: [" in output
    assert fleet.call(lambda: list(devices[2].requests)) == []  # not even a login
    assert [Api(d).firmware_version() for d in devices] == ["2.4.1", "2.4.1", "1.0.0"]
    report = json.loads((reports / "firmware_rollout.json").read_text())
    status = {d["host"]: d["status"] for d in report["devices"]}
    assert status == {"ts-001": "upgraded", "ts-002": "regression", "ts-003": "not reached"}, report
    broken = [d for d in report["devices"] if d["host"] == "ts-002"][0]
    assert {(r["item"], r["what"]) for r in broken["regressions"]} >= {("input Sport (id 2)", "receiving")}
    assert (broken["firmware_before"], broken["firmware_after"]) == ("1.0.0", "2.4.1")
    markdown = (reports / "firmware_rollout.md").read_text()
    assert "| ts-002 | regression | 1.0.0 | 2.4.1 |" in markdown and "input Sport (id 2)" in markdown, markdown
    assert "| ts-003 | not reached |" in markdown, markdown
    passed = [d for d in report["devices"] if d["host"] == "ts-001"][0]
    assert passed["regressions"] == [] and ("input News (id 1)", "receiving") in [
        (r["item"], r["what"]) for r in passed["transient"]], passed
    assert "cleared before the confirming snapshot: input News (id 1): was receiving its stream" in markdown, markdown


# -- issue 30: the bundle's target, downgrades, a mixed fleet, history kept ----------------------

@pytest.fixture(scope="module")
def mixed():
    """Two analyzers and an FM monitor; each device installs any signed bundle (the simulator's
    default "ignored" target check), so only the collection can refuse a wrong one."""
    with running_fleet(ts=2, fm=1, time_scale=0.02) as runner:
        yield runner


def upload_requests(fleet, device):
    return [r for r in fleet.call(lambda: list(device.requests)) if r["path"] == "/api/system/upgrade"]


def set_firmware(fleet, device, version):
    fleet.call(lambda: device.state.update(firmware_version=version))


ROLLOUT = {"firmware_rollout_timeout": 30, "firmware_rollout_snapshot_confirm_interval": 1}


def test_rollout_refuses_a_wrong_type_bundle_and_a_downgrade_before_any_upload(mixed, collections_path, tmp_path):
    """An analyzer's bundle given to an FM monitor, and an analyzer's bundle older than what it runs: both
    stop the device before any upload (no POST /system/upgrade in the request log), in check mode too; the
    downgrade goes through with firmware_rollout_allow_downgrade."""
    ts, fm = mixed.fleet.by_name("ts-002"), mixed.fleet.by_name("fm-001")
    for device in (ts, fm):
        mixed.call(device.reset)
    set_firmware(mixed, ts, "3.1.0")
    analyzer = tmp_path / "analyzer-2.4.1.swu"
    analyzer.write_bytes(swu.build("2.4.1", model="ts_analyzer"))
    reports = tmp_path / "reports"
    settings = dict(ROLLOUT, firmware_rollout_bundle=str(analyzer), firmware_rollout_report_dir=str(reports),
                    firmware_rollout_backup_dir=str(tmp_path / "backups"))
    for check in (True, False):
        code, output, hosts = run_rollout(mixed, collections_path, tmp_path, all_vars=settings, check=check,
                                          extra_vars={"broadcast_monitoring_password": "admin",
                                                      "firmware_rollout_hosts": "fm-001"})
        assert code != 0 and hosts["fm-001"]["failed"] == 1, output
        assert "fm-001: bundle %s refused, nothing was uploaded: path: the bundle %s (version 2.4.1) is for TSA-4," \
            " and this device is a FMM-8 FM Monitoring Receiver" % (analyzer, analyzer) in output, output
        if not check:  # the report names the bundle and the firmware the device runs
            report = json.loads((reports / "firmware_rollout.json").read_text())
            assert report["bundles"] == ["analyzer-2.4.1.swu"], report
            assert [(d["host"], d["status"], d["bundle"], d["firmware_before"]) for d in report["devices"]] == [
                ("fm-001", "bundle refused", "analyzer-2.4.1.swu", "1.0.0")], report
            markdown = (reports / "firmware_rollout.md").read_text()
            assert "bundles: analyzer-2.4.1.swu." in markdown, markdown
            assert "| fm-001 | bundle refused | 1.0.0 |  | 0 | 0 | analyzer-2.4.1.swu |  |" in markdown, markdown
        code, output, hosts = run_rollout(mixed, collections_path, tmp_path, all_vars=settings, check=check,
                                          extra_vars={"broadcast_monitoring_password": "admin",
                                                      "firmware_rollout_hosts": "ts-002"})
        assert code != 0 and hosts["ts-002"]["failed"] == 1, output
        assert "carries firmware 2.4.1, older than the installed 3.1.0: a downgrade" in output, output
        assert "set firmware_rollout_allow_downgrade=true to go back to it" in output, output
    assert upload_requests(mixed, fm) == [] and upload_requests(mixed, ts) == []
    assert mixed.call(fm.writes) == [] and mixed.call(ts.writes) == []
    assert (Api(fm).firmware_version(), Api(ts).firmware_version()) == ("1.0.0", "3.1.0")
    report = json.loads((reports / "firmware_rollout.json").read_text())
    assert [(d["host"], d["status"], d["bundle"], d["firmware_before"]) for d in report["devices"]] == [
        ("ts-002", "bundle refused", "analyzer-2.4.1.swu", "3.1.0")], report
    assert report["devices"][0]["message"].startswith("bundle %s refused" % analyzer), report
    assert "a downgrade" in report["devices"][0]["message"]
    assert not (tmp_path / "backups" / "pre-upgrade").exists() or os.listdir(tmp_path / "backups" / "pre-upgrade") == []

    code, output, hosts = run_rollout(mixed, collections_path, tmp_path,
                                      all_vars=dict(settings, firmware_rollout_allow_downgrade=True),
                                      extra_vars={"broadcast_monitoring_password": "admin",
                                                  "firmware_rollout_hosts": "ts-002"})
    assert code == 0, output
    assert Api(ts).firmware_version() == "2.4.1" and len(upload_requests(mixed, ts)) == 1
    backups = os.listdir(tmp_path / "backups" / "pre-upgrade")
    assert len(backups) == 1 and backups[0].startswith("ts-002-3.1.0-"), backups
    kept = json.loads((tmp_path / "backups" / "pre-upgrade" / backups[0]).read_text())
    assert kept["device"]["firmware_version"] == "3.1.0"


def test_mixed_fleet_gets_one_bundle_per_type_and_keeps_its_history(mixed, collections_path, tmp_path):
    """One folder of bundles for a mixed fleet (and, in check mode, one bundle per type): each device gets
    its model's newest bundle. The pre-upgrade backups have files of their own that a later backup.yml
    leaves alone, and each run keeps its own report."""
    devices = [mixed.fleet.by_name(n) for n in ("ts-001", "ts-002", "fm-001")]
    for device in devices:
        mixed.call(device.reset)
    folder = tmp_path / "firmware"
    folder.mkdir()
    for kind, version in (("ts_analyzer", "2.0.0"), ("ts_analyzer", "2.4.1"), ("fm_monitor", "3.1.0")):
        (folder / ("%s-%s.swu" % (kind, version))).write_bytes(swu.build(version, model=kind))
    backups, reports = tmp_path / "backups", tmp_path / "reports"
    settings = dict(ROLLOUT, firmware_rollout_backup_dir=str(backups), firmware_rollout_report_dir=str(reports))
    password = {"broadcast_monitoring_password": "admin"}
    per_type = {"ts_analyzer": str(folder / "ts_analyzer-2.4.1.swu"), "fm_monitor": str(folder / "fm_monitor-3.1.0.swu")}
    code, output, hosts = run_rollout(mixed, collections_path, tmp_path, check=True, extra_vars=password,
                                      all_vars=dict(settings, firmware_rollout_bundles=per_type))
    assert code == 0 and all(hosts[d.name]["failed"] == 0 for d in devices), output
    assert all(upload_requests(mixed, d) == [] for d in devices)

    code, output, hosts = run_rollout(mixed, collections_path, tmp_path, extra_vars=password,
                                      all_vars=dict(settings, firmware_rollout_bundle=str(folder)))
    assert code == 0, output
    assert [Api(d).firmware_version() for d in devices] == ["2.4.1", "2.4.1", "3.1.0"]
    pre_upgrade = {name: (backups / "pre-upgrade" / name).read_text() for name in os.listdir(backups / "pre-upgrade")}
    assert sorted(name.rsplit("-", 1)[0] for name in pre_upgrade) == ["fm-001-1.0.0", "ts-001-1.0.0", "ts-002-1.0.0"]
    assert all(json.loads(text)["device"]["firmware_version"] == "1.0.0" for text in pre_upgrade.values())
    first = json.loads((reports / "firmware_rollout.json").read_text())
    assert {(d["host"], d["status"], d["bundle"]) for d in first["devices"]} == {
        ("ts-001", "upgraded", "ts_analyzer-2.4.1.swu"), ("ts-002", "upgraded", "ts_analyzer-2.4.1.swu"),
        ("fm-001", "upgraded", "fm_monitor-3.1.0.swu")}, first
    assert {os.path.basename(d["backup"]) for d in first["devices"]} == set(pre_upgrade)

    code, output = run_playbook(mixed, collections_path, tmp_path, "backup.yml",
                                all_vars=dict(password, backup_dir=str(backups)))[:2]
    assert code == 0, output
    assert json.loads((backups / "ts-001.json").read_text())["device"]["firmware_version"] == "2.4.1"
    assert {name: (backups / "pre-upgrade" / name).read_text()
            for name in os.listdir(backups / "pre-upgrade")} == pre_upgrade  # the 1.0.0 backups survive

    code, output, hosts = run_rollout(mixed, collections_path, tmp_path, extra_vars=password,
                                      all_vars=dict(settings, firmware_rollout_bundle=str(folder)))
    assert code == 0, output
    runs = sorted(name for name in os.listdir(reports) if name.startswith("firmware_rollout-"))
    assert len(runs) == 4 and [name.rsplit(".", 1)[1] for name in runs] == ["json", "md", "json", "md"], runs
    older, newer = (json.loads((reports / name).read_text()) for name in runs if name.endswith(".json"))
    assert older == first and older["run"] < newer["run"]
    assert {d["status"] for d in newer["devices"]} == {"already on the bundle's version"}, newer
    assert json.loads((reports / "firmware_rollout.json").read_text()) == newer  # the latest run's copy
    assert (reports / "firmware_rollout.md").read_text() == (reports / runs[3]).read_text()

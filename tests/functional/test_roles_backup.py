"""Roles backup and restore through playbooks/backup.yml and playbooks/restore.yml: a fleet
backup, then disaster recovery of factory-reset devices from it."""

import filecmp
import json
import os
import re

import pytest
import yaml

from bm_simulator import swu
from bm_simulator.fleet import running_fleet
from bm_simulator.ts import PRIORITY_1

from .device_api import Api, login
from .conftest import run_playbook
from .test_backup import configure_fm, configure_ts

FLEET_PASSWORD = "fleet-Secret-7"


@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=1, fm=1, time_scale=0.02) as runner:
        yield runner


def task_outcomes(output, name):
    """{host: ok/changed/skipping/failed/fatal} of the task whose name starts with ``name``."""
    part = output.split("TASK [broadcast.monitoring.restore : %s" % name, 1)[1]
    part = re.split(r"\n(?:TASK|PLAY RECAP|RUNNING HANDLER) ", part, maxsplit=1)[0]
    found = re.findall(r"^(ok|changed|skipping|failed|fatal): \[([^\]]+)\]", part, re.MULTILINE)
    return dict((host, word) for word, host in found)


def free_frequency(band):
    """An FM frequency (kHz) with no station on the air around the device (simulator's band)."""
    return next(f for f in range(87600, 108000, 100) if all(abs(f - s) >= 300 for s in band))


SETUP = [{
    "name": "Give the devices a fleet password and a network identity",
    "hosts": "all",
    "gather_facts": False,
    "tasks": [
        {"name": "Fleet password", "broadcast.monitoring.device_password": {
            "host": "{{ ansible_host }}", "port": "{{ device_port }}", "device_type": "{{ device_type }}",
            "password": "admin", "target_role": "admin", "new_password": FLEET_PASSWORD}},
        {"name": "Network identity", "broadcast.monitoring.device_network": {
            "host": "{{ ansible_host }}", "port": "{{ device_port }}", "device_type": "{{ device_type }}",
            "password": FLEET_PASSWORD, "address": "{{ identity }}", "netmask": "255.0.0.0",
            "gateway": "127.0.0.1", "dns": ["127.0.0.53"], "hostname": "site-a-{{ inventory_hostname }}",
            "reboot": True, "reboot_timeout": 30}},
    ],
}]


def test_fleet_backup_then_reprovision_factory_reset_devices(fleet, collections_path, tmp_path):
    devices = [fleet.fleet.by_name("ts-001"), fleet.fleet.by_name("fm-001")]
    home, identity = {}, {}
    for index, device in enumerate(devices):
        fleet.call(device.reset)
        home[device.name] = device.address
        identity[device.name] = device.address.rsplit(".", 1)[0] + ".%d" % (200 + index)
    configure_ts(devices[0])
    configure_fm(devices[1])
    setup = tmp_path / "setup.yml"
    setup.write_text(yaml.safe_dump(SETUP, sort_keys=False))
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, str(setup),
                                       host_vars={n: {"identity": a} for n, a in identity.items()})
    assert code == 0, output
    assert [d.address for d in devices] == [identity[d.name] for d in devices]

    # -- backup: one file per device, a second run rewrites nothing ----------------------
    backups = tmp_path / "backups"
    settings = {"broadcast_monitoring_password": FLEET_PASSWORD, "backup_dir": str(backups)}
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "backup.yml", all_vars=settings)
    assert code == 0, output
    assert all(hosts[d.name]["changed"] >= 1 for d in devices), output
    saved = {d.name: (backups / ("%s.json" % d.name)).read_text() for d in devices}
    assert len(os.listdir(backups / "history")) == 2
    for device in devices:
        assert FLEET_PASSWORD not in saved[device.name]
        for secret in fleet.call(device.issued_secrets):
            assert secret not in saved[device.name]
        fleet.call(device.requests.clear)
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "backup.yml", all_vars=settings)
    assert code == 0, output
    assert all(hosts[d.name]["changed"] == 0 for d in devices), output
    assert len(os.listdir(backups / "history")) == 2
    assert all(fleet.call(d.writes) == [] for d in devices)

    # -- the units are replaced: factory state at the factory (home) address -------------
    for device in devices:
        fleet.call(device.reset)
        assert device.address == home[device.name] and login(device, "admin").status_code == 200
    restore = {"broadcast_monitoring_password": FLEET_PASSWORD, "restore_backup_dir": str(backups),
               "restore_probe_timeout": 1, "restore_reboot_timeout": 30,
               # the second restore is in place, with snapshots: the simulated streams' short
               # priority-1 errors under the factory profile clear before the confirming snapshot
               # (0.5 s: 25 simulated seconds at the fleet's time scale)
               "restore_snapshot_confirm_interval": 0.5}
    factory = {d.name: {"ansible_host": identity[d.name], "restore_factory_address": home[d.name]} for d in devices}
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "restore.yml", all_vars=restore,
                                       host_vars=factory, extra_vars={"restore_hosts": "all"})
    assert code == 0, output
    assert all(hosts[d.name]["changed"] >= 3 for d in devices), output  # password, network, configuration
    # replacements at the factory address: compared with what they did when the backup was taken
    assert task_outcomes(output, "Snapshot what the device does before") == {"ts-001": "skipping",
                                                                             "fm-001": "skipping"}, output
    assert task_outcomes(output, "Snapshot after the restore") == {"ts-001": "ok", "fm-001": "ok"}, output
    for device in devices:
        assert device.address == identity[device.name]
        assert login(device, FLEET_PASSWORD).status_code == 200 and login(device, "admin").status_code != 200
        fleet.call(device.requests.clear)

    # -- restoring again changes nothing; a new backup equals the old one byte for byte ---
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "restore.yml", all_vars=restore,
                                       host_vars=factory, extra_vars={"restore_hosts": "all"})
    assert code == 0, output
    assert all(hosts[d.name]["changed"] == 0 for d in devices), output
    assert all(fleet.call(d.writes) == [] for d in devices)
    after = tmp_path / "after"
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "backup.yml",
                                       all_vars=dict(settings, backup_dir=str(after), backup_history=False))
    assert code == 0, output
    for device in devices:
        assert filecmp.cmp(str(after / ("%s.json" % device.name)), str(backups / ("%s.json" % device.name)),
                           shallow=False)
        assert (after / ("%s.json" % device.name)).read_text() == saved[device.name]


def test_restore_stops_on_another_firmware_and_upgrades_with_a_bundle(fleet, collections_path, tmp_path):
    """The issue's trial: a backup taken on firmware 2.4.1 restored onto a replacement running 1.0.0."""
    device = fleet.fleet.by_name("ts-001")
    fleet.call(device.reset)
    configure_ts(device)
    bundle = tmp_path / "fw-2.4.1.swu"
    bundle.write_bytes(swu.build("2.4.1"))
    backups = tmp_path / "backups"
    upgrade = [{"name": "Upgrade", "hosts": "all", "gather_facts": False, "tasks": [
        {"name": "Firmware", "broadcast.monitoring.device_firmware": {
            "host": "{{ ansible_host }}", "port": "{{ device_port }}", "device_type": "{{ device_type }}",
            "password": "admin", "path": str(bundle), "reboot_timeout": 30}}]}]
    (tmp_path / "upgrade.yml").write_text(yaml.safe_dump(upgrade, sort_keys=False))
    code, output = run_playbook(fleet, collections_path, tmp_path, str(tmp_path / "upgrade.yml"),
                                options=["--limit", device.name])[:2]
    assert code == 0, output
    backup_vars = {"broadcast_monitoring_password": "admin", "backup_dir": str(backups)}
    code, output = run_playbook(fleet, collections_path, tmp_path, "backup.yml", options=["--limit", device.name],
                                all_vars=backup_vars)[:2]
    assert code == 0, output
    fleet.call(device.reset)  # the replacement runs the factory firmware
    restore = {"broadcast_monitoring_password": FLEET_PASSWORD, "restore_backup_dir": str(backups),
               "restore_probe_timeout": 1, "restore_reboot_timeout": 30}
    code, output = run_playbook(fleet, collections_path, tmp_path, "restore.yml", all_vars=restore,
                                extra_vars={"restore_hosts": device.name})[:2]
    assert code != 0
    assert "the backup was taken on firmware 2.4.1, this device runs 1.0.0" in output, output
    assert "firmware_mismatch=warn" in output
    assert Api(device, FLEET_PASSWORD).get("/inputs") == []  # nothing of the configuration was written

    # Issue 30: the backup's firmware found in a folder of bundles by the device's model and the backup's version
    folder = tmp_path / "firmware"
    folder.mkdir()
    for kind, version in (("ts_analyzer", "2.4.1"), ("ts_analyzer", "3.1.0"), ("fm_monitor", "2.4.1")):
        (folder / ("%s-%s.swu" % (kind, version))).write_bytes(swu.build(version, model=kind))
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "restore.yml",
                                       all_vars=dict(restore, restore_firmware_bundle=str(folder)),
                                       extra_vars={"restore_hosts": device.name})
    assert code == 0, output
    assert Api(device, FLEET_PASSWORD).get("/system/device")["firmware_version"] == "2.4.1"
    assert sorted(i["name"] for i in Api(device, FLEET_PASSWORD).get("/inputs")) == ["ASI", "Mux 1"]


def test_restore_role_can_be_told_to_warn_on_another_firmware(fleet, collections_path, tmp_path):
    device = fleet.fleet.by_name("ts-001")
    fleet.call(device.reset)
    configure_ts(device)
    backups = tmp_path / "backups"
    backup_vars = {"broadcast_monitoring_password": "admin", "backup_dir": str(backups)}
    code, output = run_playbook(fleet, collections_path, tmp_path, "backup.yml", options=["--limit", device.name],
                                all_vars=backup_vars)[:2]
    assert code == 0, output
    saved = backups / ("%s.json" % device.name)
    doc = json.loads(saved.read_text())
    doc["device"]["firmware_version"] = "0.9.0"  # as if taken on an older release
    saved.write_text(json.dumps(doc))
    fleet.call(device.reset)
    restore = {"broadcast_monitoring_password": "admin", "restore_backup_dir": str(backups),
               "restore_probe_timeout": 1, "restore_reboot_timeout": 30, "restore_firmware_mismatch": "warn"}
    code, output = run_playbook(fleet, collections_path, tmp_path, "restore.yml", all_vars=restore,
                                extra_vars={"restore_hosts": device.name})[:2]
    assert code == 0, output
    assert "firmware: the backup was taken on firmware 0.9.0, this device runs 1.0.0" in output
    assert sorted(i["name"] for i in Api(device).get("/inputs")) == ["ASI", "Mux 1"]


def test_a_restore_in_place_that_breaks_an_input_fails_naming_it(fleet, collections_path, tmp_path):
    """Issue 23: a unit restored in place (found at its network identity) is compared before and
    after. The restore writes a logging level that waits for a reboot, and the reboot loses the
    stream of input 1 (the simulator's loss armed for the next boot): the device fails, naming it."""
    device = fleet.fleet.by_name("ts-001")
    fleet.call(device.reset)
    api = Api(device)
    entries = [{"error_name": error, "threshold": 100} for error in PRIORITY_1]  # only a lost stream shows
    profile = api.post("/profiles", {"name": "Quiet", "entries": entries})["id"]
    api.add_input("News", profile_id=profile)
    backups = tmp_path / "backups"
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "backup.yml",
                                       all_vars={"broadcast_monitoring_password": "admin", "backup_dir": str(backups)},
                                       extra_vars={"backup_hosts": "ts-001"})
    assert code == 0, output
    logging = api.get("/system/log/settings")
    api.post("/system/log/settings", dict(logging, level="debug" if logging["level"] != "debug" else "info"))
    fleet.call(device.lose_signal, 1, False, True)
    code, output, hosts = run_playbook(
        fleet, collections_path, tmp_path, "restore.yml",
        all_vars={"broadcast_monitoring_password": "admin", "restore_backup_dir": str(backups),
                  "restore_probe_timeout": 1, "restore_reboot_timeout": 30, "restore_snapshot_confirm_interval": 0.5},
        host_vars={"ts-001": {"ansible_host": device.address, "restore_factory_address": "127.0.0.254"}},
        extra_vars={"restore_hosts": "ts-001"})
    assert code != 0 and hosts["ts-001"]["failed"] == 1, output
    assert "input News (id 1): was receiving its stream, now does not" in output, output
    assert api.get("/system/log/settings")["level"] == logging["level"]  # restored before the check


def test_disaster_recovery_of_units_whose_tuners_were_disabled_at_the_factory(fleet, collections_path, tmp_path):
    """Issue 30 item 1, the trial: backup, factory reset, restore.yml, each unit answering at its
    network identity after the reset (restored in place). The monitor's tuners were disabled at
    the factory; its backup has tuner 2 on a station (locked) and tuner 3 enabled where nothing is
    on the air (it raises quality alarms, as it did when the backup was taken). The service is
    compared with the backup's snapshot, not with the blank unit: nothing that worked then fails
    now, so the restore passes, and a backup afterwards is the same file byte for byte."""
    ts_device, fm_device = devices = [fleet.fleet.by_name("ts-001"), fleet.fleet.by_name("fm-001")]
    for device in devices:
        fleet.call(device.reset)
    configure_ts(ts_device)
    band = fleet.call(lambda: dict(fm_device.band))
    api = Api(fm_device)
    api.post("/tuner/2/settings", {"name": "Relay", "frequency": max(band, key=lambda f: band[f]["rssi"])})
    api.post("/tuner/3/settings", {"name": "Spare", "frequency": free_frequency(band)})
    api.post("/tuner/3/thresholds", {"thresholds": {"rds": {"sync_lost": True}}})
    for tuner in (2, 3):
        api.post("/tuner/%d/state" % tuner, {"state": 1})

    backups = tmp_path / "backups"
    settings = {"broadcast_monitoring_password": "admin", "backup_dir": str(backups)}
    for first in (True, False):  # the snapshot in the backup moves nothing on an unchanged device
        code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "backup.yml", all_vars=settings)
        assert code == 0 and all((hosts[d.name]["changed"] > 0) is first for d in devices), output
    saved = {d.name: (backups / ("%s.json" % d.name)).read_text() for d in devices}

    for device in devices:
        fleet.call(device.reset)
    restore = {"broadcast_monitoring_password": "admin", "restore_backup_dir": str(backups),
               "restore_probe_timeout": 1, "restore_reboot_timeout": 30, "restore_snapshot_confirm_interval": 0.5}
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "restore.yml", all_vars=restore,
                                       extra_vars={"restore_hosts": "all"})
    assert code == 0, output
    assert task_outcomes(output, "Snapshot after the restore") == {"ts-001": "ok", "fm-001": "ok"}, output
    restored = Api(fm_device).get("/tuners/all")
    assert restored[2]["tuned"] is True and restored[3]["state"] == 1 and restored[3]["tuned"] is False
    assert "rfl_low" in restored[3]["quality"]["alarms"].split()  # what the old comparison called a regression
    # the baseline compared: what the backup recorded, and no secret
    assert json.loads(saved["ts-001"])["snapshot"] == {"device_type": "ts_analyzer", "firmware_version": "1.0.0",
                                                       "inputs": [{"name": "ASI", "receiving": True},
                                                                  {"name": "Mux 1", "receiving": False}]}
    tuners = json.loads(saved["fm-001"])["snapshot"]["tuners"]
    assert [(t["id"], t["state"], t["tuned"]) for t in tuners if t["state"] != "disabled"] == [
        (2, "enabled", True), (3, "enabled", False)]
    for device in devices:
        for secret in fleet.call(device.issued_secrets):
            assert secret not in saved[device.name]

    after = tmp_path / "after"
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "backup.yml",
                                       all_vars=dict(settings, backup_dir=str(after), backup_history=False))
    assert code == 0, output
    for device in devices:
        assert (after / ("%s.json" % device.name)).read_text() == saved[device.name]


def test_a_replacement_that_loses_what_worked_at_the_backup_fails_naming_it_and_the_waiver(
        fleet, collections_path, tmp_path):
    """Issue 30 item 1: a replacement found at the factory address is compared with the backup's
    snapshot too. Input News received when the backup was taken; on the replacement its stream
    does not arrive (the simulator's lost signal): the restore fails, naming the input, its check
    and the variable that waives it; with the check waived, the restore passes."""
    device = fleet.fleet.by_name("ts-001")
    fleet.call(device.reset)
    home, identity = device.address, device.address.rsplit(".", 1)[0] + ".210"
    api = Api(device)
    entries = [{"error_name": error, "threshold": 100} for error in PRIORITY_1]  # only a lost stream shows
    api.add_input("News", profile_id=api.post("/profiles", {"name": "Quiet", "entries": entries})["id"])
    setup = tmp_path / "setup.yml"
    setup.write_text(yaml.safe_dump(SETUP, sort_keys=False))
    code, output = run_playbook(fleet, collections_path, tmp_path, str(setup), options=["--limit", device.name],
                                host_vars={device.name: {"identity": identity}})[:2]
    assert code == 0 and device.address == identity, output
    backups = tmp_path / "backups"
    code, output = run_playbook(fleet, collections_path, tmp_path, "backup.yml", options=["--limit", device.name],
                                all_vars={"broadcast_monitoring_password": FLEET_PASSWORD,
                                          "backup_dir": str(backups)})[:2]
    assert code == 0, output

    fleet.call(device.reset)  # the replacement, at the factory (home) address
    fleet.call(device.lose_signal, 1)  # the id the restored input gets: its stream does not arrive there
    restore = {"broadcast_monitoring_password": FLEET_PASSWORD, "restore_backup_dir": str(backups),
               "restore_probe_timeout": 1, "restore_reboot_timeout": 30, "restore_snapshot_confirm_interval": 0.5}
    where = {device.name: {"ansible_host": identity, "restore_factory_address": home}}
    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "restore.yml", all_vars=restore,
                                       host_vars=where, extra_vars={"restore_hosts": device.name})
    assert code != 0 and hosts[device.name]["failed"] == 1, output
    assert ("input News (id 1): was receiving its stream, now does not (state no_signal) [check receiving]"
            in output), output
    assert "waive the check(s) with restore_snapshot_ignore: [receiving]" in output, output
    assert device.address == identity  # restored up to the check
    assert [i["name"] for i in Api(device, FLEET_PASSWORD).get("/inputs")] == ["News"]

    code, output, hosts = run_playbook(fleet, collections_path, tmp_path, "restore.yml",
                                       all_vars=dict(restore, restore_snapshot_ignore=["receiving"]),
                                       host_vars=where, extra_vars={"restore_hosts": device.name})
    assert code == 0 and hosts[device.name]["changed"] == 0, output

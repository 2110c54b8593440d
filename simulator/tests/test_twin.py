"""Twins from backup documents (README, "Twins"). The collection's functional tests prove a
twin lossless against device_backup (format 2, both device types); these check what the
simulator alone decides: format 1, the world a twin starts in, the command and its refusals."""

import asyncio
import json
import signal
import subprocess
import time

import pytest
import yaml

from bm_simulator import twin
from bm_simulator.fleet import running_fleet

from sim_api import COMMAND_ENV, Api, command, ok

NETWORK = {"dhcp": False, "address": "10.1.2.3", "netmask": "255.255.255.0", "gateway": "10.1.2.1",
           "dns": ["10.1.2.53"], "hostname": "analyzer-north"}
TIME = {"ntp": True, "ntp_servers": ["ntp.example.org"], "timezone": "Europe/Berlin"}

#: a format-1 analyzer backup: the managed settings in the shapes of the collection's module options
TS_FORMAT_1 = {
    "format": twin.FORMAT_1, "device_type": "ts_analyzer", "firmware_version": "2.1.0",
    "system": {"network": NETWORK, "time": TIME,
               "logging": {"level": "warning", "remote_syslog": {"enabled": True, "server": "10.1.2.9", "port": 514}}},
    "config": {
        "alert_profiles": [{"name": "Default", "errors": {}},
                           {"name": "Strict", "errors": {"crc_error": {"alert_type": "critical", "enabled": True}}}],
        "inputs": [
            {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}, "alert_profile": "Strict",
             "pid_error_list": [256], "monitoring": "started", "scte35": True,
             "thumbnails": {"enabled": True, "pid": 301}},
            {"name": "Mux 2", "source": {"unicast": {"address": "10.1.2.3", "port": 6000}}, "alert_profile": "Default",
             "pid_error_list": [], "monitoring": "paused", "scte35": False, "thumbnails": {"enabled": False}},
        ],
        "snmp": {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["10.1.2.7:162"]},
        "converters": [{"asi_port": 1, "running": True, "multicast_address": "239.9.9.9", "multicast_port": 6000,
                        "interface": "eth1", "ttl": 4}, {"asi_port": 2, "running": False}],
    },
}


def write(tmp_path, name, doc):
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps(doc))
    return str(path)


def admin(device):
    api = Api(device)
    assert api.login().status_code == 200
    return api


def test_a_format_1_analyzer_backup(tmp_path):
    """Disaster recovery guide: "Format 1 backups ... restore what they hold (the managed fields
    only)"; the twin starts with them, its address and hostname as saved, effective at once."""
    backup = twin.read_backup(write(tmp_path, "north-ts", TS_FORMAT_1))
    assert backup[0] == "north-ts"
    with running_fleet(ts=0, fm=0, time_scale=0.01, twins=[backup]) as runner:
        device = runner.fleet.by_name("north-ts")
        api = admin(device)
        assert ok(api.get("/system/device"))["firmware_version"] == "2.1.0"
        network = ok(api.get("/system/network"))
        assert {k: network[k] for k in NETWORK} == NETWORK and network["pending_hostname"] is None
        assert ok(api.get("/system/status"))["reboot_needed"] is False
        assert ok(api.get("/system/timezone"))["timezone"] == "Europe/Berlin"
        assert ok(api.get("/system/log/settings"))["level"] == "warning"
        profiles = ok(api.get("/profiles"))
        assert [p["name"] for p in profiles] == ["Default", "Strict"]
        crc = next(e for e in profiles[1]["entries"] if e["error_name"] == "crc_error")
        assert crc["alert_type"] == "critical"
        inputs = {i["name"]: i for i in ok(api.get("/inputs"))}
        assert inputs["Mux 1"]["config"] == {"eth": {"stream_protocol": 0, "multicast": {
            "multicast_address": "239.1.1.1", "multicast_port": 5000}}}
        assert inputs["Mux 1"]["alerts_config"]["profile_id"] == profiles[1]["id"]
        assert inputs["Mux 1"]["scte35"]["enabled"] and inputs["Mux 1"]["thumbnails"] == {"enabled": True, "pid": 301}
        assert inputs["Mux 1"]["state"] == "ok" and inputs["Mux 2"]["state"] == "paused"
        assert [c["running"] for c in ok(api.get("/converter"))] == [True, False]
        assert ok(api.get("/snmp/settings"))["trap_addresses"] == ["10.1.2.7:162"]
        # the setup left nothing behind: no request but this test's, no token but its own
        assert {r["kind"] for r in runner.call(lambda: list(device.requests))} <= {"login", "read"}
        assert list(device.state["tokens"]) == [api.token]


def fm_backup(conf, snapshot_tuners=None, serial="FMM8SITE001"):
    doc = {"format": twin.FORMAT_2, "device_type": "fm_monitor",
           "device": {"model": "FMM-8 FM Monitoring Receiver", "serial_number": serial, "firmware_version": "3.0.1"},
           "system": {}, "raw": {"conf": conf, "tuners": [], "log_settings": conf["log"]}}
    if snapshot_tuners is not None:
        doc["snapshot"] = {"device_type": "fm_monitor", "firmware_version": "3.0.1", "tuners": snapshot_tuners}
    return doc


def site_conf():
    """A monitor's GET /conf with a station list off the simulator's own band, three tuners on it
    (two enabled), one enabled on a frequency no station of the list has."""
    with running_fleet(ts=0, fm=1, time_scale=0.01) as runner:
        conf = ok(admin(runner.fleet.devices[0]).get("/conf"))
    conf["stations"] = [{"station_id": 0, "frequency": 87650, "rssi": 40, "snr": 30, "timestamp": "2026-01-01T00:00:00Z"},
                        {"station_id": 1, "frequency": 104350, "rssi": 35, "snr": 25,
                         "timestamp": "2026-01-01T00:00:00Z"}]
    for tid, frequency, state in ((0, 87650, 1), (1, 104350, 1), (2, 104350, 2), (3, 99990, 1)):
        conf["tuners"][tid].update(frequency=frequency, state=state)
    conf["hostname"] = "site-fm"
    return conf


def tuned(api):
    return {t["tuner_id"]: t["tuned"] for t in ok(api.get("/tuners/all"))}


@pytest.mark.parametrize("snapshot", [False, True], ids=["no-snapshot", "snapshot"])
def test_an_fm_twin_hears_the_sites_stations(tmp_path, snapshot):
    """Enabled tuners on a frequency of the station list lock; without a snapshot, one off the
    list does not. With a snapshot, each enabled tuner is tuned as the snapshot saw it."""
    conf = site_conf()
    seen = [{"id": 0, "state": "enabled", "tuned": False}, {"id": 1, "state": "enabled", "tuned": True},
            {"id": 3, "state": "enabled", "tuned": True}] if snapshot else None
    backup = twin.read_backup(write(tmp_path, "site-fm", fm_backup(conf, seen)))
    with running_fleet(ts=0, fm=0, time_scale=0.01, twins=[backup]) as runner:
        api = admin(runner.fleet.by_name("site-fm"))
        status = ok(api.get("/status"))
        assert status["hostname"] == "site-fm" and status["reboot_needed"] is False
        assert status["versions"]["serial_number"] == "FMM8SITE001" and status["versions"]["package_ver"] == "3.0.1"
        got = tuned(api)
        expected = {0: False, 1: True, 3: True} if snapshot else {0: True, 1: True, 3: False}
        assert {tid: got[tid] for tid in expected} == expected and got[2] is False  # tuner 2 paused
        # GET /conf gives back the backup's (no clock in it)
        assert ok(api.get("/conf")) == conf


def test_a_twin_of_a_format_1_fm_backup_is_its_conf(tmp_path):
    conf = site_conf()
    doc = {"format": twin.FORMAT_1, "device_type": "fm_monitor", "firmware_version": "2.0.0",
           "system": {"network": {}, "time": {}, "logging": {}}, "config": {"conf": conf}}
    with running_fleet(ts=0, fm=0, time_scale=0.01, twins=[twin.read_backup(write(tmp_path, "old", doc))]) as runner:
        api = admin(runner.fleet.by_name("old"))
        assert ok(api.get("/conf")) == conf
        assert ok(api.get("/status"))["versions"]["package_ver"] == "2.0.0"


def test_files_that_are_not_backups_are_refused(tmp_path):
    (tmp_path / "broken.json").write_text("{")
    for name, doc in (("other", {"format": "something/1", "device_type": "ts_analyzer"}),
                      ("router", {"format": twin.FORMAT_2, "device_type": "router"})):
        write(tmp_path, name, doc)
    for name, message in (("broken", "not readable as JSON"), ("other", "not a device_backup document"),
                          ("router", "device_type must be one of")):
        with pytest.raises(twin.BackupError, match=message):
            twin.read_backup(str(tmp_path / (name + ".json")))
    refused = subprocess.run(command("twin", str(tmp_path / "other.json"), "--inventory", str(tmp_path / "i.yml")),
                             env=COMMAND_ENV, capture_output=True, text=True, check=False)
    assert refused.returncode == 2 and "not a device_backup document" in refused.stderr
    assert not (tmp_path / "i.yml").exists()


def test_twin_command_names_hosts_after_their_files(tmp_path):
    """README, Twins: consecutive loopback addresses, hosts named after the files, the groups of
    `fleet`; a backup the device refuses stops the command (exit 2) with the refusal."""
    write(tmp_path, "north-ts", TS_FORMAT_1)
    write(tmp_path, "site-fm", fm_backup(site_conf()))
    inventory = tmp_path / "twins.yml"
    proc = subprocess.Popen(command("twin", "north-ts.json", "site-fm.json", "--address", "127.21.40.1", "--port",
                                    "0", "--time-scale", "0.01", "--inventory", str(inventory)),
                            cwd=tmp_path, env=COMMAND_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready: 2 devices", proc.stderr.read()
        groups = yaml.safe_load(inventory.read_text())["all"]["children"]
        assert groups["ts_analyzers"]["hosts"]["north-ts"]["ansible_host"] == "127.21.40.1"
        port = groups["fm_monitors"]["hosts"]["site-fm"]["device_port"]
        assert groups["fm_monitors"]["hosts"]["site-fm"] == {
            "ansible_host": "127.21.40.2", "device_port": port, "device_type": "fm_monitor",
            "broadcast_monitoring_twin": {"host": "127.21.40.2", "port": port}}
        # the group the collection's roles know twins by (a rehearsal never reaches a unit)
        assert groups["twins"] == {"hosts": {"north-ts": None, "site-fm": None}}
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    bad = dict(TS_FORMAT_1, system=dict(TS_FORMAT_1["system"], time=dict(TIME, timezone="Mars/Olympus")))
    write(tmp_path, "bad", bad)
    refused = subprocess.run(command("twin", "bad.json", "--address", "127.21.40.1", "--port", "0",
                                     "--inventory", str(tmp_path / "bad.yml")),
                             cwd=tmp_path, env=COMMAND_ENV, capture_output=True, text=True, check=False, timeout=60)
    assert refused.returncode == 2 and "/system/timezone was refused: 400" in refused.stderr, refused.stderr
    assert not (tmp_path / "bad.yml").exists()


def test_a_twin_stays_at_its_own_address_when_it_reboots(tmp_path):
    """A unit of a simulated site has a loopback address in its backup; a reboot of its twin
    (into new firmware, after a network change...) keeps the twin where its inventory says."""
    network = dict(NETWORK, address="127.0.0.9", netmask="255.0.0.0", gateway="127.0.0.1")
    doc = dict(TS_FORMAT_1, system=dict(TS_FORMAT_1["system"], network=network))
    with running_fleet(ts=0, fm=0, time_scale=0.01, twins=[twin.read_backup(write(tmp_path, "sim-unit", doc))]) as runner:
        device = runner.fleet.by_name("sim-unit")
        address = device.address
        api = admin(device)
        assert ok(api.get("/system/network"))["address"] == "127.0.0.9"
        booted = device.booted_at
        ok(api.post("/system/reboot"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (device.down or device.booted_at == booted):
            time.sleep(0.02)  # down for the reboot gap, then up again
        assert not device.down and device.address == address
        assert admin(device).get("/system/alive", token=None).status_code == 200


# -- backups and state files as untrusted input (issue 42, part 6) -------------------------------
@pytest.mark.parametrize("change, field", [
    (lambda doc: doc.update(system={}), "field system.network is missing"),
    (lambda doc: doc["system"].update(time={"ntp": "yes", "ntp_servers": [], "timezone": "UTC"}),
     "field system.time.ntp must be true or false"),
    (lambda doc: doc["config"].update(alert_profiles=[{"errors": {}}]), "field config.alert_profiles[0].name is missing"),
    (lambda doc: doc["config"]["alert_profiles"][1].update(errors={"crc_error": 3}),
     "field config.alert_profiles[1].errors.crc_error must be an object"),
    (lambda doc: doc["config"]["inputs"][1].update(source={"carrier_pigeon": {}}),
     "field config.inputs[1].source must be one of"),
    (lambda doc: doc["config"]["converters"][0].pop("asi_port"), "field config.converters[0].asi_port is missing"),
    (lambda doc: doc.update(snapshot={"inputs": ["Mux 1"]}), "field snapshot.inputs[0] must be an object"),
])
def test_a_malformed_backup_is_refused_naming_the_file_and_the_field(tmp_path, change, field):
    doc = json.loads(json.dumps(TS_FORMAT_1))
    change(doc)
    path = write(tmp_path, "north-ts", doc)
    with pytest.raises(twin.BackupError) as refused:
        twin.read_backup(path)
    assert str(refused.value).startswith(path + ": ") and field in str(refused.value)


def test_malformed_format_2_backups_are_refused_naming_the_field(tmp_path):
    ts = {"format": twin.FORMAT_2, "device_type": "ts_analyzer", "system": {"network": NETWORK, "time": TIME},
          "raw": {"profiles": [], "inputs": [], "converters": [{"running": False}]}}
    with pytest.raises(twin.BackupError, match=r"field raw.converters\[0\].port is missing"):
        twin.read_backup(write(tmp_path, "ts", ts))
    with pytest.raises(twin.BackupError, match=r"field raw.tuners\[0\].tuner_id must be an integer, not true"):
        raw = {"conf": site_conf(), "tuners": [{"tuner_id": True}]}
        twin.read_backup(write(tmp_path, "fm", dict(fm_backup(site_conf()), raw=raw)))
    with pytest.raises(twin.BackupError, match=r"field raw.conf is missing"):
        twin.read_backup(write(tmp_path, "fm", dict(fm_backup(site_conf()), raw={})))


def test_the_twin_command_refuses_a_malformed_backup_with_exit_2(tmp_path):
    """An analyzer backup with ``system: {}``: exit 2 naming the file and the field, no traceback."""
    path = write(tmp_path, "north-ts", dict(TS_FORMAT_1, system={}))
    refused = subprocess.run(command("twin", path, "--address", "127.21.41.1", "--port", "0",
                                     "--inventory", str(tmp_path / "i.yml")),
                             env=COMMAND_ENV, capture_output=True, text=True, check=False, timeout=60)
    assert refused.returncode == 2 and "%s: field system.network is missing" % path in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr and not (tmp_path / "i.yml").exists()


def test_a_backup_is_never_its_twins_state_file(tmp_path):
    """The backup given is <state-dir>/<host>.json: refused (exit 2) before anything reads it as
    saved state or writes to it."""
    path = write(tmp_path, "north-ts", dict(TS_FORMAT_1, active_address="0.0.0.0", state={}))
    before = (tmp_path / "north-ts.json").read_bytes()
    refused = subprocess.run(command("twin", path, "--state-dir", str(tmp_path), "--address", "127.21.42.1",
                                     "--port", "0", "--inventory", str(tmp_path / "i.yml")),
                             env=COMMAND_ENV, capture_output=True, text=True, check=False, timeout=60)
    assert refused.returncode == 2 and "the twin's state file in --state-dir would be this backup" in refused.stderr
    assert (tmp_path / "north-ts.json").read_bytes() == before and not (tmp_path / "i.yml").exists()


@pytest.mark.parametrize("saved, message", [
    (TS_FORMAT_1, "not a state file of the simulator (a device_backup document is not one)"),
    ({"active_address": "0.0.0.0", "state": {}}, "field active_address: refusing non-loopback address '0.0.0.0'"),
    ({"active_address": "127.21.43.9", "state": []}, "field state must be an object"),
])
def test_a_file_in_the_state_dir_is_read_as_untrusted_input(tmp_path, saved, message):
    """A copy of the backup (or any file) in --state-dir under the twin's name is not resumed
    from: refused with exit 2, the file untouched, nothing bound."""
    backups, state_dir = tmp_path / "backups", tmp_path / "state"
    backups.mkdir()
    state_dir.mkdir()
    path = write(backups, "north-ts", TS_FORMAT_1)
    planted = state_dir / "north-ts.json"
    planted.write_text(json.dumps(saved))
    before = planted.read_bytes()
    refused = subprocess.run(command("twin", path, "--state-dir", str(state_dir), "--address", "127.21.43.1",
                                     "--port", "0", "--inventory", str(tmp_path / "i.yml")),
                             env=COMMAND_ENV, capture_output=True, text=True, check=False, timeout=60)
    assert refused.returncode == 2 and "%s: " % planted in refused.stderr and message in refused.stderr, refused.stderr
    assert "ready:" not in refused.stdout and planted.read_bytes() == before


def test_no_device_binds_a_non_loopback_address_whatever_its_source():
    """The check is where a device binds, not only where the command reads --address."""
    from bm_simulator.ts import TsAnalyzer

    device = TsAnalyzer("stray", "0.0.0.0", 0)

    async def start():
        try:
            await device.start()
        finally:
            await device.stop()
    with pytest.raises(ValueError, match="stray: refusing non-loopback address '0.0.0.0'"):
        asyncio.run(start())

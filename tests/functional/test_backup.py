"""device_backup and device_restore: backup, factory reset, restore, backup again, equal."""

import json
import os
import stat

import pytest

import yaml

from .conftest import EXAMPLE_VARS, ROOT, connection, module_examples
from .device_api import Api


def galaxy_version():
    with open(ROOT + "/galaxy.yml", encoding="utf-8") as handle:
        return yaml.safe_load(handle)["version"]


def configure_ts(device):
    api = Api(device)
    strict = api.post("/profiles", {"name": "Strict", "entries": [
        {"error_name": "pcr_accuracy_error", "alert_type": "critical", "snmp_trap": True}]})
    api.post("/profiles", {"name": "Unused", "entries": []})
    mux = api.post("/inputs", {"name": "Mux 1", "config": {"eth": {"stream_protocol": 0, "multicast": {
        "multicast_address": "239.1.1.1", "multicast_port": 5000}}}, "alerts_config": {"profile_id": strict["id"]}})
    api.post("/inputs", {"name": "ASI", "config": {"asi": {"port": 2}}, "alerts_config": {"profile_id": 1}})
    api.get("/inputs/%d/stop" % mux["id"])
    api.post("/inputs/%d/scte/toggle" % mux["id"], {"enabled": True})
    api.post("/snmp/settings", {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["10.0.0.100:162"]})
    api.post("/converter/1/start", {"multicast_address": "239.9.9.9", "multicast_port": 6000, "interface": "eth0",
                                    "ttl": 8})
    api.post("/system/timezone", {"timezone": "Europe/Berlin"})
    api.post("/system/datetime", {"enable_ntp": True, "ntp_servers": ["192.0.2.123"]})
    api.post("/system/log/settings", {"level": "warning", "remote_syslog": {"enabled": True, "server": "192.0.2.10",
                                                                            "port": 514}})


def configure_fm(device):
    api = Api(device)
    api.post("/tuner/2/settings", {"name": "Radio Two", "frequency": 99500, "hw_settings": {"channel_filter": 3}})
    api.post("/tuner/2/state", {"state": 1})
    api.post("/tuner/2/stream", {"enabled": True, "stream": {"url": "udp://239.5.5.5:1234", "codec": "aac",
                                                             "bitrate": 192}})
    api.post("/tuners/all/schedule", {"active": True, "events": {"monday": [{"minute": 360, "state": 1}]}})
    api.post("/tuner/5/thresholds", {"rssi_threshold": 30, "thresholds": {"snr": {"min": 12}}})
    api.post("/conf/datetime", {"enable_ntp": False, "datetime": "2026-01-01T00:00:00Z", "timezone": 3})
    api.post("/conf/log", {"level": "error", "enable_rsyslog": True, "rsyslog_server": "192.0.2.10"})


def ts_content(doc):
    raw = doc["raw"]
    assert sorted(p["name"] for p in raw["profiles"]) == ["Default", "Strict", "Unused"]
    inputs = {i["name"]: i for i in raw["inputs"]}
    assert raw["profiles"][0]["name"] == "Default" and "id" not in raw["profiles"][0]
    assert inputs["Mux 1"]["alerts_config"]["profile_id"] == "Strict" and inputs["Mux 1"]["monitoring"] is False
    assert inputs["Mux 1"]["scte35"] == {"enabled": True} and "metrics" not in inputs["Mux 1"]
    assert raw["snmp"]["trap_addresses"] == ["10.0.0.100:162"]
    assert [c["running"] for c in raw["converters"]] == [True, False]
    assert doc["system"]["time"]["timezone"] == "Europe/Berlin"
    assert raw["log_settings"]["remote_syslog"]["port"] == 514
    assert doc["device"]["model"] == "TSA-4" and doc["device"]["serial_number"].startswith("TSA")


def fm_content(doc):
    tuner = doc["raw"]["conf"]["tuners"][2]
    assert (tuner["name"], tuner["frequency"], tuner["state"]) == ("Radio Two", 99500, 1)
    assert tuner["stream"]["bitrate"] == 192 and tuner["schedule"]["events"]["monday"] == [{"minute": 360, "state": 1}]
    assert doc["raw"]["tuners"][5]["thresholds"]["rssi_threshold"] == 30
    assert "quality" not in doc["raw"]["tuners"][0] and "measured_bitrate" not in doc["raw"]["tuners"][0]["stream"]
    assert doc["system"]["time"]["timezone"] == 3 and doc["raw"]["log_settings"]["level"] == "error"
    assert doc["device"]["serial_number"].startswith("FMM8")


CONFIGURE = {"ts-002": configure_ts, "fm-002": configure_fm}
CONTENT = {"ts-002": ts_content, "fm-002": fm_content}


def module(name, device, **options):
    return {"name": name, "broadcast.monitoring.%s" % name: dict(connection(device), **options)}


@pytest.mark.parametrize("name", sorted(CONFIGURE))
def test_backup_factory_reset_restore_backup_is_equal(play, sim, tmp_path, name):
    device = sim.fleet.by_name(name)
    sim.call(device.power_cycle)
    sim.call(device.reset)
    CONFIGURE[name](device)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    out = play.run([module("device_backup", device, dest=str(first)),
                    module("device_backup", device, dest=str(first))], name)
    assert out[0].get("failed") is not True, out[0]
    assert [r["changed"] for r in out.results] == [True, False]
    doc = json.loads(first.read_text())
    assert doc["device_type"] == device.kind and doc["format"] == "broadcast.monitoring.backup/2"
    assert doc["device"]["firmware_version"] == "1.0.0" and doc["collection_version"] == galaxy_version()
    CONTENT[name](doc)
    for secret in sim.call(device.issued_secrets):
        assert secret not in first.read_text()

    out = play.run([module("device_reboot", device, state="factory_reset", confirm=True, reboot_timeout=30)], name)
    assert out[0].get("failed") is not True, out[0]
    sim.call(device.requests.clear)
    checked = play.run([module("device_restore", device, src=str(first))], name, check=True, diff=True)[0]
    assert checked.get("failed") is not True, checked
    assert checked["changed"] is True
    assert sim.call(device.writes) == []
    out = play.run([module("device_restore", device, src=str(first)),
                    module("device_restore", device, src=str(first)),
                    module("device_backup", device, dest=str(second))], name, diff=True)
    assert out[0].get("failed") is not True, out[0]
    assert out[0]["changed"] is True and out[0]["changed_sections"] == checked["changed_sections"], (
        out[0]["changed_sections"], checked)
    assert out[1]["changed"] is False, out[1]["changed_sections"]
    assert second.read_text() == first.read_text()


def test_backup_of_one_type_is_refused_by_the_other(play, sim, tmp_path):
    ts, fm = sim.fleet.by_name("ts-002"), sim.fleet.by_name("fm-002")
    for device in (ts, fm):
        sim.call(device.power_cycle)
    saved = tmp_path / "ts.json"
    out = play.run([module("device_backup", ts, dest=str(saved))], ts.name)
    assert out[0].get("failed") is not True, out[0]
    sim.call(fm.requests.clear)
    result = play.run([module("device_restore", fm, src=str(saved))], fm.name)[0]
    assert result["failed"] is True
    assert "src: a backup of a ts_analyzer cannot be restored to a fm_monitor" in result["msg"]
    assert sim.call(fm.writes) == []
    (tmp_path / "junk.json").write_text("{not json")
    result = play.run([module("device_restore", fm, src=str(tmp_path / "junk.json"))], fm.name)[0]
    assert "src: not a backup document" in result["msg"]


def test_documented_examples_run_as_written(play, sim):
    device = sim.fleet.by_name("ts-002")
    sim.call(device.power_cycle)
    tasks = module_examples("device_backup") + module_examples("device_restore")
    out = play.run(tasks, device.name, extra_vars=EXAMPLE_VARS)
    for task, result in zip(tasks, out.results):
        assert result.get("failed") is not True, (task["name"], result)
    assert out[1]["changed"] is False  # restoring what was just backed up changes nothing


def test_restore_reports_no_change_the_device_cannot_make(play, sim, tmp_path):
    """A backup taken while converter 1 had never been started holds it stopped without
    settings; once the converter kept settings (a start and a stop), the analyzer offers no
    way to clear them: the restore warns and reports no change, in check mode and for real."""
    device = sim.fleet.by_name("ts-002")
    sim.call(device.power_cycle)
    sim.call(device.reset)
    saved = tmp_path / "never-started.json"
    out = play.run([module("device_backup", device, dest=str(saved))], device.name)
    assert out[0].get("failed") is not True, out[0]
    held = json.loads(saved.read_text())["raw"]["converters"][0]
    assert held["port"] == 1 and held["running"] is False and held.get("multicast_address") is None
    api = Api(device)
    api.post("/converter/1/start", {"multicast_address": "239.7.7.7", "multicast_port": 7000, "interface": "eth1",
                                    "ttl": 9})
    api.get("/converter/1/stop")
    kept = api.get("/converter/1")
    assert kept["running"] is False and kept["multicast_address"] == "239.7.7.7"
    restore = module("device_restore", device, src=str(saved))
    for check in (True, False):
        sim.call(device.requests.clear)
        out = play.run([restore, restore, restore], device.name, check=check, diff=True)
        for result in out.results:
            assert result.get("failed") is not True, result
            assert result["changed"] is False and result["changed_sections"] == [], result
            assert result["diff"] == {"before": {}, "after": {}}, result["diff"]
            warning = " ".join(result.get("warnings", []))
            assert "converters: ASI port 1" in warning and "multicast_address=239.7.7.7" in warning, result
            assert "no way to clear" in warning
        assert sim.call(device.writes) == [], check
    assert api.get("/converter/1") == kept


TARGET_TEXT = "the target of a planted link: never to be read or written\n"
#: the environment of a run whose modules run as module processes, and of one that runs them inside the controller
MODES = {"direct": {}, "process": {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"}}


def plant(tmp_path, name):
    """A symlink ``name`` in a folder of its own, to a file outside it that holds TARGET_TEXT."""
    target = tmp_path / "target.txt"
    target.write_text(TARGET_TEXT)
    target.chmod(0o644)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / name).symlink_to(target)
    return folder / name, target


def under_umask_022(run):
    umask = os.umask(0o022)  # the usual umask, under which a new file would be 0644
    try:
        return run()
    finally:
        os.umask(umask)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_symlink_at_the_backup_path_is_replaced_never_read_or_written_through(play, sim, tmp_path, mode):
    """device_backup --check --diff does not show what a planted link points to and leaves the
    link; the run replaces the link with a new 0600 file (as ansible.builtin.copy replaces one)
    and leaves its target as it was; the next run changes nothing and keeps the mode."""
    device = sim.fleet.by_name("ts-002")
    link, target = plant(tmp_path, "ts-002.json")
    task = module("device_backup", device, dest=str(link))
    checked = play.run([task], device.name, check=True, diff=True, env=MODES[mode])
    assert checked[0].get("failed") is not True and checked[0]["changed"] is True, checked[0]
    assert checked[0]["diff"]["before"] == "", checked[0]["diff"]
    assert "never to be read" not in checked.output
    assert link.is_symlink() and target.read_text() == TARGET_TEXT
    out = under_umask_022(lambda: play.run([task, task], device.name, env=MODES[mode]))
    assert [r.get("failed") is not True and r["changed"] for r in out.results] == [True, False], out.results
    assert "never to be read" not in out.output
    assert not link.is_symlink() and json.loads(link.read_text())["device_type"] == "ts_analyzer"
    assert stat.S_IMODE(os.lstat(link).st_mode) == 0o600
    assert target.read_text() == TARGET_TEXT and stat.S_IMODE(os.stat(target).st_mode) == 0o644


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_symlink_where_a_download_goes_is_replaced_never_read_or_written_through(play, sim, tmp_path, mode):
    """The streamed downloads too (the analyzer's MIB with ts_statistics, the FM monitor's with
    fm_actions): check mode leaves the link, the run replaces it with a 0600 file."""
    ts, fm = sim.fleet.by_name("ts-002"), sim.fleet.by_name("fm-002")
    link, target = plant(tmp_path, "DVB-MGTR101290-MIB.txt")
    fm_link = link.parent / "fm.mib"
    fm_link.symlink_to(target)
    tasks = {ts.name: module("ts_statistics", ts, operation="download_mib", dest=str(link.parent)),
             fm.name: module("fm_actions", fm, mib={"dest": str(fm_link)})}
    for name, task in tasks.items():
        checked = play.run([task], name, check=True, diff=True, env=MODES[mode])[0]
        assert checked.get("failed") is not True and checked["changed"] is True, checked
        assert link.is_symlink() and fm_link.is_symlink() and target.read_text() == TARGET_TEXT
    for name, task in tasks.items():
        result = under_umask_022(lambda task=task, name=name: play.run([task], name, env=MODES[mode]))[0]
        assert result.get("failed") is not True and result["changed"] is True, result
    for written in (link, fm_link):
        assert not written.is_symlink() and written.read_text() != TARGET_TEXT
        assert stat.S_IMODE(os.lstat(written).st_mode) == 0o600
    assert target.read_text() == TARGET_TEXT

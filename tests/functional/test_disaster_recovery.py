"""Disaster recovery, proven on the device: every configurable field is set to a non-factory
value through the device's own API (also fields no module manages, and with the simulator's
"keep" variant, fields the interface document does not name); then backup, factory reset
(device_reboot), a restore that stops halfway on a fault, the restore run again; then the raw
answers of every configurable GET endpoint are compared with those from before, field by
field. The only differences allowed are the documented ones (docs/docsite/rst/
guide_disaster_recovery.rst, "What a restore cannot bring back"): passwords (set by the
restore role's inputs, not compared here), what the device changes by itself (its clock, live
state and measurements) and the ids the device assigns.
"""

import json

import pytest

from bm_simulator import swu
from bm_simulator.fleet import running_fleet

from .conftest import connection
from .device_api import Api

MULTICAST = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.2.2.2", "multicast_port": 5002,
                                                         "source_address": "10.9.9.9"}}}
UNICAST = {"eth": {"stream_protocol": 0, "unicast": {"listen_address": "0.0.0.0", "listen_port": 6001}}}
T2MI = {"t2mi": {"stream_id": 3, "service_id": 17, "elementary_stream_pid": 4097, "plp_id": 2, "manual": True}}
RF = {"rf": {"mode": 2, "frequency": 650000000, "bandwidth": 8, "plp_id": 1}}


# The devices' open choices a restore must survive: unknown fields refused or kept, an FM
# monitor whose GET /conf leaves settings out (they come back through their own endpoints), and
# a factory reset that keeps the installed firmware or goes back to the factory version (the
# documents say neither). Each choice is met by both device types, in three fleets rather than
# every combination (CI time).
VARIANTS = [("refuse", "complete", "kept"), ("keep", "complete", "factory"), ("refuse", "partial", "kept")]
#: the firmware the units run when backed up: not the factory version
FIELD_FIRMWARE = "2.4.1"


@pytest.fixture(scope="module", params=VARIANTS, ids=["-".join(v) for v in VARIANTS])
def sim(request):
    unknown_fields, fm_conf, reset_firmware = request.param
    with running_fleet(ts=1, fm=1, time_scale=0.02, unknown_fields=unknown_fields, fm_conf=fm_conf,
                       factory_reset_firmware=reset_firmware) as runner:
        runner.keeps = unknown_fields == "keep"
        runner.fm_conf = fm_conf
        yield runner


# -- setting every configurable field ---------------------------------------------------------
def configure_ts(api, keeps):
    extra = (lambda **fields: fields) if keeps else (lambda **fields: {})
    strict = api.post("/profiles", dict(name="Strict", **extra(owner="noc"), entries=[
        dict(error_name="pcr_accuracy_error", alert_type="critical", snmp_trap=True, threshold=2.5, min_value=1,
             max_value=9, **extra(hysteresis=3)),
        {"error_name": "ts_sync_loss", "enabled": False}]))
    api.post("/profiles/1", {"name": "Factory renamed", "entries": [{"error_name": "crc_error", "alert_type": "none"}]})
    unused = api.post("/profiles", {"name": "Unused", "entries": [{"error_name": "pts_error", "snmp_trap": True}]})
    inputs = {}
    for name, config, profile, pids in (("Mux A", MULTICAST, strict["id"], [256, 257]),
                                        ("Mux B", UNICAST, 1, []),
                                        ("ASI", {"asi": {"port": 2}}, unused["id"], [8191]),
                                        ("T2-MI", T2MI, strict["id"], []),
                                        ("RF", RF, 1, [32])):
        alerts = dict(profile_id=profile, pid_error_list=pids, **extra(colour="red"))
        body = dict(name=name, config=config, alerts_config=alerts, **extra(note=name.lower()))
        inputs[name] = api.post("/inputs", body)["id"]
    api.get("/inputs/%d/stop" % inputs["Mux B"])
    api.post("/inputs/%d/scte/toggle" % inputs["Mux A"], {"enabled": True})
    api.post("/inputs/%d/thumbnails/enable" % inputs["Mux A"], {"pid": 301})
    api.post("/snmp/settings", dict(enabled=True, listen_addresses=["10.0.0.7", "0.0.0.0"],
                                    trap_addresses=["10.0.0.100:162", "10.0.0.9:1162"], **extra(community="x")))
    api.post("/converter/1/start", {"multicast_address": "239.9.9.9", "multicast_port": 6000, "interface": "eth1",
                                    "ttl": 8})
    api.post("/converter/2/start", {"multicast_address": "239.9.9.10", "multicast_port": 6002, "interface": "eth0",
                                    "ttl": 3})
    api.get("/converter/2/stop")  # stopped, its last settings kept
    api.post("/system/timezone", {"timezone": "Europe/Berlin"})
    api.post("/system/datetime", {"enable_ntp": True, "ntp_servers": ["192.0.2.123", "ntp.example.org"]})
    api.post("/system/log/settings", dict(level="warning", **extra(facility="local3"), remote_syslog=dict(
        enabled=True, server="192.0.2.10", port=1514, **extra(protocol="tcp"))))
    network = api.get("/system/network")
    api.post("/system/network", {"dhcp": False, "address": network["address"], "netmask": network["netmask"],
                                 "gateway": "127.0.0.2", "dns": ["127.0.0.53", "127.0.0.54"]})
    api.post("/system/hostname", {"hostname": "studio-b-analyzer"})


def configure_fm(api, keeps):
    api.post("/tuner/0/scan")  # the station list
    stations = api.get("/stations/all")
    assert len(stations) >= 2
    for tid in range(8):
        api.post("/tuner/%d/settings" % tid, {"name": "Radio %d" % tid, "frequency": 88000 + 700 * tid,
                                              "hw_settings": {"agc_state": tid % 2, "channel_filter": tid % 5,
                                                              "deemphasis": 1, "lna_gain": tid,
                                                              "rssi_threshold": 10 + tid}})
        api.post("/tuner/%d/thresholds" % tid, {"rssi_threshold": 25 + tid, "rssi_interval": 5 + tid, "thresholds": {
            "snr": {"min": 11, "max": 120, "margin": 3}, "audiol": {"min": 5},
            "rds": {"blocka": True, "sync_lost": True, "margin": 4}}})
        api.post("/tuner/%d/schedule" % tid, {"active": tid % 2 == 0, "events": {
            "monday": [{"minute": 60 * tid, "state": 1}], "friday": [{"minute": 1439, "state": 2}]}})
        api.post("/tuner/%d/stream" % tid, {"enabled": tid < 4, "stream": {
            "url": "udp://239.7.7.%d:5004" % (tid + 1), "codec": "aac" if tid % 2 else "mp3", "bitrate": 192}})
        api.post("/tuner/%d/muted" % tid, {"muted": tid == 3})
        api.post("/tuner/%d/state" % tid, {"state": (1, 2, 0)[tid % 3]})
    api.post("/tuner/5/station", {"station_id": stations[1]["station_id"]})
    api.post("/monitor", {"tuner_id": 6, "mute": 16})
    network = api.get("/conf/network")
    api.post("/conf/network", {"dhcp": False, "address": network["address"], "netmask": network["netmask"],
                               "gateway": "127.0.0.2", "dns": ["127.0.0.53"]})
    api.post("/conf/hostname", {"hostname": "studio-b-fm"})
    api.post("/conf/datetime", {"enable_ntp": True, "datetime": "2026-01-01T00:00:00Z", "timezone": 5,
                                "ntp_servers": ["192.0.2.123", "ntp.example.org"]})
    api.post("/conf/log", {"level": "debug", "enable_rsyslog": True, "rsyslog_server": "192.0.2.10:1514"})
    if keeps:  # fields the document does not name, in the configuration object it says to post back
        conf = api.get("/conf")
        conf["site"] = {"rack": 4}
        conf["tuners"][2]["label_colour"] = "blue"
        api.post("/conf", conf)


# -- what the device answers, before and after ----------------------------------------------------
def by(items, key, drop=()):
    return {item[key]: {k: v for k, v in item.items() if k not in drop} for item in items}


def ts_answers(api):
    inputs = api.get("/inputs")
    return {
        # ids are the device's own; state, status, errors and metrics are live
        "GET /profiles": by(api.get("/profiles"), "name", ("id",)),
        "GET /inputs": by(inputs, "name", ("id", "state", "status", "errors", "metrics")),
        # image is a path built from the device-local input id
        "GET /inputs/{id}/thumbnails/status": {i["name"]: {k: v for k, v in api.get(
            "/inputs/%d/thumbnails/status" % i["id"]).items() if k != "image"} for i in inputs},
        "GET /snmp/settings": ordered_snmp(api.get("/snmp/settings")),
        "GET /converter": api.get("/converter"),
        "GET /system/network": api.get("/system/network"),
        "GET /system/datetime": {k: v for k, v in api.get("/system/datetime").items() if k != "datetime"},  # clock
        "GET /system/timezone": api.get("/system/timezone"),
        "GET /system/log/settings": api.get("/system/log/settings"),
        "GET /system/device": api.get("/system/device"),
    }


def ordered_snmp(settings):
    """The SNMP address lists are sets (their order means nothing; the backup stores them sorted)."""
    return dict(settings, **{k: sorted(settings[k]) for k in ("listen_addresses", "trap_addresses")})


def fm_answers(api):
    tuners = api.get("/tuners/all")
    for tuner in tuners:  # what the tuner measures
        for key in ("tuned", "signal_ok", "quality", "rds"):
            del tuner[key]
        del tuner["stream"]["measured_bitrate"]
    status = api.get("/status")
    return {
        "GET /conf": api.get("/conf"),
        "GET /tuners/all": tuners,
        "GET /stations/all": api.get("/stations/all"),
        "GET /conf/network": api.get("/conf/network"),
        "GET /conf/datetime": {k: v for k, v in api.get("/conf/datetime").items() if k != "datetime"},  # clock
        "GET /conf/log": api.get("/conf/log"),
        "GET /status": {"hostname": status["hostname"], "monitor_tuner": status["monitor_tuner"],
                        "versions": status["versions"]},
    }


def differences(before, after, path=""):
    """Every field that differs, as 'path: before != after'."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for key in sorted(set(before) | set(after), key=str):
            where = "%s.%s" % (path, key) if path else str(key)
            if key not in after:
                out.append("%s: lost (was %s)" % (where, json.dumps(before[key])))
            elif key not in before:
                out.append("%s: appeared (%s)" % (where, json.dumps(after[key])))
            else:
                out += differences(before[key], after[key], where)
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [d for i, (b, a) in enumerate(zip(before, after)) for d in differences(b, a, "%s[%d]" % (path, i))]
    return [] if before == after else ["%s: %s != %s" % (path, json.dumps(before), json.dumps(after))]


def module(name, device, **options):
    options = dict(connection(device), device_type=device.kind, **options)
    return {"name": name, "broadcast.monitoring.%s" % name: options}


#: a fault that stops the restore halfway: after the alert profiles, at the first input;
#: on the monitor, at its configuration write
HALFWAY = {
    "ts_analyzer": ({"kind": "error", "count": 1, "method": "POST", "path": "/api/inputs"}, "inputs"),
    "fm_monitor": ({"kind": "drop", "count": 2, "method": "POST", "path": "/api/conf"}, "conf"),
}
CONFIGURE = {"ts_analyzer": configure_ts, "fm_monitor": configure_fm}
ANSWERS = {"ts_analyzer": ts_answers, "fm_monitor": fm_answers}


@pytest.mark.parametrize("kind", ["ts_analyzer", "fm_monitor"])
def test_device_after_reset_and_restore_answers_as_before(play, sim, tmp_path, kind):
    if kind == "ts_analyzer" and sim.fm_conf == "partial":
        pytest.skip("a partial /conf is an FM monitor variant; the analyzer has no /conf")
    device = sim.fleet.of_kind(kind)[0]
    sim.call(device.reset)
    sim.call(lambda: device.state.update(firmware_version=FIELD_FIRMWARE))  # a unit upgraded in the field
    api = Api(device)
    CONFIGURE[kind](api, sim.keeps)
    api.reboot()  # settings pending until a reboot (hostname, network, logging) are in effect
    before = ANSWERS[kind](api)
    factory = tmp_path / "factory.json"
    (tmp_path / "before.json").write_text(json.dumps(before, indent=1, sort_keys=True))

    saved = tmp_path / "backup.json"
    out = play.run([module("device_backup", device, dest=str(saved)),
                    module("device_reboot", device, state="factory_reset", confirm=True, reboot_timeout=30)],
                   device.name)
    assert not any(r.get("failed") for r in out.results), out.results
    api = Api(device)
    factory.write_text(json.dumps(ANSWERS[kind](api), indent=1, sort_keys=True))
    assert differences(before, json.loads(factory.read_text())), "the factory reset changed nothing"
    if device.factory_reset_firmware == "factory":  # firmware first (guide_disaster_recovery.rst)
        assert api.firmware_version() == device.FACTORY_FIRMWARE
        written = len(sim.call(device.writes))
        refused = play.run([module("device_restore", device, src=str(saved))], device.name)[0]
        assert refused.get("failed") is True and FIELD_FIRMWARE in refused["msg"], refused
        assert refused.get("changed") is not True and len(sim.call(device.writes)) == written
        bundle = tmp_path / "field.swu"
        bundle.write_bytes(swu.build(FIELD_FIRMWARE))
        upgrade = play.run([module("device_firmware", device, path=str(bundle), reboot_timeout=30)], device.name)[0]
        assert upgrade.get("failed") is not True and upgrade["changed"] is True, upgrade
    assert api.firmware_version() == FIELD_FIRMWARE

    rule, section = HALFWAY[kind]
    sim.call(device.faults.add, rule)
    restore = module("device_restore", device, src=str(saved), network=True, busy_timeout=1)
    stopped = play.run([restore], device.name)[0]
    sim.call(device.faults.replace, [])
    assert stopped.get("failed") is True, stopped
    assert stopped["not_written"][0]["section"] == section, stopped
    assert {"section": "network"} in stopped["not_written"], stopped  # not reached
    out = play.run([restore, restore], device.name)
    assert out[0].get("failed") is not True and out[0]["changed"] is True, out[0]
    assert out[1].get("failed") is not True and out[1]["changed"] is False, out[1]
    api.reboot()  # the restored network identity and logging take effect

    after = ANSWERS[kind](Api(device))
    assert differences(before, after) == []


def test_restore_leaves_a_profile_field_it_cannot_remove_with_a_warning(play, sim, tmp_path):
    """A profile update merges: a field the analyzer keeps on a profile and the backup lacks
    cannot be removed. The restore says so and reports no change, in check mode and for real."""
    if not sim.keeps or sim.fm_conf != "complete":
        pytest.skip("an analyzer that keeps unknown fields (one variant is enough)")
    device = sim.fleet.of_kind("ts_analyzer")[0]
    sim.call(device.reset)
    saved = tmp_path / "backup.json"
    assert play.run([module("device_backup", device, dest=str(saved))], device.name)[0].get("failed") is not True
    api = Api(device)
    api.post("/profiles/1", {"owner": "noc"})
    assert api.get("/profiles")[0]["owner"] == "noc"
    restore = module("device_restore", device, src=str(saved))
    for check in (True, False):
        sim.call(device.requests.clear)
        for result in play.run([restore, restore, restore], device.name, check=check).results:
            assert result.get("failed") is not True and result["changed"] is False, result
            assert any("alert_profiles: profile 'Default': the device has field(s) owner that the backup does not"
                       in warning for warning in result.get("warnings", [])), result
        assert sim.call(device.writes) == []

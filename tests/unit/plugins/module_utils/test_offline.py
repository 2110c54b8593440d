"""_offline.py: a backup read as the device's answers, writes recorded and shown (no device needed)."""

import json

import pytest
import yaml

from ansible_collections.broadcast.monitoring.plugins.module_utils import _offline as offline
from ansible_collections.broadcast.monitoring.plugins.module_utils._backup import format as backup
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import reconcile
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.resources import Tuners, reconcile_tuners
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import Inputs, Profiles, snmp

MULTICAST = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}
TS_DOC = {
    "format": backup.FORMAT, "device_type": "ts_analyzer", "device": {}, "system": {},
    "raw": {
        "profiles": [{"name": "Default", "entries": []}, {"name": "Strict", "entries": []}],
        "inputs": [{"name": "Mux 1", "config": MULTICAST, "alerts_config": {"profile_id": "Strict", "pid_error_list": []},
                    "monitoring": True, "scte35": {"enabled": False}, "thumbnails": {"enabled": False, "pid": None},
                    "token": "from-a-firmware"}],
        "snmp": {"enabled": False, "listen_addresses": [], "trap_addresses": []},
        "converters": [{"port": 1, "running": False}, {"port": 2, "running": False}],
        "log_settings": {},
    },
}


def test_the_document_loads_from_json_yaml_or_a_dictionary():
    for given in (json.dumps(TS_DOC), yaml.safe_dump(TS_DOC), TS_DOC):
        assert offline.load(given, ts_device)["raw"] == TS_DOC["raw"]


@pytest.mark.parametrize("given, message", [
    ("{not: [closed", "running_config: not a backup document"),
    ("just text", "running_config: not a backup document of this collection"),
    (dict(TS_DOC, device_type="fm_monitor"), "running_config: a backup of a fm_monitor, but this module manages a ts_analyzer"),
    ({"format": backup.FORMAT_1, "device_type": "ts_analyzer", "config": {}}, "does not hold the device's own answers"),
])
def test_anything_else_is_refused_naming_running_config(given, message):
    with pytest.raises(InputError) as err:
        offline.load(given, ts_device)
    assert message in err.value.problems[0]


def test_reads_come_from_the_backup_with_the_ids_a_device_would_list():
    client = offline.Recorder(TS_DOC, ts_device)
    profiles = client.get(ts_device.PROFILES)
    assert [(p["id"], p["name"]) for p in profiles] == [(ts_device.FACTORY_PROFILE_ID, "Default"), (2, "Strict")]
    assert client.get(ts_device.INPUTS)[0]["alerts_config"]["profile_id"] == 2
    gathered = reconcile(Inputs(client), [], "gathered", False)["gathered"]
    assert gathered[0]["alert_profile"] == "Strict" and gathered[0]["monitoring"] == "started"
    with pytest.raises(InputError, match="running_config: the backup holds no answer to GET /api/system/status"):
        client.get(ts_device.STATUS)
    assert client.counts == {"login": 0, "read": 0, "write": 0} and client.writes == []


def test_writes_are_recorded_with_ids_named_and_secrets_hidden():
    client = offline.Recorder(TS_DOC, ts_device)
    config = [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5002}}, "alert_profile": "Default",
               "monitoring": "stopped"},
              {"name": "New", "source": {"asi": {"port": 1}}, "scte35": True}]
    reconcile(Inputs(client), config, "merged", False)
    rendered = client.rendered()
    assert [(r["method"], r["path"]) for r in rendered] == [
        ("POST", "/api/inputs/{input:Mux 1}"), ("GET", "/api/inputs/{input:Mux 1}/stop"), ("POST", "/api/inputs"),
        ("POST", "/api/inputs/{input:New}/scte/toggle")]
    update = rendered[0]["body"]
    assert update["input_id"] == "{input:Mux 1}" and update["alerts_config"]["profile_id"] == "{profile:Default}"
    assert update["token"] == "********" and "from-a-firmware" not in json.dumps(rendered)
    assert rendered[2]["body"]["alerts_config"]["profile_id"] == "{profile:Default}"
    assert rendered[1]["body"] is None
    assert client.writes[0]["body"]["token"] == "from-a-firmware"  # what the module made; shown hidden


def test_a_settings_write_is_what_the_read_back_finds():
    client = offline.Recorder(TS_DOC, ts_device)
    result = snmp(client, {"enabled": True, "trap_addresses": ["10.0.0.1:162"], "lists": "add"}, False)
    assert result["changed"] is True and "merged_again" not in result
    assert client.rendered() == [{"method": "POST", "path": "/api/snmp/settings", "body": {
        "enabled": True, "listen_addresses": [], "trap_addresses": ["10.0.0.1:162"]}}]


def test_profiles_created_and_updated_by_name():
    client = offline.Recorder(TS_DOC, ts_device)
    reconcile(Profiles(client), [{"name": "Strict", "errors": {"pid_error": {"enabled": False}}},
                                 {"name": "Loose", "errors": {}}], "merged", False)
    assert [(r["method"], r["path"]) for r in client.rendered()] == [
        ("POST", "/api/profiles/{profile:Strict}"), ("POST", "/api/profiles")]


def test_fm_tuners_get_their_station_from_the_frequency():
    tuner = {"tuner_id": 0, "name": "Tuner 1", "frequency": 94800, "state": 1, "muted": False, "stream_enabled": False,
             "stream": {"url": "udp://239.1.1.1:1234", "codec": "mp3", "requested_bitrate": 128},
             "hw_settings": dict(fm_device.FACTORY_HW), "thresholds": fm_device.FACTORY_THRESHOLDS,
             "schedule": {"active": False, "events": {}}}
    doc = {"format": backup.FORMAT, "device_type": "fm_monitor", "device": {}, "system": {},
           "raw": {"conf": {"stations": [{"station_id": 3, "frequency": 94800}]}, "tuners": [tuner], "log_settings": {}}}
    client = offline.Recorder(doc, fm_device)
    assert reconcile_tuners(Tuners(client), [], None, "gathered", False)["gathered"][0]["station_id"] == 3
    reconcile_tuners(Tuners(client), [{"tuner_id": 0, "stream": {"bitrate": 256}}], None, "merged", False)
    assert client.rendered() == [{"method": "POST", "path": "/api/tuner/0/stream",
                                  "body": {"enabled": False, "stream": {"bitrate": 256}}}]


@pytest.mark.parametrize("params, choices, problems", [
    ({"state": "rendered"}, ["merged", "replaced", "gathered", "parsed", "rendered"], []),
    ({"state": "rendered", "rendered_state": "replaced"}, ["merged", "replaced", "gathered", "parsed", "rendered"], []),
    ({"state": "merged", "rendered_state": "replaced"}, ["merged", "replaced", "parsed", "rendered"],
     ["rendered_state: only with state=rendered (got state=merged)"]),
    ({"state": "rendered", "rendered_state": "overridden"}, ["merged", "replaced", "gathered", "parsed", "rendered"],
     ["rendered_state: one of merged, replaced, the states this module writes with (got overridden)"]),
    ({"state": "rendered", "rendered_state": "parsed"}, ["merged", "deleted", "gathered", "parsed", "rendered"],
     ["rendered_state: one of merged, deleted, the states this module writes with (got parsed)"]),
])
def test_rendered_state_is_one_of_the_modules_writing_states(params, choices, problems):
    assert offline.rendered_state_problems(params, choices) == problems

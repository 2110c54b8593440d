"""Unit tests of the analyzer side: shapes (ts_device), checks and plans (ts_resources), paging (ts_gather)."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as dev
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import send_all
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import Run, reconcile
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.actions import destination
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.info import check_options, readers
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import (
    Converters,
    Inputs,
    Profiles,
    check_snmp,
    snmp,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import Checker


def raw_profile(profile_id, name, **changed):
    # The factory entries as the device lists them (tests/unit/test_simulator_agreement.py checks
    # that the module's factory entries are the simulator's, which follows the document).
    entries = [dict(dev.factory_entry(n), error_name=n, **changed.get(n, {})) for n in dev.ERROR_NAMES]
    return {"id": profile_id, "name": name, "entries": entries}


def test_profile_shapes_round_trip():
    raw = raw_profile(2, "Strict", pid_error={"alert_type": "none"})
    obj = dev.profile_from_device(raw)
    assert obj["errors"]["pid_error"]["alert_type"] == "none"
    body = dev.profile_body(obj)
    assert [e["error_name"] for e in body["entries"]] == list(dev.ERROR_NAMES)
    assert dev.profile_body(obj, ["pid_error"]) == {"name": "Strict", "entries": [dict(
        dev.factory_entry("pid_error"), alert_type="none", error_name="pid_error")]}


def test_profile_update_sends_only_changed_entries_and_replaced_resets_the_rest(recording_client):
    client = recording_client({dev.PROFILES: [raw_profile(1, "Default", ts_sync_loss={"snmp_trap": True})]})
    result = reconcile(Profiles(client), [{"name": "Default", "errors": {"crc_error": {"threshold": 4}}}],
                       "replaced", check_mode=False)
    assert result["changed"] is True
    (path, body), = client.sent("POST")
    assert path == dev.PROFILE % 1 and "name" not in body
    assert sorted(e["error_name"] for e in body["entries"]) == ["crc_error", "ts_sync_loss"]
    assert next(e for e in body["entries"] if e["error_name"] == "ts_sync_loss")["snmp_trap"] is False


def test_profile_deletions_checked_against_inputs_and_the_factory_profile(recording_client):
    client = recording_client({dev.PROFILES: [raw_profile(1, "Default"), raw_profile(2, "Used"), raw_profile(3, "Free")],
                               dev.INPUTS: [{"id": 7, "name": "Mux 7", "alerts_config": {"profile_id": 2}}]})
    with pytest.raises(InputError) as caught:
        reconcile(Profiles(client), [{"name": "Used"}, {"name": "Default"}, {"name": "Free"}], "deleted", False)
    assert caught.value.problems == [
        "config[1] (Default): the factory profile cannot be deleted (the analyzer refuses); name the profiles to delete",
        "config[0] (Used): cannot be deleted, input(s) 'Mux 7' use it; give them another alert_profile first (ts_input)"]
    assert client.paths("DELETE") == []
    cheap = recording_client({dev.PROFILES: [raw_profile(1, "Default")]})
    reconcile(Profiles(cheap), [{"name": "Default", "errors": {"crc_error": {"enabled": True}}}], "merged", True)
    assert cheap.requests == [{"method": "GET", "path": dev.PROFILES, "params": None, "body": None}]  # no deletion: the inputs are not read


@pytest.mark.parametrize("errors, message", [
    ({"nope": {}}, "errors.nope: unknown error name"),
    ({"crc_error": {"threshold": True}}, "errors.crc_error.threshold: must be a number, got True"),
    ({"crc_error": {"alert_type": "loud"}}, "errors.crc_error.alert_type: must be one of none, warning, critical"),
    (["crc_error"], "errors: must be a dictionary keyed by error name"),
])
def test_profile_checks(errors, message):
    problems = Profiles(None).check([{"name": "P", "errors": errors}], Run("merged"))
    assert any(message in p for p in problems), problems


def test_input_features_shape_and_defaults_left_out():
    raw = {"id": 1, "name": "A", "config": {"asi": {"port": 1}}, "alerts_config": {"profile_id": 1},
           "monitoring": True, "scte35": {"enabled": True}, "thumbnails": {"enabled": False, "pid": None}}
    obj = dev.input_from_device(raw, {1: "Default"})
    assert obj["scte35"] is True and obj["thumbnails"] == {"enabled": False}
    assert Inputs(None).normalise(obj) == {"name": "A", "source": {"asi": {"port": 1}}, "alert_profile": "Default",
                                           "monitoring": "started", "scte35": True}
    assert Inputs(None).normalise(dict(obj, thumbnails={"enabled": True, "pid": 33}))["thumbnails"] == {
        "enabled": True, "pid": 33}


def test_an_inputs_own_writes_are_built_once_for_the_module_and_the_restore(recording_client):
    """ts_input converts its shape to the device's and a restore has the device's: both get
    their monitoring, SCTE-35 and thumbnails writes from dev.input_own_requests."""
    off = {"monitoring": True, "scte35": {"enabled": False}, "thumbnails": {"enabled": False}}
    on = {"monitoring": False, "scte35": {"enabled": True}, "thumbnails": {"enabled": True, "pid": 100}}
    assert dev.input_own_from_module("started", False, {"enabled": False}) == off
    assert dev.input_own_from_module("stopped", True, {"enabled": True, "pid": 100}) == on
    client = recording_client()
    send_all(client, dev.input_own_requests(7, off, on))
    assert [(w["method"], w["path"], w["body"]) for w in client.writes] == [
        ("GET", dev.INPUT_STOP % 7, None), ("POST", dev.INPUT_SCTE_TOGGLE % 7, {"enabled": True}),
        ("POST", dev.INPUT_THUMBNAILS_ENABLE % 7, {"pid": 100})]
    assert [(r.method, r.path) for r in dev.input_own_requests(7, on, off)] == [
        ("GET", dev.INPUT_START % 7), ("POST", dev.INPUT_SCTE_TOGGLE % 7), ("GET", dev.INPUT_THUMBNAILS_DISABLE % 7)]
    assert dev.input_own_requests(7, on, on) == []


def test_converter_shape_hides_settings_of_a_stopped_converter():
    raw = {"port": 1, "running": False, "multicast_address": "239.1.1.1", "multicast_port": 1, "interface": "eth0",
           "ttl": 3}
    assert dev.converter_from_device(raw) == {"asi_port": 1, "running": False}
    assert dev.converter_from_device(dict(raw, running=True))["ttl"] == 3
    assert Converters(None).normalise({"asi_port": 2, "running": False, "ttl": 4}) == {"asi_port": 2, "running": False}


def test_snmp_lists_are_sets_and_modes_add_remove_replace(recording_client):
    device = {"enabled": True, "listen_addresses": ["10.0.0.2", "10.0.0.1"], "trap_addresses": ["10.0.0.9:0162"]}
    client = recording_client({dev.SNMP_SETTINGS: device})  # it keeps what is written (the write is read back)
    params = {"enabled": None, "listen_addresses": ["10.0.0.1", "10.0.0.2", "10.0.0.1"], "trap_addresses": None,
              "lists": "replace"}
    assert snmp(client, params, False)["changed"] is False
    assert snmp(client, dict(params, trap_addresses=["10.0.0.9:162"], lists="add"), False)["changed"] is False
    removed = snmp(client, dict(params, listen_addresses=["10.0.0.2", "10.5.5.5"], lists="remove"), False)
    assert removed["after"]["listen_addresses"] == ["10.0.0.1"] and client.sent()[-1][1]["listen_addresses"] == ["10.0.0.1"]
    with pytest.raises(InputError):
        check_snmp({"listen_addresses": ["1.2.3"], "trap_addresses": ["1.2.3.4:0"]})


def test_validate_helpers():
    check = Checker()
    assert check.ipv4_port("t", "10.0.0.1:00162") == "10.0.0.1:162"
    assert check.ipv4_port("t", "10.0.0.1") is None
    check.unicast_ipv4("l", "0.0.0.0", allow_any=True)
    check.number("n", 1.5, 0)
    check.boolean("b", False)
    assert len(check.problems) == 1
    check.number("n", "1", 0)
    check.unicast_ipv4("l", "0.0.0.0")
    assert len(check.problems) == 3


def test_info_option_checks_and_alert_paging(recording_client):
    assert check_options({"alerts": {"pid": 9000, "time": "x"}, "metrics": {"from_time": 5, "to_time": 4}}) == [
        "alerts.pid: must be between 0 and 8191, got 9000",
        "alerts.time: must be an ISO 8601 time such as 2026-11-21T10:15:00Z, got 'x'",
        "metrics.from_time: must not be after metrics.to_time"]
    records = [{"n": n} for n in range(2500)]

    def page(body):
        start = (body["page"] - 1) * body["perPage"]
        return {"page": body["page"], "perPage": body["perPage"], "total": len(records),
                "items": records[start:start + body["perPage"]]}

    client = recording_client({dev.INPUTS: [{"id": 4, "name": "News"}], dev.INPUT_ALERTS % 4: page})
    gathered = readers(client, {"alerts": {"error_names": ["pid_error"]}})["alerts"]()["News"]
    assert gathered["total"] == 2500 and gathered["items"] == records
    posts = [r["body"] for r in client.requests if r["method"] == "POST"]
    assert [body["page"] for body in posts] == [1, 2, 3]
    assert posts[0] == {"period": "total", "page": 1, "perPage": 1000, "error_code": ["pid_error"]}


def test_download_destination(tmp_path):
    assert destination(str(tmp_path), "f.ts") == str(tmp_path / "f.ts")
    assert destination(str(tmp_path / "x.ts"), "f.ts") == str(tmp_path / "x.ts")
    with pytest.raises(InputError):
        destination(str(tmp_path / "no" / "x.ts"), "f.ts")

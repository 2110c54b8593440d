"""Issue 19's robustness cases: answers shaped as another firmware might shape them (extra
fields, fields left out, another name or order) are read tolerantly, never echoed wrongly,
and a field the collection needs that is not there is a ShapeError naming the request."""

from __future__ import annotations

import json

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _gather as gather
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api_backup as fm_backup
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api_backup as ts_backup
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import Answer, answer_hook, list_or_empty, sorted_by_id
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import SHAPE, ShapeError


def answer(where, obj):
    """``obj`` as the client returns the device's answer to ``where``."""
    return json.loads(json.dumps(obj), object_hook=answer_hook(where))


def test_a_missing_field_names_the_request_the_field_and_the_fields_present():
    status = answer("GET /api/system/device", {"model": "X", "serial_number": "1"})
    with pytest.raises(ShapeError) as caught:
        status["firmware_version"]
    err = caught.value
    assert err.kind == SHAPE and err.field == "firmware_version"
    assert err.describe().startswith("GET /api/system/device: the answer has no field 'firmware_version' (fields"
                                     " present: model, serial_number)")
    assert status.get("firmware_version") is None  # an optional field reads as absent
    nested = answer("GET /api/inputs", [{"config": {"eth": {"multicast": {"multicast_address": "239.1.1.1"}}}}])
    with pytest.raises(ShapeError, match="GET /api/inputs: the answer has no field 'multicast_port'"):
        ts_device.source_from_device(nested[0]["config"])


def test_list_or_empty_gives_absent_null_and_empty_one_meaning():
    for raw in ({}, {"dns": None}, {"dns": []}):
        assert list_or_empty(answer("GET /x", raw), "dns") == []
    with pytest.raises(ShapeError, match="a list, got str"):
        list_or_empty(answer("GET /x", {"dns": "10.0.0.1"}), "dns")


RF = {"mode": 1, "frequency": 474000, "bandwidth": 8, "plp_id": 0}


def test_an_unknown_rf_field_is_not_the_users_but_goes_back_in_an_update():
    raw = answer("GET /api/inputs", {"id": 3, "name": "RF 1", "config": {"rf": dict(RF, guard_interval=4)},
                                     "alerts_config": {"profile_id": 1}, "monitoring": True})
    view = ts_device.input_from_device(raw, {1: "Default"})
    assert view["source"] == {"rf": RF}  # so a declared RF source without it compares equal
    body = ts_device.input_body(view, 1, raw)
    assert body["config"] == {"rf": dict(RF, guard_interval=4)}  # the update replaces the input whole


def test_an_update_keeps_unknown_fields_of_the_same_variant_only():
    raw = {"config": {"eth": {"stream_protocol": 0, "fec": True,
                              "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000,
                                            "source_address": "10.0.0.7", "ttl_check": 1}}}}
    unicast = {"name": "A", "source": {"unicast": {"address": "10.0.0.1", "port": 1234}}}
    assert ts_device.input_body(unicast, 1, raw)["config"] == {
        "eth": {"stream_protocol": 0, "fec": True, "unicast": {"listen_address": "10.0.0.1", "listen_port": 1234}}}
    # source_address left out is removed, not kept from what was read
    multicast = {"name": "A", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}
    assert ts_device.input_body(multicast, 1, raw)["config"]["eth"]["multicast"] == {
        "multicast_address": "239.1.1.1", "multicast_port": 5000, "ttl_check": 1}


def test_an_input_without_monitoring_is_a_shape_error_not_an_input_to_start():
    raw = answer("GET /api/inputs", {"id": 3, "name": "A", "config": {"asi": {"port": 1}},
                                     "alerts_config": {"profile_id": 1}})
    with pytest.raises(ShapeError, match="GET /api/inputs: the answer has no field 'monitoring'"):
        ts_device.input_from_device(raw, {1: "Default"})


def test_profile_entries_under_another_name_are_read_and_none_at_all_is_a_shape_error():
    entry = {"error_name": "crc_error", "enabled": False}
    renamed = answer("GET /api/profiles", {"id": 2, "name": "P", "errors": [entry]})
    assert ts_device.profile_from_device(renamed)["errors"] == {"crc_error": {"enabled": False}}
    with pytest.raises(ShapeError, match="GET /api/profiles: the answer has no field 'entries'"):
        ts_device.profile_from_device(answer("GET /api/profiles", {"id": 2, "name": "P"}))


def test_remote_syslog_is_written_with_known_fields_only(recording_client):
    device = recording_client({ts_device.LOG_SETTINGS: {"level": "info", "remote_syslog": {
        "enabled": True, "server": "10.0.0.5", "port": 514, "facility": "local3"}}})
    current = ts_device.read_logging(device)
    assert current["remote_syslog"] == {"enabled": True, "server": "10.0.0.5", "port": 514}
    ts_device.write_logging(device, dict(current, level="debug"))
    assert device.sent() == [(ts_device.LOG_SETTINGS, {"level": "debug", "remote_syslog": {
        "enabled": True, "server": "10.0.0.5", "port": 514}})]


@pytest.mark.parametrize("device_file", [ts_device, fm_device])
@pytest.mark.parametrize("network", [{}, {"dns": None}, {"dns": []}])
def test_an_absent_or_null_dns_list_reads_as_empty(device_file, network, recording_client):
    raw = dict({"dhcp": False, "address": "10.0.0.2", "netmask": "255.255.255.0", "gateway": "10.0.0.1",
                "hostname": "a"}, **network)
    assert device_file.read_network(recording_client({device_file.NETWORK: raw}))["dns"] == []


@pytest.mark.parametrize("other", ["dns_servers", "nameservers", "DNS"])
def test_dns_servers_under_another_name_are_a_shape_error_naming_it(other, recording_client):
    """Read as none, they would be rewritten on every run (issue 43)."""
    raw = {"dhcp": False, "address": "10.0.0.2", "netmask": "255.255.255.0", "gateway": "10.0.0.1", "hostname": "a",
           other: ["10.0.0.53"]}
    with pytest.raises(ShapeError, match="no field 'dns' .*its answer has %s instead" % other):
        ts_device.read_network(recording_client({ts_device.NETWORK: raw}))


def test_a_backup_holds_a_days_schedule_events_by_minute_whatever_the_devices_order():
    events = [{"minute": 1320, "state": 2}, {"minute": 360, "state": 1}]
    conf = {"tuners": [{"tuner_id": 0, "schedule": {"active": True, "events": {"monday": events, "friday": []}}}]}
    ordered = fm_backup.conf_ordered(conf)["tuners"][0]["schedule"]
    assert ordered == {"active": True, "events": {"monday": events[::-1], "friday": []}}
    assert fm_backup.conf_ordered(json.loads(json.dumps(conf).replace("1320", "1321"))) != fm_backup.conf_ordered(conf)


def test_a_backup_does_not_change_when_the_device_lists_profile_entries_in_another_order(recording_client):
    entries = [{"error_name": name, "enabled": True} for name in ("crc_error", "pid_error", "cat_error")]

    def device(order):
        return recording_client({
            ts_device.SNMP_SETTINGS: {"enabled": False, "listen_addresses": [], "trap_addresses": []},
            ts_device.PROFILES: [{"id": 1, "name": "Default", "entries": order}],
            ts_device.INPUTS: [], ts_device.CONVERTERS: [],
            ts_device.LOG_SETTINGS: {"level": "info", "remote_syslog": {}}})
    assert ts_backup.backup_raw(device(entries)) == ts_backup.backup_raw(device(entries[::-1]))


def test_one_unreadable_subset_is_reported_and_the_others_kept():
    def broken():
        return answer("GET /api/system/device", {"model": "X"})["firmware_version"]
    out = gather.gather(["system_status", "system_device"], {"system_status": lambda: {"ok": 1},
                                                             "system_device": broken})
    assert out["system_status"] == {"ok": 1} and "system_device" not in out
    assert "no field 'firmware_version'" in out["failed_subsets"]["system_device"]
    assert out["warnings"] and "system_device" in out["warnings"][0]
    with pytest.raises(ShapeError):
        gather.gather(["system_device"], {"system_device": broken})


def test_compatibility_of_an_answer_with_the_declaration():
    from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import Declared, compatibility
    declared = Declared("/api/status", required=("versions", "tuners"), optional=("streamer_uptime", "hostname"),
                        aliases={"streamer_uptime": ("xcast_uptime",)})
    assert compatibility(declared, {"versions": {}, "xcast_uptime": 5, "health": "ok"}) == {
        "confirmed": ["versions"], "missing_required": ["tuners"], "missing_optional": ["hostname"],
        "aliases": {"streamer_uptime": "xcast_uptime"}, "extra": ["health"]}
    listed = Declared("/api/inputs", required=("id", "name"), element=True)
    found = compatibility(listed, [{"id": 1, "name": "A", "x": 1}, {"id": 2}])
    assert found["confirmed"] == ["id"] and found["missing_required"] == ["name"] and found["elements"] == 2
    assert found["extra"] == ["x"]
    assert "not a list of objects" in compatibility(listed, {"id": 1})["error"]


def test_paged_and_keyed_answers_become_the_collections_shapes():
    page = answer("POST /api/inputs/1/alerts", {"page": 2, "perPage": 20, "total": 21, "items": [{"id": 9}]})
    assert ts_device.alerts_page(page) == {"page": 2, "per_page": 20, "total": 21, "items": [{"id": 9}]}
    with pytest.raises(ShapeError, match="POST /api/inputs/1/alerts: the answer has no field 'perPage'"):
        ts_device.alerts_page(answer("POST /api/inputs/1/alerts", {"page": 1, "total": 0, "items": []}))
    assert ts_device.cas_by_input([{"input_id": 3, "systems": [{"caid": 256}]}]) == {3: [{"caid": 256}]}
    assert fm_device.alerts_page({"total": 1, "alerts": [{"type": 1}]}) == {"total": 1, "alerts": [{"type": 1}]}
    assert fm_device.alerts_total({"total": 4}) == 4
    assert fm_device.tuner_count({}) is None and fm_device.tuner_count({"tuners": 8}) == 8
    assert fm_device.bitrates_from_device({"bitrates": [64, 128]}) == [64, 128]


def test_items_of_a_list_answer_are_ordered_by_their_integer_id():
    items = json.loads('[{"id": 3}, {"id": 1}]', object_hook=answer_hook("GET /inputs"))
    assert [item["id"] for item in sorted_by_id(items, "id")] == [1, 3]


@pytest.mark.parametrize("answer", ['[{"id": 1}, {"id": "x"}]', '[{"id": 1}, {"name": "a"}]', '[{"id": true}]', '[1]'])
def test_an_id_that_is_no_integer_is_an_error_naming_the_request_and_the_field(answer):
    with pytest.raises(ShapeError) as raised:
        sorted_by_id(json.loads(answer, object_hook=answer_hook("GET /inputs")), "id")
    assert "GET /inputs" in str(raised.value) or answer == "[1]"
    assert "field 'id' is not an integer" in str(raised.value)
    assert raised.value.field == "id"


def test_an_answer_survives_a_pickle_and_a_copy_with_its_request():
    # results cross Ansible's worker queue pickled; each request's answers have a class of their own
    import copy
    import pickle
    read = answer("GET /inputs", {"inputs": [{"id": 1}]})
    for again in (pickle.loads(pickle.dumps(read)), copy.deepcopy(read)):
        assert again == read and isinstance(again["inputs"][0], Answer)
        assert again.where == again["inputs"][0].where == "GET /inputs"
        with pytest.raises(ShapeError, match="GET /inputs"):
            again["inputs"][0]["name"]  # pylint: disable=pointless-statement


@pytest.mark.parametrize("body, deeper", [
    ([[[]]], False), ([[[[]]]], True), ({"a": [{"b": 1}]}, False), ({"a": [{"b": {}}]}, True),
    ([1, "x", None, [2, [3]]], False), ([1, [2, [3, [4]]]], True), ({}, False), (7, False),
])
def test_the_depth_of_an_answer_is_counted_in_lists_and_objects_alike(body, deeper):
    from ansible_collections.broadcast.monitoring.plugins.module_utils._transport import _deeper_than
    assert _deeper_than(body, 3) is deeper

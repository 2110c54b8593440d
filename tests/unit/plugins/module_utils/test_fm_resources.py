"""Unit tests of the FM resources: batching over all tuners, busy tuners, admin-only changes."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as dev
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    BUSY,
    PERMISSION,
    DeviceError,
    InputError,
    PartialFailure,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import changed_leaves, leaves, nest
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.resources import (
    Schedules,
    Thresholds,
    Tuners,
    reconcile_tuners,
)


def raw_tuner(tuner_id=0, **changes):
    """A tuner as GET /tuners/all reports it (factory values)."""
    raw = {
        "tuner_id": tuner_id, "name": dev.factory_name(tuner_id), "frequency": 87500, "tuned": False, "state": 0,
        "signal_ok": False, "muted": False, "stream_enabled": False,
        "quality": {"rssi": 0, "snr": 0, "multipath": 0, "stereo": False, "stereo_blend": 0, "rds": False,
                    "level": False, "alarms": ""},
        "rds": {"pi": "", "ps": "", "prog_type": "", "radiotext": "", "pty": 0, "country": "", "language": ""},
        "stream": {"url": dev.factory_url(tuner_id), "codec": "mp3", "requested_bitrate": 128, "measured_bitrate": 0},
        "thresholds": copy.deepcopy(dev.FACTORY_THRESHOLDS),
        "schedule": {"active": False, "events": {day: [] for day in dev.DAYS}},
        "hw_settings": dict(dev.FACTORY_HW), "station_id": None,
    }
    raw["thresholds"]["thresholds"]["tuner_id"] = tuner_id
    raw.update(changes)
    return raw


def monitor(recording_client, role="admin", busy=(), stations=()):
    """A client of a monitor with eight factory tuners; ``busy`` paths answer like a tuner
    that stayed busy longer than the retry budget."""
    answers = {dev.TUNERS: [raw_tuner(i) for i in range(8)], dev.STATIONS: list(stations),
               dev.VALID_BITRATES: {"bitrates": [64, 128]}}
    for path in busy:
        answers[path] = DeviceError(BUSY, "POST %s: device busy for more than 30 s (HTTP 503)" % path, status=503,
                                    device_message="Tuner 3 is busy")
    return recording_client(answers, device=dev, role=role)


def test_leaves_nest_and_changed_leaves():
    obj = {"a": {"b": 1, "c": [1, 2]}, "d": {}}
    assert leaves(obj) == {("a", "b"): 1, ("a", "c"): [1, 2], ("d",): {}}
    assert nest(leaves(obj)) == obj
    assert changed_leaves({"a": {"b": 1, "c": 2}, "x": [1]}, {"a": {"b": 1, "c": 3}, "x": [1, 2]}) == {
        "a": {"c": 3}, "x": [1, 2]}


def test_common_thresholds_in_one_request_and_the_rest_per_tuner(recording_client):
    client = monitor(recording_client)
    result = reconcile_tuners(Thresholds(client), [{"tuner_id": 3, "multipath": {"max": 40}}],
                              {"rssi": {"min": 30}, "snr": {"max": "disabled"}}, "merged", False)
    assert result["changed"] is True
    assert client.sent() == [
        ("/api/tuners/all/thresholds", {"thresholds": {"rssi": {"min": 30}, "snr": {"max": 0}}}),
        ("/api/tuner/3/thresholds", {"thresholds": {"multipath": {"max": 40}}}),
    ]
    assert client.paths("GET") == [dev.TUNERS]


def test_values_that_differ_per_tuner_are_not_batched(recording_client):
    client = monitor(recording_client)
    config = [{"tuner_id": 0, "rssi_interval": 5}, {"tuner_id": 1, "rssi_interval": 6}]
    reconcile_tuners(Thresholds(client), config, None, "merged", False)
    assert client.sent() == [("/api/tuner/0/thresholds", {"rssi_interval": 5}),
                             ("/api/tuner/1/thresholds", {"rssi_interval": 6})]


def test_a_common_value_some_tuners_already_have_still_batches_without_touching_them(recording_client):
    client = monitor(recording_client)
    client.answers[dev.TUNERS][0]["hw_settings"]["lna_gain"] = 5
    reconcile_tuners(Tuners(client), [], {"hw_settings": {"lna_gain": 5}}, "merged", False)
    assert client.sent() == [("/api/tuners/all/settings", {"hw_settings": {"lna_gain": 5}})]


def test_schedule_batch_carries_active(recording_client):
    client = monitor(recording_client)
    events = {"monday": [{"time": "06:00", "state": "enabled"}]}
    reconcile_tuners(Schedules(client), [], {"events": events}, "merged", False)
    assert client.sent() == [("/api/tuners/all/schedule",
                             {"active": False, "events": {"monday": [{"minute": 360, "state": 1}]}})]


def test_check_mode_writes_nothing(recording_client):
    client = monitor(recording_client)
    result = reconcile_tuners(Tuners(client), [{"tuner_id": 1, "name": "x"}], {"muted": True}, "merged", True)
    assert result["changed"] is True and client.sent() == []


def test_a_busy_tuner_is_named_and_writes_done_before_are_listed(recording_client):
    client = monitor(recording_client, busy=("/api/tuner/3/settings",))
    config = [{"tuner_id": 1, "name": "one"}, {"tuner_id": 3, "name": "three"}, {"tuner_id": 5, "name": "five"}]
    with pytest.raises(PartialFailure) as caught:
        reconcile_tuners(Tuners(client), config, None, "merged", False)
    message = str(caught.value)
    assert "tuner 3 stayed busy (a band scan or a frequency change)" in message
    assert "Tuner 3 is busy" in message
    assert caught.value.done == [{"action": "update", "key": 1}]
    assert caught.value.pending == [{"action": "update", "key": 3}, {"action": "update", "key": 5}]


def test_user_role_is_refused_state_and_station_before_any_write(recording_client):
    client = monitor(recording_client, role="user", stations=[{"station_id": 0, "frequency": 90000, "rssi": 1,
                                                               "snr": 1, "timestamp": "2024-01-01T00:00:00Z"}])
    config = [{"tuner_id": 0, "name": "x", "operating_state": "enabled"}, {"tuner_id": 1, "station_id": 0}]
    with pytest.raises(DeviceError) as caught:
        reconcile_tuners(Tuners(client), config, None, "merged", False)
    assert caught.value.kind == PERMISSION
    assert "config[0] (tuner 0): operating_state; config[1] (tuner 1): station_id" in caught.value.message
    assert client.sent() == []


def test_input_is_checked_before_the_first_request(recording_client):
    client = monitor(recording_client)
    with pytest.raises(InputError) as caught:
        reconcile_tuners(Tuners(client), [{"tuner_id": 0, "frequency": 1}, {"tuner_id": 0}],
                         {"stream": {"url": "udp://1.2.3.4"}}, "merged", False)
    assert caught.value.problems == [
        "all_tuners: stream.url: must be udp://IPv4-address:port (port 1 to 65535), got 'udp://1.2.3.4'",
        "config[0] (tuner 0): frequency: must be in the FM band, 87500 to 108000 kHz, got 1",
        "config[1]: tuner_id 0 is listed more than once",
    ]
    assert client.paths() == []


def test_bitrates_are_read_only_when_given(recording_client):
    client = monitor(recording_client)
    reconcile_tuners(Tuners(client), [{"tuner_id": 0, "name": "a"}], None, "merged", False)
    assert dev.VALID_BITRATES not in client.paths("GET")
    with pytest.raises(InputError) as caught:
        reconcile_tuners(Tuners(monitor(recording_client)), [{"tuner_id": 0, "stream": {"bitrate": 96}}], None,
                         "merged", False)
    assert "config[0] (tuner 0): stream.bitrate: must be one of the device's valid bitrates 64, 128, got 96" in str(
        caught.value)


def test_tuner_from_device_and_factory_agree():
    shown = dev.tuner_from_device(raw_tuner(3))
    assert shown == dict(dev.factory_tuner(3), station_id=None)
    assert shown["stream"] == {"enabled": False, "url": "udp://239.1.1.4:1234", "codec": "mp3", "bitrate": 128}


def test_tuner_info_has_all_parts():
    info = dev.tuner_info(raw_tuner(0))
    assert info["thresholds"]["snr"]["min"] == 10 and "tuner_id" not in info["thresholds"]
    assert info["schedule"]["active"] is False and info["measured"]["tuned"] is False


def _requests(before, after, station_id=None):
    return [(request.path, request.body) for request in dev.tuner_requests(before, after, station_id)]


def test_tuner_requests_order_and_bodies():
    before = dict(dev.factory_tuner(2), station_id=None)
    after = copy.deepcopy(before)
    after.update(name="New", frequency=99000, operating_state="enabled", muted=True)
    after["hw_settings"]["lna_gain"] = 3
    after["stream"].update(enabled=True, bitrate=64)
    assert _requests(before, after) == [
        ("/api/tuner/2/state", {"state": 1}),
        ("/api/tuner/2/muted", {"muted": True}),
        ("/api/tuner/2/stream", {"enabled": True, "stream": {"bitrate": 64}}),
        ("/api/tuner/2/settings", {"name": "New", "hw_settings": {"lna_gain": 3}, "frequency": 99000}),
    ]
    tuned = dict(before, frequency=99000, station_id=4)
    assert _requests(before, tuned, station_id=4) == [("/api/tuner/2/station", {"station_id": 4})]
    assert _requests(before, before) == []


def test_each_tuner_hook_stands_on_its_own(recording_client):
    # no hook relies on another having run: the stations are read by whichever needs them first
    client = monitor(recording_client, stations=[{"station_id": 4, "frequency": 99000}])
    tuners = Tuners(client)
    before = tuners.normalise(dict(dev.factory_tuner(2), station_id=None))
    target, notes = tuners.attainable(before, dict(before, station_id=4))
    assert target["frequency"] == 99000 and notes == [] and client.paths("GET") == [dev.STATIONS]
    assert tuners.attainable(before, dict(before, frequency=99000))[0]["station_id"] == 4
    assert client.paths("GET") == [dev.STATIONS]  # read once


def test_a_tuner_asked_for_a_station_is_tuned_to_it_and_a_frequency_is_written(recording_client):
    client = monitor(recording_client, stations=[{"station_id": 4, "frequency": 99000}])
    reconcile_tuners(Tuners(client), [{"tuner_id": 2, "station_id": 4}, {"tuner_id": 3, "frequency": 99000}],
                     None, "merged", False)
    assert client.sent() == [("/api/tuner/2/station", {"station_id": 4}),
                             ("/api/tuner/3/settings", {"frequency": 99000})]


def test_the_checks_of_all_tuners_are_not_run_twice_and_labels_name_their_origin(recording_client):
    client = monitor(recording_client)
    with pytest.raises(InputError) as err:
        reconcile_tuners(Thresholds(client), [], {"rssi": {"max": 10}}, "merged", False)
    assert err.value.problems[0].startswith("all_tuners (tuner 0): rssi.min: must not exceed")
    assert len(err.value.problems) == 8 and client.sent() == []

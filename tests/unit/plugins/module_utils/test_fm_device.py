"""Unit tests of the FM monitor's shapes: conversions between device JSON and module shapes."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as dev


def test_hw_settings_both_ways():
    shown = dev.hw_from_device({"agc_state": 0, "channel_filter": 3, "deemphasis": 1, "lna_gain": 4, "rssi_threshold": 9})
    assert shown == {"agc": False, "channel_filter": 3, "deemphasis": 75, "lna_gain": 4, "rssi_threshold": 9}
    assert dev.hw_to_device(shown) == {"agc_state": 0, "channel_filter": 3, "deemphasis": 1, "lna_gain": 4,
                                       "rssi_threshold": 9}
    assert dev.hw_to_device({"deemphasis": 50}) == {"deemphasis": 2}


def test_thresholds_show_disabling_values_as_disabled_and_back():
    shown = dev.thresholds_from_device(1, dev.FACTORY_THRESHOLDS)
    assert shown["rssi"] == {"min": 20, "max": 127, "margin": 2}
    assert shown["multipath"] == {"min": 0, "max": "disabled", "margin": 5}  # min: no alert uses it
    assert shown["stereo_blend"]["min"] == "disabled"
    assert shown["rds"]["block_a"] is False and shown["rds"]["margin"] == 2
    back = dev.thresholds_to_device({k: v for k, v in shown.items() if k != "tuner_id"})
    assert back == dev.FACTORY_THRESHOLDS
    assert dev.thresholds_to_device({"snr": {"max": "disabled"}, "rds": {"sync_lost": True}, "rssi_interval": 3}) == {
        "rssi_interval": 3, "thresholds": {"snr": {"max": 0}, "rds": {"sync_lost": True}}}


@pytest.mark.parametrize("value, minute", [
    ("06:00", 360), ("6:00", 360), ("23:59", 1439), ("00:00", 0), (360, 360), ("360", 360), (0, 0),
    ("24:00", None), ("12:60", None), ("12:5", None), (1440, None), (-1, None), (True, None), ("noon", None), ("", None),
])
def test_minute_of(value, minute):
    assert dev.minute_of(value) == minute


def test_schedule_both_ways():
    raw = {"active": True, "events": {"monday": [{"minute": 1320, "state": 2}, {"minute": 360, "state": 1}]}}
    shown = dev.schedule_from_device(4, raw)
    assert shown["events"]["monday"] == [{"time": "06:00", "state": "enabled"}, {"time": "22:00", "state": "sleep"}]
    assert shown["events"]["sunday"] == [] and shown["active"] is True
    assert dev.schedule_to_device({"events": {"monday": shown["events"]["monday"]}}) == {
        "events": {"monday": [{"minute": 360, "state": 1}, {"minute": 1320, "state": 2}]}}


@pytest.mark.parametrize("value, seconds", [
    (1704103200, 1704103200), ("1704103200", 1704103200), ("2024-01-01T10:00:00Z", 1704103200),
    ("2024-01-01T11:00:00+01:00", 1704103200), ("2024-01-01T10:00:00", 1704103200), ("yesterday", None), (-5, None),
    (False, None),
])
def test_unix_seconds(value, seconds):
    assert dev.unix_seconds(value) == seconds


def test_alerts_query_and_monitor():
    assert dev.alerts_query({"limit": 1}) == {"order": "desc", "by": "from", "type": [], "id": [], "limit": 1,
                                              "offset": 0}
    assert dev.alerts_query({"limit": 0})["limit"] == 0
    assert dev.alerts_query({"since": 5, "until": "1970-01-01T00:00:09Z"})["from"] == 5
    assert dev.alerts_query({"since": 5, "until": "1970-01-01T00:00:09Z"})["till"] == 9
    assert dev.monitor_body(2, True) == {"tuner_id": 2, "mute": 16}
    assert dev.monitor_from_device({"monitor_tuner": 1}, {"monitor": {"tuner_id": 1, "mute": 16}}) == {
        "tuner_id": 1, "muted": True}
    assert dev.monitor_from_device({}, {}) == {"tuner_id": None, "muted": None}


def test_status_reads_older_firmware_names():
    status = dev.status_from_device({"xcast_uptime": 5, "versions": {"altera_ver": "1", "xcast_ver": "2"}})
    assert status["streamer_uptime"] == 5 and status["versions"] == {"fpga_ver": "1", "streamer_ver": "2"}


def test_playlist_tracks():
    text = ('<?xml version="1.0"?><playlist version="1" xmlns="http://xspf.org/ns/0/"><title>x</title><trackList>'
            '<track><title>A</title><location>udp://239.1.1.1:1234</location></track></trackList></playlist>')
    assert dev.playlist_tracks(text) == [{"title": "A", "location": "udp://239.1.1.1:1234"}]

"""The system functions take what they need (client, device file, parameters, check mode), so
they are called here directly, without an AnsibleModule; the device writes are compared and
sent by _system.py from the requests the device file builds."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _system as system
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device


class Client:
    """GETs answered from ``answers``, POSTs recorded."""

    def __init__(self, answers):
        self.answers, self.posts = answers, []

    def get(self, path, **unused):
        return self.answers[path]

    def post(self, path, body=None, **unused):
        self.posts.append((path, body))


def ts_client():
    return Client({ts_device.DATETIME: {"enable_ntp": False, "ntp_servers": [], "datetime": "2026-01-01T00:00:00Z"},
                   ts_device.TIMEZONE: {"timezone": "UTC"},
                   ts_device.TIMEZONE_LIST: {"timezones": ["UTC", "Europe/Berlin"]}})


def fm_client():
    return Client({fm_device.DATETIME: {"enable_ntp": False, "ntp_servers": [], "timezone": 0,
                                        "datetime": "2026-01-01T00:00:00Z"}})


def time_params(**given):
    return dict({"ntp": None, "ntp_servers": None, "timezone": None, "datetime": None, "max_clock_drift": 0}, **given)


@pytest.mark.parametrize("check_mode", [True, False])
def test_time_writes_only_the_timezone_that_changed_and_nothing_in_check_mode(check_mode):
    client = ts_client()
    result = system.manage_time(client, ts_device, time_params(timezone="Europe/Berlin"), check_mode)
    assert result["changed"] is True and result["after"]["timezone"] == "Europe/Berlin"
    assert client.posts == ([] if check_mode else [(ts_device.TIMEZONE, {"timezone": "Europe/Berlin"})])


@pytest.mark.parametrize("device, client", [(ts_device, ts_client), (fm_device, fm_client)], ids=["ts", "fm"])
def test_time_unchanged_writes_nothing(device, client):
    client = client()
    result = system.manage_time(client, device, time_params(ntp=False), False)
    assert result["changed"] is False and client.posts == []


def test_fm_time_sends_the_clock_it_read_when_the_clock_is_not_set():
    client = fm_client()
    system.manage_time(client, fm_device, time_params(timezone="2"), False)
    assert client.posts == [(fm_device.DATETIME, {"enable_ntp": False, "ntp_servers": [], "timezone": 2,
                                                  "datetime": "2026-01-01T00:00:00Z"})]


def test_setting_the_clock_writes_it_with_ntp():
    client = ts_client()
    result = system.manage_time(client, ts_device, time_params(datetime="2026-01-01T01:00:00Z"), False)
    assert result["clock_drift"] == 3600.0
    assert [path for path, body in client.posts] == [ts_device.DATETIME]
    assert client.posts[0][1]["datetime"].startswith("2026-01-01T01:00:0")

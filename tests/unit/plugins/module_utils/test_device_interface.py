"""Both device files provide the one interface the code serving either device uses."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_interface as device_interface, _system as system
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device


@pytest.mark.parametrize("device_file", [ts_device, fm_device], ids=["ts_device", "fm_device"])
def test_each_device_file_provides_the_whole_interface(device_file):
    assert device_interface.missing(device_file) == []
    assert device_file.TIMEZONE_KIND in device_interface.BY_TIMEZONE_KIND


def test_a_device_file_without_a_function_is_found_out():
    class Partial:
        KIND = "x"
        TIMEZONE_KIND = "offset"
    found = device_interface.missing(Partial)
    assert "read_network" in found and "TIMEZONE_RANGE" in found and "timezones" not in found


class Recorder:
    def __init__(self):
        self.posts = []

    def post(self, path, body=None):
        self.posts.append((path, body))


def test_network_writes_only_what_changed():
    before = {"dhcp": False, "address": "10.0.0.2", "dns": [], "hostname": "a"}
    for after, posts in ((dict(before, hostname="b"), [("/host", {"hostname": "b"})]),
                         (dict(before, dns=["10.0.0.53"]),
                          [("/net", {"dhcp": False, "address": "10.0.0.2", "dns": ["10.0.0.53"]})]),
                         (before, [])):
        client = Recorder()
        system.send(client, before, after, device_interface.network_settings_requests(
            "/net", "/host", ("dhcp", "address", "dns"), after))
        assert client.posts == posts


@pytest.mark.parametrize("device", [ts_device, fm_device], ids=["ts", "fm"])
def test_time_writes_only_what_changed_and_the_clock_when_set(device):
    before = {"ntp": False, "ntp_servers": [], "timezone": device.TIMEZONE_KIND == "name" and "UTC" or 0,
              "datetime": "2026-01-01T00:00:00Z"}
    client = Recorder()
    system.send(client, before, before, device.time_requests(before, before, False))
    assert client.posts == []
    system.send(client, before, dict(before, datetime="2026-01-01T00:05:00+00:00"),
                device.time_requests(before, dict(before, datetime="2026-01-01T00:05:00+00:00"), True))
    assert [path for path, body in client.posts] == [device.DATETIME]
    assert client.posts[0][1]["datetime"] == "2026-01-01T00:05:00+00:00"


def test_a_created_answer_reads_back_as_the_assigned_id():
    """_offline.py answers a recorded create with the device file's created_answer: the same file
    must read the id and the monitoring state back from it as from a real answer."""
    answer = ts_device.created_answer({"name": "News", "monitoring": False}, 7)
    assert ts_device.element_id(answer) == 7 and ts_device.element_name(answer) == "News"
    assert ts_device.created_monitoring(answer) == "stopped"
    assert fm_device.ASSIGNED_IDS == {}
    with pytest.raises(NotImplementedError):
        fm_device.created_answer({}, 1)

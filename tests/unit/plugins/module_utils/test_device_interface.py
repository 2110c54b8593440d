"""Both device files provide the one interface the code serving either device uses."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_interface as device_interface
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


def test_network_writes_only_what_changed(recording_client):
    before = {"dhcp": False, "address": "10.0.0.2", "dns": [], "hostname": "a"}
    client = recording_client()
    device_interface.post_network(client, "/net", "/host", ("dhcp", "address", "dns"), before,
                                  dict(before, hostname="b"))
    assert client.sent() == [("/host", {"hostname": "b"})]
    client = recording_client()
    device_interface.post_network(client, "/net", "/host", ("dhcp", "address", "dns"), before,
                                  dict(before, dns=["10.0.0.53"]))
    assert client.sent() == [("/net", {"dhcp": False, "address": "10.0.0.2", "dns": ["10.0.0.53"]})]


def test_a_created_answer_reads_back_as_the_assigned_id():
    """_offline.py answers a recorded create with the device file's created_answer: the same file
    must read the id and the monitoring state back from it as from a real answer."""
    answer = ts_device.created_answer({"name": "News", "monitoring": False}, 7)
    assert ts_device.element_id(answer) == 7 and ts_device.element_name(answer) == "News"
    assert ts_device.created_monitoring(answer) == "stopped"
    assert fm_device.ASSIGNED_IDS == {}
    with pytest.raises(NotImplementedError):
        fm_device.created_answer({}, 1)

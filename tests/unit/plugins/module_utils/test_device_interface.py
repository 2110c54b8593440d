"""Both device files provide the one interface the code serving either device uses, and
both device folders hold the same files, each pair providing the names declared for it."""

from __future__ import annotations

import importlib
import os
import types

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_api as device_api
from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_interface as device_interface, _system as system
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import info as fm_info
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import info as ts_info


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
    for after, posts in ((dict(before, hostname="b"), [("/host", {"hostname": "b"})]),
                         (dict(before, dns=["10.0.0.53"]),
                          [("/net", {"dhcp": False, "address": "10.0.0.2", "dns": ["10.0.0.53"]})]),
                         (before, [])):
        client = recording_client()
        api = types.SimpleNamespace(NETWORK="/net", HOSTNAME="/host", NETWORK_KEYS=("dhcp", "address", "dns"))
        system.send(client, before, after, device_api.network_requests(api, after))
        assert client.sent() == posts


@pytest.mark.parametrize("device", [ts_device, fm_device], ids=["ts", "fm"])
def test_time_writes_only_what_changed_and_the_clock_when_set(device, recording_client):
    before = {"ntp": False, "ntp_servers": [], "timezone": device.TIMEZONE_KIND == "name" and "UTC" or 0,
              "datetime": "2026-01-01T00:00:00Z"}
    client = recording_client()
    system.send(client, before, before, device.time_requests(before, before, False))
    assert client.sent() == []
    system.send(client, before, dict(before, datetime="2026-01-01T00:05:00+00:00"),
                device.time_requests(before, dict(before, datetime="2026-01-01T00:05:00+00:00"), True))
    assert [path for path, body in client.sent()] == [device.DATETIME]
    assert client.sent()[0][1]["datetime"] == "2026-01-01T00:05:00+00:00"


def test_a_created_answer_reads_back_as_the_assigned_id():
    """_offline.py answers a recorded create with the device file's created_answer: the same file
    must read the id and the monitoring state back from it as from a real answer."""
    answer = ts_device.created_answer({"name": "News", "monitoring": False}, 7)
    assert ts_device.input_id_of(answer) == 7 and ts_device.input_name_of(answer) == "News"
    assert ts_device.created_monitoring(answer) == "stopped"
    assert fm_device.ASSIGNED_IDS == {}
    with pytest.raises(NotImplementedError):
        fm_device.created_answer({}, 1)


# -- the two device folders alike: the same files, each pair with the same declared names ----------
FOLDERS = {"ts": "_ts", "fm": "_fm"}
MODULE_UTILS = os.path.join(os.path.dirname(device_interface.__file__))


def folder_files(folder):
    """The Python files of one device folder, by name without ``.py`` (``__init__`` aside)."""
    names = os.listdir(os.path.join(MODULE_UTILS, folder))
    return sorted(name[:-3] for name in names if name.endswith(".py") and name != "__init__.py")


def test_both_device_folders_hold_the_same_files():
    assert folder_files("_ts") == folder_files("_fm")
    assert "api" in folder_files("_ts"), "the check sees no device file at all"


@pytest.mark.parametrize("name", folder_files("_ts"))
def test_each_pair_of_device_files_provides_the_declared_names(name):
    assert name in device_interface.BY_FILE, (
        "_ts/%s.py and _fm/%s.py: declare the names both provide in _device_interface.BY_FILE" % (name, name))
    declared = device_interface.BY_FILE[name]
    assert [n for n in declared if n.startswith("_")] == [], "declared names are public ones"
    for folder in FOLDERS.values():
        module = importlib.import_module("%s.%s.%s" % (device_interface.__name__.rsplit(".", 1)[0], folder, name))
        assert [n for n in declared if not hasattr(module, n)] == [], "%s/%s.py lacks declared names" % (folder, name)


class NoRequest:
    """A client that fails the test on any request."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: pytest.fail("a request was sent: %s%r" % (name, args))


@pytest.mark.parametrize("info", [ts_info, fm_info], ids=["ts", "fm"])
def test_both_info_files_give_one_reader_per_subset(info):
    assert set(info.MINIMAL) <= set(info.SUBSETS)
    assert sorted(info.readers(NoRequest(), {})) == sorted(info.SUBSETS)  # building them sends nothing


@pytest.mark.parametrize("info, params, problem", [
    (ts_info, {"gather_subset": ["all"], "alerts": {"pid": 9000}}, "alerts.pid: must be between 0 and 8191"),
    (fm_info, {"gather_subset": ["all"], "alerts": {"since": "soon", "until": None, "limit": 1, "offset": 0,
                                                    "tuner_ids": [], "max_pages": 1}, "log": {}},
     "alerts.since: must be Unix seconds or an ISO 8601 time"),
], ids=["ts", "fm"])
def test_both_info_files_refuse_bad_options_before_any_request(info, params, problem):
    assert [p for p in info.check_options(params) if p.startswith(problem)]
    with pytest.raises(InputError):
        info.read_info(NoRequest(), params)

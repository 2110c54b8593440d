"""A device is not a trusted party (issue 24, item 1): names it gives that become paths on
the controller must stay inside ``dest``; names a user passes for the same purpose are
refused before any request.

The fake analyzer (fake_devices.hostile_analyzer_app) lists capture files whose names lead
out of ``dest`` and gives its input an id that does the same; the modules run in this
process (inprocess.run_module) and reach it over real HTTP.
"""

import os
import time

import pytest

from tests.reliability import fake_devices
from tests.reliability.inprocess import run_module

HOSTILE_NAMES = ["../escape.ts", "../../escape2.ts", "..\\escape3.ts", "..", "nul\x00.ts", "bell\x07.ts",
                 "esc\x1b[2J.ts", "", "   "]


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(top, name), folder)
                  for top, unused, names in os.walk(folder) for name in names)


@pytest.fixture
def layout(tmp_path):
    """``dest`` two levels down, so that ``..`` and ``../..`` still land inside tmp_path."""
    dest = tmp_path / "a" / "b" / "dest"
    dest.mkdir(parents=True)
    (tmp_path / "top").mkdir()
    return tmp_path, dest


def analyzer(file_names, input_id=7):
    return fake_devices.serving(fake_devices.app_server(
        lambda served: fake_devices.hostile_analyzer_app(served, file_names, input_id)))


def conn(served):
    return {"host": served.address, "port": served.port, "password": "admin"}


def test_capture_file_names_that_leave_dest_are_refused_before_any_request(layout):
    tmp, dest = layout
    absolute = str(tmp / "top" / "abs-escape.ts")
    names = HOSTILE_NAMES + [absolute]
    with analyzer(names + ["capture.ts"]) as served:
        listed = run_module("ts_recording", dict(conn(served), operation="list"))
        assert sorted(f["filename"] for f in listed["files"]) == sorted(names + ["capture.ts"])
        del served.requests[:]
        for name in names:
            result = run_module("ts_recording", dict(conn(served), operation="download", filename=name,
                                                     dest=str(dest)))
            assert result.get("failed") is True, (name, result)
            assert result["msg"].startswith("invalid parameters: filename: must be a plain file name"), result["msg"]
            assert repr(name) in result["msg"]
            assert "unexpected" not in result["msg"]
        assert served.requests == [], "requests reached the device for a refused file name"
        # the fake device does serve files: a plain name is downloaded into dest
        good = run_module("ts_recording", dict(conn(served), operation="download", filename="capture.ts",
                                               dest=str(dest)))
    assert good["changed"] is True and good["file"]["dest"] == str(dest / "capture.ts")
    assert files_under(tmp) == [os.path.join("a", "b", "dest", "capture.ts")]


def test_a_file_name_made_from_the_devices_input_id_must_stay_inside_dest(layout):
    tmp, dest = layout
    with analyzer(["capture.ts"], input_id="../../../escape") as served:
        result = run_module("ts_statistics", dict(conn(served), operation="download_alerts", input="Mux 1",
                                                  dest=str(dest)))
        assert result.get("failed") is True, result
        assert repr("input-../../../escape-alerts.csv") in result["msg"], result["msg"]
        assert "not a plain file name" in result["msg"] and "nothing was written" in result["msg"]
        assert "unexpected" not in result["msg"]
        assert not any(path.endswith("/alerts/download") for unused, path in served.requests)
    assert files_under(tmp) == []


def test_an_alert_log_with_a_plain_device_id_is_written_into_dest(layout):
    tmp, dest = layout
    with analyzer(["capture.ts"], input_id=7) as served:
        result = run_module("ts_statistics", dict(conn(served), operation="download_alerts", input="Mux 1",
                                                  dest=str(dest)))
    assert result.get("failed") is not True, result
    assert files_under(tmp) == [os.path.join("a", "b", "dest", "input-7-alerts.csv")]


def test_a_backup_named_after_host_stays_inside_dest(layout):
    """``host`` names the backup file in a ``dest`` directory: one that is not a bare address
    or name is refused before any request (with no user-info repeated)."""
    tmp, dest = layout
    with analyzer(["capture.ts"]) as served:
        for host in ("../%s" % served.address, "bob:secret@%s" % served.address):
            result = run_module("device_backup", dict(conn(served), host=host, device_type="ts_analyzer",
                                                      dest=str(dest)))
            assert result.get("failed") is True and "host:" in result["msg"], result
            assert "secret" not in result["msg"]
        assert served.requests == []
    assert files_under(tmp) == []


# -- a device that answers one byte every half second (issue 24, item 6) ----------------------
@pytest.mark.parametrize("module,args", [
    ("ts_info", {}),
    ("fm_info", {}),
    ("device_backup", {"device_type": "ts_analyzer"}),
    ("device_backup", {"device_type": "auto"}),
], ids=["ts_info", "fm_info", "device_backup", "device_backup-auto"])
def test_a_slow_drip_device_cannot_hang_a_module(tmp_path, module, args):
    """Each byte comes well within ``timeout``, so only a bound on the whole answer ends the
    request; the module fails naming the device and the timeout."""
    if module == "device_backup":
        args = dict(args, dest=str(tmp_path))
    with fake_devices.serving(fake_devices.slow_drip_server()) as served:
        started = time.monotonic()
        result = run_module(module, dict(conn(served), timeout=2, busy_timeout=0, **args))
        elapsed = time.monotonic() - started
    assert result.get("failed") is True, result
    assert "http://%s:%d" % (served.address, served.port) in result["msg"], result["msg"]
    assert "did not answer within 2 s (timeout=2 bounds each whole request)" in result["msg"], result["msg"]
    assert elapsed < 40, "a hang guard: the drip server gives up after 60 s per connection"
    assert os.listdir(tmp_path) == []

"""ts_recording end to end: ansible-playbook against a simulated analyzer."""

import hashlib
import json
import os
import re
import time

from .device_api import Api
from .tasks import checked, clear_log, refused_before_any_write, succeeded, task, writes
from .conftest import EXAMPLE_VARS, module_examples


def recording(device, operation, **args):
    return task("ts_recording", device, name="ts_recording %s" % operation, operation=operation, **args)


def small_capture(api, input_id):
    """A finished 1 MB capture of the input; its file name."""
    api.post("/record/start/%d" % input_id, {"size": 1})
    for attempt in range(100):
        if api.post("/sdcard/status")["recording"] is None:
            return api.post("/sdcard/files")["files"][-1]["filename"]
        time.sleep(0.05)
    raise AssertionError("the 1 MB capture did not finish")


def card_files(api):
    return [f["filename"] for f in api.post("/sdcard/files")["files"]]


def test_start_stop_download_delete_are_idempotent(play, sim, ts, tmp_path):
    api = Api(ts)
    mux = api.add_input("Mux 1")
    paused = api.add_input("Paused")
    api.get("/inputs/%d/stop" % paused["id"])
    small = small_capture(api, mux["id"])
    running = "{{ result_0.recording.filename }}"
    out = play.run([
        recording(ts, "start", input="Mux 1"),
        recording(ts, "start", input="Mux 1", duration=60),
        recording(ts, "start", input="Paused"),
        recording(ts, "list", role="user", password="user"),
        recording(ts, "download", filename=running, dest=str(tmp_path)),
        recording(ts, "stop", input="Mux 1"),
        recording(ts, "stop"),
        recording(ts, "download", filename=small, dest=str(tmp_path), role="user", password="user"),
        recording(ts, "download", filename=small, dest=str(tmp_path / "copy.ts")),
        recording(ts, "download", filename=small, dest=str(tmp_path / "copy.ts")),
        recording(ts, "delete", filename=running),
        recording(ts, "delete", filename=running),
    ], ts.name, verbosity=3)
    results = out.results
    assert [r.get("failed", False) for r in results] == [False, False, True, False, True] + [False] * 7, results
    assert [r.get("changed") for r in results if not r.get("failed")] == [
        True, False, False, True, False, True, True, False, True, False]
    started = results[0]["recording"]
    assert started["input"] == "Mux 1" and started["filename"].startswith("input1_")
    assert "'Paused' has no stream to record (monitoring is stopped)" in results[2]["msg"]
    assert results[2]["msg"].startswith("the device's present state does not allow this, nothing was written")
    listed = {f["filename"]: f for f in results[3]["files"]}
    assert listed[small]["recording"] is False and listed[started["filename"]]["recording"] is True
    assert results[3]["card"]["status"] == "recording"
    assert "filename: %s is being recorded; stop the recording first" % started["filename"] in results[4]["msg"]
    assert results[5]["file"]["filename"] == started["filename"]
    assert results[6]["msg"] == "nothing is recording"
    # the download: streamed to the file, checksum of what is on disk, unchanged when it is already there
    local = tmp_path / small
    data = local.read_bytes()
    assert results[7]["file"] == {"filename": small, "dest": str(local), "size": 1000000 // 188 * 188,
                                  "sha256": hashlib.sha256(data).hexdigest()}
    assert len(data) == results[7]["file"]["size"] and data[0] == 0x47  # TS sync byte
    assert (tmp_path / "copy.ts").read_bytes() == data and results[9]["file"]["sha256"] == results[7]["file"]["sha256"]
    assert card_files(api) == [small]
    # the one-time token is a secret: never in a result nor in the -vvv output
    assert "token" not in json.dumps(results[7]) and not re.search(r"token=\w", out.output)


def test_check_mode_starts_deletes_downloads_nothing(play, sim, ts, tmp_path):
    api = Api(ts)
    mux = api.add_input("Mux 1")
    small = small_capture(api, mux["id"])
    clear_log(sim, ts)
    tmp_path = tmp_path / "downloads"
    tmp_path.mkdir()
    out = play.run([checked(t) for t in [
        recording(ts, "start", input="Mux 1"),
        recording(ts, "download", filename=small, dest=str(tmp_path)),
        recording(ts, "delete", filename=small),
        recording(ts, "delete_all", confirm=True),
        recording(ts, "format", confirm=True),
        recording(ts, "init", confirm=True),
        recording(ts, "stop"),
    ]], ts.name, check=True)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True, True, True, True, True, True, False]
    assert out[0]["msg"] == "would start recording input 'Mux 1'"
    assert out[4]["msg"] == "would format the SD card"
    assert writes(sim, ts) == []
    assert not any("download" in r["path"] for r in sim.call(lambda: list(ts.requests)))
    assert list(tmp_path.iterdir()) == [] and card_files(api) == [small]


def test_bad_input_and_busy_card_fail_before_any_write(play, sim, ts, tmp_path):
    api = Api(ts)
    api.add_input("Mux 1")
    other = api.add_input("Mux 2")
    api.post("/record/start/%d" % other["id"], {})
    clear_log(sim, ts)
    bad = [
        (dict(operation="format"), "confirm: format the SD card, which erases every capture file; set confirm=true"),
        (dict(operation="delete_all"), "confirm: deleting every capture file cannot be undone; set confirm=true"),
        (dict(operation="start", input="Nope"), "input: the analyzer has no input 'Nope' (it has: 'Mux 1', 'Mux 2')"),
        (dict(operation="start", input="Mux 1", duration=0), "duration: must be >= 1 (leave it out for no limit)"),
        (dict(operation="start", input="Mux 1", size=-5), "size: must be >= 1"),
        (dict(operation="start", input="Mux 1"),
         "operation: cannot start a recording while the SD card is recording input 'Mux 2'"),
        (dict(operation="format", confirm=True), "operation: cannot format the card while the SD card is recording"),
        (dict(operation="download", filename="nope.ts", dest=str(tmp_path)), "filename: the SD card has no file 'nope.ts'"),
        (dict(operation="download", filename="x.ts", dest=str(tmp_path / "no" / "x.ts")),
         "dest: directory %s does not exist" % (tmp_path / "no")),
        (dict(operation="start"), "operation is start but all of the following are missing: input"),
        (dict(operation="delete"), "operation is delete but all of the following are missing: filename"),
    ]
    refused_before_any_write(play, sim, ts, [(task("ts_recording", ts, **args), message) for args, message in bad])


def test_documented_examples_run_as_written(play, sim, ts):
    Api(ts).add_input("Mux 1")
    examples = module_examples("ts_recording")
    out = play.run(examples, ts.name, extra_vars=EXAMPLE_VARS)
    try:
        succeeded(examples, out)
        fetched = out[2]["file"]
        assert fetched["dest"] == "/tmp/" + out[0]["recording"]["filename"]
        assert fetched["size"] <= 20 * 10 ** 6
        with open(fetched["dest"], "rb") as handle:
            assert hashlib.sha256(handle.read()).hexdigest() == fetched["sha256"]
        assert [out[i]["changed"] for i in (0, 2, 3, 4)] == [True, True, True, True]
        assert out[4]["card"]["status"] == "ok" and card_files(Api(ts)) == []
    finally:
        if out.results[2].get("file"):
            os.unlink(out[2]["file"]["dest"])

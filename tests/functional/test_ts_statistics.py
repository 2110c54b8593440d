"""ts_statistics end to end: ansible-playbook against a simulated analyzer."""

import hashlib
import os
import time

from .device_api import USER, Api
from .tasks import clear_log, refused_before_any_write, succeeded, task, writes
from .conftest import EXAMPLE_VARS, module_examples


def statistics(device, operation, **args):
    return task("ts_statistics", device, name="ts_statistics %s" % operation, operation=operation, **args)


def counts(api):
    return {s["name"]: sum(v["count"] for v in s["data"].values())
            for s in api.get("/statistics/current")["transport_streams"]}


def test_resets_and_downloads(play, sim, ts, tmp_path):
    api = Api(ts)
    mux = api.add_input("Mux 1")
    other = api.add_input("Mux 2")
    quiet = api.add_input("Quiet")
    api.get("/inputs/%d/stop" % quiet["id"])  # paused from the start: its alert log stays empty
    for attempt in range(200):  # let errors happen, then pause: paused inputs keep their counts and logs
        if counts(api)["Mux 1"] and counts(api)["Mux 2"]:
            break
        time.sleep(0.05)
    for one in (mux, other):
        api.get("/inputs/%d/stop" % one["id"])
    assert counts(api)["Mux 1"] and counts(api)["Mux 2"]
    clear_log(sim, ts)
    csv_mux, csv_quiet = tmp_path / "mux.csv", tmp_path / "quiet.csv"
    out = play.run([
        statistics(ts, "download_mib", dest=str(tmp_path), **USER),
        statistics(ts, "download_mib", dest=str(tmp_path), **USER),
        statistics(ts, "download_alerts", input="Mux 1", dest=str(csv_mux)),
        statistics(ts, "reset_inputs", inputs=["Mux 1"]),
        statistics(ts, "download_alerts", input="Quiet", dest=str(csv_quiet)),
        statistics(ts, "download_alerts", input="Quiet", dest=str(csv_quiet)),
        statistics(ts, "reset_current"),
        statistics(ts, "clear_archive"),
    ], ts.name)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True, False, True, True, True, False, True, True]
    mib = tmp_path / "DVB-MGTR101290-MIB.txt"
    text = mib.read_text()
    assert "DVB-MGTR101290-MIB" in text and out[0]["file"] == {
        "dest": str(mib), "size": len(text.encode()), "sha256": hashlib.sha256(text.encode()).hexdigest()}
    assert out[1]["msg"] == "MIB unchanged in %s" % mib
    header = "service_name,error_name,start_time,end_time,count,severity,pid"
    assert csv_mux.read_bytes().startswith(header.encode() + b"\r\n")  # byte for byte, CRLF kept
    assert len(csv_mux.read_text().splitlines()) > 1  # it had records before the reset
    assert csv_quiet.read_text().strip() == header
    assert out[3]["inputs"] == ["Mux 1"]
    assert writes(sim, ts) == [("GET", "/api/inputs/%d/reset_stats_alerts" % mux["id"]),
                               ("DELETE", "/api/statistics/current"), ("DELETE", "/api/statistics/archive")]
    assert set(counts(api).values()) == {0}
    assert all(sum(s["data"].values()) == 0 for s in api.get("/statistics/archive")["transport_streams"])


def test_check_mode_sends_nothing_but_the_input_list_read(play, sim, ts, tmp_path):
    api = Api(ts)
    api.add_input("Mux 1")
    clear_log(sim, ts)
    out = play.run([
        statistics(ts, "reset_inputs", inputs=["Mux 1"]),
        statistics(ts, "reset_current"),
        statistics(ts, "clear_archive"),
        statistics(ts, "download_mib", dest=str(tmp_path / "mib.txt")),
        statistics(ts, "download_alerts", input="Mux 1", dest=str(tmp_path / "a.csv")),
    ], ts.name, check=True)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True] * 5
    assert out[0]["msg"] == "would reset the statistics and alert log of 'Mux 1'"
    assert out[1]["msg"] == "would reset the current statistics of every input"
    assert out[1]["requests"] == {"login": 0, "read": 0, "write": 0}
    sent = [(r["method"], r["path"]) for r in sim.call(lambda: list(ts.requests))]
    assert sorted(set(sent)) == [("GET", "/api/inputs"), ("POST", "/api/user/login")]
    assert not (tmp_path / "mib.txt").exists() and not (tmp_path / "a.csv").exists()


def test_bad_input_fails_before_any_write(play, sim, ts, tmp_path):
    Api(ts).add_input("Mux 1")
    clear_log(sim, ts)
    bad = [
        (dict(operation="reset_inputs", inputs=["Mux 1", "Nope"]), "inputs[1]: the analyzer has no input 'Nope'"),
        (dict(operation="download_alerts", input="Nope", dest=str(tmp_path)), "input: the analyzer has no input"),
        (dict(operation="download_mib", dest=str(tmp_path / "missing" / "mib.txt")),
         "dest: directory %s does not exist" % (tmp_path / "missing")),
        (dict(operation="download_mib"), "operation is download_mib but all of the following are missing: dest"),
        (dict(operation="reset_everything"), "value of operation must be one of"),
    ]
    refused_before_any_write(play, sim, ts, [(task("ts_statistics", ts, **args), message) for args, message in bad])


def test_documented_examples_run_as_written(play, sim, ts):
    Api(ts).add_input("Mux 1")
    examples = module_examples("ts_statistics")
    out = play.run(examples, ts.name, extra_vars=EXAMPLE_VARS)
    try:
        succeeded(examples, out)
        assert out[1]["file"]["dest"] == "/tmp/mux1-alerts.csv"
        assert out[2]["file"]["dest"] == "/tmp/DVB-MGTR101290-MIB.txt"
        assert [out[i]["changed"] for i in (0, 3)] == [True, True]
    finally:
        for index in (1, 2):
            if out.results[index].get("changed"):
                os.unlink(out[index]["file"]["dest"])

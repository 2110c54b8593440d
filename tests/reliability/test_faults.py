"""Faults injected by the simulator: busy devices, server errors, dropped connections,
latency, reboot gaps and a device that never comes back.

What must hold: reads are retried, writes are never duplicated (a write whose answer was
lost is read back, see engine._write_verified), every wait ends within its bound with a
message saying what it waited for, and a failure halfway through a list says which objects
were written and which were not.
"""

import pytest

from tests.reliability import figures
from tests.functional.conftest import connection
from tests.functional.device_api import Api

SECTION = "faults"


def mux(number, **extra):
    return dict({"name": "Mux %d" % number, "source": {"multicast": {"address": "239.1.1.%d" % number, "port": 5000}},
                 "monitoring": "started"}, **extra)


def ts_task(device, config, state="merged", **options):
    return {"name": "inputs", "broadcast.monitoring.ts_input": dict(connection(device), state=state, config=config, **options)}


def inject(sim, device, **rule):
    sim.call(device.faults.add, rule)


def inputs_on(device):
    """The analyzer's inputs by name, read over HTTP, with how many carry each name."""
    counts = {}
    for item in Api(device).get("/inputs"):
        counts[item["name"]] = counts.get(item["name"], 0) + 1
    return counts


def counters(sim, device):
    return sim.call(device.counters)


def survived(case, result, faults):
    figures.add(SECTION, "faults injected and answered", faults)
    figures.add(SECTION, "cases", 1)
    figures.row(SECTION, case, "failed as designed: %s" % result["msg"].split(" (")[0] if result.get("failed") else
                "survived (changed=%s)" % result.get("changed"))


def no_traceback(result):
    # ansible-core 2.19 puts "(traceback unavailable)" in every failure's "exception"; a real
    # one (a bug of ours: module.run says "unexpected") would carry the Python traceback.
    assert "Traceback (most recent call last)" not in str(result) and "MODULE FAILURE" not in str(result)
    assert not result.get("msg", "").startswith("unexpected")


# -- busy (503) -------------------------------------------------------------------------

def test_a_10_second_burst_of_503_is_waited_out_and_the_write_lands_once(play, sim, ts):
    inject(sim, ts, kind="unavailable", seconds=10)
    result = play.run([ts_task(ts, [mux(1)])], ts.name)[0]
    assert result.get("failed") is not True, result
    assert result["changed"] is True and inputs_on(ts) == {"Mux 1": 1}
    faults = counters(sim, ts)["fault"]
    assert faults >= 3  # the burst was really met (backoff doubles up to its cap)
    survived("503 for 10 s, busy_timeout 30", result, faults)


def test_a_burst_longer_than_busy_timeout_fails_clearly_and_writes_nothing(play, sim, ts):
    inject(sim, ts, kind="unavailable", seconds=6, method="POST", path="/api/inputs")
    result = play.run([ts_task(ts, [mux(1)], busy_timeout=2)], ts.name)[0]
    assert result["failed"] is True and result["error"]["kind"] == "busy"
    assert "busy for more than 2 s" in result["msg"] and "try again later" in result["msg"]
    assert result["written"] == [] and result["not_written"] == [{"action": "create", "key": "Mux 1"}]
    assert inputs_on(ts) == {}
    no_traceback(result)
    survived("503 for 6 s, busy_timeout 2", result, counters(sim, ts)["fault"])


# -- server errors (500) and a failure halfway through a list ---------------------------

def test_a_500_halfway_through_a_list_reports_written_and_not_written_and_a_rerun_completes(play, sim, ts):
    assert play.run([ts_task(ts, [mux(1), mux(2), mux(3)])], ts.name)[0]["changed"] is True
    ids = {name: index + 1 for index, name in enumerate(["Mux 1", "Mux 2", "Mux 3"])}
    inject(sim, ts, kind="error", count=1, path="/api/inputs/%d" % ids["Mux 2"])
    stopped = [mux(n, monitoring="stopped") for n in (1, 2, 3)]
    out = play.run([ts_task(ts, stopped), ts_task(ts, stopped), ts_task(ts, stopped)], ts.name)
    failed, rerun, again = out[0], out[1], out[2]
    assert failed["failed"] is True and failed["error"]["kind"] == "device" and failed["error"]["status"] == 500
    assert failed["written"] == [{"action": "update", "key": "Mux 1"}]
    assert failed["not_written"] == [{"action": "update", "key": "Mux 2"}, {"action": "update", "key": "Mux 3"}]
    assert failed["changed"] is True  # Mux 1 was written
    assert "1 change(s) written before the failure, 2 not written" in failed["msg"]
    no_traceback(failed)
    assert rerun["changed"] is True
    assert [{"action": c["action"], "key": c["key"]} for c in rerun["changes"]] == failed["not_written"]
    assert rerun["changes"][0]["differences"] == [{"path": "monitoring", "current": "started", "declared": "stopped"}]
    assert again["changed"] is False
    survived("500 on the 2nd of 3 updates, then a rerun", failed, 1)


def test_a_500_on_a_read_fails_with_the_request_named_and_nothing_written(play, sim, fm):
    inject(sim, fm, kind="error", count=1, method="GET")
    result = play.run([{"name": "tuner", "broadcast.monitoring.fm_tuner": dict(
        connection(fm), config=[{"tuner_id": 0, "frequency": 94800}])}], fm.name)[0]
    assert result["failed"] is True and "HTTP 500" in result["msg"] and "GET /api/" in result["msg"]
    assert sim.call(fm.writes) == []
    no_traceback(result)
    survived("500 on the first read", result, 1)


# -- dropped connections ----------------------------------------------------------------

def test_reads_are_retried_after_a_dropped_connection(play, sim, ts):
    inject(sim, ts, kind="drop", count=2, method="GET")
    result = play.run([ts_task(ts, [mux(1)])], ts.name)[0]
    assert result.get("failed") is not True, result
    assert inputs_on(ts) == {"Mux 1": 1}
    assert counters(sim, ts)["fault"] == 2
    survived("2 reads dropped", result, 2)


@pytest.mark.parametrize("kind, landed", [("drop_response", True), ("drop", False)])
def test_a_create_whose_answer_was_lost_is_read_back_not_sent_twice(play, sim, ts, kind, landed):
    inject(sim, ts, kind=kind, count=1, method="POST", path="/api/inputs")
    out = play.run([ts_task(ts, [mux(1, monitoring="stopped"), mux(2)]), ts_task(ts, [mux(1, monitoring="stopped"), mux(2)])],
                   ts.name)
    first, second = out[0], out[1]
    assert first.get("failed") is not True, first
    # drop_response: the device made the input, only the answer was lost -> not sent again;
    # drop: the device did nothing -> the read-back shows it, and it is sent once more.
    assert first["lost_answers"] == [{"action": "create", "key": "Mux 1", "landed": landed}]
    assert inputs_on(ts) == {"Mux 1": 1, "Mux 2": 1}
    creates = [r for r in sim.call(lambda: list(ts.requests)) if r["method"] == "POST" and r["path"] == "/api/inputs"]
    assert len(creates) == (2 if landed else 3)  # lost one (counted as a fault when dropped before acting) + Mux 2 (+ resend)
    assert second["changed"] is False  # and what the create does after (stop) was completed
    survived("%s on a create" % kind, first, 1)


def test_an_fm_write_whose_answer_was_lost_is_checked_not_repeated(play, sim, fm):
    inject(sim, fm, kind="drop_response", count=1, method="POST", path="/api/tuner/1/")
    config = [{"tuner_id": 1, "frequency": 101300}]
    task = {"name": "tuner", "broadcast.monitoring.fm_tuner": dict(connection(fm), config=config)}
    out = play.run([task, task], fm.name)
    assert out[0].get("failed") is not True, out[0]
    assert out[0]["lost_answers"][0]["landed"] is True
    assert out[1]["changed"] is False
    survived("drop_response on a tuner write", out[0], 1)


# -- latency and timeouts ---------------------------------------------------------------

def test_latency_is_tolerated_and_a_timeout_below_it_fails_saying_so(play, sim, ts):
    inject(sim, ts, kind="latency", seconds=0.3)
    tolerated = play.run([ts_task(ts, [mux(1)])], ts.name)[0]
    assert tolerated.get("failed") is not True and tolerated["changed"] is True
    inject(sim, ts, kind="latency", seconds=1.5)
    timed_out = play.run([ts_task(ts, [mux(1)], timeout=1)], ts.name)[0]
    assert timed_out["failed"] is True and "did not answer within 1 s" in timed_out["msg"]
    no_traceback(timed_out)
    survived("0.3 s latency", tolerated, 1)
    survived("1.8 s latency, timeout 1 s", timed_out, 1)


# -- reboots ----------------------------------------------------------------------------

def reboot_task(device, **options):
    options = dict(connection(device), device_type=device.kind, **options)
    return {"name": "reboot", "broadcast.monitoring.device_reboot": options}


def test_a_reboot_gap_of_60_s_scaled_is_waited_for(play, sim, ts):
    # 60 s at the suite's time scale (0.02) is 1.2 s; the wait bound is far above it.
    result = play.run([reboot_task(ts, reboot_timeout=30)], ts.name)[0]
    assert result.get("failed") is not True, result
    assert result["changed"] is True and result["rebooted"] is True and 0.5 < result["elapsed"] < 30
    survived("reboot gap 60 s (scaled)", result, 1)


@pytest.mark.parametrize("rule", [{"kind": "never_return"}, {"kind": "reboot_gap", "seconds": 8}])
def test_a_device_that_does_not_come_back_in_time_fails_within_the_bound(play, sim, fm, rule):
    inject(sim, fm, **rule)
    result = play.run([reboot_task(fm, reboot_timeout=3)], fm.name)[0]
    sim.call(fm.power_cycle)
    assert result["failed"] is True and result["error"]["kind"] == "unreachable"
    assert "did not come back" in result["msg"] and "within 3 s" in result["msg"] and "/system/alive" in result["msg"]
    no_traceback(result)
    survived("%s, wait bound 3 s" % rule["kind"], result, 1)

"""The comparison of two operational snapshots (module_utils/snapshot.py): pure functions, no
device. The filter that offers it is tested in tests/unit/plugins/filter (ansible-test runs
module_utils tests where only ansible.module_utils is importable)."""

import copy

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import snapshot
from ansible_collections.broadcast.monitoring.plugins.module_utils.engine import InputError


def an_input(ident, name, **fields):
    out = {"id": ident, "name": name, "monitoring": True, "state": "ok", "receiving": True, "bitrate": 10000000,
           "priority1": "ok", "priority1_errors": [], "alarms": []}
    out.update(fields)
    return out


def a_tuner(ident, **fields):
    out = {"id": ident, "name": "Tuner %d" % (ident + 1), "state": "enabled", "frequency": 94300, "tuned": True,
           "signal_ok": True, "stream_enabled": True, "alarms": []}
    out.update(fields)
    return out


def ts(*inputs, **fields):
    out = {"device_type": "ts_analyzer", "taken_at": "2026-11-25T20:00:00Z", "firmware_version": "1.0.0",
           "reboot_needed": False, "inputs": list(inputs)}
    out.update(fields)
    return out


def fm(*tuners, **fields):
    out = {"device_type": "fm_monitor", "taken_at": "2026-11-25T20:00:00Z", "firmware_version": "1.0.0",
           "reboot_needed": False, "tuners": list(tuners)}
    out.update(fields)
    return out


LOST = dict(state="no_signal", receiving=False, bitrate=0, priority1="critical", priority1_errors=["ts_sync_loss"],
            alarms=["ts_sync_loss"])


def test_identical_snapshots_have_no_change():
    before = ts(an_input(1, "Mux 1"), an_input(2, "Mux 2"))
    after = dict(copy.deepcopy(before), taken_at="2026-11-25T21:00:00Z")  # the time is no change
    assert snapshot.compare(before, after) == {"regressions": [], "changes": []}


def test_a_lost_input_is_a_regression_naming_it_and_what_stopped():
    before = ts(an_input(1, "Mux 1"), an_input(2, "Mux 2"))
    after = ts(an_input(1, "Mux 1", **LOST), an_input(2, "Mux 2"))
    out = snapshot.compare(before, after)
    assert [(r["item"], r["what"], r["before"], r["after"]) for r in out["regressions"]] == [
        ("input Mux 1 (id 1)", "receiving", True, False),
        ("input Mux 1 (id 1)", "bitrate", 10000000, 0),
        ("input Mux 1 (id 1)", "priority1", "ok", "critical"),
    ]
    assert all(r["message"].startswith("input Mux 1 (id 1): ") for r in out["regressions"])
    assert "ts_sync_loss" in out["regressions"][2]["message"] and "no_signal" in out["regressions"][0]["message"]
    assert {c["what"] for c in out["changes"]} == {
        "state", "receiving", "bitrate", "priority1", "priority1_errors", "alarms"}
    assert all(c["item"] == "input Mux 1 (id 1)" for c in out["changes"])


def test_a_recovered_input_is_a_change_not_a_regression():
    before = ts(an_input(1, "Mux 1", **LOST))
    after = ts(an_input(1, "Mux 1"))
    out = snapshot.compare(before, after)
    assert out["regressions"] == []
    assert ("receiving", False, True) in [(c["what"], c["before"], c["after"]) for c in out["changes"]]


def test_bitrate_noise_is_no_change_and_other_alarms_no_regression():
    before = ts(an_input(1, "Mux 1"))
    after = ts(an_input(1, "Mux 1", bitrate=10400000, alarms=["pcr_accuracy_error"]))
    out = snapshot.compare(before, after)
    assert out["regressions"] == []
    assert out["changes"] == [{"item": "input Mux 1 (id 1)", "what": "alarms", "before": [],
                               "after": ["pcr_accuracy_error"]}]
    assert [c["what"] for c in snapshot.compare(before, ts(an_input(1, "Mux 1", bitrate=12000000)))["changes"]] == [
        "bitrate"]


def test_device_fields_are_changes_only():
    out = snapshot.compare(ts(), ts(firmware_version="2.4.1", reboot_needed=True))
    assert out == {"regressions": [], "changes": [
        {"item": "device", "what": "firmware_version", "before": "1.0.0", "after": "2.4.1"},
        {"item": "device", "what": "reboot_needed", "before": False, "after": True}]}


def test_items_added_and_gone():
    before = ts(an_input(1, "Working"), an_input(2, "Paused", monitoring=False, state="paused", receiving=False,
                                                 bitrate=0))
    after = ts(an_input(3, "New"))
    out = snapshot.compare(before, after)
    assert [(c["item"], c["what"], c["before"], c["after"]) for c in out["changes"]] == [
        ("input Working (id 1)", "present", True, False), ("input Paused (id 2)", "present", True, False),
        ("input New (id 3)", "present", False, True)]
    assert [(r["item"], r["what"]) for r in out["regressions"]] == [("input Working (id 1)", "present")]


def test_paused_input_is_a_regression_of_receiving_only_when_it_received():
    before = ts(an_input(1, "Mux 1"))
    paused = an_input(1, "Mux 1", monitoring=False, state="paused", receiving=False, bitrate=0)
    assert [r["what"] for r in snapshot.compare(before, ts(paused))["regressions"]] == ["receiving", "bitrate"]
    assert snapshot.compare(ts(paused), ts(paused))["regressions"] == []


def test_an_unlocked_tuner_is_a_regression_naming_it():
    before = fm(a_tuner(0), a_tuner(1, stream_enabled=False))
    after = fm(a_tuner(0, tuned=False, signal_ok=False, alarms=["rfl_low", "snr_low"]), a_tuner(1, stream_enabled=False))
    out = snapshot.compare(before, after)
    assert [(r["item"], r["what"]) for r in out["regressions"]] == [
        ("tuner 0 (Tuner 1)", "tuned"), ("tuner 0 (Tuner 1)", "signal_ok"), ("tuner 0 (Tuner 1)", "alarms")]
    assert "rfl_low, snr_low" in out["regressions"][2]["message"]
    stopped = snapshot.compare(before, fm(a_tuner(0, stream_enabled=False), a_tuner(1, stream_enabled=False)))
    assert [(r["what"], r["before"], r["after"]) for r in stopped["regressions"]] == [("stream_enabled", True, False)]
    # back again: changes only; an alarm that cleared is no regression either
    assert snapshot.compare(after, before)["regressions"] == []


def test_ignore_leaves_checks_out_of_the_regressions_not_the_changes():
    before = ts(an_input(1, "Mux 1"))
    after = ts(an_input(1, "Mux 1", priority1="critical", priority1_errors=["continuity_count_error"]))
    assert [r["what"] for r in snapshot.compare(before, after)["regressions"]] == ["priority1"]
    out = snapshot.compare(before, after, ignore=["priority1", "tuned"])  # a check of the other type is accepted
    assert out["regressions"] == [] and [c["what"] for c in out["changes"]] == ["priority1", "priority1_errors"]
    with pytest.raises(InputError, match="ignore: unknown check"):
        snapshot.compare(before, after, ignore=["signal"])


@pytest.mark.parametrize("value, words", [
    ("before", "compare_to: must be a snapshot"),
    ({"inputs": []}, "compare_to: not a snapshot taken by device_snapshot (device_type missing"),
    ({"device_type": "ts_analyzer", "inputs": [{"name": "no id"}]}, "compare_to: a snapshot of a ts_analyzer holds inputs"),
    (fm(), "compare_to: a snapshot of a fm_monitor, this is a ts_analyzer"),
])
def test_what_is_not_a_snapshot_of_this_device_is_refused_naming_the_option(value, words):
    with pytest.raises(InputError) as err:
        snapshot.compare(value, ts())
    assert words in err.value.problems[0]


def test_a_whole_registered_result_is_taken_for_its_snapshot():
    before = {"changed": False, "snapshot": ts(an_input(1, "Mux 1")), "requests": {"get": 4}}
    assert snapshot.compare(before, ts(an_input(1, "Mux 1", **LOST)))["regressions"][0]["what"] == "receiving"


P1_ERROR = {"priority1": "critical", "priority1_errors": ["continuity_count_error"]}


def confirming(*later):
    """take_next and sleep for snapshot.confirm: ``later`` snapshots in turn, and a record of
    the sleeps and takes."""
    record = {"sleeps": [], "taken": 0}

    def take_next():
        record["taken"] += 1
        return later[record["taken"] - 1]
    return take_next, record["sleeps"].append, record


def test_a_regression_that_clears_in_a_confirming_snapshot_is_transient():
    before = ts(an_input(1, "Mux 1"), an_input(2, "Mux 2"))
    first = ts(an_input(1, "Mux 1", **LOST), an_input(2, "Mux 2", **P1_ERROR))
    second = ts(an_input(1, "Mux 1", **LOST), an_input(2, "Mux 2"))
    third = ts(an_input(1, "Mux 1", **LOST), an_input(2, "Mux 2"))
    take_next, sleep, record = confirming(second, third)
    snap, out = snapshot.confirm(before, first, take_next, count=2, interval=4.5, sleep=sleep)
    assert snap is third and record == {"sleeps": [4.5, 4.5], "taken": 2}
    assert [(r["item"], r["what"]) for r in out["regressions"]] == [
        ("input Mux 1 (id 1)", "receiving"), ("input Mux 1 (id 1)", "bitrate"), ("input Mux 1 (id 1)", "priority1")]
    assert [(r["item"], r["what"], r["after"]) for r in out["transient"]] == [("input Mux 2 (id 2)", "priority1", "critical")]
    assert "continuity_count_error" in out["transient"][0]["message"]
    assert out["changes"] == snapshot.compare(before, third)["changes"]  # the last snapshot's


def test_confirmation_stops_when_nothing_is_left_and_never_adds_a_later_regression():
    before = ts(an_input(1, "Mux 1"), an_input(2, "Mux 2"))
    first = ts(an_input(1, "Mux 1", **P1_ERROR), an_input(2, "Mux 2"))
    second = ts(an_input(1, "Mux 1"), an_input(2, "Mux 2", **P1_ERROR))  # a new error elsewhere
    take_next, sleep, record = confirming(second, ts(an_input(1, "Mux 1"), an_input(2, "Mux 2")))
    snap, out = snapshot.confirm(before, first, take_next, count=5, interval=1, sleep=sleep)
    assert snap is second and record["taken"] == 1  # nothing of the first left to confirm
    assert out["regressions"] == [] and [r["item"] for r in out["transient"]] == ["input Mux 1 (id 1)"]


def test_no_regression_or_count_zero_takes_no_further_snapshot():
    before = ts(an_input(1, "Mux 1"))
    for first, count in ((ts(an_input(1, "Mux 1")), 3), (ts(an_input(1, "Mux 1", **LOST)), 0)):
        take_next, sleep, record = confirming()
        snap, out = snapshot.confirm(before, first, take_next, count=count, interval=9, sleep=sleep)
        assert snap is first and record == {"sleeps": [], "taken": 0} and out["transient"] == []
        assert out["regressions"] == snapshot.compare(before, first)["regressions"]


def test_ignored_checks_are_neither_confirmed_nor_transient():
    before = ts(an_input(1, "Mux 1"))
    take_next, sleep, record = confirming(ts(an_input(1, "Mux 1")))
    snap, out = snapshot.confirm(before, ts(an_input(1, "Mux 1", **P1_ERROR)), take_next, ignore=["priority1"],
                                 count=2, interval=1, sleep=sleep)
    assert record["taken"] == 0 and out["regressions"] == out["transient"] == []

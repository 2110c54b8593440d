"""The comparison of two operational snapshots (module_utils/_snapshot.py): pure functions, no
device. The filter that offers it is tested in tests/unit/plugins/filter (ansible-test runs
module_utils tests where only ansible.module_utils is importable)."""

import copy

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _snapshot as snapshot
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError


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
    ({"device_type": "ts_analyzer", "inputs": [{"label": "no id"}]},
     "compare_to: a snapshot of a ts_analyzer holds inputs, a list of dictionaries with an id or a name"),
    ({"device_type": "fm_monitor", "tuners": [{"name": "no id"}]},
     "compare_to: a snapshot of a fm_monitor holds tuners, a list of dictionaries with an id"),
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


# -- only what worked can regress (issue 30) ------------------------------------------------------
DISABLED = dict(state="disabled", tuned=False, signal_ok=False, alarms=[])
UNLOCKED = dict(tuned=False, signal_ok=False, alarms=["rds_sync_lost", "rfl_low", "snr_low"])


def test_a_tuner_the_change_enables_is_no_regression_even_with_alarms():
    """The issue's trial: a tuner disabled before, enabled by the change (or a restore), not yet
    locked: "quality alarm(s) raised: rds_sync_lost, rfl_low, snr_low" was a false alarm."""
    before = fm(a_tuner(0), a_tuner(1, **DISABLED), a_tuner(2, state="sleep", tuned=False, signal_ok=False))
    after = fm(a_tuner(0), a_tuner(1, **UNLOCKED), a_tuner(2, **UNLOCKED))
    out = snapshot.compare(before, after)
    assert out["regressions"] == []
    assert ("tuner 1 (Tuner 2)", "state", "disabled", "enabled") in [
        (c["item"], c["what"], c["before"], c["after"]) for c in out["changes"]]
    assert ("tuner 2 (Tuner 3)", "alarms", [], UNLOCKED["alarms"]) in [
        (c["item"], c["what"], c["before"], c["after"]) for c in out["changes"]]


def test_an_enabled_tuner_that_was_not_locked_cannot_regress():
    before = fm(a_tuner(0, tuned=False, signal_ok=False, alarms=["rfl_low"]))  # no station on its frequency
    after = fm(a_tuner(0, tuned=False, signal_ok=False, stream_enabled=False, alarms=UNLOCKED["alarms"]))
    assert snapshot.compare(before, after)["regressions"] == []


def test_a_tuner_a_device_calls_tuned_while_disabled_did_not_work():
    before = fm(a_tuner(0, state="disabled", tuned=True, signal_ok=True))
    assert snapshot.compare(before, fm(a_tuner(0, **UNLOCKED, stream_enabled=False)))["regressions"] == []


def test_an_input_that_was_not_receiving_cannot_regress():
    """A paused input has no statistics: its priority-1 status read "ok" and its first errors
    after the change that starts it were a regression."""
    paused = an_input(1, "Mux 1", monitoring=False, state="paused", receiving=False, bitrate=0)
    started = an_input(1, "Mux 1", priority1="critical", priority1_errors=["continuity_count_error"],
                       alarms=["continuity_count_error"])
    assert snapshot.compare(ts(paused), ts(started))["regressions"] == []
    # a device that reports a rate for an input without its stream: still not receiving
    odd = an_input(2, "Mux 2", state="no_signal", receiving=False, bitrate=1000)
    out = snapshot.compare(ts(odd), ts(an_input(2, "Mux 2", **LOST)))
    assert out["regressions"] == [] and [c["what"] for c in out["changes"]] == [
        "bitrate", "priority1", "priority1_errors", "alarms"]


#: per check: a working item, and what makes that check regress
WORKED = {
    "receiving": ("ts", dict(state="no_signal", receiving=False)),
    "bitrate": ("ts", dict(bitrate=0)),
    "priority1": ("ts", dict(priority1="critical", priority1_errors=["ts_sync_loss"])),
    "present": ("ts", None),
    "tuned": ("fm", dict(tuned=False)),
    "signal_ok": ("fm", dict(signal_ok=False)),
    "stream_enabled": ("fm", dict(stream_enabled=False)),
    "alarms": ("fm", dict(alarms=["rfl_low"])),
}
NOT_WORKING = {"ts": dict(state="no_signal", receiving=False), "fm": dict(tuned=False, signal_ok=False)}


@pytest.mark.parametrize("check", sorted(WORKED))
def test_every_check_is_made_only_of_an_item_that_worked(check):
    kind, broken = WORKED[check]
    item, snap = (an_input, ts) if kind == "ts" else (lambda i, n, **f: a_tuner(i, **f), fm)

    def pair(**earlier):
        before = snap(item(1, "One", **earlier))
        after = snap() if broken is None else snap(item(1, "One", **dict(earlier, **broken)))
        return before, after
    assert check in [r["what"] for r in snapshot.compare(*pair())["regressions"]]
    assert snapshot.compare(*pair(**NOT_WORKING[kind]))["regressions"] == []


# -- the snapshot a backup keeps --------------------------------------------------------------------
#: the FakeDevice last made of each device type: the snapshot reader of that type
READERS = {}


@pytest.fixture(autouse=True)
def device_reads_itself(monkeypatch):
    """A FakeDevice is its type's snapshot reader (a device's is its api_snapshot.py)."""
    monkeypatch.setattr(snapshot.devices, "api_snapshot", lambda kind: READERS[kind])


class FakeDevice:
    """A device file's snapshot readers, returning given items (no client)."""

    def __init__(self, kind, items, **system):
        self.KIND, self.items = kind, items
        READERS[kind] = self
        self.system = {"firmware_version": "1.0.0", "reboot_needed": False}
        self.system.update(system)

    def snapshot_items(self, client):
        return copy.deepcopy(self.items)

    def snapshot_system(self, client):
        return dict(self.system)


def test_the_backup_keeps_only_what_says_whether_an_item_worked():
    inputs = [an_input(2, "Sport", bitrate=10000001), an_input(1, "News", **LOST)]
    kept = snapshot.baseline(FakeDevice("ts_analyzer", inputs), None)
    assert kept == {"device_type": "ts_analyzer", "firmware_version": "1.0.0", "inputs": [
        {"name": "News", "receiving": False}, {"name": "Sport", "receiving": True}]}
    # what moves by itself moves nothing in it: a backup of an unchanged device stays equal
    noisy = [an_input(7, "Sport", bitrate=9000000, **P1_ERROR), an_input(1, "News", **{**LOST, "alarms": []})]
    assert snapshot.baseline(FakeDevice("ts_analyzer", noisy, reboot_needed=True), None) == kept
    tuners = [a_tuner(0, alarms=["rds_block_a"]), a_tuner(1, **DISABLED)]
    assert snapshot.baseline(FakeDevice("fm_monitor", tuners), None)["tuners"] == [
        {"id": 0, "name": "Tuner 1", "state": "enabled", "tuned": True, "stream_enabled": True},
        {"id": 1, "name": "Tuner 2", "state": "disabled", "tuned": False, "stream_enabled": True}]


def test_a_restore_is_compared_with_the_backup_inputs_matched_by_name():
    inputs = [an_input(4, "News"), an_input(5, "Sport"), an_input(6, "Down", **LOST), an_input(8, "Gone")]
    kept = snapshot.baseline(FakeDevice("ts_analyzer", inputs), None)
    # restored: new ids; News no longer receives, Sport has priority-1 errors (not recorded: not checked)
    after = ts(an_input(1, "Down"), an_input(2, "News", **LOST), an_input(3, "Sport", **P1_ERROR),
               firmware_version="2.4.1")
    out = snapshot.compare(kept, after)
    assert [(r["item"], r["what"], r["before"], r["after"]) for r in out["regressions"]] == [
        ("input Gone", "present", True, False), ("input News (id 2)", "receiving", True, False)]
    assert "input News (id 2): was receiving its stream, now does not (state no_signal)" in [
        r["message"] for r in out["regressions"]]
    assert [(c["item"], c["what"]) for c in out["changes"]] == [
        ("device", "firmware_version"), ("input Down (id 1)", "receiving"), ("input Gone", "present"),
        ("input News (id 2)", "receiving")]
    # the whole backup document is taken for its snapshot
    assert snapshot.compare({"format": "broadcast.monitoring.backup/2", "device_type": "ts_analyzer",
                             "snapshot": kept}, after) == out


def test_a_restore_is_compared_with_the_tuners_of_the_backup():
    kept = snapshot.baseline(FakeDevice("fm_monitor", [a_tuner(0), a_tuner(1), a_tuner(2, **DISABLED)]), None)
    after = fm(a_tuner(0, alarms=["rds_sync_lost"]), a_tuner(1, tuned=False, signal_ok=False, alarms=["rfl_low"]),
               a_tuner(2, **UNLOCKED))
    out = snapshot.compare(kept, after)
    assert [(r["item"], r["what"]) for r in out["regressions"]] == [("tuner 1 (Tuner 2)", "tuned")]


def test_a_backup_without_a_snapshot_is_refused_as_a_baseline_naming_the_option():
    with pytest.raises(InputError, match="compare_to: this backup holds no snapshot"):
        snapshot.compare({"format": "broadcast.monitoring.backup/2", "device_type": "ts_analyzer", "raw": {}}, ts())


def test_the_failure_names_each_regression_its_check_and_the_waiver():
    before = ts(an_input(1, "News"), an_input(2, "Sport"))
    after = ts(an_input(1, "News", **LOST), an_input(2, "Sport", bitrate=0))
    regressions = snapshot.compare(before, after)["regressions"]
    message = snapshot.failure_message(regressions, "restore_snapshot_ignore", ["alarms"])
    assert message.startswith("4 regression(s) since the earlier snapshot")
    assert "input News (id 1): was receiving its stream, now does not (state no_signal) [check receiving]" in message
    assert "input Sport (id 2): bitrate fell from 10000000 bit/s to 0 [check bitrate]" in message
    assert message.endswith("waive the check(s) with restore_snapshot_ignore: [alarms, receiving, bitrate, priority1]")

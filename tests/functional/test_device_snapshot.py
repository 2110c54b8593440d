"""device_snapshot (issue 23): what a device is doing, recorded over real HTTP with the user
role, and the comparison with an earlier snapshot: an input whose stream stops, or a tuner
whose signal is lost (the simulator's lost signals, simulator/README.md "Signals"), is a
regression that names it; a recovered one is not; nothing is written, in check mode or not."""

import threading
import time

import pytest

from bm_simulator import swu
from bm_simulator.ts import PRIORITY_1

from .device_api import Api
from .conftest import EXAMPLE_VARS, connection, module_examples
from .tasks import ok

MULTICAST = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}


def snapshot_task(device, **options):
    """device_snapshot with the user role; a regression confirmed after 0.3 s (15 simulated
    seconds at the fleet's time scale: longer than an error stays current) unless given."""
    args = dict(connection(device, password="user", role="user"), device_type=device.kind, confirm_interval=0.3)
    args.update(options)
    return {"broadcast.monitoring.device_snapshot": args}


def fresh(sim, name):
    device = sim.fleet.by_name(name)
    sim.call(device.reset)  # factory state, every signal back
    return device


def quiet_analyzer(sim, name):
    """An analyzer with three inputs whose profile does not raise the random priority-1 errors of
    the simulated streams (threshold above the largest count of one event), only a lost stream."""
    device = fresh(sim, name)
    api = Api(device)
    entries = [{"error_name": error, "threshold": 100} for error in PRIORITY_1]
    profile = api.post("/profiles", {"name": "Quiet", "entries": entries})["id"]
    for index, name in enumerate(("News", "Sport", "Film")):
        api.add_input(name, dict(MULTICAST, eth=dict(MULTICAST["eth"], multicast=dict(
            MULTICAST["eth"]["multicast"], multicast_port=5000 + index))), profile_id=profile)
    return device


def test_an_input_that_stops_is_a_regression_naming_it_and_a_recovered_one_is_not(play, sim):
    device = quiet_analyzer(sim, "ts-001")
    sim.call(device.lose_signal, 3)  # "Film" is down before the change
    first = play.run([snapshot_task(device)], "ts-001")[0]
    assert first.get("failed") is not True and first["changed"] is False, first
    before = first["snapshot"]
    assert [(i["name"], i["receiving"], i["priority1"]) for i in before["inputs"]] == [
        ("News", True, "ok"), ("Sport", True, "ok"), ("Film", False, "critical")]
    assert before["inputs"][0]["bitrate"] > 0 and before["inputs"][2]["bitrate"] == 0
    assert (before["device_type"], before["firmware_version"], before["reboot_needed"]) == ("ts_analyzer", "1.0.0", False)
    # the change: News stops, Film comes back
    sim.call(device.lose_signal, 1)
    sim.call(device.restore_signal, 3)
    sim.call(device.requests.clear)
    out = play.run([
        dict(snapshot_task(device, compare_to=before), check_mode=True),
        snapshot_task(device, compare_to=first, fail_on_regression=True),  # the whole registered result works too
        {"ansible.builtin.set_fact": {
            "offline": "{{ earlier | broadcast.monitoring.snapshot_compare(result_0.snapshot) }}"}},
        snapshot_task(device, compare_to=before, fail_on_regression=True, ignore=["receiving", "bitrate", "priority1"]),
    ], "ts-001", extra_vars={"earlier": before})
    checked, failed, offline, ignored = out[0], out[1], out[2], out[3]
    assert checked.get("failed") is not True and checked["changed"] is False, checked
    regressions = [(r["item"], r["what"], r["before"], r["after"]) for r in checked["regressions"]]
    assert regressions[:2] == [("input News (id 1)", "receiving", True, False),
                               ("input News (id 1)", "bitrate", before["inputs"][0]["bitrate"], 0)]
    assert regressions[2:] == [("input News (id 1)", "priority1", "ok", "critical")], checked["regressions"]
    assert "ts_sync_loss" in checked["regressions"][2]["message"]
    film = [(c["what"], c["before"], c["after"]) for c in checked["changes"] if c["item"] == "input Film (id 3)"]
    assert ("receiving", False, True) in film  # recovered: a change, not a regression
    assert not [r for r in checked["regressions"] if "News" not in r["item"]]
    assert failed["failed"] is True and "3 regression(s)" in failed["msg"] and "input News (id 1)" in failed["msg"]
    assert failed["regressions"] and failed["snapshot"]["inputs"][0]["receiving"] is False
    assert offline["ansible_facts"]["offline"]["regressions"] == checked["regressions"]
    assert ignored.get("failed") is not True and ignored["regressions"] == [], ignored
    assert sim.call(device.writes) == []
    assert {r["path"] for r in sim.call(lambda: list(device.requests))} == {
        "/api/user/login", "/api/inputs", "/api/statistics/current", "/api/system/device", "/api/system/status"}


def test_an_unlocked_tuner_is_a_regression_naming_it(play, sim):
    device = fresh(sim, "fm-001")
    frequency = sorted(f for f, station in device.band.items() if station["rssi"] >= 30)[0]

    def on_air():  # tuners 0 and 1 on a station, enabled and streaming
        for tuner in device.state["tuners"][:2]:
            tuner.update(frequency=frequency, state=1)
            tuner["stream"]["enabled"] = True
    sim.call(on_air)
    first = ok(play.run([snapshot_task(device)], "fm-001")[0])
    before = first["snapshot"]
    assert [(t["id"], t["tuned"], t["signal_ok"], t["stream_enabled"], t["alarms"]) for t in before["tuners"][:3]] == [
        (0, True, True, True, []), (1, True, True, True, []), (2, False, False, False, [])]
    assert len(before["tuners"]) == 8 and before["device_type"] == "fm_monitor"
    sim.call(device.lose_signal, 1)
    out = play.run([snapshot_task(device, compare_to=before, fail_on_regression=True)], "fm-001")[0]
    assert out["failed"] is True and "tuner 1 (Tuner 2)" in out["msg"], out
    assert [(r["item"], r["what"]) for r in out["regressions"]] == [
        ("tuner 1 (Tuner 2)", "tuned"), ("tuner 1 (Tuner 2)", "signal_ok"), ("tuner 1 (Tuner 2)", "alarms")]
    assert out["regressions"][2]["after"] == ["rfl_low", "snr_low"]
    sim.call(device.restore_signal, 1)
    back = ok(play.run([snapshot_task(device, compare_to=out["snapshot"], fail_on_regression=True)], "fm-001")[0])
    assert back["regressions"] == [] and ("tuner 1 (Tuner 2)", "tuned") in [(c["item"], c["what"]) for c in back["changes"]]
    assert sim.call(device.writes) == []


def test_an_upgrade_that_breaks_an_input_stops_at_the_snapshot_after_it(play, sim, tmp_path):
    """The pattern of the Snapshots guide around device_firmware, on an analyzer whose upgrade
    breaks one input (the simulator's loss armed for the boot into the installed firmware)."""
    device = quiet_analyzer(sim, "ts-002")
    sim.call(device.lose_signal, 2, True)
    bundle = tmp_path / "fw.swu"
    bundle.write_bytes(swu.build("2.4.1"))
    out = play.run([
        snapshot_task(device),
        {"broadcast.monitoring.device_firmware": dict(connection(device), device_type="ts_analyzer",
                                                      path=str(bundle), reboot_timeout=30)},
        snapshot_task(device, compare_to="{{ result_0.snapshot }}", fail_on_regression=True),
    ], "ts-002")
    assert ok(out[0])["snapshot"]["inputs"][1]["receiving"] is True
    assert ok(out[1])["current_version"] == "2.4.1"
    after = out[2]
    assert after["failed"] is True and "input Sport (id 2)" in after["msg"], after
    assert [(r["item"], r["what"]) for r in after["regressions"]][:2] == [
        ("input Sport (id 2)", "receiving"), ("input Sport (id 2)", "bitrate")]
    assert {r["item"] for r in after["regressions"]} == {"input Sport (id 2)"}
    assert {"item": "device", "what": "firmware_version", "before": "1.0.0", "after": "2.4.1"} in after["changes"]


def test_a_loss_that_clears_before_the_confirming_snapshot_is_transient_not_a_regression(play, sim):
    """The first snapshot after the change sees News lost; the signal comes back before the
    confirming snapshot, so nothing fails: the loss is listed in ``transient``. The same loss
    kept fails after confirm_count more snapshots, and confirm_count 0 fails on the first."""
    device = quiet_analyzer(sim, "ts-001")
    before = ok(play.run([snapshot_task(device)], "ts-001")[0])["snapshot"]
    sim.call(device.lose_signal, 1)
    sim.call(device.requests.clear)
    done = threading.Event()

    def restore_after_first_snapshot():  # GET /api/inputs is the last read of a snapshot
        while not done.wait(0.02):
            if any(r["path"] == "/api/inputs" for r in sim.call(lambda: list(device.requests))):
                time.sleep(0.1)
                sim.call(device.restore_signal, 1)
                return
    watcher = threading.Thread(target=restore_after_first_snapshot, daemon=True)
    watcher.start()
    try:
        out = ok(play.run([snapshot_task(device, compare_to=before, fail_on_regression=True, confirm_count=3,
                                         confirm_interval=1.5)], "ts-001")[0])
    finally:
        done.set()
        watcher.join()
    assert out["regressions"] == [], out
    assert ("input News (id 1)", "receiving", True, False) in [
        (r["item"], r["what"], r["before"], r["after"]) for r in out["transient"]], out["transient"]
    assert out["snapshot"]["inputs"][0]["receiving"] is True
    # two snapshots: the first, and one confirming snapshot that no longer showed the loss
    assert [r["path"] for r in sim.call(lambda: list(device.requests))].count("/api/inputs") == 2
    sim.call(device.lose_signal, 1)
    sim.call(device.requests.clear)
    kept, at_once = play.run([snapshot_task(device, compare_to=before, fail_on_regression=True, confirm_count=2),
                              snapshot_task(device, compare_to=before, fail_on_regression=True, confirm_count=0)],
                             "ts-001")
    assert kept["failed"] is True and "input News (id 1)" in kept["msg"] and kept["transient"] == [], kept
    assert at_once["failed"] is True and [(r["item"], r["what"]) for r in at_once["regressions"]] == [
        (r["item"], r["what"]) for r in kept["regressions"]] == [
        ("input News (id 1)", "receiving"), ("input News (id 1)", "bitrate"), ("input News (id 1)", "priority1")]
    assert [r["path"] for r in sim.call(lambda: list(device.requests))].count("/api/inputs") == 3 + 1
    assert sim.call(device.writes) == []


@pytest.mark.parametrize("options, words", [
    ({"compare_to": "before.snapshot"}, "compare_to"),
    ({"compare_to": {"device_type": "fm_monitor", "tuners": []}}, "compare_to: a snapshot of a fm_monitor"),
    ({"compare_to": {"inputs": []}}, "compare_to: not a snapshot"),
    ({"ignore": ["everything"]}, "ignore"),
    ({"fail_on_regression": "perhaps"}, "fail_on_regression"),
    ({"compare_to": {"device_type": "ts_analyzer", "inputs": []}, "confirm_count": -1}, "confirm_count: must be >= 0, got -1"),
    ({"compare_to": {"device_type": "ts_analyzer", "inputs": []}, "confirm_interval": -2}, "confirm_interval: must be >= 0, got -2"),
    ({"confirm_interval": "soon"}, "confirm_interval"),
])
def test_bad_input_names_the_option_before_any_request(play, sim, options, words):
    device = fresh(sim, "ts-002")
    out = play.run([snapshot_task(device, **options)], "ts-002")[0]
    assert out["failed"] is True and words in out["msg"], out
    assert sim.call(lambda: list(device.requests)) == []


def test_examples(play, sim):
    device = quiet_analyzer(sim, "ts-002")
    sim.call(device.requests.clear)
    out = play.run(module_examples("device_snapshot"), "ts-002", extra_vars=EXAMPLE_VARS)
    assert all(result.get("failed") is not True for result in out), out
    assert out[1]["regressions"] == [] and [i["name"] for i in out[0]["snapshot"]["inputs"]] == ["News", "Sport", "Film"]
    assert out[3]["ansible_facts"]["operation"]["regressions"] == []
    assert sim.call(device.writes) == []

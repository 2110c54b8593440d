"""fm_thresholds end to end: ansible-playbook against a simulated FM monitor."""

from .fm_common import tuners
from .tasks import clear_log, ok, refused_before_any_write, run_examples, task, writes

COMMON = {"rssi_interval": 5, "rssi": {"min": 25, "margin": 3}, "snr": {"min": 15}, "rds": {"sync_lost": True}}
TUNER_3 = {"tuner_id": 3, "multipath": {"max": 40}}


def limits(sim, device):
    return [t["thresholds"] for t in tuners(sim, device)]


def test_common_part_goes_to_all_tuners_in_one_request_then_idempotent(play, sim, fm):
    step = task("fm_thresholds", fm, all_tuners=COMMON, config=[TUNER_3])
    out = play.run([step, step], fm.name)
    first, second = ok(out[0]), ok(out[1])
    assert first["changed"] is True and len(first["changes"]) == 8
    assert writes(sim, fm, status=True) == [("POST", "/api/tuners/all/thresholds", 200), ("POST", "/api/tuner/3/thresholds", 200)]
    assert first["requests"] == {"login": 1, "read": 1, "write": 2}
    assert second["changed"] is False, second
    assert second["requests"] == {"login": 1, "read": 1, "write": 0}
    for tid, stored in enumerate(limits(sim, fm)):
        assert stored["rssi_interval"] == 5
        assert stored["thresholds"]["rssi"] == {"min": 25, "max": 127, "margin": 3}
        assert stored["thresholds"]["snr"]["min"] == 15
        assert stored["thresholds"]["rds"]["sync_lost"] is True
        assert stored["thresholds"]["multipath"]["max"] == (40 if tid == 3 else 100)
        assert stored["thresholds"]["tuner_id"] == tid


def test_disabled_bounds_replaced_and_the_user_role(play, sim, fm):
    off = {"tuner_id": 5, "snr": {"min": "disabled"}, "multipath": {"max": "disabled", "min": 10},
           "audio_left": {"min": 10, "max": 100}}
    same = {"tuner_id": 5, "snr": {"min": 0}, "multipath": {"max": 100, "min": "10"}, "audio_left": {"min": "10"}}
    out = play.run([
        task("fm_thresholds", fm, role="user", config=[dict(TUNER_3, tuner_id=5)]),
        task("fm_thresholds", fm, role="user", config=[off]),
        task("fm_thresholds", fm, role="user", config=[same]),
        task("fm_thresholds", fm, role="user", state="gathered"),
        task("fm_thresholds", fm, role="user", state="replaced", config=[{"tuner_id": 5, "rssi_interval": 3}]),
        task("fm_thresholds", fm, role="user", state="replaced", config=[{"tuner_id": 5, "rssi_interval": 3}]),
    ], fm.name)
    assert [ok(r)["changed"] for r in out.results] == [True, True, False, False, True, False]
    five = out[3]["gathered"][5]
    assert five["snr"] == {"min": "disabled", "max": 127, "margin": 2}
    assert five["multipath"] == {"min": 10, "max": "disabled", "margin": 5}
    assert five["audio_left"] == {"min": 10, "max": 100, "margin": 2}
    assert out[3]["gathered"][0]["stereo_blend"]["min"] == "disabled"  # factory 0: no alert
    replaced = out[4]["after"][5]
    assert replaced["rssi_interval"] == 3 and replaced["snr"]["min"] == 10 and replaced["audio_left"]["max"] == 127
    stored = limits(sim, fm)[5]
    assert stored["rssi_interval"] == 3
    assert stored["thresholds"]["multipath"] == {"min": 0, "max": 100, "margin": 5}
    assert stored["thresholds"]["audiol"] == {"min": 0, "max": 127, "margin": 2}
    # between the second and third task the device held the disabling values
    assert [p for unused, p in writes(sim, fm)] == ["/api/tuner/5/thresholds"] * 3


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, fm):
    play.run([task("fm_thresholds", fm, config=[TUNER_3])], fm.name)
    clear_log(sim, fm)
    wanted = dict(all_tuners={"audio_right": {"max": 110}}, config=[{"tuner_id": 3, "multipath": {"max": "disabled"}}])
    checked = ok(play.run([task("fm_thresholds", fm, **wanted)], fm.name, check=True, diff=True)[0])
    assert writes(sim, fm, status=True) == []
    assert checked["changed"] is True
    assert checked["diff"]["before"]["3"]["multipath"]["max"] == 40
    assert checked["diff"]["after"]["3"]["multipath"]["max"] == "disabled"
    out = play.run([task("fm_thresholds", fm, **wanted), task("fm_thresholds", fm, state="gathered")], fm.name, diff=True)
    real = ok(out[0])
    assert real["changes"] == checked["changes"] and real["diff"] == checked["diff"]
    assert ok(out[1])["gathered"] == checked["after"]
    assert "audio_right" in out.output and "+" in out.output
    # every tuner ends with multipath.max disabled too: one request does all
    assert [p for unused, p in writes(sim, fm)] == ["/api/tuners/all/thresholds"]


BAD = [
    (dict(config=[{"tuner_id": 0, "rssi": {"min": 200}}]), "config[0] (tuner 0): rssi.min: must be between 0 and 127, got 200"),
    (dict(config=[{"tuner_id": 0, "multipath": {"max": 101}}]), "multipath.max: must be between 0 and 100, got 101"),
    (dict(config=[{"tuner_id": 0, "multipath": {"min": "disabled"}}]),
     "config[0] (tuner 0): multipath.min: must be a number 0 to 100, got 'disabled'"),
    (dict(all_tuners={"snr": {"max": "off"}}), "all_tuners: snr.max: must be a number 0 to 127 or disabled, got 'off'"),
    (dict(all_tuners={"rssi_interval": 0}), "all_tuners: rssi_interval: must be between 1 and 3600, got 0"),
    (dict(all_tuners={"rds": {"margin": 200}}), "all_tuners: rds.margin: must be between 0 and 127, got 200"),
    (dict(config=[{"tuner_id": 0, "rssi": {"min": 100, "max": 50}}]),
     "config[0] (tuner 0): rssi.min: must not exceed rssi.max (50), got 100"),
    (dict(all_tuners={"snr": {"max": 40}}, config=[{"tuner_id": 2, "snr": {"min": 50}}]),
     "config[0] (tuner 2): snr.min: must not exceed snr.max (40), got 50"),
    (dict(config=[{"tuner_id": 8, "rssi": {"min": 10}}]), "config[0]: tuner_id 8: the device has no such object"),
    (dict(config=[{"tuner_id": 1, "stereo_blend": {"margin": "wide"}}]), "margin"),
]


def test_bad_input_fails_before_any_write(play, sim, fm):
    refused_before_any_write(play, sim, fm, [(task("fm_thresholds", fm, name="bad %d" % i, **options), message)
                                             for i, (options, message) in enumerate(BAD)])


def test_documented_examples_run_as_written(play, sim, fm):
    out = run_examples(play, "fm_thresholds", fm)
    assert [r["changed"] for r in out.results] == [True, True, False]
    assert out[2]["gathered"][5]["snr"]["min"] == "disabled"
    assert out[2]["gathered"][3]["multipath"]["max"] == 40

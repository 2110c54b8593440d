"""fm_schedule end to end: ansible-playbook against a simulated FM monitor."""

from .device_api import Api
from .fm_common import tuners
from .tasks import clear_log, ok, refused_before_any_write, run_examples, task, writes

DAY = [{"time": "06:00", "state": "enabled"}, {"time": "22:00", "state": "sleep"}]
# the same events: other order, a minute number, an hour without its leading zero, a repeat
SAME_DAY = [{"time": 1320, "state": "sleep"}, {"time": "6:00", "state": "enabled"}, {"time": "360", "state": "enabled"}]
STORED_DAY = [{"minute": 360, "state": 1}, {"minute": 1320, "state": 2}]


def schedules(sim, device):
    return [t["schedule"] for t in tuners(sim, device)]


def set_clock(device, utc):
    """The device's clock (NTP off, timezone +1), which then runs on in real time."""
    Api(device).post("/conf/datetime", {"enable_ntp": False, "datetime": utc, "timezone": 1})


def test_all_tuners_in_one_request_and_events_compared_as_sets(play, sim, fm):
    set_clock(fm, "2026-11-23T09:00:00Z")  # Monday 10:00 on the device: the 06:00 event applies
    clear_log(sim, fm)
    out = play.run([
        task("fm_schedule", fm, all_tuners={"active": True, "events": {"monday": DAY, "friday": DAY}}),
        task("fm_schedule", fm, all_tuners={"active": True, "events": {"monday": SAME_DAY, "friday": SAME_DAY}}),
    ], fm.name)
    first, second = ok(out[0]), ok(out[1])
    assert first["changed"] is True and len(first["changes"]) == 8
    # one schedule write for all; the activated schedules put the (factory disabled) tuners in
    # the state their 06:00 event gives (one read of the device's time, a state write each)
    assert first["requests"] == {"login": 1, "read": 2, "write": 9}
    assert writes(sim, fm, status=True) == [("POST", "/api/tuners/all/schedule", 200)] + [
        ("POST", "/api/tuner/%d/state" % tid, 200) for tid in range(8)]
    assert [s["after"] for s in first["scheduled_states"]] == ["enabled"] * 8
    assert all(t["state"] == 1 for t in tuners(sim, fm))
    assert second["changed"] is False, second
    assert first["after"][4]["events"]["monday"] == DAY
    for stored in schedules(sim, fm):
        assert stored["active"] is True
        assert stored["events"]["monday"] == STORED_DAY and stored["events"]["friday"] == STORED_DAY
        assert stored["events"]["tuesday"] == []


def test_merged_replaces_listed_days_and_replaced_the_whole_schedule(play, sim, fm):
    start = {"tuner_id": 2, "active": True,
             "events": {"monday": [{"time": "08:00", "state": "enabled"}],
                        "saturday": [{"time": 480, "state": "enabled"}, {"time": 720, "state": "disabled"}]}}
    set_clock(fm, "2026-11-25T09:00:00Z")  # Wednesday 10:00 on the device
    clear_log(sim, fm)
    out = play.run([
        task("fm_schedule", fm, config=[start]),
        task("fm_schedule", fm, config=[{"tuner_id": 2, "events": {"saturday": [{"time": "10:00", "state": "sleep"}]}}]),
        task("fm_schedule", fm, config=[{"tuner_id": 2, "events": {"monday": []}}]),
        task("fm_schedule", fm, state="replaced", config=[{"tuner_id": 2, "events": {"sunday": [{"time": "07:00",
                                                                                                 "state": "enabled"}]}}]),
        task("fm_schedule", fm, state="replaced", config=[{"tuner_id": 2, "events": {"sunday": [{"time": 420,
                                                                                                 "state": "enabled"}]}}]),
    ], fm.name)
    assert [ok(r)["changed"] for r in out.results] == [True, True, True, True, False]
    merged = out[1]["after"][2]
    assert merged["active"] is True  # kept
    assert merged["events"]["monday"] == [{"time": "08:00", "state": "enabled"}]  # not listed: kept
    assert merged["events"]["saturday"] == [{"time": "10:00", "state": "sleep"}]  # listed: replaced
    assert out[2]["after"][2]["events"]["monday"] == []
    replaced = out[3]["after"][2]
    assert replaced["active"] is False
    assert {day: events for day, events in replaced["events"].items() if events} == {
        "sunday": [{"time": "07:00", "state": "enabled"}]}
    stored = schedules(sim, fm)[2]
    assert stored == {"active": False, "events": dict({d: [] for d in stored["events"]},
                                                      sunday=[{"minute": 420, "state": 1}])}
    # only the days that differ are sent; an active schedule written puts its tuner in the state of
    # its latest event before Wednesday 10:00: Monday 08:00 (enabled), then, with Monday cleared,
    # Saturday 10:00 (sleep); an inactive one leaves the state alone
    assert [p for unused, p in writes(sim, fm)] == [
        "/api/tuner/2/schedule", "/api/tuner/2/state", "/api/tuner/2/schedule", "/api/tuner/2/schedule",
        "/api/tuner/2/state", "/api/tuner/2/schedule"]
    followed = [[(s["tuner_id"], s["before"], s["after"], s["datetime"][:len("2026-11-25T10")])
                 for s in r.get("scheduled_states", [])] for r in out.results]
    assert followed == [[(2, "disabled", "enabled", "2026-11-25T10")], [], [(2, "enabled", "sleep", "2026-11-25T10")],
                        [], []], followed
    assert tuners(sim, fm)[2]["state"] == 2


def test_the_user_role_activates_a_schedule_and_warns_that_the_state_follows_at_the_next_event(play, sim, fm):
    """Setting a tuner's state needs the admin role (spec: admin has "state"): with the user
    role the schedule is written and the module says the tuner keeps its state until the next
    event, instead of failing."""
    set_clock(fm, "2026-11-23T09:00:00Z")  # Monday 10:00 on the device
    clear_log(sim, fm)
    out = play.run([task("fm_schedule", fm, role="user", config=[{"tuner_id": 3, "active": True,
                                                                  "events": {"monday": DAY}}])], fm.name)
    result = ok(out[0])
    assert result["changed"] is True and "scheduled_states" not in result
    assert [p for unused, p in writes(sim, fm)] == ["/api/tuner/3/schedule"]
    said = " ".join(out.output.split())  # a long warning may be wrapped
    assert ("tuner 3: its schedule gives enabled at the device's time (monday 10:0" in said
            and "role user cannot set a tuner's operating state (admin can), so it stays disabled until the next"
            " event" in said), out.output
    assert tuners(sim, fm)[3]["state"] == 0


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, fm):
    play.run([task("fm_schedule", fm, config=[{"tuner_id": 0, "active": True, "events": {"monday": DAY}}])], fm.name)
    clear_log(sim, fm)
    wanted = dict(config=[{"tuner_id": 0, "events": {"monday": DAY[:1]}}, {"tuner_id": 6, "active": True}])
    checked = ok(play.run([task("fm_schedule", fm, **wanted)], fm.name, check=True, diff=True)[0])
    assert writes(sim, fm, status=True) == []
    assert checked["changed"] is True
    assert checked["diff"]["before"]["0"]["events"]["monday"] == DAY
    assert checked["diff"]["after"]["0"]["events"]["monday"] == DAY[:1]
    out = play.run([task("fm_schedule", fm, **wanted), task("fm_schedule", fm, state="gathered")], fm.name, diff=True)
    real = ok(out[0])
    assert real["changes"] == checked["changes"]
    assert [(c["action"], c["key"]) for c in real["changes"]] == [("update", 0), ("update", 6)]
    assert real["changes"][1]["differences"] == [{"path": "active", "current": False, "declared": True}]
    assert real["diff"] == checked["diff"]
    assert ok(out[1])["gathered"] == checked["after"]
    assert "22:00" in out.output  # the diff shows the removed event


BAD = [
    (dict(config=[{"tuner_id": 0, "events": {"monday": [{"time": "25:00", "state": "enabled"}]}}]),
     "config[0] (tuner 0): events.monday[0].time: must be HH:MM (00:00 to 23:59) or a minute 0 to 1439, got '25:00'"),
    (dict(all_tuners={"events": {"tuesday": [{"time": 1440, "state": "sleep"}]}}),
     "all_tuners: events.tuesday[0].time: must be HH:MM (00:00 to 23:59) or a minute 0 to 1439, got 1440"),
    (dict(config=[{"tuner_id": 1, "events": {"friday": [{"time": "noon", "state": "sleep"}]}}]),
     "events.friday[0].time: must be HH:MM"),
    (dict(config=[{"tuner_id": 1, "events": {"friday": [{"time": "08:00", "state": "sleep"},
                                                        {"time": 480, "state": "enabled"}]}}]),
     "config[0] (tuner 1): events.friday[1].time: 08:00 is given twice with different states"),
    (dict(config=[{"tuner_id": 1, "events": {"sunday": [{"time": m, "state": "sleep"} for m in range(101)]}}]),
     "config[0] (tuner 1): events.sunday: holds at most 100 events, got 101"),
    (dict(config=[{"tuner_id": 1, "events": {"Monday": []}}]), "Monday"),
    (dict(config=[{"tuner_id": 1, "events": {"monday": [{"time": "08:00", "state": "on"}]}}]),
     "state must be one of: disabled, enabled, sleep"),
    (dict(config=[{"tuner_id": 12, "active": True}]), "config[0]: tuner_id 12: the device has no such object"),
]


def test_bad_input_fails_before_any_write(play, sim, fm):
    refused_before_any_write(play, sim, fm, [(task("fm_schedule", fm, name="bad %d" % i, **options), message)
                                             for i, (options, message) in enumerate(BAD)])


def test_documented_examples_run_as_written(play, sim, fm):
    out = run_examples(play, "fm_schedule", fm)
    assert [r["changed"] for r in out.results] == [True, True, True]
    stored = schedules(sim, fm)
    assert stored[0]["active"] is True and stored[0]["events"]["wednesday"] == STORED_DAY
    assert stored[2]["events"]["saturday"] == [{"minute": 480, "state": 1}, {"minute": 720, "state": 0}]
    assert stored[7] == {"active": False, "events": {d: [] for d in stored[7]["events"]}}

"""fm_tuner end to end: ansible-playbook against a simulated FM monitor."""

from .conftest import connection
from .fm_common import seed_stations, tuners
from .tasks import clear_log, ok, refused_before_any_write, run_examples, task, writes

RADIO_ONE = {"tuner_id": 0, "name": "Radio One", "frequency": 94800, "operating_state": "enabled", "muted": True,
             "stream": {"enabled": True, "url": "udp://239.10.0.1:5004", "codec": "aac", "bitrate": 192}}
COMMON_HW = {"hw_settings": {"agc": False, "deemphasis": 75, "channel_filter": 3}}


def test_all_tuners_hw_goes_in_one_request_then_idempotent(play, sim, fm):
    config = [RADIO_ONE, {"tuner_id": 5, "hw_settings": {"lna_gain": 7}}]
    step = task("fm_tuner", fm, all_tuners=COMMON_HW, config=config)
    out = play.run([step, step], fm.name)
    first, second = ok(out[0]), ok(out[1])
    assert first["changed"] is True
    assert [c["key"] for c in first["changes"]] == list(range(8))
    # tuners, valid bitrates (a bitrate is given), stations (a frequency changes)
    assert first["requests"] == {"login": 1, "read": 3, "write": 6}
    assert writes(sim, fm, status=True) == [
        ("POST", "/api/tuners/all/settings", 200),
        ("POST", "/api/tuner/0/state", 200), ("POST", "/api/tuner/0/muted", 200),
        ("POST", "/api/tuner/0/stream", 200), ("POST", "/api/tuner/0/settings", 200),
        ("POST", "/api/tuner/5/settings", 200),
    ]
    assert second["changed"] is False, second
    assert second["requests"] == {"login": 1, "read": 1, "write": 0}  # the tuners; bitrates unchanged need no lookup
    stored = tuners(sim, fm)
    assert all(t["hw_settings"]["agc_state"] == 0 and t["hw_settings"]["deemphasis"] == 1
               and t["hw_settings"]["channel_filter"] == 3 for t in stored)
    assert [t["hw_settings"]["lna_gain"] for t in stored] == [0, 0, 0, 0, 0, 7, 0, 0]
    zero = stored[0]
    assert (zero["name"], zero["frequency"], zero["state"], zero["muted"]) == ("Radio One", 94800, 1, True)
    assert zero["stream"] == {"enabled": True, "url": "udp://239.10.0.1:5004", "codec": "aac", "bitrate": 192}
    assert stored[1]["name"] == "Tuner 2" and stored[1]["state"] == 0


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, fm):
    play.run([task("fm_tuner", fm, config=[RADIO_ONE])], fm.name)
    clear_log(sim, fm)
    wanted = dict(all_tuners={"muted": True},
                  config=[{"tuner_id": 2, "frequency": 99000, "name": "Two", "stream": {"enabled": True}},
                          {"tuner_id": 0, "operating_state": "sleep"}])
    checked = ok(play.run([task("fm_tuner", fm, **wanted)], fm.name, check=True, diff=True)[0])
    assert writes(sim, fm, status=True) == []
    assert checked["changed"] is True
    assert checked["diff"]["before"]["2"]["frequency"] == 87500
    assert checked["diff"]["after"]["2"]["frequency"] == 99000
    assert checked["diff"]["after"]["0"]["operating_state"] == "sleep"
    out = play.run([task("fm_tuner", fm, **wanted), task("fm_tuner", fm, state="gathered")], fm.name, diff=True)
    real, gathered = ok(out[0]), ok(out[1])["gathered"]
    assert real["changes"] == checked["changes"]
    assert real["diff"] == checked["diff"]
    assert gathered == checked["after"]
    assert "+" in out.output and '"Two"' in out.output  # the diff is shown
    assert [t["muted"] for t in tuners(sim, fm)] == [True] * 8


def test_replaced_gives_unset_options_their_factory_values(play, sim, fm):
    custom = {"tuner_id": 1, "name": "Custom", "frequency": 100000, "muted": True, "hw_settings": {"lna_gain": 5},
              "stream": {"codec": "aac", "bitrate": 64, "url": "udp://10.1.1.1:9000"}}
    out = play.run([
        task("fm_tuner", fm, config=[custom, RADIO_ONE]),
        task("fm_tuner", fm, state="replaced", config=[{"tuner_id": 1, "name": "Kept"}]),
        task("fm_tuner", fm, state="replaced", config=[{"tuner_id": 1, "name": "Kept"}]),
    ], fm.name)
    assert [ok(r)["changed"] for r in out.results] == [True, True, False]
    one, zero = tuners(sim, fm)[1], tuners(sim, fm)[0]
    assert (one["name"], one["frequency"], one["muted"], one["state"]) == ("Kept", 87500, False, 0)
    assert one["hw_settings"] == {"agc_state": 1, "channel_filter": 0, "deemphasis": 2, "lna_gain": 0, "rssi_threshold": 20}
    assert one["stream"] == {"enabled": False, "url": "udp://239.1.1.2:1234", "codec": "mp3", "bitrate": 128}
    assert zero["name"] == "Radio One" and zero["state"] == 1  # not listed: left alone


def test_station_tuning_is_idempotent_and_frequency_follows(play, sim, fm):
    records = seed_stations(sim, fm)
    quiet = next(f for f in range(87600, 108000, 100) if f not in fm.band)
    out = play.run([
        task("fm_tuner", fm, config=[{"tuner_id": 1, "station_id": 2, "operating_state": "enabled"}]),
        task("fm_tuner", fm, config=[{"tuner_id": 1, "station_id": 2, "operating_state": "enabled"}]),
        task("fm_tuner", fm, config=[{"tuner_id": 1, "frequency": records[3]["frequency"]}]),
        task("fm_tuner", fm, config=[{"tuner_id": 1, "frequency": quiet}]),
        task("fm_tuner", fm, config=[{"tuner_id": 1, "station_id": 9}]),
        task("fm_tuner", fm, config=[{"tuner_id": 1, "station_id": 2, "frequency": quiet}]),
    ], fm.name)
    tuned, again, by_frequency, off_station, missing, clash = out.results
    assert ok(tuned)["changed"] is True
    after = tuned["after"][1]
    assert (after["station_id"], after["frequency"]) == (2, records[2]["frequency"])
    assert ok(again)["changed"] is False
    assert ok(by_frequency)["after"][1]["station_id"] == 3
    assert ok(off_station)["after"][1]["station_id"] is None
    assert missing["failed"] is True
    assert "config[0] (tuner 1): station_id: the device has no station 9 (it has 0, 1, 2, 3" in missing["msg"]
    assert clash["failed"] is True
    assert "config[0] (tuner 1): frequency: %d differs from the frequency of station 2" % quiet in clash["msg"]
    assert writes(sim, fm) == [
        ("POST", "/api/tuner/1/state"), ("POST", "/api/tuner/1/station"),
        ("POST", "/api/tuner/1/settings"), ("POST", "/api/tuner/1/settings")]
    assert tuners(sim, fm)[1]["frequency"] == quiet


BAD = [
    (dict(config=[{"tuner_id": 0, "frequency": 120000}]),
     "config[0] (tuner 0): frequency: must be in the FM band, 87500 to 108000 kHz, got 120000"),
    (dict(config=[{"tuner_id": 3, "frequency": 87499}]),
     "config[0] (tuner 3): frequency: must be in the FM band, 87500 to 108000 kHz, got 87499"),
    (dict(all_tuners={"hw_settings": {"channel_filter": 5}}),
     "all_tuners: hw_settings.channel_filter: must be between 0 and 4, got 5"),
    (dict(config=[{"tuner_id": 0, "hw_settings": {"lna_gain": 16, "rssi_threshold": 128}}]),
     "hw_settings.lna_gain: must be between 0 and 15, got 16; config[0] (tuner 0): hw_settings.rssi_threshold"),
    (dict(config=[{"tuner_id": 1, "hw_settings": {"deemphasis": 60}}]), "deemphasis must be one of: 50, 75"),
    (dict(config=[{"tuner_id": 0, "stream": {"url": "http://239.1.1.1:5000"}}]),
     "config[0] (tuner 0): stream.url: must be udp://IPv4-address:port"),
    (dict(config=[{"tuner_id": 0, "stream": {"url": "udp://0.0.0.0:5000"}}]), "stream.url: must be udp://"),
    (dict(config=[{"tuner_id": 0, "stream": {"bitrate": 100}}]),
     "config[0] (tuner 0): stream.bitrate: must be one of the device's valid bitrates 64, 96, 128, 192, 256, 320, got 100"),
    (dict(config=[{"tuner_id": 0, "name": "x" * 33}]), "config[0] (tuner 0): name: must be 1 to 32 characters, got 33"),
    (dict(config=[{"tuner_id": 9, "name": "x"}]), "config[0]: tuner_id 9: the device has no such object"),
    (dict(all_tuners={"muted": True}, config=[{"tuner_id": 9}]), "config[0]: tuner_id 9: the device has no such tuner"),
    (dict(config=[{"tuner_id": 0}, {"tuner_id": 0}]), "config[1]: tuner_id 0 is listed more than once"),
    (dict(config=[{"tuner_id": 0, "operating_state": "on"}]), "operating_state must be one of: disabled, enabled, sleep"),
    (dict(state="deleted"), "state must be one of: merged, replaced, gathered"),
]


def test_bad_input_fails_before_any_write(play, sim, fm):
    refused_before_any_write(play, sim, fm, [(task("fm_tuner", fm, name="bad %d" % i, **options), message)
                                             for i, (options, message) in enumerate(BAD)])


def test_user_role_sets_what_it_may_and_is_told_what_needs_admin(play, sim, fm):
    seed_stations(sim, fm)
    out = play.run([
        task("fm_tuner", fm, role="user", config=[{"tuner_id": 2, "name": "User set", "hw_settings": {"agc": False},
                                                   "muted": True, "stream": {"enabled": True, "bitrate": 96}}]),
        task("fm_tuner", fm, role="user", config=[{"tuner_id": 2, "operating_state": "enabled", "name": "Other"}]),
        task("fm_tuner", fm, role="user", config=[{"tuner_id": 3, "station_id": 1}]),
        task("fm_tuner", fm, role="user", config=[{"tuner_id": 2, "operating_state": "disabled"}]),
        task("fm_tuner", fm, role="user", state="gathered"),
    ], fm.name)
    assert ok(out[0])["changed"] is True
    for result, option in ((out[1], "config[0] (tuner 2): operating_state"), (out[2], "config[0] (tuner 3): station_id")):
        assert result["failed"] is True
        assert option in result["msg"]
        assert "needs the admin role; set role=admin" in result["msg"]
        assert "nothing was written" in result["msg"]
    assert ok(out[3])["changed"] is False  # the state it already has: no admin needed
    assert ok(out[4])["gathered"][2]["name"] == "User set"
    assert [p for unused, p in writes(sim, fm)] == ["/api/tuner/2/muted", "/api/tuner/2/stream", "/api/tuner/2/settings"]
    assert tuners(sim, fm)[2]["name"] == "User set"


def test_connection_options_set_once_for_the_fm_group(play, sim, fm):
    defaults = {"group/broadcast.monitoring.fm": connection(fm)}
    out = play.run([{"name": "no options", "broadcast.monitoring.fm_tuner": {"config": [{"tuner_id": 4, "name": "G"}]}}],
                   fm.name, module_defaults=defaults)
    assert ok(out[0])["changed"] is True
    assert tuners(sim, fm)[4]["name"] == "G"


def test_documented_examples_run_as_written(play, sim, fm):
    out = run_examples(play, "fm_tuner", fm)
    assert [r["changed"] for r in out.results] == [True, True, False, True]
    assert [t["name"] for t in out[2]["gathered"][:2]] == ["Radio One", "Radio Two (backup)"]
    stored = tuners(sim, fm)
    assert stored[1]["name"] == "Tuner 2" and stored[1]["state"] == 0
    assert stored[0]["stream"]["bitrate"] == 192


def test_a_tuner_whose_schedule_is_active_takes_no_operating_state(play, sim, fm):
    """Issue 21 item 2: an active schedule sets its tuner's operating state (spec: "a schedule
    event is reached | schedule active is true ... | state of the event"), so fm_tuner refuses
    operating_state for that tuner before any write, and state=replaced leaves its state alone."""
    schedule = {"tuner_id": 2, "active": True, "events": {"monday": [{"time": "06:00", "state": "enabled"}]}}
    ok(play.run([task("fm_tuner", fm, config=[{"tuner_id": 2, "operating_state": "sleep"}]),
                 task("fm_schedule", fm, config=[schedule])], fm.name)[1])
    clear_log(sim, fm)
    out = play.run([task("fm_tuner", fm, config=[{"tuner_id": 2, "operating_state": "enabled"}]),
                    task("fm_tuner", fm, all_tuners={"operating_state": "enabled"}),
                    task("fm_tuner", fm, state="replaced", config=[{"tuner_id": 2, "name": "Night"}]),
                    task("fm_tuner", fm, state="replaced", config=[{"tuner_id": 2, "name": "Night"}])], fm.name)
    for refused, where in ((out[0], "config[0] (tuner 2)"), (out[1], "all_tuners (tuner 2)")):
        assert refused["failed"] is True, refused
        assert ("%s: operating_state: tuner 2 has an active schedule, which sets its operating state; leave"
                " operating_state out for this tuner, or deactivate its schedule first" % where) in refused["msg"]
    replaced = ok(out[2])
    assert replaced["changed"] is True and ok(out[3])["changed"] is False
    assert [p for unused, p in writes(sim, fm)] == ["/api/tuner/2/settings"]
    # the schedule's only event (Monday 06:00, enabled) is its latest before any time of the week:
    # activating it put the tuner in that state, which state=replaced leaves alone
    assert tuners(sim, fm)[2]["state"] == 1 and tuners(sim, fm)[2]["name"] == "Night"

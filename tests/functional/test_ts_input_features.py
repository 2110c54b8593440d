"""ts_input's SCTE-35 and thumbnails options end to end."""

import pytest

from .analyzer import Api, checked, clear_log, task, writes

MUX = {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}


@pytest.fixture
def ts(sim):
    device = sim.fleet.by_name("ts-001")
    sim.call(device.reset)
    return device


def inputs(device, state, config):
    return task("ts_input", device, state=state, config=config)


def features(device):
    return {i["name"]: (i["scte35"], i["thumbnails"]) for i in Api(device).get("/inputs")}


def test_enable_move_disable_idempotent_and_gathered(play, sim, ts):
    on = dict(MUX, scte35=True, thumbnails={"pid": 256})
    out = play.run([
        inputs(ts, "merged", [on]),
        inputs(ts, "merged", [on]),
        inputs(ts, "merged", [{"name": "Mux 1", "thumbnails": {"pid": 257}}]),
        inputs(ts, "gathered", []),
        inputs(ts, "merged", [{"name": "Mux 1", "scte35": False, "thumbnails": {"enabled": False}}]),
        inputs(ts, "merged", [{"name": "Mux 1", "scte35": False, "thumbnails": {"enabled": False}}]),
    ], ts.name)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True, False, True, False, True, False]
    assert out[0]["requests"] == {"login": 1, "read": 2, "write": 3}  # add, SCTE-35 on, thumbnails on
    assert out[1]["requests"] == {"login": 1, "read": 2, "write": 0}  # the read cost stays two requests
    assert out[4]["requests"] == {"login": 1, "read": 2, "write": 2}
    assert out[3]["gathered"] == [dict(MUX, alert_profile="Default", monitoring="started", scte35=True,
                                       thumbnails={"enabled": True, "pid": 257})]
    assert out[5]["after"] == [dict(MUX, alert_profile="Default", monitoring="started")]  # off: left out
    assert features(ts) == {"Mux 1": ({"enabled": False}, {"enabled": False, "pid": None})}


def test_replaced_turns_features_off_and_writes_only_their_endpoints(play, sim, ts):
    play.run([inputs(ts, "merged", [dict(MUX, scte35=True, thumbnails={"pid": 256})])], ts.name)
    clear_log(sim, ts)
    out = play.run([inputs(ts, "replaced", [MUX])], ts.name)
    assert out[0]["changed"] is True
    assert sorted(writes(sim, ts)) == [("GET", "/api/inputs/1/thumbnails/disable"),
                                       ("POST", "/api/inputs/1/scte/toggle")]
    assert features(ts) == {"Mux 1": ({"enabled": False}, {"enabled": False, "pid": None})}


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, ts):
    play.run([inputs(ts, "merged", [dict(MUX, thumbnails={"pid": 256})])], ts.name)
    clear_log(sim, ts)
    wanted = inputs(ts, "merged", [{"name": "Mux 1", "scte35": True, "thumbnails": {"pid": 300}}])
    predicted = play.run([checked(wanted)], ts.name, check=True, diff=True)[0]
    assert writes(sim, ts) == []
    assert "scte35" not in predicted["diff"]["before"]["Mux 1"]
    assert predicted["diff"]["before"]["Mux 1"]["thumbnails"] == {"enabled": True, "pid": 256}
    assert predicted["diff"]["after"]["Mux 1"]["scte35"] is True
    assert predicted["diff"]["after"]["Mux 1"]["thumbnails"] == {"enabled": True, "pid": 300}
    real = play.run([wanted], ts.name, diff=True)[0]
    assert real["diff"] == predicted["diff"] and real["changes"] == predicted["changes"]
    assert sorted(writes(sim, ts)) == [("POST", "/api/inputs/1/scte/toggle"),
                                       ("POST", "/api/inputs/1/thumbnails/enable")]
    assert features(ts) == {"Mux 1": ({"enabled": True}, {"enabled": True, "pid": 300})}


def test_bad_input_fails_before_any_write(play, sim, ts):
    bad = [
        ([dict(MUX, thumbnails={"enabled": False, "pid": 256})],
         "config[0] (Mux 1): thumbnails.pid: only with enabled=true"),
        ([dict(MUX, thumbnails={"pid": 9000})], "config[0] (Mux 1): thumbnails.pid: must be between 0 and 8191"),
        ([dict(MUX, thumbnails={"enabled": True})], "enabled is True but all of the following are missing: pid"),
        ([dict(MUX, scte35="sometimes")], "scte35"),
    ]
    out = play.run([inputs(ts, "merged", config) for config, message in bad], ts.name)
    for (config, message), result in zip(bad, out.results):
        assert result.get("failed") is True, (message, result)
        assert message in result["msg"], (message, result["msg"])
    assert writes(sim, ts) == []

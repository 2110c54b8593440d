"""ts_input's SCTE-35 and thumbnails options end to end."""

import pytest

from .device_api import Api
from .tasks import checked, clear_log, refused_before_any_write, task, writes

MUX = {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}
MUX_CONFIG = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}


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
    refused_before_any_write(play, sim, ts, [(inputs(ts, "merged", config), message) for config, message in bad])


@pytest.fixture(params=["refuse", "keep"])
def variant_ts(request, sim, ts):
    """The analyzer under each unknown-field variant the simulator offers (README, "Unknown fields")."""
    sim.call(lambda: setattr(ts, "unknown_fields", request.param))
    yield ts
    sim.call(lambda: setattr(ts, "unknown_fields", "refuse"))


def pid_lists(device):
    return {i["name"]: i["alerts_config"]["pid_error_list"] for i in Api(device).get("/inputs")}


def test_pid_error_list_set_idempotent_gathered_and_cleared(play, sim, variant_ts):
    ts = variant_ts
    listed = dict(MUX, pid_error_list=[256, 257])
    out = play.run([
        inputs(ts, "merged", [listed]),
        inputs(ts, "merged", [listed]),
        inputs(ts, "gathered", []),
        inputs(ts, "merged", [{"name": "Mux 1", "monitoring": "stopped"}]),  # leaves the list alone
        inputs(ts, "merged", [{"name": "Mux 1", "pid_error_list": [300]}]),
        inputs(ts, "replaced", [MUX]),  # replaced: an empty list
        inputs(ts, "replaced", [MUX]),
    ], ts.name)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True, False, False, True, True, True, False]
    assert out[2]["gathered"][0]["pid_error_list"] == [256, 257]
    assert out[3]["requests"]["write"] == 1  # stop only: the list is not rewritten
    assert "pid_error_list" not in out[6]["after"][0]
    assert pid_lists(ts) == {"Mux 1": []}


def test_pid_error_list_set_on_the_device_survives_other_changes(play, sim, variant_ts):
    # the trial: a list set through the analyzer's own API is kept when ts_input changes the input
    ts = variant_ts
    api = Api(ts)
    raw = api.add_input("Mux 1")
    api.post("/inputs/%d" % raw["id"], {"input_id": raw["id"], "name": "Mux 1", "config": raw["config"],
                                        "alerts_config": {"profile_id": 1, "pid_error_list": [256, 257]}})
    out = play.run([inputs(ts, "merged", [{"name": "Mux 1", "source": {"asi": {"port": 1}}}])], ts.name)
    assert out[0]["changed"] is True and out[0]["after"][0]["pid_error_list"] == [256, 257]
    assert pid_lists(ts) == {"Mux 1": [256, 257]}


def test_update_keeps_fields_the_module_does_not_know(play, sim, ts):
    # a device that keeps unknown fields: an update replaces the input whole, so ts_input sends them back
    sim.call(lambda: setattr(ts, "unknown_fields", "keep"))
    try:
        api = Api(ts)
        body = {"name": "Mux 1", "note": "rack 4", "config": MUX_CONFIG,
                "alerts_config": {"profile_id": 1, "pid_error_list": [], "colour": "red"}}
        api.post("/inputs", body)
        out = play.run([inputs(ts, "merged", [{"name": "Mux 1", "source": {"asi": {"port": 2}}}])], ts.name)
        assert out[0]["changed"] is True
        (raw,) = api.get("/inputs")
        assert raw["note"] == "rack 4" and raw["alerts_config"]["colour"] == "red"
        assert raw["config"] == {"asi": {"port": 2}}
    finally:
        sim.call(lambda: setattr(ts, "unknown_fields", "refuse"))

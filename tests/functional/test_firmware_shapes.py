"""Issue 19, over real HTTP: a firmware that reports fields the documents do not name. An
RF input with an extra field settles (changed=0 on the second run) and an update sends the
field back as read (the update replaces the input whole); a remote syslog object with an
extra field is written with the known fields only, so a strict device (the simulator's
``refuse`` policy) accepts it. The simulator's own answers are changed the way such a
firmware would answer (its stored objects gain the field)."""

import pytest

from bm_simulator.fleet import running_fleet

from .conftest import connection

RF = {"mode": 1, "frequency": 474000000, "bandwidth": 8, "plp_id": 0}


@pytest.fixture(scope="module", params=["keep", "refuse"])
def sim(request):
    with running_fleet(ts=1, fm=0, time_scale=0.02, unknown_fields=request.param) as runner:
        runner.policy = request.param
        yield runner


def test_an_unknown_rf_field_settles_and_goes_back_in_an_update(play, sim):
    if sim.policy != "keep":
        pytest.skip("a device refusing unknown fields in writes cannot hold one written back")
    ts = sim.fleet.devices[0]
    conn = connection(ts)
    declared = {"name": "RF 1", "source": {"rf": RF}, "monitoring": "started"}
    assert play.run([dict({"broadcast.monitoring.ts_input": dict(conn, config=[declared])})], ts.name)[0]["changed"]

    def rf():
        return sim.call(lambda: [dict(i["config"]["rf"]) for i in ts.state["inputs"].values()
                                 if i["name"] == "RF 1"][0])
    sim.call(lambda: [i["config"]["rf"].update(guard_interval=4) for i in ts.state["inputs"].values()
                      if i["name"] == "RF 1"])
    sim.call(ts.requests.clear)
    again = play.run([{"broadcast.monitoring.ts_input": dict(conn, config=[declared])}], ts.name)[0]
    assert again.get("failed") is not True and again["changed"] is False, again
    assert sim.call(ts.writes) == []
    retuned = dict(declared, source={"rf": dict(RF, frequency=482000000)})
    out = play.run([{"broadcast.monitoring.ts_input": dict(conn, config=[retuned])}], ts.name)[0]
    assert out["changed"] is True, out
    assert rf() == dict(RF, frequency=482000000, guard_interval=4)


def test_remote_syslog_writes_known_fields_only(play, sim):
    ts = sim.fleet.devices[0]
    conn = connection(ts)
    sim.call(lambda: ts.state["log_settings"]["remote_syslog"].update(facility="local3"))
    logging = {"level": "debug", "remote_syslog": {"enabled": True, "server": "192.0.2.10", "port": 514}}
    sim.call(ts.requests.clear)
    out = play.run([{"broadcast.monitoring.device_logging": dict(conn, device_type="ts_analyzer", **logging)},
                    {"broadcast.monitoring.device_logging": dict(conn, device_type="ts_analyzer", **logging)}],
                   ts.name)
    assert out[0].get("failed") is not True and out[0]["changed"] is True, out[0]
    assert out[1].get("failed") is not True and out[1]["changed"] is False, out[1]
    sent = [r for r in sim.call(ts.writes) if r["path"].endswith("/system/log/settings")]
    # one write, accepted: a strict device refuses a body that echoes "facility" (HTTP 400)
    assert len(sent) == 1 and sent[0]["status"] < 400, sent

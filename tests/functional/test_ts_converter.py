"""ts_converter end to end: ansible-playbook against a simulated analyzer."""

from .device_api import Api
from .tasks import checked, clear_log, refused_before_any_write, run_examples, task, writes

SEND = {"asi_port": 1, "running": True, "multicast_address": "239.10.0.1", "multicast_port": 5000,
        "interface": "eth1", "ttl": 16}


def converter(device, state="merged", config=None, **args):
    return task("ts_converter", device, state=state, config=config or [], **args)


def ports(device):
    return {c["port"]: c for c in Api(device).get("/converter")}


def test_start_change_stop_idempotent_and_gathered(play, sim, ts):
    out = play.run([
        converter(ts, "replaced", [SEND, {"asi_port": 2, "running": False}]),
        converter(ts, "replaced", [SEND, {"asi_port": 2, "running": False}]),
        converter(ts, config=[{"asi_port": 1, "ttl": 32}]),
        converter(ts, config=[{"asi_port": 1, "ttl": 32}]),
        converter(ts, config=[{"asi_port": 1, "running": False}]),
        converter(ts, config=[{"asi_port": 1, "running": False}]),
        converter(ts, "gathered", role="user", password="user"),
    ], ts.name)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True, False, True, False, True, False, False]
    assert [(c["action"], c["key"]) for c in out[0]["changes"]] == [("update", 1)]  # port 2 was stopped already
    assert out[0]["requests"] == {"login": 1, "read": 1, "write": 1}
    assert out[2]["after"][0] == dict(SEND, ttl=32)
    assert out[6]["gathered"] == [{"asi_port": 1, "running": False}, {"asi_port": 2, "running": False}]
    assert ports(ts)[1] == {"port": 1, "running": False, "multicast_address": "239.10.0.1", "multicast_port": 5000,
                            "interface": "eth1", "ttl": 32}


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, ts):
    Api(ts).post("/converter/2/start", {"multicast_address": "239.2.2.2", "multicast_port": 6000,
                                        "interface": "eth0", "ttl": 4})
    clear_log(sim, ts)
    wanted = converter(ts, "replaced", [SEND, {"asi_port": 2}])
    predicted = play.run([checked(wanted)], ts.name, check=True, diff=True)[0]
    assert writes(sim, ts) == []
    assert [(c["action"], c["key"]) for c in predicted["changes"]] == [("update", 1), ("update", 2)]
    assert predicted["diff"] == {  # keyed by port (text keys once through JSON)
        "before": {"1": {"asi_port": 1, "running": False},
                   "2": {"asi_port": 2, "running": True, "multicast_address": "239.2.2.2", "multicast_port": 6000,
                         "interface": "eth0", "ttl": 4}},
        "after": {"1": SEND, "2": {"asi_port": 2, "running": False}}}
    real = play.run([wanted], ts.name, diff=True)[0]
    assert real["changes"] == predicted["changes"] and real["diff"] == predicted["diff"]
    assert sorted(writes(sim, ts)) == [("GET", "/api/converter/2/stop"), ("POST", "/api/converter/1/start")]
    assert [c["running"] for c in ports(ts).values()] == [True, False]


def test_bad_input_fails_before_any_write(play, sim, ts):
    Api(ts).post("/converter/2/start", {"multicast_address": "239.2.2.2", "multicast_port": 6000,
                                        "interface": "eth0", "ttl": 4})
    clear_log(sim, ts)
    bad = [
        ("merged", [dict(SEND, asi_port=3)], "config[0] (ASI 3): asi_port: must be one of 1, 2, got 3"),
        ("merged", [{"asi_port": 1, "running": False, "ttl": 5}],
         "config[0] (ASI 1): ttl: only with running=true"),
        ("merged", [dict(SEND, multicast_address="10.0.0.1")],
         "config[0] (ASI 1): multicast_address: must be a multicast address"),
        ("merged", [dict(SEND, ttl=0)], "config[0] (ASI 1): ttl: must be between 1 and 255, got 0"),
        ("merged", [dict(SEND, multicast_port=0)], "config[0] (ASI 1): multicast_port: must be between 1 and 65535"),
        ("merged", [{"asi_port": 1, "running": True, "ttl": 5}],
         "config[0] (ASI 1): multicast_address, multicast_port, interface: required to start a stopped converter"),
        ("merged", [{"asi_port": 1, "ttl": 5}],
         "config[0] (ASI 1): running: the converter is stopped; set running=true to start it with ttl"),
        ("replaced", [{"asi_port": 2, "ttl": 5}], "config[0] (ASI 2): running: required with these settings"),
        ("merged", [dict(SEND, interface="eth7")], "value of interface must be one of: eth0, eth1"),
        ("deleted", [SEND], "value of state must be one of: merged, replaced, gathered"),
    ]
    refused_before_any_write(play, sim, ts, [(converter(ts, state, config), message) for state, config, message in bad])


def test_documented_examples_run_as_written(play, sim, ts):
    out = run_examples(play, "ts_converter", ts)
    assert [r["changed"] for r in out.results] == [True, True, False]
    assert out[2]["gathered"][0] == dict(SEND, ttl=32)

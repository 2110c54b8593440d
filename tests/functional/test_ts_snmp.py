"""ts_snmp end to end: ansible-playbook against a simulated analyzer."""

from .device_api import Api
from .tasks import checked, clear_log, refused_before_any_write, run_examples, task, writes


def snmp(device, **args):
    return task("ts_snmp", device, **args)


def test_add_remove_replace_compare_as_sets(play, sim, ts):
    out = play.run([
        snmp(ts, enabled=True, listen_addresses=["10.0.0.50"], trap_addresses=["10.0.0.101:162", "10.0.0.100:162"]),
        snmp(ts, enabled=True, trap_addresses=["10.0.0.100:162", "10.0.0.101:162", "10.0.0.100:162"]),
        snmp(ts, lists="remove", trap_addresses=["10.0.0.101:162", "10.9.9.9:162"]),
        snmp(ts, lists="remove", trap_addresses=["10.0.0.101:162"]),
        snmp(ts, listen_addresses=["10.0.0.51", "10.0.0.50"]),
        snmp(ts, lists="replace", listen_addresses=["0.0.0.0"], trap_addresses=[]),
        snmp(ts, lists="replace", listen_addresses=["0.0.0.0"], trap_addresses=[]),
        snmp(ts, enabled=False),
    ], ts.name)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True, False, True, False, True, True, False, True]
    assert out[0]["requests"] == {"login": 1, "read": 2, "write": 1}  # a write is read back
    assert out[1]["requests"] == {"login": 1, "read": 1, "write": 0}
    assert out[0]["after"] == {"enabled": True, "listen_addresses": ["10.0.0.50"],
                               "trap_addresses": ["10.0.0.100:162", "10.0.0.101:162"]}
    assert out[2]["after"]["trap_addresses"] == ["10.0.0.100:162"]
    assert out[4]["after"]["listen_addresses"] == ["10.0.0.50", "10.0.0.51"]
    assert Api(ts).get("/snmp/settings") == {"enabled": False, "listen_addresses": ["0.0.0.0"], "trap_addresses": []}


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, ts):
    Api(ts).post("/snmp/settings", {"enabled": False, "listen_addresses": ["10.0.0.50"],
                                    "trap_addresses": ["10.0.0.100:162"]})
    clear_log(sim, ts)
    wanted = snmp(ts, enabled=True, trap_addresses=["10.0.0.7:1162"])
    predicted = play.run([checked(wanted)], ts.name, check=True, diff=True)[0]
    assert writes(sim, ts) == []
    assert predicted["changed"] is True
    assert predicted["diff"] == {
        "before": {"enabled": False, "listen_addresses": ["10.0.0.50"], "trap_addresses": ["10.0.0.100:162"]},
        "after": {"enabled": True, "listen_addresses": ["10.0.0.50"],
                  "trap_addresses": ["10.0.0.7:1162", "10.0.0.100:162"]}}
    real = play.run([wanted], ts.name, diff=True)
    assert real[0]["diff"] == predicted["diff"]
    assert '+    "enabled": true' in real.output
    assert writes(sim, ts) == [("POST", "/api/snmp/settings")]
    assert Api(ts).get("/snmp/settings") == predicted["after"]


def test_bad_input_fails_before_any_write(play, sim, ts):
    Api(ts).post("/snmp/settings", {"enabled": True, "listen_addresses": [],
                                    "trap_addresses": ["10.0.1.%d:162" % n for n in range(15)]})
    clear_log(sim, ts)
    bad = [
        (dict(listen_addresses=["10.0.0"]), "listen_addresses[0]: must be an IPv4 address, got '10.0.0'"),
        (dict(listen_addresses=["0.0.0.0", "239.1.1.1"]),
         "listen_addresses[1]: must be a unicast IPv4 address (or 0.0.0.0), got 239.1.1.1"),
        (dict(trap_addresses=["10.0.0.1"]), "trap_addresses[0]: must be IPv4-address:port with port 1 to 65535"),
        (dict(trap_addresses=["10.0.0.1:162", "10.0.0.1:70000"]), "trap_addresses[1]: must be IPv4-address:port"),
        (dict(trap_addresses=["10.0.0.1:162", "10.0.0.2:162"]),
         "trap_addresses: the analyzer takes at most 16 addresses; with lists=add there would be 17"),
        (dict(lists="merge"), "value of lists must be one of: add, remove, replace"),
    ]
    refused_before_any_write(play, sim, ts, [(snmp(ts, **args), message) for args, message in bad])


def test_documented_examples_run_as_written(play, sim, ts):
    out = run_examples(play, "ts_snmp", ts)
    assert [r["changed"] for r in out.results] == [True, True, True]
    assert Api(ts).get("/snmp/settings") == {"enabled": True, "listen_addresses": ["0.0.0.0"],
                                             "trap_addresses": ["10.0.0.100:162"]}

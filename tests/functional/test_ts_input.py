"""ts_input end to end: ansible-playbook against a simulated analyzer."""

import pytest

from .device_api import Api
from .conftest import connection
from .tasks import clear_log, run_examples, task, write_log
from .tasks import writes as write_paths

MUX = {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000, "source_address": "10.0.0.7"}},
       "alert_profile": "Default", "monitoring": "started"}
ASI = {"name": "ASI backup", "source": {"asi": {"port": 2}}, "monitoring": "stopped"}


def input_task(device, state, config, **options):
    return task("ts_input", device, "ts_input %s" % state, state=state, config=config, **options)


def test_create_then_idempotent_then_update(play, sim, ts):
    out = play.run([input_task(ts, "overridden", [MUX, ASI]), input_task(ts, "overridden", [MUX, ASI])], ts.name)
    first, second = out[0], out[1]
    assert first.get("failed") is not True, first
    assert first["changed"] is True
    assert sorted(c["action"] for c in first["changes"]) == ["create", "create"]
    assert first["requests"] == {"login": 1, "read": 2, "write": 3}  # two adds and one stop
    assert second["changed"] is False, second
    assert second["requests"] == {"login": 1, "read": 2, "write": 0}
    by_name = {i["name"]: i for i in ts_inputs(play, ts)}
    assert by_name["Mux 1"]["config"]["eth"]["multicast"] == {
        "multicast_address": "239.1.1.1", "multicast_port": 5000, "source_address": "10.0.0.7"}
    assert by_name["Mux 1"]["monitoring"] is True
    assert by_name["ASI backup"]["config"] == {"asi": {"port": 2}}
    assert by_name["ASI backup"]["monitoring"] is False

    sim.call(ts.requests.clear)
    moved = dict(MUX, source={"multicast": {"address": "239.1.1.1", "port": 5002}})
    out = play.run([input_task(ts, "merged", [moved])], ts.name)
    assert out[0]["changed"] is True
    # the source is replaced whole: the source address it drops is a difference too
    assert out[0]["changes"] == [{"action": "update", "key": "Mux 1", "differences": [
        {"path": "source.multicast.port", "current": 5000, "declared": 5002},
        {"path": "source.multicast.source_address", "current": "10.0.0.7", "declared": None}]}]
    assert [(w["method"], w["path"]) for w in write_log(sim, ts)] == [("POST", "/api/inputs/1")]
    mux = {i["name"]: i for i in ts_inputs(play, ts)}["Mux 1"]
    assert mux["config"]["eth"]["multicast"] == {"multicast_address": "239.1.1.1", "multicast_port": 5002}


def ts_inputs(play, device):
    """The analyzer's inputs as the device reports them (GET /inputs over HTTP)."""
    return Api(device).get("/inputs")


def test_overridden_deletes_unlisted_and_merged_keeps_them(play, sim, ts):
    out = play.run([
        input_task(ts, "merged", [MUX, ASI]),
        input_task(ts, "merged", [dict(MUX, monitoring="stopped")]),
        input_task(ts, "overridden", [ASI]),
    ], ts.name)
    assert [r["changed"] for r in out.results] == [True, True, True]
    assert [i["name"] for i in ts_inputs(play, ts)] == ["ASI backup"]
    assert out[2]["changes"] == [{"action": "delete", "key": "Mux 1"}]


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, ts):
    play.run([input_task(ts, "merged", [MUX])], ts.name)
    sim.call(ts.requests.clear)
    wanted = [dict(MUX, monitoring="stopped"), ASI]
    checked = play.run([input_task(ts, "overridden", wanted)], ts.name, check=True, diff=True)[0]
    assert write_log(sim, ts) == []
    assert checked["changed"] is True
    assert checked["diff"]["before"]["Mux 1"]["monitoring"] == "started"
    assert checked["diff"]["after"]["Mux 1"]["monitoring"] == "stopped"
    assert "ASI backup" not in checked["diff"]["before"]
    real = play.run([input_task(ts, "overridden", wanted)], ts.name, diff=True)[0]
    assert real["changed"] is True
    assert real["changes"] == checked["changes"]
    assert real["diff"] == checked["diff"]
    gathered = play.run([input_task(ts, "gathered", [])], ts.name)[0]["gathered"]
    assert sorted(gathered, key=lambda i: i["name"]) == sorted(checked["after"], key=lambda i: i["name"])


def test_diff_output_shows_before_and_after(play, sim, ts):
    out = play.run([input_task(ts, "merged", [MUX])], ts.name, diff=True)
    assert out[0]["changed"] is True
    assert "+" in out.output and "Mux 1" in out.output
    assert out[0]["diff"]["before"] == {}
    assert out[0]["diff"]["after"]["Mux 1"]["source"]["multicast"]["port"] == 5000


def test_deleted_and_gathered(play, sim, ts):
    out = play.run([
        input_task(ts, "merged", [MUX, ASI]),
        input_task(ts, "gathered", []),
        input_task(ts, "deleted", [{"name": "ASI backup"}]),
        input_task(ts, "deleted", [{"name": "ASI backup"}]),
        input_task(ts, "deleted", []),
    ], ts.name)
    gathered = {i["name"]: i for i in out[1]["gathered"]}
    assert gathered["Mux 1"] == MUX
    assert gathered["ASI backup"] == dict(ASI, alert_profile="Default")
    assert [r["changed"] for r in out.results[2:]] == [True, False, True]
    assert ts_inputs(play, ts) == []


@pytest.mark.parametrize("config, message", [
    ([MUX, dict(ASI, name="Mux 1")], "config[1]: name 'Mux 1' is listed more than once"),
    ([dict(MUX, source={"multicast": {"address": "239.1.1.1", "port": 70000}})],
     "config[0] (Mux 1): source.multicast.port: must be between 1 and 65535, got 70000"),
    ([dict(MUX, source={"multicast": {"address": "10.1.1.1", "port": 5000}})],
     "config[0] (Mux 1): source.multicast.address: must be a multicast address"),
    ([dict(MUX, source={"asi": {"port": 3}})], "config[0] (Mux 1): source.asi.port: must be one of 1, 2, got 3"),
    ([dict(MUX, alert_profile="Nope")], "config[0] (Mux 1): alert_profile: the analyzer has no profile 'Nope'"),
    ([{"name": "New", "monitoring": "started"}], "config[0] (New): source: required to create a new input"),
    ([dict(MUX, source={"asi": {"port": 1}, "unicast": {"port": 5000}})], "mutually exclusive"),
])
def test_bad_input_fails_before_any_write(play, sim, ts, config, message):
    sim.call(ts.requests.clear)
    result = play.run([input_task(ts, "merged", config)], ts.name)[0]
    assert result["failed"] is True
    assert message in result["msg"]
    assert write_log(sim, ts) == []


def test_wrong_password_and_user_role_say_what_to_fix(play, sim, ts):
    out = play.run([
        dict(input_task(ts, "merged", [MUX]), **{"broadcast.monitoring.ts_input": dict(
            connection(ts, password="not-the-password"), config=[MUX])}),
        dict(input_task(ts, "merged", [MUX]), **{"broadcast.monitoring.ts_input": dict(
            connection(ts, role="user", password="user"), config=[MUX])}),
        dict(input_task(ts, "gathered", []), **{"broadcast.monitoring.ts_input": dict(
            connection(ts, role="user", password="user"), state="gathered")}),
    ], ts.name)
    assert out[0]["failed"] is True
    assert "login as role admin was refused" in out[0]["msg"] and "check role and password" in out[0]["msg"]
    assert "not-the-password" not in out.output
    assert out[1]["failed"] is True
    assert "needs the admin role" in out[1]["msg"]
    assert out[2].get("failed") is not True and out[2]["gathered"] == []
    assert all(w["status"] != 200 for w in write_log(sim, ts))


def test_connection_options_from_environment(play, sim, ts):
    """What an AWX credential injects: no connection options in the task at all."""
    env = {"BROADCAST_MONITORING_HOST": ts.address, "BROADCAST_MONITORING_PORT": str(ts.port),
           "BROADCAST_MONITORING_PASSWORD": "admin"}
    out = play.run([{"name": "from env", "broadcast.monitoring.ts_input": {"config": [MUX]}}], ts.name, env=env)
    assert out[0].get("failed") is not True, out[0]
    assert out[0]["changed"] is True
    assert [i["name"] for i in ts_inputs(play, ts)] == ["Mux 1"]


def test_unreachable_device_is_reported_as_such(play, sim, ts):
    args = dict(connection(ts), port=1, config=[MUX])
    result = play.run([{"name": "nobody there", "broadcast.monitoring.ts_input": args}], ts.name)[0]
    assert result["failed"] is True
    assert "cannot connect to http://%s:1" % ts.address in result["msg"]
    assert "check host, port and protocol" in result["msg"]


def test_sixteen_inputs_cost_two_reads_and_one_write_each(play, sim, ts):
    many = [{"name": "In %02d" % n, "source": {"multicast": {"address": "239.2.0.%d" % (n + 1), "port": 5000}}}
            for n in range(16)]
    changed = [dict(obj, source={"multicast": {"address": "239.3.0.%d" % (n + 1), "port": 5000}}) if n % 4 == 0 else obj
               for n, obj in enumerate(many)]
    out = play.run([input_task(ts, "merged", many), input_task(ts, "merged", changed)], ts.name)
    assert out[0]["requests"] == {"login": 1, "read": 2, "write": 16}
    assert out[1]["requests"] == {"login": 1, "read": 2, "write": 4}
    assert len(ts_inputs(play, ts)) == 16


@pytest.mark.parametrize("group", ["ts", "all"])
def test_connection_options_set_once_through_action_groups(play, sim, ts, group):
    defaults = {"group/broadcast.monitoring.%s" % group: connection(ts)}
    out = play.run([{"name": "no options", "broadcast.monitoring.ts_input": {"config": [MUX]}}], ts.name,
                   module_defaults=defaults)
    assert out[0].get("failed") is not True, out[0]
    assert [i["name"] for i in ts_inputs(play, ts)] == ["Mux 1"]


def test_no_password_or_token_in_output_at_high_verbosity(play, sim, ts, tmp_path):
    secret = "Fleet-Secret-7d1f"
    sim.call(ts.state["passwords"].update, {"admin": secret, "user": "User-Secret-91ab"})
    log = tmp_path / "ansible.log"
    tasks = [
        {"name": "ok", "broadcast.monitoring.ts_input": dict(connection(ts, password=secret), config=[MUX])},
        {"name": "diff", "broadcast.monitoring.ts_input": dict(connection(ts, password=secret),
                                                               config=[dict(MUX, monitoring="stopped")])},
        {"name": "wrong password", "broadcast.monitoring.ts_input": dict(connection(ts, password=secret + "x"),
                                                                         config=[MUX])},
        {"name": "refused value", "broadcast.monitoring.ts_input": dict(connection(ts, password=secret),
                                                                        config=[dict(MUX, alert_profile="Nope")])},
    ]
    # ANSIBLE_DEBUG is left out on purpose: ansible-core's own debug lines print raw module
    # arguments, no_log ones included, whatever a module does.
    out = play.run(tasks, ts.name, diff=True, verbosity=4, env={"ANSIBLE_LOG_PATH": str(log)})
    assert out[0]["changed"] is True and out[2]["failed"] is True and out[3]["failed"] is True
    issued = sim.call(ts.issued_secrets)
    assert secret in issued and len(issued) > 1  # the password and at least one token
    text = out.output + log.read_text()
    assert "ts_input" in text  # the log really holds the run
    for value in issued + [secret + "x"]:
        assert value not in text


def test_documented_examples_run_as_written(play, sim, ts):
    out = run_examples(play, "ts_input", ts)
    assert [r["changed"] for r in out.results] == [True, True, False, True]  # four examples
    assert [i["name"] for i in out[2]["gathered"]] == ["Mux 1", "ASI backup"]
    assert [i["name"] for i in ts_inputs(play, ts)] == ["Mux 1"]


def profile_task(device, config, register):
    return {"name": register, "register": register,
            "broadcast.monitoring.ts_alert_profile": dict(connection(device), config=config)}


def test_profile_ids_from_ts_alert_profile_save_the_profiles_read(play, sim, ts):
    strict = dict(MUX, alert_profile="Strict")
    out = play.run([profile_task(ts, [{"name": "Strict"}], "created"),
                    # Strict is created by this run: its id is not returned, so ts_input reads the profiles
                    input_task(ts, "overridden", [strict, ASI], alert_profile_ids="{{ created.profile_ids }}"),
                    profile_task(ts, [{"name": "Strict"}], "again"),
                    input_task(ts, "overridden", [strict, ASI], alert_profile_ids="{{ again.profile_ids }}")],
                   ts.name)
    created, first, again, second = out
    assert created["profile_ids"] == {"Default": 1}, created
    assert first["changed"] is True and first["requests"]["read"] == 2, first
    assert again["changed"] is False and sorted(again["profile_ids"]) == ["Default", "Strict"], again
    assert second["changed"] is False and second["requests"] == {"login": 1, "read": 1, "write": 0}, second
    assert {i["name"]: i["alerts_config"]["profile_id"] for i in ts_inputs(play, ts)} == {
        "Mux 1": again["profile_ids"]["Strict"], "ASI backup": 1}


def test_profile_ids_that_do_not_cover_the_inputs_are_not_trusted(play, sim, ts):
    out = play.run([input_task(ts, "overridden", [MUX, ASI]),
                    # the ids given know no profile the inputs use: the profiles are read
                    input_task(ts, "overridden", [MUX, ASI], alert_profile_ids={"Other": 7}),
                    # a profile the config asks for is missing from the ids: read too
                    input_task(ts, "merged", [dict(ASI, alert_profile="Default")], alert_profile_ids={"Strict": 1})],
                   ts.name)
    assert out[1]["changed"] is False and out[1]["requests"]["read"] == 2, out[1]
    assert out[2]["changed"] is False and out[2]["requests"]["read"] == 2, out[2]


def _twice(device):
    """Inputs the way two runs at once leave them: 'Mux 1' twice (id 2 as MUX declares it),
    'Other' twice; made through the analyzer's own API, which allows duplicate names
    (simulator/README.md, POST /inputs)."""
    api = Api(device)
    plain = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}
    declared = {"eth": {"stream_protocol": 0, "multicast": dict(plain["eth"]["multicast"], source_address="10.0.0.7")}}
    return [api.add_input(name, config)["id"] for name, config in
            (("Mux 1", plain), ("Mux 1", declared), ("Other", plain), ("Other", plain))]


def test_duplicate_names_gathered_shows_them_merged_and_replaced_refuse(play, sim, ts):
    assert _twice(ts) == [1, 2, 3, 4]
    clear_log(sim, ts)
    out = play.run([input_task(ts, "gathered", []), input_task(ts, "merged", [dict(MUX, monitoring="stopped")]),
                    input_task(ts, "replaced", [MUX]), input_task(ts, "merged", [ASI])], ts.name)
    gathered, merged, replaced, other = out
    assert gathered.get("failed") is not True, gathered
    assert [i["name"] for i in gathered["gathered"]] == ["Mux 1", "Other"]
    assert [(d["name"], d["id"], d["shown"]) for d in gathered["duplicates"]] == [
        ("Mux 1", 1, True), ("Mux 1", 2, False), ("Other", 3, True), ("Other", 4, False)]
    assert gathered["duplicates"][1]["source"]["multicast"]["source_address"] == "10.0.0.7"
    assert "several inputs with one name: 'Mux 1' (ids 1, 2); 'Other' (ids 3, 4)" in out.output  # the warning
    for refused, state in ((merged, "merged"), (replaced, "replaced")):
        assert refused["failed"] is True, refused
        assert "nothing was written" in refused["msg"]
        assert "'Mux 1' (ids 1, 2)" in refused["msg"] and "'Other'" not in refused["msg"], refused["msg"]
        assert "state=%s cannot tell the copies apart" % state in refused["msg"]
        assert "state=overridden keeps one copy" in refused["msg"] and "state=deleted" in refused["msg"]
    # a name that is not duplicated is managed as usual; the duplicates are left alone
    assert other.get("failed") is not True and other["changes"] == [{"action": "create", "key": "ASI backup"}], other
    assert write_paths(sim, ts) == [("POST", "/api/inputs"), ("GET", "/api/inputs/5/stop")]


def test_overridden_keeps_the_copy_as_declared_and_deletes_the_others(play, sim, ts):
    _twice(ts)
    clear_log(sim, ts)
    checked = play.run([input_task(ts, "overridden", [MUX])], ts.name, check=True)[0]
    assert write_paths(sim, ts) == []
    out = play.run([input_task(ts, "overridden", [MUX]), input_task(ts, "overridden", [MUX])], ts.name)
    first, second = out
    assert first.get("failed") is not True, first
    assert first["duplicates_removed"] == [{"name": "Mux 1", "id": 1}, {"name": "Other", "id": 4}]
    assert first["changes"] == [{"action": "delete", "key": "Other"}, {"action": "delete", "key": "Mux 1", "id": 1},
                                {"action": "delete", "key": "Other", "id": 4}]
    assert checked["changes"] == first["changes"] and checked["duplicates_removed"] == first["duplicates_removed"]
    # id 2 was already as declared: kept untouched, every other copy deleted
    deleted = [("DELETE", "/api/inputs/%d" % n) for n in (1, 3, 4)]
    assert sorted(write_paths(sim, ts)) == deleted
    assert [(i["id"], i["name"]) for i in ts_inputs(play, ts)] == [(2, "Mux 1")]
    assert second["changed"] is False and "duplicates_removed" not in second, second


def test_overridden_without_a_copy_as_declared_keeps_the_lowest_id(play, sim, ts):
    _twice(ts)
    out = play.run([input_task(ts, "overridden", [dict(MUX, monitoring="stopped"), {"name": "Other", "source": ASI["source"]}])],
                   ts.name)[0]
    # no copy of Mux 1 is as declared (both are started): the lowest id is kept and updated
    assert out["duplicates_removed"] == [{"name": "Mux 1", "id": 2}, {"name": "Other", "id": 4}], out
    inputs = ts_inputs(play, ts)
    assert [(i["id"], i["name"], i["monitoring"]) for i in inputs] == [(1, "Mux 1", False), (3, "Other", True)]
    assert inputs[0]["config"]["eth"]["multicast"]["source_address"] == "10.0.0.7"
    assert inputs[1]["config"] == {"asi": {"port": 2}}


def test_deleted_removes_every_copy_of_a_name(play, sim, ts):
    _twice(ts)
    out = play.run([input_task(ts, "deleted", [{"name": "Other"}]), input_task(ts, "deleted", [])], ts.name)
    assert out[0]["duplicates_removed"] == [{"name": "Other", "id": 4}], out[0]
    assert out[0]["changes"] == [{"action": "delete", "key": "Other"}, {"action": "delete", "key": "Other", "id": 4}]
    assert "left alone" in out.output  # Mux 1's copies are not touched by the first task, with a warning
    assert out[1]["duplicates_removed"] == [{"name": "Mux 1", "id": 2}], out[1]
    assert ts_inputs(play, ts) == []


def test_a_planned_profile_id_is_taken_in_check_mode_only(play, sim, ts):
    strict = dict(MUX, alert_profile="Strict")
    clear_log(sim, ts)
    checked = play.run([input_task(ts, "merged", [strict], alert_profile_ids={"Default": 1, "Strict": None})], ts.name,
                       check=True)[0]
    assert checked.get("failed") is not True and checked["changes"] == [{"action": "create", "key": "Mux 1"}], checked
    assert write_paths(sim, ts) == []
    clear_log(sim, ts)
    real = play.run([input_task(ts, "merged", [strict], alert_profile_ids={"Default": 1, "Strict": None})], ts.name)[0]
    assert real["failed"] is True and "alert_profile_ids.Strict: null" in real["msg"], real
    assert sim.call(lambda: list(ts.requests)) == []  # refused before any request
    assert ts_inputs(play, ts) == []

"""ts_alert_profile end to end: ansible-playbook against a simulated analyzer."""

from bm_simulator.ts import ERROR_NAMES, PRIORITY_1

from .device_api import Api
from .tasks import checked, clear_log, refused_before_any_write, run_examples, task, writes

STRICT = {"name": "Strict", "errors": {
    "continuity_count_error": {"alert_type": "critical", "snmp_trap": True, "threshold": 5},
    "t2mi_crc_error": {"enabled": False},
    "input_mlr_error": {"max_value": 2.5, "alert_type": "none"},
}}


def profile(device, name):
    found = [p for p in Api(device).get("/profiles") if p["name"] == name]
    return {e["error_name"]: {k: v for k, v in e.items() if k != "error_name"} for e in found[0]["entries"]} \
        if found else None


def factory(name):
    return {"enabled": True, "snmp_trap": False, "alert_type": "critical" if name in PRIORITY_1 else "warning",
            "threshold": 0, "min_value": 0, "max_value": 0}


def run(module_task_args, device):
    return task("ts_alert_profile", device, **module_task_args)


def test_merged_replaced_idempotent_and_gathered(play, sim, ts):
    trap = {"name": "Default", "errors": {"ts_sync_loss": {"snmp_trap": True}}}
    only_pid = {"name": "Strict", "errors": {"pid_error": {"alert_type": "none"}}}
    out = play.run([
        run(dict(config=[STRICT]), ts),
        run(dict(config=[STRICT]), ts),
        run(dict(config=[trap]), ts),
        run(dict(state="replaced", config=[only_pid]), ts),
        run(dict(state="replaced", config=[only_pid]), ts),
        run(dict(state="gathered", role="user", password="user"), ts),
    ], ts.name)
    assert not any(r.get("failed") for r in out.results), out.results
    assert [r["changed"] for r in out.results] == [True, False, True, True, False, False]
    assert out[0]["changes"] == [{"action": "create", "key": "Strict"}]
    assert out[0]["requests"] == {"login": 1, "read": 1, "write": 1}
    assert out[1]["requests"] == {"login": 1, "read": 1, "write": 0}
    assert out[2]["changes"] == [{"action": "update", "key": "Default", "differences": [
        {"path": "errors.ts_sync_loss.snmp_trap", "current": False, "declared": True}]}]
    # replaced: what is not listed goes back to the factory values
    strict = profile(ts, "Strict")
    assert strict["pid_error"] == dict(factory("pid_error"), alert_type="none")
    assert strict["continuity_count_error"] == factory("continuity_count_error")
    assert strict["t2mi_crc_error"] == factory("t2mi_crc_error")
    # merged: only what was set changed, every other entry of Default kept its value
    default = profile(ts, "Default")
    assert default["ts_sync_loss"] == dict(factory("ts_sync_loss"), snmp_trap=True)
    assert {n: e for n, e in default.items() if n != "ts_sync_loss"} == {n: factory(n) for n in ERROR_NAMES[1:]}
    gathered = {p["name"]: p for p in out[5]["gathered"]}
    assert sorted(gathered) == ["Default", "Strict"]
    assert list(gathered["Strict"]["errors"]) == list(ERROR_NAMES)  # every entry, in the analyzer's order
    assert gathered["Strict"]["errors"] == strict


def test_merged_keeps_unlisted_entries_of_a_new_profile_at_factory_values(play, sim, ts):
    out = play.run([run(dict(config=[STRICT]), ts)], ts.name)
    strict = profile(ts, "Strict")
    assert out[0]["changed"] is True
    assert strict["continuity_count_error"] == dict(factory("continuity_count_error"), snmp_trap=True, threshold=5)
    assert strict["input_mlr_error"] == dict(factory("input_mlr_error"), max_value=2.5, alert_type="none")
    assert strict["t2mi_crc_error"] == dict(factory("t2mi_crc_error"), enabled=False)
    assert strict["pat_error2"] == factory("pat_error2")


def test_check_mode_writes_nothing_and_predicts_the_real_run(play, sim, ts):
    api = Api(ts)
    api.post("/profiles", {"name": "Old", "entries": []})
    clear_log(sim, ts)
    wanted = [{"name": "Default", "errors": {"pcr_accuracy_error": {"threshold": 3}}}, STRICT]
    overridden = run(dict(state="overridden", config=wanted), ts)
    out = play.run([checked(overridden)], ts.name, check=True, diff=True)
    assert writes(sim, ts) == []
    predicted = out[0]
    assert predicted["changed"] is True
    assert sorted((c["action"], c["key"]) for c in predicted["changes"]) == [
        ("create", "Strict"), ("delete", "Old"), ("update", "Default")]
    assert predicted["diff"]["before"]["Default"]["errors"]["pcr_accuracy_error"]["threshold"] == 0
    assert predicted["diff"]["after"]["Default"]["errors"]["pcr_accuracy_error"]["threshold"] == 3
    assert "Old" in predicted["diff"]["before"] and "Old" not in predicted["diff"]["after"]
    real = play.run([overridden], ts.name, diff=True)
    assert real[0]["changes"] == predicted["changes"] and real[0]["diff"] == predicted["diff"]
    assert "--- before" in real.output and '+                "threshold": 3' in real.output  # --diff shows it
    assert sorted(writes(sim, ts)) == [("DELETE", "/api/profiles/2"), ("POST", "/api/profiles"),
                                       ("POST", "/api/profiles/1")]
    assert sorted(p["name"] for p in api.get("/profiles")) == ["Default", "Strict"]


def test_bad_input_and_refused_deletions_fail_before_any_write(play, sim, ts):
    api = Api(ts)
    used = api.post("/profiles", {"name": "In use", "entries": []})
    api.add_input("Mux 1", profile_id=used["id"])
    api.add_input("Mux 2", profile_id=used["id"])
    clear_log(sim, ts)
    bad = [
        ([{"name": "X", "errors": {"foo_error": {"enabled": False}}}], "merged",
         "config[0] (X): errors.foo_error: unknown error name; the analyzer knows ts_sync_loss,"),
        ([{"name": "X", "errors": {"pid_error": {"alert_type": "severe"}}}], "merged",
         "config[0] (X): errors.pid_error.alert_type: must be one of none, warning, critical, got severe"),
        ([{"name": "X", "errors": {"pcr_accuracy_error": {"threshold": -1}}}], "merged",
         "errors.pcr_accuracy_error.threshold: must be >= 0, got -1"),
        ([{"name": "X", "errors": {"pts_error": {"max_value": "high"}}}], "merged",
         "errors.pts_error.max_value: must be a number, got 'high'"),
        ([{"name": "X", "errors": {"crc_error": {"enabled": "maybe"}}}], "merged",
         "errors.crc_error.enabled: must be true or false, got 'maybe'"),
        ([{"name": "X", "errors": {"crc_error": {"colour": "red"}}}], "merged",
         "errors.crc_error.colour: unknown field; use enabled, alert_type"),
        ([{"name": "X", "errors": {"crc_error": "off"}}], "merged", "errors.crc_error: must be a dictionary of"),
        ([{"name": "X" * 65}], "merged", "config[0].name: must be 1 to 64 characters"),
        ([{"name": "In use"}], "deleted",
         "config[0] (In use): cannot be deleted, input(s) 'Mux 1', 'Mux 2' use it"),
        ([{"name": "Default"}], "deleted",
         "config[0] (Default): the factory profile cannot be deleted (the analyzer refuses)"),
        ([{"name": "In use"}], "overridden",
         "profile 'Default' (not listed, so state=overridden deletes it): the factory profile cannot be deleted"),
        ([], "deleted", "profile 'In use' (config is empty, so state=deleted deletes every profile): cannot be"),
    ]
    refused_before_any_write(play, sim, ts, [(run(dict(state=state, config=config), ts), message)
                                             for config, state, message in bad])


def test_documented_examples_run_as_written(play, sim, ts):
    out = run_examples(play, "ts_alert_profile", ts)
    assert [r["changed"] for r in out.results] == [True, True, False, True]
    assert [p["name"] for p in out[2]["gathered"]] == ["Default", "Contribution"]
    assert [p["name"] for p in Api(ts).get("/profiles")] == ["Default"]

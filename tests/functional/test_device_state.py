"""device_state end to end: one task applies several parts of a simulated device's state."""

import pytest

from .device_api import Api
from .tasks import clear_log, task, writes
from .conftest import EXAMPLE_VARS, module_examples


def state(device, parts, **args):
    return task("device_state", device, device_type=device.kind, parts=parts, **args)


def logins(sim, device):
    return [r["kind"] for r in sim.call(lambda: list(device.requests))].count("login")


SNMP = {"enabled": True, "trap_addresses": ["10.0.0.100:162"]}
INPUTS = [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}]


def test_check_diff_apply_and_a_second_run_that_changes_nothing(play, sim, ts):
    clear_log(sim, ts)
    wanted = state(ts, {"snmp": SNMP, "inputs": INPUTS, "network": None})
    predicted = play.run([wanted], ts.name, check=True)[0]
    assert writes(sim, ts) == []
    assert predicted["changed"] is True and sorted(predicted["parts"]) == ["inputs", "snmp"]
    assert [d["before_header"] for d in predicted["diff"]] == ["snmp", "inputs: Mux 1"]

    clear_log(sim, ts)
    out = play.run([wanted, wanted], ts.name)
    applied, again = out.results
    assert applied["changed"] is True and applied["diff"] == predicted["diff"]
    assert "--- before: snmp" in out.output
    assert again["changed"] is False and "diff" not in again
    # planned (every part in check mode), then the changed parts written; nothing to write the second time
    assert applied["modules"] == ["device_login", "ts_snmp", "ts_input", "ts_snmp", "ts_input"]
    assert again["modules"] == ["device_login", "ts_snmp", "ts_input"]
    assert [part["changed"] for part in again["parts"].values()] == [False, False]
    # a part that changed keeps what it was and is; one that did not leaves its state out (outside check mode)
    assert all("before" in part and "after" in part for part in applied["parts"].values())
    assert all("before" not in part and "after" not in part for part in again["parts"].values())
    assert logins(sim, ts) == 2  # one per task, however many parts
    assert Api(ts).get("/snmp/settings")["trap_addresses"] == ["10.0.0.100:162"]
    assert [i["name"] for i in Api(ts).get("/inputs")] == ["Mux 1"]


def test_in_check_mode_an_unchanged_part_keeps_its_state(play, sim, ts):
    """What the audit reads (roles' drift.j2): in check mode every part's before and after, even
    when nothing would change."""
    wanted = state(ts, {"snmp": SNMP, "inputs": INPUTS, "network": None})
    play.run([wanted], ts.name)
    checked = play.run([wanted], ts.name, check=True)[0]
    assert checked["changed"] is False, checked
    assert checked["parts"]["snmp"]["before"] == checked["parts"]["snmp"]["after"]
    assert [i["name"] for i in checked["parts"]["inputs"]["after"]] == ["Mux 1"]


def test_a_part_the_plan_refuses_stops_the_task_before_any_write(play, sim, ts):
    clear_log(sim, ts)
    # a profile the analyzer does not have: only the device can tell, so only the plan (the inputs
    # part's module in check mode, after the snmp part's) finds it, before the snmp part is written
    bad_inputs = [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}},
                   "alert_profile": "No Such Profile"}]
    result = play.run([state(ts, {"snmp": SNMP, "inputs": bad_inputs, "converters": []})], ts.name)[0]
    assert result["failed"] is True and result["failed_part"] == "inputs" and result["changed"] is False
    assert result["msg"].startswith("inputs: invalid parameters: ") and "No Such Profile" in result["msg"]
    assert result["msg"].endswith("; nothing was written (every part is planned before the first write)")
    assert result["modules"] == ["device_login", "ts_snmp", "ts_input"]
    assert writes(sim, ts) == []
    assert Api(ts).get("/snmp/settings")["trap_addresses"] == []


def test_an_fm_part_the_plan_refuses_leaves_the_earlier_parts_unwritten(play, sim, fm):
    """A tuner the device does not have (eight tuners, ids 0-7) in a later part: the tuners part,
    which would write, is not written."""
    sim.call(fm.requests.clear)
    parts = {"tuners": [{"tuner_id": 0, "name": "Planned first"}],
             "thresholds": [{"tuner_id": 9, "rssi": {"min": 10}}]}
    result = play.run([state(fm, parts)], fm.name)[0]
    assert result["failed"] is True and result["failed_part"] == "thresholds", result
    assert "9" in result["msg"] and result["msg"].endswith("nothing was written (every part is planned before "
                                                           "the first write)")
    assert result["parts"]["tuners"]["changed"] is True  # planned, not written
    assert sim.call(fm.writes) == []


def test_a_part_that_fails_while_written_says_what_was_applied(play, sim, ts):
    clear_log(sim, ts)
    # the plan holds; the device then fails the input's write (500): the snmp part was written
    sim.call(ts.faults.add, {"kind": "error", "count": 1, "method": "POST", "path": "/api/inputs"})
    result = play.run([state(ts, {"snmp": SNMP, "inputs": INPUTS, "converters": []})], ts.name)[0]
    sim.call(ts.faults.replace, [])
    assert result["failed"] is True and result["failed_part"] == "inputs", result
    assert result["msg"].endswith("; applied before it: snmp (changed); not applied: converters"), result["msg"]
    assert result["modules"] == ["device_login", "ts_snmp", "ts_input", "ts_converter", "ts_snmp", "ts_input"]
    assert writes(sim, ts) == [("POST", "/api/snmp/settings")]


def test_bad_parts_fail_before_any_request(play, sim, ts):
    clear_log(sim, ts)
    unicast_as_multicast = [{"name": "Mux 1", "source": {"multicast": {"address": "10.0.0.1", "port": 5000}}}]
    out = play.run([state(ts, {"tuners": []}), state(ts, {"inputs": {"name": "Mux 1"}}),
                    state(ts, {"snmp": SNMP, "converters": [{"asi_port": 1, "ttl": "high"}]}),
                    state(ts, {"snmp": SNMP, "inputs": unicast_as_multicast})], ts.name)
    assert "parts: tuners is not a part of a ts_analyzer" in out[0]["msg"]
    assert out[1]["msg"] == "parts.inputs: must be a list, got dict"
    # a bad later part stops the task before the first part is written (and before the login),
    # whether its argument spec refuses it or a check the spec cannot express
    assert out[2]["msg"].startswith("invalid parts, nothing was run: parts.converters[0] (asi_port 1): "), out[2]["msg"]
    assert out[3]["msg"].startswith("invalid parts, nothing was run: parts.inputs[0] (Mux 1): "
                                    "source.multicast.address: must be a multicast address"), out[3]["msg"]
    assert sim.call(lambda: list(ts.requests)) == []


def test_operating_state_with_an_active_schedule_is_refused_before_any_request(play, sim, fm):
    """Issue 21 item 2: the tuners part may not set the state of a tuner that the schedules
    part makes active (its schedule sets it); checked on the controller, nothing is sent."""
    clear_log(sim, fm)
    weekday = {"monday": [{"time": "06:00", "state": "enabled"}, {"time": "22:00", "state": "sleep"}]}
    tuners = [{"tuner_id": 0, "operating_state": "enabled"}, {"tuner_id": 1, "name": "Two"}]
    out = play.run([state(fm, {"tuners": tuners, "schedules_all": {"active": True, "events": weekday}}),
                    state(fm, {"tuners_all": {"operating_state": "sleep"},
                               "schedules": [{"tuner_id": 3, "active": "yes"}]})], fm.name)
    assert out[0]["failed"] is True
    assert out[0]["msg"] == (
        "invalid parts, nothing was run: parts.tuners[0] (tuner 0): operating_state: the schedules_all part declares"
        " the schedule of tuner 0 active; the schedule sets the tuner's operating state; leave operating_state out"
        " for it, or declare its schedule active: false"), out[0]["msg"]
    assert out[1]["failed"] is True
    assert "parts.tuners_all: operating_state: the schedules declare an active schedule" in out[1]["msg"]
    assert sim.call(lambda: list(fm.requests)) == []
    # tuner 0's own schedule inactive: its state is the tuners part's to set
    allowed = play.run([state(fm, {"tuners": tuners, "schedules_all": {"active": True, "events": weekday},
                                   "schedules": [{"tuner_id": 0, "active": False}]})], fm.name)[0]
    assert allowed.get("failed") is not True, allowed
    assert allowed["modules"] == ["device_login", "fm_schedule", "fm_tuner", "fm_schedule", "fm_tuner"]  # plan, write


def test_without_login_once_every_part_logs_in_itself(play, sim, fm):
    clear_log(sim, fm)
    parts = {"thresholds_all": {"snr": {"min": 15}}, "schedules": []}
    result = play.run([state(fm, parts, login_once=False)], fm.name)[0]
    assert result.get("failed") is not True, result
    # each module run logs in: both parts planned, then the changed one (thresholds) written
    assert result["modules"] == ["fm_schedule", "fm_thresholds", "fm_thresholds"]
    assert logins(sim, fm) == 3
    assert result["parts"]["thresholds"]["changed"] is True


def test_a_failed_login_names_it_and_runs_nothing(play, sim, fm):
    clear_log(sim, fm)
    result = play.run([state(fm, {"schedules": []}, password="wrong")], fm.name)[0]
    assert result["failed"] is True and result["msg"].startswith("login: ")
    assert result["parts"] == {} and result["modules"] == ["device_login"]
    assert writes(sim, fm) == []


@pytest.mark.parametrize("name", ["device_state"])
def test_documented_examples_run_as_written(play, sim, ts, fm, name):
    examples = module_examples(name)
    for example, device in zip(examples, (ts, fm)):
        result = play.run([example], device.name, extra_vars=EXAMPLE_VARS)[0]
        assert result.get("failed") is not True, (example["name"], result)
        assert result["changed"] is True, (example["name"], result)


def test_bad_options_name_the_option(play, sim, ts):
    clear_log(sim, ts)
    out = play.run([state(ts, {"snmp": SNMP}, purge="sometimes"), state(ts, {"snmp": SNMP}, login_twice=True),
                    dict(state(ts, {}), **{"broadcast.monitoring.device_state": {"device_type": "dvb", "parts": {}}})],
                   ts.name)
    assert "argument 'purge' is of type str and we were unable to convert to bool" in out[0]["msg"]
    assert out[1]["msg"].startswith("unsupported option login_twice. Supported parameters include: busy_timeout,")
    assert "value of device_type must be one of: fm_monitor, ts_analyzer, got: dvb" in out[2]["msg"]
    assert sim.call(lambda: list(ts.requests)) == []


OLD = {"name": "Old", "errors": {"pts_error": {"alert_type": "critical"}}}
NEW = {"name": "New", "errors": {"pts_error": {"alert_type": "warning"}}}


def using(profile):
    return [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}, "alert_profile": profile},
            {"name": "ASI", "source": {"asi": {"port": 1}}, "alert_profile": profile}]


def test_purge_swaps_a_profile_and_the_inputs_that_use_it(play, sim, ts):
    """Issue 24 item 4: profiles are created before the inputs move to them, and the profile
    no longer declared is deleted only after the inputs have left it."""
    setup = play.run([state(ts, {"alert_profiles": [OLD], "inputs": using("Old")}, purge=True)], ts.name)[0]
    assert setup.get("failed") is not True, setup
    swap = state(ts, {"alert_profiles": [NEW], "inputs": using("New")}, purge=True)
    clear_log(sim, ts)
    predicted = play.run([swap], ts.name, check=True)[0]
    assert writes(sim, ts) == []
    assert predicted.get("failed") is not True, predicted
    out = play.run([swap, swap], ts.name)
    applied, again = out.results
    assert applied.get("failed") is not True, applied
    # planned (the second profiles pass on the controller), then written in the dependencies' order
    assert applied["modules"] == ["device_login", "ts_alert_profile", "ts_input",
                                  "ts_alert_profile", "ts_input", "ts_alert_profile"]
    assert applied["parts"]["alert_profiles"]["changes"] == [{"action": "create", "key": "New"},
                                                             {"action": "delete", "key": "Old"}]
    assert predicted["parts"]["alert_profiles"]["changes"] == applied["parts"]["alert_profiles"]["changes"]
    assert predicted["parts"]["inputs"]["changes"] == applied["parts"]["inputs"]["changes"]
    assert [d["before_header"] for d in predicted["diff"]] == [d["before_header"] for d in applied["diff"]]
    profiles = {p["name"]: p["id"] for p in Api(ts).get("/profiles")}
    assert sorted(profiles) == ["Default", "New"]
    assert {i["alerts_config"]["profile_id"] for i in Api(ts).get("/inputs")} == {profiles["New"]}
    # the second run: nothing to delete, so no second pass of the profiles
    assert again["changed"] is False and again["modules"] == ["device_login", "ts_alert_profile", "ts_input"], again


def test_purge_check_mode_refuses_deleting_a_profile_the_inputs_keep(play, sim, ts):
    play.run([state(ts, {"alert_profiles": [OLD], "inputs": using("Old")}, purge=True)], ts.name)
    keeps = state(ts, {"alert_profiles": [NEW], "inputs": using("Old")}, purge=True)
    predicted = play.run([keeps], ts.name, check=True)[0]
    applied = play.run([keeps], ts.name)[0]
    # check mode says what the real run then meets
    for result in (predicted, applied):
        assert result["failed"] is True and result["failed_part"] == "alert_profiles", result
        assert "profile 'Old' (not listed, so state=overridden deletes it): cannot be deleted, input(s) 'Mux 1'," \
               " 'ASI' use it" in result["msg"], result["msg"]


def test_check_mode_takes_inputs_naming_a_profile_declared_with_them(play, sim, ts):
    """Issue 24 item 5: in check mode the profile is not on the device yet; the inputs part
    sees the profiles the plan would create."""
    site = {"name": "Site Prof", "errors": {"pts_error": {"alert_type": "warning"}}}
    for purge in (False, True):
        sim.call(ts.reset)
        declared = state(ts, {"alert_profiles": [site], "inputs": using("Site Prof")}, purge=purge)
        clear_log(sim, ts)
        predicted = play.run([declared], ts.name, check=True)[0]
        assert writes(sim, ts) == []
        assert predicted.get("failed") is not True, predicted
        applied = play.run([declared], ts.name)[0]
        assert applied.get("failed") is not True, applied
        assert predicted["changed"] is True and predicted["diff"] == applied["diff"]
        assert predicted["parts"]["inputs"]["changes"] == applied["parts"]["inputs"]["changes"]
        assert predicted["parts"]["alert_profiles"]["profile_ids"] == {"Default": 1, "Site Prof": None}


def output_lines(output):
    return [line.rstrip() for line in output.splitlines()]


def test_a_run_says_what_changed_per_object_and_the_diff_names_each_object(play, sim, ts, fm):
    """Issue 30 item 7: without -v each change is one line (part, object, fields), and each
    object that differs is a diff of its own headed with its name (the FM monitor's by tuner)."""
    strict = {"name": "Strict", "errors": {"pcr_accuracy_error": {"threshold": 5}, "continuity_count_error": {"threshold": 1}}}
    mux = {"name": "MC 01", "source": {"multicast": {"address": "239.1.1.1", "port": 5000, "source_address": "10.0.0.7"}}}
    setup = play.run([state(ts, {"alert_profiles": [strict], "inputs": [mux]})], ts.name)[0]
    assert setup.get("failed") is not True, setup
    moved = {"name": "MC 01", "source": {"multicast": {"address": "239.1.1.1", "port": 5002}}}
    stricter = {"name": "Strict", "errors": {"pcr_accuracy_error": {"threshold": 10}}}
    change = state(ts, {"alert_profiles": [stricter], "inputs": [moved], "logging": {"level": "warning"}})
    for check in (True, False):
        out = play.run([change], ts.name, check=check)
        result = out[0]
        assert result.get("failed") is not True, result
        expected = ['logging: level "info" -> "warning"',
                    "alert_profiles: update Strict: errors.pcr_accuracy_error.threshold 5 -> 10",
                    "inputs: update MC 01: source.multicast.port 5000 -> 5002,"
                    ' source.multicast.source_address "10.0.0.7" -> (removed)']
        assert result["changes_summary"] == expected, result["changes_summary"]
        lines = output_lines(out.output)
        for line in expected:
            assert "%s: %s" % (ts.name, line) in lines, (line, out.output)
        # one diff per object, headed with the part and the object's name
        assert [d["before_header"] for d in result["diff"]] == ["logging", "alert_profiles: Strict", "inputs: MC 01"]
        assert "--- before: alert_profiles: Strict" in lines and "+++ after: inputs: MC 01" in lines
    again = play.run([change], ts.name)
    assert again[0]["changed"] is False and "changes_summary" not in again[0]
    assert not [line for line in output_lines(again.output) if line.startswith("%s: inputs:" % ts.name)]

    out = play.run([state(fm, {"tuners": [{"tuner_id": 3, "stream": {"url": "udp://239.5.5.5:1234"}}]})], fm.name)
    assert out[0].get("failed") is not True, out[0]
    assert out[0]["changes_summary"] == ['tuners: update tuner 3: stream.url "udp://239.1.1.4:1234" ->'
                                         ' "udp://239.5.5.5:1234"'], out[0]["changes_summary"]
    assert "%s: %s" % (fm.name, out[0]["changes_summary"][0]) in output_lines(out.output)
    assert "--- before: tuners: tuner 3" in output_lines(out.output)


@pytest.mark.parametrize("mode", ["direct", "module"])
def test_a_part_warning_is_its_message(play, sim, ts, mode):
    """Issue 29 item 8: a part's warning reads as the module's message, headed with the part (as
    device_onboard gives them), not as the object ansible-core 2.19 hands over; the same with
    module processes."""
    Api(ts).add_input("Twin")
    Api(ts).add_input("Twin")
    env = {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"} if mode == "module" else None
    out = play.run([state(ts, {"inputs": INPUTS})], ts.name, check=True, env=env)
    result = out[0]
    assert result.get("failed") is not True, result
    assert result["warnings"] == ["inputs: the device holds several inputs with one name: 'Twin' (ids 1, 2); left"
                                  " alone (state=overridden or deleted removes the extra copies)"], result["warnings"]
    assert "WarningSummary" not in out.output

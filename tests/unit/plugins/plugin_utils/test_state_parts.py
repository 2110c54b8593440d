"""Unit tests of the parts device_state applies: which run, in what order, with what arguments."""

from __future__ import annotations

import re

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._device_state import ARGUMENT_SPEC, DEVICE_TYPES
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._state_parts import (
    PARTS,
    PURGED,
    module_args,
    part_names,
    plain,
    plan,
    purge_of,
    refused,
    role_names,
    warning_text,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import PartError
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.arguments import planned_unused_profiles

# every part of either device type, purged or not (the options purge_of builds)
KEEP = {"purge": dict.fromkeys(PURGED["ts_analyzer"] + PURGED["fm_monitor"], False), "reboot": False}
PURGE = {"purge": dict.fromkeys(PURGED["ts_analyzer"] + PURGED["fm_monitor"], True), "reboot": True}


def args(device_type, parts, options, results=None):
    """{part: module arguments} of every declared part (of its first pass, for a part with two)."""
    built = {}
    for part in plan(device_type, parts):
        built.setdefault(part.name, module_args(part, parts, options, results or {}))
    return built


def test_the_spec_offers_exactly_the_device_types_that_have_parts():
    assert sorted(PARTS) == DEVICE_TYPES == ARGUMENT_SPEC["device_type"]["choices"]


def test_only_declared_parts_run_in_the_fixed_order():
    parts = {"inputs": [], "snmp": {"enabled": True}, "network": None, "converters": None, "time": {"ntp": True}}
    assert [(p.name, p.module) for p in plan("ts_analyzer", parts)] == [
        ("time", "device_time"), ("snmp", "ts_snmp"), ("inputs", "ts_input")]
    assert plan("fm_monitor", {"tuners": None}) == []


def test_an_fm_part_runs_when_either_its_list_or_its_all_tuners_value_is_declared():
    assert [p.module for p in plan("fm_monitor", {"thresholds_all": {"snr": {"min": 15}}, "schedules": []})] == [
        "fm_schedule", "fm_thresholds"]
    built = args("fm_monitor", {"thresholds_all": {"snr": {"min": 15}}, "tuners": [{"tuner_id": 1}]}, PURGE)
    assert built == {
        "tuners": {"state": "replaced", "config": [{"tuner_id": 1}]},
        "thresholds": {"state": "replaced", "config": [], "all_tuners": {"snr": {"min": 15}}},
    }


def test_without_purge_everything_is_merged_and_snmp_lists_are_added():
    built = args("ts_analyzer", {"snmp": {"enabled": True}, "alert_profiles": [{"name": "A"}], "inputs": [],
                                 "converters": [], "network": {"dhcp": True}}, KEEP)
    assert built == {
        "network": {"dhcp": True, "device_type": "ts_analyzer", "reboot": False},
        "snmp": {"enabled": True, "lists": "add"},
        "alert_profiles": {"state": "merged", "config": [{"name": "A"}]},
        "inputs": {"state": "merged", "config": []},
        "converters": {"state": "merged", "config": []},
    }


def test_purge_keeps_the_factory_profile_and_replaces_the_rest():
    built = args("ts_analyzer", {"snmp": {}, "alert_profiles": [{"name": "A"}], "converters": []}, PURGE)
    # the first pass deletes nothing: see test_purge_deletes_profiles_after_the_inputs_part
    assert built["alert_profiles"] == {"state": "replaced", "config": [{"name": "A"}], "reset_factory_profile": True}
    assert built["snmp"] == {"lists": "replace"}
    assert built["converters"]["state"] == "replaced"
    declared_default = [{"name": "Default", "errors": {}}]
    assert args("ts_analyzer", {"alert_profiles": declared_default}, PURGE)["alert_profiles"]["config"] == declared_default


def test_inputs_get_the_profile_ids_the_profiles_part_read():
    parts = {"alert_profiles": [], "inputs": [{"name": "Mux 1"}]}
    inputs = plan("ts_analyzer", parts)[1]
    assert module_args(inputs, parts, KEEP, {"alert_profiles": {"profile_ids": {"Default": 1}}}) == {
        "state": "merged", "config": [{"name": "Mux 1"}], "alert_profile_ids": {"Default": 1}}
    assert "alert_profile_ids" not in module_args(inputs, parts, KEEP, {"alert_profiles": {"failed": True}})


def test_declared_values_are_not_changed_in_place():
    profiles = [{"name": "A"}]
    args("ts_analyzer", {"alert_profiles": profiles}, PURGE)
    assert profiles == [{"name": "A"}]


@pytest.mark.parametrize("device_type, parts, message", [
    ("ts_analyzer", {"tuners": []}, "parts: tuners is not a part of a ts_analyzer; its parts are network, time,"),
    ("fm_monitor", {"inputs": [], "snmp": {}}, "parts: inputs, snmp are not a part of a fm_monitor"),
    ("ts_analyzer", {"inputs": {"name": "x"}}, "parts.inputs: must be a list, got dict"),
    ("ts_analyzer", {"network": ["dhcp"]}, "parts.network: must be a dict, got list"),
    ("fm_monitor", {"tuners_all": []}, "parts.tuners_all: must be a dict, got list"),
    ("fm_monitor", {"schedules": "none"}, "parts.schedules: must be a list, got str"),
])
def test_bad_parts_are_named_before_anything_runs(device_type, parts, message):
    with pytest.raises(PartError) as error:
        plan(device_type, parts)
    assert message in str(error.value)


def test_every_fm_key_is_offered():
    assert part_names("fm_monitor") == ["network", "time", "logging", "schedules", "schedules_all", "tuners",
                                        "tuners_all", "thresholds", "thresholds_all"]


def refusals(device_type, parts):
    return [problem for part in plan(device_type, parts)
            for problem in refused(part, module_args(part, parts, KEEP, {}))]


def test_arguments_are_checked_against_each_part_module_spec():
    assert refusals("ts_analyzer", {"snmp": {"enabled": True}, "inputs": [{"name": "Mux 1"}],
                                    "network": {"dhcp": True}}) == []
    problems = refusals("ts_analyzer", {"network": {"dhcp": "maybe"}, "snmp": {"enable": True},
                                        "inputs": [{"name": "Mux 1", "monitoring": "on"}]})
    assert len(problems) == 3, problems
    # ansible-core's own wording: "of type str" since 2.17, "of type <class 'str'>" in 2.16
    assert re.match(r"parts\.network: argument 'dhcp' is of type (str|<class 'str'>) and we were unable to convert "
                    r"to bool", problems[0]), problems[0]
    assert problems[1] == "parts.snmp: enable is not an option (did you mean enabled?)"
    assert problems[2] == "parts.inputs[0] (Mux 1): value of monitoring must be one of: started, stopped, got: on"
    (fm_problem,) = refusals("fm_monitor", {"tuners_all": {"volume": 3}})
    assert fm_problem == "parts.tuners_all: volume is not an option", fm_problem


def test_unknown_options_are_named_as_the_user_wrote_them():
    """Issue 30 item 8: the variable (or part) the user wrote, the list item, the path inside
    it, and the closest supported name; every unknown option, not only the last level's."""
    names = role_names("fm_monitor")
    parts = {"schedules_all": {"active": True, "events": {"Monday": [], "friday": [{"time": "06:00", "state": "on",
                                                                                    "stat": 1}]}},
             "schedules": [{"tuner_id": 2, "activ": True}], "tuners": [{"tuner_id": 0}, {"tuner_id": 1, "frequncy": 1}]}
    problems = [problem for part in plan("fm_monitor", parts)
                for problem in refused(part, module_args(part, parts, KEEP, {}), names)]
    assert problems == [
        "fm_monitor_schedules[0] (tuner 2): activ is not an option (did you mean active?)",
        "fm_monitor_schedules_all: events.Monday is not an option (did you mean events.monday?)",
        "fm_monitor_schedules_all: events.friday[0].stat is not an option (did you mean events.friday[0].state?)",
        "fm_monitor_schedules_all: value of state must be one of: disabled, enabled, sleep, got: on"
        " (in events.friday)",
        "fm_monitor_tuners[1] (tuner 1): frequncy is not an option (did you mean frequency?)",
    ], problems
    mux2 = {"name": "Mux 2", "alert_profle": "Strict", "source": {"multicast": {"adress": "239.1.1.1"}}}
    parts = {"inputs": [{"name": "Mux 1"}, mux2], "network": {"dnss": ["192.0.2.1"]}}
    problems = [problem for part in plan("ts_analyzer", parts)
                for problem in refused(part, module_args(part, parts, KEEP, {}), role_names("ts_analyzer"))]
    assert problems == [
        "ts_analyzer_network: dnss is not an option (did you mean dns?)",
        "ts_analyzer_inputs[1] (Mux 2): alert_profle is not an option (did you mean alert_profile?)",
        "ts_analyzer_inputs[1] (Mux 2): source.multicast.adress is not an option (did you mean source.multicast.address?)",
        "ts_analyzer_inputs[1] (Mux 2): missing required arguments: address, port (in source.multicast)",
    ], problems
    # a module's own check, in the same terms
    parts = {"inputs": [{"name": "Mux 1", "source": {"multicast": {"address": "10.0.0.1", "port": 5000}}}]}
    (problem,) = [problem for part in plan("ts_analyzer", parts)
                  for problem in refused(part, module_args(part, parts, KEEP, {}), role_names("ts_analyzer"))]
    assert problem.startswith("ts_analyzer_inputs[0] (Mux 1): source.multicast.address: must be a multicast address"), problem


def test_purge_deletes_profiles_after_the_inputs_part():
    parts = {"alert_profiles": [{"name": "New"}], "inputs": [{"name": "Mux 1", "alert_profile": "New"}]}
    order = [(p.name, p.module) for p in plan("ts_analyzer", parts)]
    assert order == [("alert_profiles", "ts_alert_profile"), ("inputs", "ts_input"),
                     ("alert_profiles", "ts_alert_profile")]
    second = plan("ts_analyzer", parts)[2]
    left = {"alert_profiles": {"after": [{"name": "Default"}, {"name": "New"}, {"name": "Old"}], "factory_profile": "Default"}}
    assert module_args(second, parts, PURGE, left) == {
        "state": "overridden", "config": [{"name": "New"}], "reset_factory_profile": True}
    # nothing undeclared left, no purge, or a failed first pass: no second pass
    assert module_args(second, parts, PURGE, {"alert_profiles": {"after": [{"name": "Default"}, {"name": "New"}],
                                                                 "factory_profile": "Default"}}) is None
    assert module_args(second, parts, KEEP, left) is None
    assert module_args(second, parts, PURGE, {"alert_profiles": {"failed": True}}) is None
    assert module_args(second, parts, PURGE, {}) is None


def test_the_second_pass_in_check_mode_is_planned_from_the_inputs_part():
    config = {"state": "overridden", "config": [{"name": "New"}, {"name": "Default"}]}
    first = {"after": [{"name": "Default"}, {"name": "New"}, {"name": "Old"}]}
    moved = {"after": [{"name": "Mux 1", "alert_profile": "New"}]}
    planned = planned_unused_profiles(config, {"alert_profiles": first, "inputs": moved})
    assert planned["changed"] is True and planned["changes"] == [{"action": "delete", "key": "Old"}]
    assert sorted(planned["diff"]["before"]) == ["Default", "New", "Old"] and sorted(planned["diff"]["after"]) == [
        "Default", "New"]
    stays = {"after": [{"name": "Mux 1", "alert_profile": "Old"}]}
    refused_plan = planned_unused_profiles(config, {"alert_profiles": first, "inputs": stays})
    assert refused_plan["failed"] is True and "input(s) 'Mux 1' use it" in refused_plan["msg"]
    assert planned_unused_profiles(config, {"alert_profiles": first}) is None  # no inputs part: the module runs


def test_each_part_follows_purge_unless_purge_parts_names_it():
    assert purge_of("ts_analyzer", True, {}) == {"snmp": True, "alert_profiles": True, "inputs": True,
                                                 "converters": True}
    assert purge_of("ts_analyzer", False, {"snmp": True, "inputs": None}) == {
        "snmp": True, "alert_profiles": False, "inputs": False, "converters": False}
    assert purge_of("fm_monitor", True, {"schedules": False}) == {"tuners": True, "thresholds": True,
                                                                  "schedules": False}


def test_only_snmp_purged_replaces_the_snmp_lists_and_merges_the_rest():
    options = {"purge": purge_of("ts_analyzer", False, {"snmp": True}), "reboot": False}
    built = args("ts_analyzer", {"snmp": {"trap_addresses": []}, "alert_profiles": [{"name": "A"}], "inputs": [],
                                 "converters": []}, options)
    assert built["snmp"]["lists"] == "replace"
    assert [built[name]["state"] for name in ("alert_profiles", "inputs", "converters")] == ["merged"] * 3
    assert built["alert_profiles"]["config"] == [{"name": "A"}]  # Default is added only when profiles are purged


@pytest.mark.parametrize("purge_parts, named", [
    ({"network": True}, "purge_parts: network is not purged on a ts_analyzer"),
    ({"tuners": True, "snmp": False}, "purge_parts: tuners is not purged"),
    ({"inputs": "sometimes"}, "purge_parts.inputs: must be a boolean"),
])
def test_a_wrong_purge_parts_entry_is_refused_naming_it(purge_parts, named):
    with pytest.raises(PartError, match=named):
        purge_of("ts_analyzer", False, purge_parts)


def test_a_warning_is_its_message_whatever_ansible_core_hands_over():
    """2.19 hands a module's warnings over as WarningSummary objects, 2.16 to 2.18 as text."""
    messages = pytest.importorskip("ansible.module_utils._internal._messages")
    summary = messages.WarningSummary(event=messages.Event(msg="the device holds two inputs named 'A'"))
    assert warning_text(summary) == "the device holds two inputs named 'A'"
    assert warning_text("the device holds two inputs named 'A'") == "the device holds two inputs named 'A'"


class _Marked(str):
    """A str subclass whose str() is itself, as ansible-core's unsafe text before 2.19."""

    def __str__(self):  # pylint: disable=invalid-str-returned
        return self  # (as ansible-core's own AnsibleUnsafeText.__str__)


def test_plain_gives_exact_builtin_types():
    value = plain({_Marked("name"): [_Marked("a"), 1, True, 2.5, None]})
    assert value == {"name": ["a", 1, True, 2.5, None]}
    assert [type(v) for v in value["name"]] == [str, int, bool, float, type(None)]
    assert [type(k) for k in value] == [str]

"""Unit tests of the role variable check: the names each role knows, and what is flagged."""

from __future__ import annotations

import os

import pytest

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import role_names, unknown_variables
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._state_parts import scheduled_states

ROLES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "roles")


@pytest.mark.parametrize("role", ["ts_analyzer", "fm_monitor", "backup", "restore", "firmware_rollout"])
def test_every_role_accepts_its_own_defaults_and_results(role):
    known, internal = role_names(os.path.join(ROLES, role))
    with open(os.path.join(ROLES, role, "defaults", "main.yml"), encoding="utf-8") as handle:
        defaults = [line.split(":")[0] for line in handle if line[:1].isalpha()]
    assert defaults and set(defaults) <= known, sorted(set(defaults) - known)
    assert unknown_variables(role + "_", dict.fromkeys(known | internal), known, internal) == []


def test_fm_monitor_results_are_internal_and_a_misspelling_is_named_with_the_closest_name():
    known, internal = role_names(os.path.join(ROLES, "fm_monitor"))
    assert {"fm_monitor_result", "fm_monitor_drift"} <= internal
    found = unknown_variables("fm_monitor_", {"fm_monitor_tuner": [], "fm_monitor__plan": 1, "fm_monitor_result": {},
                                              "fm_monitor_zzz": 1, "other_tuner": 1}, known, internal)
    assert found == [("fm_monitor_tuner", "fm_monitor_tuners"), ("fm_monitor_zzz", None)]


@pytest.mark.parametrize("parts, problems", [
    ({"tuners": [{"tuner_id": 0, "operating_state": "enabled"}], "schedules_all": {"active": True}}, 1),
    ({"tuners": [{"tuner_id": 0, "operating_state": "enabled"}], "schedules_all": {"active": True},
      "schedules": [{"tuner_id": 0, "active": "no"}]}, 0),
    ({"tuners": [{"tuner_id": 0, "operating_state": "enabled"}], "schedules": [{"tuner_id": 1, "active": True}]}, 0),
    ({"tuners": [{"tuner_id": 0, "name": "x"}], "schedules_all": {"active": True}}, 0),
    ({"tuners_all": {"operating_state": "sleep"}, "schedules": [{"tuner_id": 3, "active": True}]}, 1),
    ({"tuners": [{"tuner_id": 0, "operating_state": "enabled"}], "schedules_all": {"events": {}}}, 0),
])
def test_declared_state_and_active_schedule_for_one_tuner_are_refused(parts, problems):
    assert len(scheduled_states("fm_monitor", parts)) == problems
    assert scheduled_states("ts_analyzer", parts) == []

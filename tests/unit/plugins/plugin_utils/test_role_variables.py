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


def test_a_role_is_read_once_per_process_and_this_collections_roles_when_the_module_is_imported():
    from ansible_collections.broadcast.monitoring.plugins.plugin_utils import _role_variables
    path = os.path.join(ROLES, "ts_analyzer")
    assert os.path.realpath(path) in _role_variables._READ  # read at import, before Ansible forks a worker
    first = _role_variables.role_files(path)
    assert _role_variables.role_files(path) is first
    assert "ts_analyzer_inputs" in first.options and first.options["ts_analyzer_purge"]["type"] == "bool"


class _Role:
    _role_path = os.path.join(ROLES, "ts_analyzer")


class _Templar:
    """Replaces every template by "rendered", noting what it was given."""

    def __init__(self):
        self.given = []

    def template(self, value):
        self.given.append(value)
        return {name: "rendered" for name in value}


def test_role_values_are_checked_against_the_argument_spec_with_ansibles_messages():
    from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import role_values
    task_vars = {"ts_analyzer_purge": "sometimes", "ts_analyzer_port": "80", "device_port": 8080, "other": 1}
    values, errors = role_values(_Role(), task_vars, _Templar(), extra=["device_port"])
    assert {name: values[name] for name in task_vars if name in values} == {
        "ts_analyzer_purge": "sometimes", "ts_analyzer_port": "80", "device_port": 8080}
    assert len(errors) == 1 and errors[0].startswith(
        "argument 'ts_analyzer_purge' is of type str and we were unable to convert to bool"), errors
    assert role_values(_Role(), dict(task_vars, ts_analyzer_purge=True), _Templar())[1] == []


def test_only_the_role_variables_holding_a_template_are_templated():
    from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import role_values
    templar = _Templar()
    inputs = [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}]
    values, errors = role_values(_Role(), {"ts_analyzer_host": "{{ ansible_host }}", "ts_analyzer_inputs": inputs,
                                           "ts_analyzer_snmp": {"community": "{% raw %}x{% endraw %}"}}, templar)
    assert templar.given == [{"ts_analyzer_host": "{{ ansible_host }}",
                              "ts_analyzer_snmp": {"community": "{% raw %}x{% endraw %}"}}]
    assert {name: values[name] for name in ("ts_analyzer_host", "ts_analyzer_inputs", "ts_analyzer_snmp")} == {
        "ts_analyzer_host": "rendered", "ts_analyzer_inputs": inputs, "ts_analyzer_snmp": "rendered"}


@pytest.mark.parametrize("device_type", ["ts_analyzer", "fm_monitor"])
def test_outside_its_role_a_device_type_has_its_roles_defaults_where_the_inventory_sets_nothing(device_type):
    # site.yml runs device_state without the role: the role's defaults are not among the task's variables
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar

    from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import DeviceRole, role_values
    role = DeviceRole(device_type)
    assert role.get_name(include_role_fqcn=False) == device_type
    assert role.get_name() == "broadcast.monitoring." + device_type
    task_vars = {"inventory_hostname": "dev-1", "ansible_host": "127.0.0.9", device_type + "_purge": True}
    values, errors = role_values(role, task_vars, Templar(loader=DataLoader(), variables=task_vars))
    assert errors == []
    assert values[device_type + "_purge"] is True  # the inventory's, over the default (false)
    assert values[device_type + "_reboot"] is False and values[device_type + "_network"] is None
    # the default address is a template of the role's own (rendered on every ansible-core)
    assert values[device_type + "_host"] == "127.0.0.9"
    assert "ansible_host" not in values and "inventory_hostname" not in values


def test_device_state_takes_the_role_variables_by_name_and_the_fleets_where_the_roles_are_not_set():
    from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import device_state_arguments
    values = {"ts_analyzer_host": "10.0.0.1", "ts_analyzer_port": 8443, "device_port": 80,
              "broadcast_monitoring_protocol": "https", "ts_analyzer_password": None,
              "broadcast_monitoring_password": "fleet", "ts_analyzer_purge": True, "ts_analyzer_purge_snmp": False,
              "ts_analyzer_inputs": [], "ts_analyzer_reboot": False}
    assert device_state_arguments("ts_analyzer", values, ["inputs", "snmp"], ["snmp", "inputs"]) == {
        "host": "10.0.0.1", "port": 8443, "protocol": "https", "password": None, "purge": True, "reboot": False,
        "purge_parts": {"snmp": False, "inputs": None}, "parts": {"inputs": [], "snmp": None}}


def test_a_template_nested_in_a_role_default_is_rendered_too():
    from ansible.parsing.dataloader import DataLoader
    from ansible.template import Templar

    from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import variables
    task_vars = {"inventory_hostname": "dev-1"}
    defaults = {"demo_items": [{"name": "{{ inventory_hostname }}-a"}, 3], "demo_plain": {"a": "text"}}
    values = variables(["demo_items", "demo_plain"], task_vars, Templar(loader=DataLoader(), variables=task_vars),
                       defaults)
    assert values == {"demo_items": [{"name": "dev-1-a"}, 3], "demo_plain": {"a": "text"}}

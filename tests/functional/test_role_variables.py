"""Issue 21 item 7: a variable with a role's prefix that the role does not know (a misspelt
one) fails the role before any request, naming it and the closest known name; the
role_variables action that the fleet roles run first, and device_state's check_role_variables,
which the device roles use instead (one task per device fewer)."""

import json
import os

import pytest
import yaml

from .conftest import ROOT, ansible_playbook, connection, module_examples

DEVICES = ("ts-001", "ts-002", "fm-001", "fm-002")


def _requests(sim):
    return {name: sim.call(lambda name=name: list(sim.fleet.by_name(name).requests)) for name in DEVICES}


def _clear(sim):
    for name in DEVICES:
        sim.call(sim.fleet.by_name(name).requests.clear)


def _run(sim, collections_path, tmp_path, playbook, extra):
    hosts = tmp_path / "hosts.yml"
    sim.write_inventory(str(hosts))
    args = ["-i", str(hosts), "-i", os.path.join(ROOT, "playbooks", "inventory"), playbook, "-e", json.dumps(extra)]
    # the example inventory takes the password from the environment (no fallback)
    return ansible_playbook(sim, collections_path, tmp_path, args, env={"BROADCAST_MONITORING_PASSWORD": "admin"})


@pytest.mark.parametrize("group, extra, message", [
    ("fm", {"fm_monitor_tuner": [{"tuner_id": 0, "name": "Radio One"}]},
     "role fm_monitor: fm_monitor_tuner is not a variable of this role (did you mean fm_monitor_tuners?);"
     " nothing was run"),
    ("ts", {"ts_analyzer_input": []},
     "role ts_analyzer: ts_analyzer_input is not a variable of this role (did you mean ts_analyzer_inputs?)"),
])
def test_misspelt_variables_of_the_device_roles_fail_before_any_request(
        sim, collections_path, tmp_path, group, extra, message):
    _clear(sim)
    proc = _run(sim, collections_path, tmp_path, os.path.join(ROOT, "playbooks", "site.yml"), extra)
    assert proc.returncode != 0, proc.output
    assert message in proc.output, proc.output
    # the other group's play runs as usual; the role's own devices get no request at all
    assert {name: sent for name, sent in _requests(sim).items() if name.startswith(group)} == {
        name: [] for name in DEVICES if name.startswith(group)}


@pytest.mark.parametrize("group, extra, message", [
    ("ts", {"ts_analyzer_purge": "sometimes"},
     "argument 'ts_analyzer_purge' is of type str and we were unable to convert to bool"),
    ("fm", {"fm_monitor_snapshot_confirm_count": "twice"},
     "argument 'fm_monitor_snapshot_confirm_count' is of type str and we were unable to convert to int"),
])
def test_mistyped_variables_of_the_device_roles_fail_before_any_request(
        sim, collections_path, tmp_path, group, extra, message):
    """Issue 44: site.yml skips Ansible's own argument validation of the device roles
    (rolespec_validate: false); device_state's check_role_variables makes it, with its messages,
    before any request to the role's devices."""
    _clear(sim)
    proc = _run(sim, collections_path, tmp_path, os.path.join(ROOT, "playbooks", "site.yml"), extra)
    assert proc.returncode != 0, proc.output
    assert "Validation of arguments failed" in proc.output and message in proc.output, proc.output
    assert {name: sent for name, sent in _requests(sim).items() if name.startswith(group)} == {
        name: [] for name in DEVICES if name.startswith(group)}


@pytest.mark.parametrize("group, extra, messages", [
    ("fm", {"fm_monitor_schedules_all": {"active": True, "events": {"Monday": [{"time": "06:00", "state": "enabled"}]}},
            "fm_monitor_tuners": [{"tuner_id": 0}, {"tuner_id": 1, "frequncy": 94800}]},
     ["fm_monitor_schedules_all: events.Monday is not an option (did you mean events.monday?)",
      "fm_monitor_tuners[1] (tuner 1): frequncy is not an option (did you mean frequency?)"]),
    ("ts", {"ts_analyzer_inputs": [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}},
                                   {"name": "Mux 2", "alert_profle": "Contribution",
                                    "source": {"multicast": {"address": "239.1.1.2", "port": 5000}}}]},
     ["ts_analyzer_inputs[1] (Mux 2): alert_profle is not an option (did you mean alert_profile?)"]),
])
def test_nested_errors_name_the_role_variable_the_item_and_the_closest_name(
        sim, collections_path, tmp_path, group, extra, messages):
    """Issue 30 item 8: a misspelt option inside a role variable is named as the user wrote it:
    the variable, the list item (index and name), the path, and the closest supported name;
    nothing is sent to the role's devices."""
    _clear(sim)
    proc = _run(sim, collections_path, tmp_path, os.path.join(ROOT, "playbooks", "site.yml"), extra)
    assert proc.returncode != 0, proc.output
    for message in messages:
        assert message in proc.output, proc.output
    refusals = [line for line in proc.output.splitlines() if "nothing was run" in line]
    assert refusals and not [line for line in refusals if "parts." in line or "unsupported option" in line], refusals
    assert {name: sent for name, sent in _requests(sim).items() if name.startswith(group)} == {
        name: [] for name in DEVICES if name.startswith(group)}


@pytest.mark.parametrize("playbook, extra, message", [
    ("backup.yml", {"backup_hosts": "fm-002", "backup_dri": "/tmp/nowhere"},
     "role backup: backup_dri is not a variable of this role (did you mean backup_dir?)"),
    ("firmware_rollout.yml", {"firmware_rollout_hosts": "fm-002", "firmware_rollout_bundle": "/tmp/none.swu",
                              "firmware_rollout_timout": 5},
     "role firmware_rollout: firmware_rollout_timout is not a variable of this role"
     " (did you mean firmware_rollout_timeout?)"),
    ("restore.yml", {"restore_hosts": "fm-002", "restore_srcs": "/tmp/none.json", "restore_fleet_password": "x"},
     "role restore: restore_srcs is not a variable of this role (did you mean restore_src?)"),
])
def test_misspelt_variables_of_the_fleet_roles_fail_before_any_request(
        sim, collections_path, tmp_path, playbook, extra, message):
    device = sim.fleet.by_name("fm-002")
    # never the factory address: the restore role would look for a replaced device there
    extra = dict(extra, restore_factory_address=device.address)
    _clear(sim)
    proc = _run(sim, collections_path, tmp_path, os.path.join(ROOT, "playbooks", playbook), extra)
    assert proc.returncode != 0, proc.output
    assert message in proc.output, proc.output
    assert _requests(sim) == {name: [] for name in DEVICES}


@pytest.mark.parametrize("extra, message", [
    ({"fleet_status_device_type": "ts"},
     "Validation of arguments failed:\nvalue of fleet_status_device_type must be one of: ts_analyzer, fm_monitor, got: ts"),
    ({"fleet_status_dri": "status"},
     "role fleet_status: fleet_status_dri is not a variable of this role (did you mean fleet_status_dir?)"),
])
def test_bad_variables_of_the_status_play_fail_before_any_request(sim, collections_path, tmp_path, extra, message):
    """playbooks/fleet_status.yml skips Ansible's own argument validation of its role
    (rolespec_validate: false): its one task per device, fleet_status_reading, checks the role's
    variables by type with the same messages, and by name, before any request."""
    _clear(sim)
    proc = _run(sim, collections_path, tmp_path, os.path.join(ROOT, "playbooks", "fleet_status.yml"),
                dict(extra, status_dir=str(tmp_path / "status")))
    assert proc.returncode != 0, proc.output
    assert message in proc.output.replace("\\n", "\n"), proc.output
    assert _requests(sim) == {name: [] for name in DEVICES}
    assert not (tmp_path / "status").exists()


def test_documented_examples_run_as_written(sim, collections_path, tmp_path):
    """The EXAMPLES task as the first task of a role: a misspelt variable fails with the closest
    name; known ones, the role's own results (its register names, here from a first run of the
    role in the same play) and private ``<role>__`` names pass."""
    role = tmp_path / "roles" / "demo"
    (role / "meta").mkdir(parents=True)
    (role / "tasks").mkdir()
    (role / "meta" / "argument_specs.yml").write_text(yaml.safe_dump({"argument_specs": {"main": {
        "short_description": "demo", "options": {"demo_items": {"type": "list", "description": "items"}}}}}))
    tasks = module_examples("role_variables") + [
        {"name": "Use the items", "ansible.builtin.debug": {"msg": "{{ demo_items | default([]) }}"},
         "register": "demo_result"}]
    (role / "tasks" / "main.yml").write_text(yaml.safe_dump(tasks, sort_keys=False))

    def run(variables):
        playbook = tmp_path / "demo.yml"
        playbook.write_text(yaml.safe_dump([{"name": "Demo", "hosts": "localhost", "gather_facts": False,
                                             "vars": variables, "roles": ["demo", "demo"]}]))
        return ansible_playbook(sim, collections_path, tmp_path, ["-i", "localhost,", "-c", "local", str(playbook)])

    good = run({"demo_items": [1], "demo__cache": 2})
    assert good.returncode == 0, good.output
    bad = run({"demo_item": [1]})
    assert bad.returncode != 0
    assert "role demo: demo_item is not a variable of this role (did you mean demo_items?)" in bad.output, bad.output


def test_check_role_variables_outside_a_role_checks_the_role_of_its_device_type(play, sim):
    # site.yml runs device_state without including the role: the analyzer role's names and types still hold
    device = sim.fleet.by_name("ts-001")
    task = {"broadcast.monitoring.device_state": dict(connection(device), device_type="ts_analyzer",
                                                      check_role_variables=True)}
    _clear(sim)
    misspelt = play.run([task], device.name, extra_vars={"ts_analyzer_inptus": []})
    assert misspelt[0]["failed"] is True, misspelt
    assert "ts_analyzer_inptus is not a variable of this role (did you mean ts_analyzer_inputs?)" in misspelt[0]["msg"]
    mistyped = play.run([task], device.name, extra_vars={"ts_analyzer_purge": "sometimes"})
    assert mistyped[0]["failed"] is True and "ts_analyzer_purge" in mistyped[0]["msg"], mistyped
    # a device type that has no role is named as the bad value it is
    unknown = play.run([{"broadcast.monitoring.device_state": dict(
        connection(device), device_type="ts_analyser", check_role_variables=True)}], device.name)
    assert unknown[0]["failed"] is True and "device_type" in unknown[0]["msg"], unknown
    assert "not part of a role" not in unknown[0]["msg"], unknown
    assert _requests(sim)[device.name] == []

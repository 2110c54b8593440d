"""Direct execution (plugins/plugin_utils/_direct_execution.py): the collection's modules run
in the controller's worker process when the connection is local, and as module processes
where that cannot serve. Both ways must give the same results.

Module processes are counted with an interpreter that notes every start: a module process
is ``<ansible_python_interpreter> AnsiballZ_<module>.py``, direct execution starts none.
"""

import json
import os
import re
import stat
import sys

import pytest
import yaml

from tests.functional.device_api import Api
from tests.functional.conftest import EXAMPLE_VARS, Play, ansible_playbook, connection, module_examples
from tests.reliability import test_bad_input as bad_input
from bm_simulator.fleet import running_fleet

OFF = {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"}
MODES = {"direct": {}, "module": OFF}

#: modules whose EXAMPLES run for real in the comparison; the others' examples change what
#: the fleet is reached with (network, passwords), reboot it, need files, or write files at
#: fixed paths (ts_statistics: /tmp/mux1-alerts.csv, which the other mode would then find
#: unchanged), and run in check mode only
WRITTEN = ("ts_input", "ts_alert_profile", "ts_snmp", "ts_converter", "ts_info",
           "fm_tuner", "fm_thresholds", "fm_schedule", "fm_info", "device_time", "device_logging",
           "device_login", "device_compatibility", "device_state")
CHECKED_ONLY = ("device_network", "device_password", "device_reboot", "device_firmware", "device_restore",
                "device_backup", "ts_recording", "fm_actions", "fm_station", "ts_statistics")

#: result keys whose values are clocks or per-login (a token): compared by type only
CLOCKS = {"ts", "uptime", "system_uptime", "streamer_uptime", "from_time", "to_time", "datetime", "from", "till",
          "clock_drift", "token"}
#: modules that report live measurements (signal, error counters, alarms, station scans): their
#: results are compared by shape (keys and types) beside changed, failed and msg
READS = ("ts_info", "fm_info", "ts_statistics", "fm_station", "device_snapshot")
#: result keys holding measurements: the numbers below them are compared by type only
MEASURED = {"metrics", "errors", "cpu_load", "load_average_1min", "load_average_5min", "load_average_15min",
            "memory_free"}


@pytest.fixture(scope="module")
def twins():
    """Two fleets of the same devices (same seed), one for each way of running modules."""
    with running_fleet(ts=1, fm=1, time_scale=0.02, seed=7) as first, \
            running_fleet(ts=1, fm=1, time_scale=0.02, seed=7) as second:
        yield {"module": first, "direct": second}


OURS = sorted(n[:-3] for n in os.listdir(os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "modules"))
              if n.endswith(".py"))


@pytest.fixture
def counter(tmp_path):
    """(interpreter path, starts()): an interpreter that records each start of a module
    process; starts() lists those of this collection's modules, in order."""
    log = tmp_path / "module-processes.log"
    script = tmp_path / "counted-python"
    script.write_text('#!/bin/sh\necho "$@" >> %s\nexec %s "$@"\n' % (log, sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)

    def starts():
        names = [line.split("AnsiballZ_")[-1].split(".py")[0] for line in
                 (log.read_text().splitlines() if log.exists() else []) if "AnsiballZ_" in line]
        return [name for name in names if name in OURS]
    return str(script), starts


def analyzer_tasks(device):
    args = connection(device)
    return [
        {"name": "info", "broadcast.monitoring.ts_info": dict(args, gather_subset=["system_device"])},
        {"name": "snmp", "broadcast.monitoring.ts_snmp": dict(args, trap_addresses=["192.0.2.7:162"])},
        {"name": "state", "broadcast.monitoring.device_state": dict(
            args, device_type="ts_analyzer", parts={"logging": {"level": "warning"}})},
    ]


def test_no_module_process_with_a_local_connection(play, sim, counter):
    device = sim.fleet.by_name("ts-001")
    interpreter, starts = counter
    out = play.run(analyzer_tasks(device), device.name, extra_vars={"ansible_python_interpreter": interpreter})
    assert [r.get("failed", False) for r in out.results] == [False, False, False], out.results
    assert out[2]["modules"] == ["device_login", "device_logging", "device_logging"]
    assert "runs in the controller's process" in out.output
    assert starts() == []


@pytest.mark.parametrize("how", ["variable", "environment"])
def test_opting_out_runs_module_processes(play, sim, counter, how):
    device = sim.fleet.by_name("ts-001")
    interpreter, starts = counter
    extra = {"ansible_python_interpreter": interpreter}
    if how == "variable":
        extra["broadcast_monitoring_direct_execution"] = False
    out = play.run(analyzer_tasks(device), device.name, extra_vars=extra, env=OFF if how == "environment" else None)
    assert [r.get("failed", False) for r in out.results] == [False, False, False], out.results
    ran = starts()
    # device_state's parts: its login, then logging planned (check mode) and, unchanged, not run again
    assert ran == ["ts_info", "ts_snmp", "device_login", "device_logging"], ran


def test_a_setting_that_is_not_a_boolean_is_refused(play, sim):
    device = sim.fleet.by_name("ts-001")
    out = play.run(analyzer_tasks(device)[:1], device.name, extra_vars={"broadcast_monitoring_direct_execution": "sometimes"})
    assert out[0]["failed"] is True
    assert "broadcast_monitoring_direct_execution: want a boolean" in out[0]["msg"]


def test_async_task_runs_as_a_module_process(play, sim, counter):
    device = sim.fleet.by_name("ts-001")
    interpreter, starts = counter
    task = dict(analyzer_tasks(device)[0], **{"async": 60, "poll": 1})
    out = play.run([task], device.name, extra_vars={"ansible_python_interpreter": interpreter})
    assert out[0].get("failed", False) is False and out[0]["system_device"], out[0]
    assert starts() and set(starts()) == {"ts_info"}  # async_wrapper, then the module


def test_task_delegated_to_a_jump_host_runs_as_a_module_process(play, sim, counter, tmp_path):
    """A site jump host reached over another connection than local: the module must run
    there, as a module process. The stand-in connection runs on this machine, under another
    name than local."""
    plugins = tmp_path / "connection_plugins"
    plugins.mkdir()
    (plugins / "jumphost.py").write_text(JUMPHOST_CONNECTION)
    device = sim.fleet.by_name("ts-001")
    interpreter, starts = counter
    tasks = [dict(analyzer_tasks(device)[0], delegate_to="jump")]
    out = play.run(tasks, device.name, env={"ANSIBLE_CONNECTION_PLUGINS": str(plugins)},
                   other_hosts={"jump": {"ansible_connection": "jumphost", "ansible_python_interpreter": interpreter}})
    assert out[0].get("failed", False) is False and out[0]["system_device"], out[0]
    assert starts() == ["ts_info"], starts()
    assert "runs as a module process: connection jumphost, not local" in out.output


JUMPHOST_CONNECTION = '''
from __future__ import annotations

DOCUMENTATION = """
name: jumphost
short_description: a stand-in for a remote jump host (runs locally under another name)
description: [Test double.]
author: broadcast.monitoring contributors
extends_documentation_fragment: [connection_pipelining]
"""

from ansible.plugins.connection.local import Connection as Local


class Connection(Local):
    transport = "jumphost"
'''


#: the device's time as fm_schedule's messages give it
DEVICE_TIME = re.compile(r"\((monday|tuesday|wednesday|thursday|friday|saturday|sunday) \d\d:\d\d\)")


def normalised(value, measured=False):
    """``value`` with clocks (CLOCKS) and measurements (every number below a MEASURED key)
    reduced to their type."""
    if isinstance(value, dict):
        return {k: "<%s>" % type(v).__name__ if k in CLOCKS and v is not None else normalised(v, measured or k in MEASURED)
                for k, v in value.items()}
    if isinstance(value, list):
        return [normalised(v, measured) for v in value]
    if measured and isinstance(value, (int, float)) and not isinstance(value, bool):
        return "<number>"
    if isinstance(value, str) and "Valid booleans include: " in value:
        return value.split("Valid booleans include: ")[0]  # printed from a set: its order varies by process
    if isinstance(value, str):
        # a message naming the device's time ("at the device's time (saturday 10:36)"): the two runs
        # are minutes apart
        return DEVICE_TIME.sub("(<weekday> <hh:mm>)", value)
    return value


def shape(result):
    """A read's result as its keys and their types: what is below varies with the signal."""
    return {key: type(value).__name__ for key, value in result.items()}


def comparable(results, tasks, fleet):
    """The results of ``tasks`` as they can be compared between the twin fleets."""
    kept = []
    for task, result in zip(tasks, results):
        if any(key.split(".")[-1] in READS for key in task):
            result = dict(shape(result), **{key: result.get(key) for key in ("changed", "failed", "msg")})
        kept.append(normalised(result))
    text = json.dumps(kept, sort_keys=True)
    for device in fleet.devices:
        text = text.replace(device.address, "<address of %s>" % device.name)
        text = text.replace(str(device.port), "<port>")
    return json.loads(text)


def run_both(twins, collections_path, tmp_path, tasks_for, host, check=False):
    """``tasks_for(fleet)`` run on ``host`` of each twin fleet, one way each; their comparable results."""
    out = {}
    for mode, fleet in sorted(twins.items()):
        workdir = tmp_path / ("%s-%d" % (mode, len(list(tmp_path.glob(mode + "-*")))))
        workdir.mkdir()
        play = Play(fleet, collections_path, workdir)
        tasks = tasks_for(fleet)
        run = play.run(tasks, host, check=check, extra_vars=EXAMPLE_VARS, env=MODES[mode],
                       cwd=str(workdir))
        assert ("runs in the controller's process" in run.output) is (mode == "direct")
        out[mode] = comparable(run.results, tasks, fleet)
    return out


def differences(out):
    direct, module = out["direct"], out["module"]
    return [(index, key, module[index].get(key), direct[index].get(key))
            for index in range(len(direct)) for key in sorted(set(direct[index]) | set(module[index]))
            if direct[index].get(key) != module[index].get(key)]


def examples_for(kind):
    names = [name for name in OURS if name != "role_variables"]
    own = "ts_" if kind == "ts_analyzer" else "fm_"
    return [name for name in names if name.startswith((own, "device_"))]


@pytest.mark.parametrize("kind", ["ts_analyzer", "fm_monitor"])
def test_module_examples_give_the_same_results_both_ways(twins, collections_path, tmp_path, kind):
    """Every module's documented examples, in check mode (all of them) and then for real (those
    that leave the fleet reachable), on twin devices: the same results, field by field."""
    host = "ts-001" if kind == "ts_analyzer" else "fm-001"
    names = examples_for(kind)
    checked = [task for name in names for task in module_examples(name)]
    out = run_both(twins, collections_path, tmp_path, lambda fleet: checked, host, check=True)
    assert differences(out) == [], json.dumps(differences(out), indent=1)
    written = [task for name in names if name in WRITTEN for task in module_examples(name)]
    out = run_both(twins, collections_path, tmp_path, lambda fleet: written, host)
    assert differences(out) == [], json.dumps(differences(out), indent=1)
    assert any(result.get("changed") for result in out["direct"])


@pytest.mark.parametrize("kind", ["ts", "fm"])
def test_bad_input_gives_the_same_results_both_ways(twins, collections_path, tmp_path, kind):
    """Argument validation and its messages: every bad-input case of the reliability suite."""
    files = tmp_path / "files"
    files.mkdir()
    bad_input.prepare_files(files)
    cases = [case for case in bad_input.CASES if bad_input.device_name(case).startswith(kind)]
    host = "%s-001" % kind

    def tasks_for(fleet):
        return [bad_input.task(case, fleet.fleet.by_name(host), files) for case in cases]
    out = run_both(twins, collections_path, tmp_path, tasks_for, host)
    assert differences(out) == []
    assert all(result.get("failed") for result in out["direct"])


def test_warnings_and_partial_failures_are_the_same_both_ways(twins, collections_path, tmp_path):
    """A warning (an analyzer holding two inputs of one name) and a write failing halfway
    (the update of an existing input refused by a device error): the same results."""
    mux = {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5002}}}
    new = {"name": "Mux 2", "source": {"multicast": {"address": "239.1.1.2", "port": 5000}}}
    plain = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}
    for fleet in twins.values():
        device = fleet.fleet.by_name("ts-001")
        fleet.call(device.reset)
        Api(device).add_input("Mux 1", plain)
        Api(device).add_input("Mux 1", plain)

    def tasks_for(fleet):
        args = connection(fleet.fleet.by_name("ts-001"))
        return [{"broadcast.monitoring.ts_input": dict(args, config=[], state="gathered")}]
    out = run_both(twins, collections_path, tmp_path, tasks_for, "ts-001")
    assert differences(out) == []
    assert "several inputs with one name" in out["direct"][0]["warnings"][0]

    for fleet in twins.values():
        device = fleet.fleet.by_name("ts-001")
        fleet.call(device.reset)
        Api(device).add_input("Mux 1", plain)
        fleet.call(device.faults.add, {"kind": "error", "count": 1, "path": "/api/inputs/1"})

    def writes_for(fleet):
        args = connection(fleet.fleet.by_name("ts-001"))
        return [{"broadcast.monitoring.ts_input": dict(args, config=[mux, new])}]
    out = run_both(twins, collections_path, tmp_path, writes_for, "ts-001")
    assert differences(out) == []
    failed = out["direct"][0]
    assert failed["failed"] is True and "not written" in failed["msg"] and "not_written" in failed, failed


#: a loop whose items each bring their environment: a password and an int (as YAML gives a
#: number) in the first, an int alone in the second, nothing in the third
LOOPED_ENVIRONMENTS = [{"BROADCAST_MONITORING_PASSWORD": "admin", "BROADCAST_MONITORING_TIMEOUT": 5},
                       {"BROADCAST_MONITORING_TIMEOUT": 7}, {}]


def looped_items(play, device, mode):
    """(failed, msg, timeout the module was given) of each item of a loop over
    LOOPED_ENVIRONMENTS (ts_info given no credential), run one way, and the output."""
    task = {"name": "info", "broadcast.monitoring.ts_info": {
        "host": device.address, "port": device.port, "gather_subset": ["system_device"]},
        "loop": LOOPED_ENVIRONMENTS, "environment": "{{ item }}"}
    out = play.run([task], device.name, env=MODES[mode])
    items = out[0]["results"]
    return [(item.get("failed", False), item.get("msg"), item.get("invocation", {}).get("module_args", {}).get("timeout"))
            for item in items], out.output


def test_a_loop_of_environments_gives_what_module_processes_give(play, sim):
    """Issue 29 item 2: the task's environment as a module process gets it (numbers as text),
    and nothing of one item's environment (a password) left for the next item, which has none."""
    device = sim.fleet.by_name("ts-001")
    results = {}
    for mode in ("module", "direct"):
        sim.call(device.requests.clear)
        results[mode], output = looped_items(play, device, mode)
        assert output.count("runs in the controller's process") == (3 if mode == "direct" else 0), output
        logins = [r["kind"] for r in sim.call(lambda: list(device.requests))].count("login")
        assert logins == 1, (mode, results[mode])
    first, second, third = results["module"]
    assert first == (False, None, 5)
    assert second[0] is True and "password: no password to log in with" in second[1] and second[2] == 7
    assert third[0] is True and "password: no password to log in with" in third[1] and third[2] == 10
    assert results["direct"] == results["module"]


@pytest.mark.parametrize("environment, why, fails", [
    ({"NOT-A-NAME": "x"}, "environment variable name 'NOT-A-NAME' is not a shell variable name", True),
    ({"PYTHONDONTWRITEBYTECODE": 1}, "environment variable PYTHONDONTWRITEBYTECODE is read when a process starts",
     False),
])
def test_an_environment_this_process_cannot_take_runs_a_module_process(play, sim, counter, environment, why, fails):
    """A variable name the shell does not take (the shell then fails to start the module
    process), or a variable only a starting process reads: the module runs as a module
    process, whatever that gives."""
    device = sim.fleet.by_name("ts-001")
    interpreter, starts = counter
    task = dict(analyzer_tasks(device)[0], environment=environment)
    results = {}
    for mode in ("module", "direct"):
        out = play.run([task], device.name, extra_vars={"ansible_python_interpreter": interpreter}, env=MODES[mode])
        results[mode] = {key: out[0].get(key) for key in ("failed", "msg", "rc", "module_stderr")}
        if mode == "direct":
            assert "runs as a module process: %s" % why in out.output
    assert results["direct"] == results["module"]
    assert results["direct"]["failed"] is fails, results
    if fails:
        assert "NOT-A-NAME=x: not found" in results["direct"]["module_stderr"], results
    else:
        assert starts() == ["ts_info", "ts_info"]


@pytest.mark.parametrize("started_in", ["a deleted directory", "another directory"])
def test_a_module_runs_where_a_module_process_runs(sim, collections_path, tmp_path, started_in):
    """Issue 29 item 2: ansible-playbook started in a directory that a first task deletes, or in
    another directory than the playbook's. ansible-core starts a module process of a local
    connection in the task's base directory (the playbook's): a relative path lands there, both
    ways, and the worker is left where it was."""
    device = sim.fleet.by_name("ts-001")
    inventory = tmp_path / "inventory.yml"
    sim.write_inventory(str(inventory))
    for mode in ("module", "direct"):
        start, base = tmp_path / ("start-" + mode), tmp_path / ("playbook-" + mode)
        start.mkdir()
        base.mkdir()
        saved = base / "results.json"
        tasks = [
            dict(analyzer_tasks(device)[0], register="info", ignore_errors=True),
            {"name": "backup", "register": "backup", "ignore_errors": True, "broadcast.monitoring.device_backup": dict(
                connection(device), device_type="ts_analyzer", dest="relative.json")},
            # (ansible.builtin.copy, which the Play helper saves with, fails in a deleted directory)
            {"name": "save", "ansible.builtin.command": {
                "argv": ["sh", "-c", 'cat > "$0"', str(saved)], "stdin": "{{ [info, backup] | to_json }}"}},
        ]
        if started_in == "a deleted directory":
            tasks.insert(0, {"name": "delete the directory ansible-playbook runs in",
                             "ansible.builtin.file": {"path": str(start), "state": "absent"}})
        playbook = base / "play.yml"
        playbook.write_text(yaml.safe_dump([{"hosts": device.name, "gather_facts": False, "tasks": tasks}]))
        proc = ansible_playbook(sim, collections_path, tmp_path, ["-i", str(inventory), str(playbook)],
                                env=MODES[mode], cwd=str(start))
        assert saved.exists(), proc.output
        info, backup = json.loads(saved.read_text())
        assert info.get("failed", False) is False and info["system_device"], (mode, info)
        assert backup.get("failed", False) is False, (mode, backup)
        assert (base / "relative.json").is_file() and not (start / "relative.json").exists(), mode
        assert start.exists() is (started_in == "another directory")
        assert ("runs in the controller's process" in proc.output) is (mode == "direct")

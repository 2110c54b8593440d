"""Direct execution runs module after module in one process (a worker runs device_state's
parts one after another): nothing may pass from one module to the next but what each is
given. These tests run modules the way the action does (``run_in_process``), in this
process, against a simulated device over HTTP."""

import copy
import importlib
import json
import locale
import os
import pkgutil

import pytest
from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings

from ansible_collections.broadcast.monitoring.plugins import module_utils
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._direct_execution import run_in_process
from tests.functional.device_api import Api
from tests.functional.conftest import connection

INFO = "broadcast.monitoring.ts_info"


def run(name, args, environment=None, check=False, directory=None):
    """The module's result (and exit code), as direct execution gives it."""
    internal = {"_ansible_check_mode": check, "_ansible_diff": True, "_ansible_module_name": name}
    stdout, stderr, code = run_in_process(name, dict(args, **internal), environment or {}, directory)
    return (json.loads(stdout) if stdout.strip() else {"stderr": stderr}), code


def frozen(value):
    """``value`` as plain data that compares by content (objects by their attributes)."""
    if isinstance(value, dict):
        return {repr(k): frozen(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [frozen(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(frozen(v)) for v in value)
    if hasattr(value, "__dict__") and not callable(value):
        return {"%s object" % type(value).__name__: frozen(vars(value))}
    return value


def module_state():
    """Every module-level value of the collection's module_utils, and what ansible-core keeps
    for a module in this process."""
    state = {}
    # walk_packages: the device folders (_ts, _fm) are subpackages
    for info in pkgutil.walk_packages(module_utils.__path__, module_utils.__name__ + "."):
        module = importlib.import_module(info.name)
        short = info.name[len(module_utils.__name__) + 1:]
        for name, value in vars(module).items():
            if not name.startswith("__") and isinstance(value, (dict, list, set, str, int, float, tuple)):
                state["%s.%s" % (short, name)] = copy.deepcopy(frozen(value))
    state["ansible args"] = (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE, copy.deepcopy(basic._PARSED_MODULE_ARGS))
    state["warnings"] = (dict(module_warnings._global_warnings), dict(module_warnings._global_deprecations))
    state["environment"] = dict(os.environ)
    state["cwd"] = os.readlink("/proc/self/cwd")  # (getcwd() fails in a deleted directory)
    state["locale"] = locale.setlocale(locale.LC_ALL)
    return state


@pytest.fixture
def earlier_warnings():
    """A warning and a deprecation this process holds from before: they must still be there
    after any module, and never in a module's result."""
    module_warnings._global_warnings["a warning from before"] = None
    module_warnings._global_deprecations["a deprecation from before"] = None
    yield
    module_warnings._global_warnings.pop("a warning from before", None)
    module_warnings._global_deprecations.pop("a deprecation from before", None)


@pytest.fixture
def analyzer(sim):
    device = sim.fleet.by_name("ts-001")
    sim.call(device.reset)
    return device


def test_credentials_do_not_pass_to_the_next_module(analyzer):
    address = {"host": analyzer.address, "port": analyzer.port}
    first, code = run(INFO, dict(address, gather_subset=["system_device"]),
                      environment={"BROADCAST_MONITORING_PASSWORD": "admin"})
    assert code == 0 and first["system_device"], first
    second, code = run(INFO, dict(address, gather_subset=["system_device"]))
    assert code == 1 and second["failed"] is True
    assert "password" in second["msg"] and "token" in second["msg"], second["msg"]
    assert "BROADCAST_MONITORING_PASSWORD" not in os.environ


def test_warnings_are_the_module_result_and_stay_with_it(analyzer):
    """A module's warnings are in its result (as a module process returns them), and the
    next module's result does not repeat them."""
    plain = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}
    Api(analyzer).add_input("Mux 1", plain)
    Api(analyzer).add_input("Mux 1", plain)
    gathered = {"config": [], "state": "gathered"}
    warned, code = run("broadcast.monitoring.ts_input", dict(connection(analyzer), **gathered))
    # (as the module prints them: WarningSummary objects, which the controller decodes)
    assert code == 0 and "several inputs with one name" in json.dumps(warned.get("warnings")), warned
    snmp, code = run("broadcast.monitoring.ts_snmp", dict(connection(analyzer), enabled=True))
    assert code == 0 and "warnings" not in snmp, snmp
    assert module_warnings.get_warnings() == []


def test_a_module_run_leaves_this_process_as_it_was(analyzer, tmp_path, earlier_warnings):
    before = module_state()
    args = connection(analyzer)
    results = [
        run(INFO, dict(args, gather_subset=["all"])),
        run("broadcast.monitoring.ts_snmp", dict(args, enabled=True, trap_addresses=["192.0.2.8:162"])),
        run("broadcast.monitoring.ts_input", dict(args, config=[{"name": "Mux 9", "source": {
            "multicast": {"address": "239.9.9.9", "port": 5000}}}]), check=True),
        run("broadcast.monitoring.device_backup", dict(args, device_type="ts_analyzer", dest=str(tmp_path / "b.json"))),
        run("broadcast.monitoring.ts_snmp", dict(args, trap_addresses=["not an address"])),
        run("broadcast.monitoring.device_time", dict(args, device_type="ts_analyzer", timezone="Mars/Olympus")),
        # a locale AnsibleModule sets from the environment, and the password the environment gives
        run(INFO, {"host": analyzer.address, "port": analyzer.port, "gather_subset": ["system_device"]}, environment={
            "LC_ALL": "C", "BROADCAST_MONITORING_PASSWORD": "admin"}, directory=str(tmp_path)),
    ]
    assert [code for unused, code in results] == [0, 0, 0, 0, 1, 1, 0], results
    assert "a warning from before" not in json.dumps([result for result, unused in results])
    after = module_state()
    assert sorted(before) == sorted(after)
    assert [name for name in before if before[name] != after[name]] == []


def test_a_crashing_module_does_not_affect_the_next(analyzer, monkeypatch):
    module = importlib.import_module("ansible_collections.broadcast.monitoring.plugins.modules.ts_info")

    def crash(*args, **kwargs):
        raise RuntimeError("a bug in a module")
    monkeypatch.setattr(module, "DeviceModule", crash)
    crashed, code = run(INFO, connection(analyzer))
    assert code == 1 and "RuntimeError: a bug in a module" in crashed["stderr"]
    monkeypatch.undo()
    result, code = run(INFO, dict(connection(analyzer), gather_subset=["system_device"]))
    assert code == 0 and result["system_device"], result


@pytest.mark.parametrize("value", [5, "5\0"])
def test_an_environment_this_process_cannot_hold_changes_nothing(analyzer, earlier_warnings, value):
    """Issue 29 item 2: the environment is applied all or nothing. One that os.environ cannot
    hold (a number, a NUL) is refused before any of it is set, and the module's arguments
    (the password in them) are not left behind."""
    before = module_state()
    environment = {"BROADCAST_MONITORING_PASSWORD": "admin", "BROADCAST_MONITORING_TIMEOUT": value}
    with pytest.raises((TypeError, ValueError)):
        run(INFO, dict(connection(analyzer), gather_subset=["system_device"]), environment=environment)
    assert module_state() == before
    assert "BROADCAST_MONITORING_PASSWORD" not in os.environ


def test_a_failing_module_leaves_no_argument_behind(analyzer, earlier_warnings):
    """A module that fails (a wrong password) as one that succeeds: ansible-core's copy of its
    arguments (the password in clear) is put back, as are the warnings from before."""
    before = module_state()
    failed, code = run(INFO, dict(connection(analyzer, password="not the password"), gather_subset=["system_device"]))
    assert code == 1 and failed["failed"] is True, failed
    assert module_state() == before
    assert "not the password" not in repr(basic._PARSED_MODULE_ARGS)


def test_a_deleted_working_directory(analyzer, tmp_path, monkeypatch):
    """This process in a directory deleted meanwhile: the module runs where a module process
    started there would (ansible-core's AnsiballZ wrapper goes to the home directory), and this
    process is back in the deleted directory afterwards."""
    gone, home = tmp_path / "gone", tmp_path / "home"
    gone.mkdir()
    home.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    result, code = run("broadcast.monitoring.device_backup", dict(connection(analyzer), device_type="ts_analyzer",
                                                                  dest="relative.json"), environment={"HOME": str(home)})
    assert code == 0 and (home / "relative.json").is_file(), result
    assert os.readlink("/proc/self/cwd") == "%s (deleted)" % gone

"""Which modules go through direct execution, how the opt-out setting is read, and the task
environment as a module process gets it."""

import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible.plugins.loader import shell_loader

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._direct_execution import module_environment, opted_out

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
#: modules with an action plugin of their own: device_state, device_onboard and
#: fleet_status_reading run their modules through direct execution themselves; role_variables
#: starts no module at all
OWN_ACTION = {"device_state", "device_onboard", "fleet_status_reading", "role_variables"}


def test_every_module_is_routed_to_the_direct_execution_action():
    with open(os.path.join(ROOT, "meta", "runtime.yml"), encoding="utf-8") as handle:
        routing = yaml.safe_load(handle)["plugin_routing"]["modules"]
    modules = {name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules")) if name.endswith(".py")}
    routed = {name for name, entry in routing.items() if entry == {"action_plugin": "broadcast.monitoring.device_login"}}
    assert routed == modules - OWN_ACTION
    actions = {name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "action")) if name.endswith(".py")}
    assert actions == OWN_ACTION | {"device_login"}


@pytest.mark.parametrize("variable, environment, off", [
    (None, None, False), (None, "", False), (None, "false", True), (None, "0", True), (None, "yes", False),
    (False, None, True), (True, "false", False), ("no", None, True), ("true", "false", False),
])
def test_the_variable_decides_before_the_environment(variable, environment, off):
    assert opted_out(variable, environment) is off


def test_a_setting_that_is_not_a_boolean_names_itself():
    with pytest.raises(ValueError, match="broadcast_monitoring_direct_execution: want a boolean, got 'sometimes'"):
        opted_out("sometimes", None)
    with pytest.raises(ValueError, match="BROADCAST_MONITORING_DIRECT_EXECUTION: want a boolean"):
        opted_out(None, "maybe")


#: task environment values of every kind YAML and templates give
ENVIRONMENT = {"AN_INT": 5, "A_FLOAT": 2.5, "A_BOOL": False, "A_NULL": None, "A_LIST": ["a", 1], "A_DICT": {"k": "v"},
               "A_TEXT": "it's \"quoted\"\n$HOME `x` ü", "EMPTY": ""}


def test_the_environment_is_what_the_shell_hands_a_module_process():
    """The rule itself: ansible-core puts ``NAME=value`` words from its sh shell plugin's
    env_prefix in front of the module's command line; what the started process finds in its
    environment is what direct execution sets."""
    prefix = shell_loader.get("sh").env_prefix(**ENVIRONMENT)
    script = "import json, os, sys; print(json.dumps({k: os.environ.get(k) for k in sys.argv[1:]}))"
    command = "%s %s -c %s %s" % (prefix, sys.executable, json.dumps(script), " ".join(ENVIRONMENT))
    started = json.loads(subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, check=True).stdout)
    converted, why = module_environment(ENVIRONMENT)
    assert why is None
    assert converted == started
    assert converted["AN_INT"] == "5" and converted["A_BOOL"] == "False" and converted["A_NULL"] == "None"


@pytest.mark.parametrize("environment, why", [
    ({"MY-VAR": "x"}, "environment variable name 'MY-VAR' is not a shell variable name"),
    ({"1ST": "x"}, "environment variable name '1ST' is not a shell variable name"),
    ({"OK": "x", "NUL": "a\0b"}, "environment variable NUL holds a NUL character"),
    ({"PYTHONPATH": "/x"}, "environment variable PYTHONPATH is read when a process starts"),
    ({"LD_PRELOAD": "/x.so"}, "environment variable LD_PRELOAD is read when a process starts"),
])
def test_an_environment_this_process_cannot_take_is_refused_whole(environment, why):
    assert module_environment(environment) == (None, why)

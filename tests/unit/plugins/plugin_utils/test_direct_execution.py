"""Which modules go through direct execution, and how the opt-out setting is read."""

import os

import pytest
import yaml

from ansible_collections.broadcast.monitoring.plugins.plugin_utils.direct_execution import opted_out

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
#: modules with an action plugin of their own: device_state and device_onboard run their
#: modules through direct execution themselves; role_variables starts no module at all
OWN_ACTION = {"device_state", "device_onboard", "role_variables"}


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

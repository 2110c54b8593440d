"""The registry of device types (_devices.py, issue 45): every list of device types the
collection shows derives from it, and a name it does not know is an error naming those it does."""

from __future__ import annotations

import pytest
import yaml

from ansible_collections.broadcast.monitoring.plugins.doc_fragments.connection import ModuleDocFragment
from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_state, _onboard, _snapshot
from ansible_collections.broadcast.monitoring.plugins.module_utils._connection import DEVICE_TYPE_SPEC
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.modules import device_onboard, device_state


def documented_choices(doc, option="device_type"):
    return yaml.safe_load(doc)["options"][option]["choices"]


def test_the_choice_lists_are_the_registered_types():
    assert devices.NAMES == ("ts_analyzer", "fm_monitor")
    assert DEVICE_TYPE_SPEC["device_type"]["choices"] == ["auto"] + list(devices.NAMES)
    assert sorted(_onboard.ARGUMENT_SPEC["device_type"]["choices"]) == sorted(devices.NAMES)
    assert sorted(_device_state.ARGUMENT_SPEC["device_type"]["choices"]) == sorted(devices.NAMES)


def test_the_documented_choices_are_the_registered_types():
    """The doc fragment and the modules that document device_type themselves list what the
    registry holds (the documentation is static text: a new type is added there too)."""
    assert documented_choices(ModuleDocFragment.DEVICE_TYPE) == ["auto"] + list(devices.NAMES)
    for module in (device_onboard, device_state):
        assert sorted(documented_choices(module.DOCUMENTATION)) == sorted(devices.NAMES), module.__name__


@pytest.mark.parametrize("name", [None, "dvb_probe", "", 3])
def test_an_unknown_type_is_an_error_naming_the_known_ones(name):
    with pytest.raises(InputError) as caught:
        devices.device_type(name)
    assert caught.value.problems == ["device_type: unknown device type %r; the known device types are"
                                     " ts_analyzer, fm_monitor" % (name,)]
    with pytest.raises(InputError):
        devices.api(name)  # (it once fell back to the analyzer)


def test_each_type_is_its_folder():
    for name in devices.NAMES:
        kind = devices.device_type(name)
        assert kind.NAME == name == kind.api().KIND == kind.parts().KIND
        assert set(kind.snapshot().CHECKS) <= set(_snapshot.ALL_CHECKS)
        assert kind.api().__name__.rsplit(".", 2)[-2] == kind.__name__.rsplit(".", 2)[-2]


def test_detection_tries_a_rule_of_presence_before_a_rule_of_absence():
    assert [kind.NAME for kind in devices.detection_order()] == ["fm_monitor", "ts_analyzer"]

"""The module's fixed device facts agree with the simulator's (which follows the document):
kept here, since the unit tests run without the simulator."""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as dev
from bm_simulator import ts as simulator


def test_the_one_error_list_is_the_devices():
    assert dev.ERROR_NAMES == simulator.ERROR_NAMES
    assert len(set(dev.ERROR_NAMES)) == 37
    assert all(dev.factory_entry(n) == {k: v for k, v in simulator.default_entry(n).items() if k != "error_name"}
               for n in dev.ERROR_NAMES)

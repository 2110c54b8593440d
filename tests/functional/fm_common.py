"""Helpers shared by the FM monitor's functional tests (fm_* modules)."""

import copy

from .conftest import connection


def task(module, device, role="admin", name=None, **options):
    """One task of ``broadcast.monitoring.<module>`` against ``device``."""
    args = dict(connection(device, password=role, role=role), **options)
    return {"name": name or module, "broadcast.monitoring.%s" % module: args}


def writes(sim, device):
    """(method, path, status) of every write and action the device received."""
    return [(w["method"], w["path"], w["status"]) for w in sim.call(device.writes)]


def clear_log(sim, device):
    sim.call(device.requests.clear)


def tuners(sim, device):
    """The device's stored tuners (as it keeps them, not as a module shows them)."""
    return sim.call(lambda: copy.deepcopy(device.state["tuners"]))


def stations(sim, device):
    return sim.call(lambda: copy.deepcopy(device.state["stations"]))


def ok(result):
    assert result.get("failed") is not True, result
    return result

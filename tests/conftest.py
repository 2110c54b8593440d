"""Fixtures of every suite that runs a simulated fleet (its own ``sim`` fixture): the
functional and reliability suites."""

import pytest


def factory_device(sim, name):
    """The simulated device ``name`` of ``sim`` back in factory state, its request log empty."""
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    return device


@pytest.fixture
def ts(sim):
    """ts-001 in factory state."""
    return factory_device(sim, "ts-001")


@pytest.fixture
def fm(sim):
    """fm-001 in factory state."""
    return factory_device(sim, "fm-001")

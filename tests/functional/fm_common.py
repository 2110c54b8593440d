"""The FM monitor's stored state as the simulator keeps it, for the fm_* modules' tests."""

import copy


def tuners(sim, device):
    """The device's stored tuners (as it keeps them, not as a module shows them)."""
    return sim.call(lambda: copy.deepcopy(device.state["tuners"]))


def stations(sim, device):
    return sim.call(lambda: copy.deepcopy(device.state["stations"]))

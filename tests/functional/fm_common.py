"""The FM monitor's stored state as the simulator keeps it, for the fm_* modules' tests."""

import copy


def tuners(sim, device):
    """The device's stored tuners (as it keeps them, not as a module shows them)."""
    return sim.call(lambda: copy.deepcopy(device.state["tuners"]))


def stations(sim, device):
    return sim.call(lambda: copy.deepcopy(device.state["stations"]))


def seed_stations(sim, device, count=4):
    """Station records for the first ``count`` stations of the device's simulated band, stored
    as a band scan would leave them; returns the records."""
    freqs = sorted(device.band)[:count]
    records = [{"station_id": i, "frequency": f, "rssi": 50, "snr": 30, "timestamp": "2024-01-01T10:00:00Z"}
               for i, f in enumerate(freqs)]

    def store():
        device.state["stations"] = [dict(r) for r in records]
        device.state["next_station_id"] = count

    sim.call(store)
    return records

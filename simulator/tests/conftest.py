"""Fixtures for the simulator's own tests: a small fleet, one admin session per device type."""

import pytest

from bm_simulator.fleet import running_fleet
from sim_api import fresh_api


@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=2, fm=2, time_scale=0.01) as runner:
        yield runner


@pytest.fixture
def ts(fleet):
    return fresh_api(fleet, "ts_analyzer")


@pytest.fixture
def fm(fleet):
    return fresh_api(fleet, "fm_monitor")

"""The reliability and security suite (issue: faults, bad input, secrets, check mode,
idempotency at scale). It reuses the functional suite's fixtures, with a fleet of its own,
and renders docs/reliability.md from the figures its tests record."""

import os

import pytest

from tests.functional import conftest as functional
from tests.functional.conftest import LEAK_WATCH, Play, collections_dir
from tests.reliability import figures

#: the functional suite's fixture: this suite's session gets a fleet of its own from it
sim = functional.sim


@pytest.fixture(scope="session")
def collections_path(tmp_path_factory):
    return collections_dir(tmp_path_factory)


@pytest.fixture
def play(sim, collections_path, tmp_path):
    return Play(sim, collections_path, tmp_path)


def pytest_sessionfinish(session, exitstatus):
    if exitstatus == 0:
        if figures.whole_suite(session, os.path.dirname(__file__)):
            figures.record_leak_watch("secrets", "this suite", LEAK_WATCH)
        figures.write_report()

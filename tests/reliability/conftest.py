"""The reliability and security suite (issue: faults, bad input, secrets, check mode,
idempotency at scale). It reuses the functional suite's fixtures, with a fleet of its own,
and renders docs/reliability.md from the figures its tests record."""

import os

from tests.functional import conftest as functional
from tests.functional.conftest import LEAK_WATCH
from tests.reliability import figures

#: the functional suite's fixtures: this suite's session gets a fleet of its own from them
sim, collections_path, play = functional.sim, functional.collections_path, functional.play


def pytest_sessionfinish(session, exitstatus):
    if exitstatus == 0:
        if figures.whole_suite(session, os.path.dirname(__file__)):
            figures.record_leak_watch("secrets", "this suite", LEAK_WATCH)
        figures.write_report()

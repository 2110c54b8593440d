"""The one client stand-in of the unit tests (issue 32): ``_offline.Recorder``, which the
``parsed`` and ``rendered`` states already use, answering from a table of paths instead of a
backup. Tests of the client itself (test_client.py) fake the transport below it instead."""

from __future__ import annotations

import copy
import os
import sys

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _offline as offline
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_api

# The simulator's package (bm_simulator, which test_swu.py and test_simulator_agreement.py compare
# with) from this tree's simulator/src when it is not installed: ansible-test units copies
# tests/unit/requirements.txt away from the tree before pip reads it, so that file cannot name
# ./simulator; it lists the simulator's dependencies instead.
SIMULATOR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "simulator", "src")
if SIMULATOR not in sys.path:
    sys.path.append(SIMULATOR)


class RecordingClient(offline.Recorder):
    """Answers each read from ``answers`` (``{path: answer}``), loaded as the client loads a
    device's answer; records every request, and keeps what a write sends as ``Recorder`` does.

    An answer may also be a function of the request's body (a device that answers a query), or
    an exception, raised instead of answering (a device that refuses); a refused request is in
    ``requests`` but not in ``writes``. ``device`` is the device file whose ids a create assigns."""

    def __init__(self, answers=None, device=ts_api, role="admin"):  # no backup to read the answers from
        self.answers, self.names = dict(answers or {}), {}
        self.device, self.role = device, role
        self.counts = {"login": 0, "read": 0, "write": 0}
        self.writes, self.requests = [], []

    def request(self, method, path, body=None, idempotent=None, params=None, **unused):
        self.requests.append({"method": method, "path": path, "params": copy.deepcopy(params),
                              "body": copy.deepcopy(body)})
        answer = self.answers.get(path)
        if isinstance(answer, Exception):
            raise answer
        if callable(answer):
            return answer(body)
        return super().request(method, path, body=body, idempotent=idempotent)

    def paths(self, method=None):
        """The paths requested so far, in order (of ``method`` only when given)."""
        return [r["path"] for r in self.requests if method in (None, r["method"])]

    def sent(self, method=None):
        """The writes as ``(path, body)``, in order (of ``method`` only when given)."""
        return [(w["path"], w["body"]) for w in self.writes if method in (None, w["method"])]


@pytest.fixture
def recording_client():
    """``recording_client(answers, device=..., role=...)`` makes a RecordingClient."""
    return RecordingClient


@pytest.fixture(autouse=True)
def secrets_of_this_test_only(monkeypatch):
    """The process's secrets (_errors.SECRETS) start empty in every test: a password one test
    gives a client is not masked in the next test's values."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils import _errors as errors

    monkeypatch.setattr(errors, "SECRETS", errors.Secrets())

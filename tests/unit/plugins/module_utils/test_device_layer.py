"""Issue 19: every response shape of a device is read in its device API files (_ts/api.py,
_fm/api.py, their backup and snapshot parts, api_backup.py and api_snapshot.py, and what both
share, _device_api.py). The code
that plans and writes, the actions, the info readers and backup and restore take what the
device files give and never index a device's answer by the device's field names, so a firmware that names or shapes an answer differently is met in one file per
device type. Left out: the device files themselves, the files below them that speak the
protocol (_transport.py, _client.py, which reads the login answer, _shapes.py, _errors.py)
and _offline.py, which stands in for a device. A name below is how this code calls a
device's answer or one of its elements; an answer indexed right where it is read
(``client.get(...)["token"]``) is found whatever it is called."""

from __future__ import annotations

import os
import re

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE_UTILS = os.path.normpath(os.path.join(HERE, "..", "..", "..", "..", "plugins", "module_utils"))
NOT_CONSUMERS = ("_ts/api.py", "_fm/api.py", "_ts/api_backup.py", "_fm/api_backup.py", "_ts/api_snapshot.py",
                 "_fm/api_snapshot.py", "_device_api.py", "_transport.py", "_client.py", "_shapes.py", "_errors.py", "_offline.py")
ANSWER_NAMES = ("raw", "element", "created", "started", "answer", "stream", "station", "found")
INDEXED = re.compile(r"\b(?:%s)(?:\[\s*\"|\.get\(\s*\")" % "|".join(ANSWER_NAMES))
#: a request's answer indexed where it is read: client.get(...)["field"] (one level of nested parentheses)
READ_AND_INDEXED = re.compile(r"\bclient\.(?:get|post|put|patch|delete|request)\((?:[^()]|\([^()]*\))*\)"
                              r"\s*(?:\[\s*\"|\.get\(\s*\")")


def consumers():
    """Every module_utils file but those left out above (backup and restore included, however
    many files they are)."""
    found = []
    for directory, _dirs, files in os.walk(MODULE_UTILS):
        for name in files:
            path = os.path.relpath(os.path.join(directory, name), MODULE_UTILS).replace(os.sep, "/")
            if name.endswith(".py") and name != "__init__.py" and path not in NOT_CONSUMERS:
                found.append(path)
    return sorted(found)


def reads_of_answers(line):
    return INDEXED.search(line) or READ_AND_INDEXED.search(line)


@pytest.mark.parametrize("name", consumers())
def test_no_device_answer_is_indexed_outside_the_device_files(name):
    with open(os.path.join(MODULE_UTILS, name), encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    found = ["%s:%d: %s" % (name, number, line.strip()) for number, line in enumerate(lines, 1) if reads_of_answers(line)]
    assert found == [], "device fields read outside the device API files (_ts/api*.py, _fm/api*.py):\n" + "\n".join(found)


def test_the_check_finds_an_indexed_answer():
    assert reads_of_answers('name = raw["name"]') and reads_of_answers('uptime = answer.get("system_uptime")')
    assert reads_of_answers('once = client.get(dev.SDCARD_DOWNLOAD_TOKEN)["token"]')
    assert reads_of_answers('total = self.client.post(dev.ALERTS, dict(limit=1), idempotent=True).get("total")')
    assert not reads_of_answers('name = dev.element_name(raw)')
    assert not reads_of_answers('once = dev.download_token(client.get(dev.SDCARD_DOWNLOAD_TOKEN))')


def test_backup_and_restore_are_checked_too():
    assert [name for name in consumers() if "_backup" in name]

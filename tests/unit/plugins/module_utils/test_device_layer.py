"""Issue 19: every response shape of a device is read in its device file (_ts/api.py,
_fm/api.py). The code that plans and writes, the actions and the info readers take what the
device files give and never index a device's answer by the device's field names, so a
firmware that names or shapes an answer differently is met in one file per device type.
A backup keeps answers as read, by design (its device-side reading and requests are in the
api files' backup sections), and _offline.py stands in for a device: both are left out, except
for the backup's take and restore, which read through the api files. A name below is how this code calls a device's answer or one of its elements."""

from __future__ import annotations

import os
import re

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE_UTILS = os.path.join(HERE, "..", "..", "..", "..", "plugins", "module_utils")
CONSUMERS = ("_engine.py", "_ts/resources.py", "_fm/resources.py", "_ts/actions.py", "_fm/actions.py", "_ts/info.py",
             "_fm/info.py", "_gather.py", "_system.py", "_snapshot.py", "_compatibility.py", "_module.py",
             "_backup/take.py", "_backup/restore.py", "_backup/sections.py", "_backup/ts.py", "_backup/fm.py")
ANSWER_NAMES = ("raw", "element", "created", "started", "answer", "stream", "station", "found")
#: an answer's field read by name: through a variable of those names, or straight from a call
#: (``client.get(PATH)["token"]``)
INDEXED = re.compile(r"(?:\b(?:%s)(?:\[\s*\"|\.get\(\s*\"))|\)\[\s*\"" % "|".join(ANSWER_NAMES))


@pytest.mark.parametrize("name", CONSUMERS)
def test_no_device_answer_is_indexed_outside_the_device_files(name):
    with open(os.path.join(MODULE_UTILS, name), encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    found = ["%s:%d: %s" % (name, number, line.strip()) for number, line in enumerate(lines, 1) if INDEXED.search(line)]
    assert found == [], "device fields read outside _ts/api.py / _fm/api.py:\n" + "\n".join(found)


def test_the_check_finds_an_indexed_answer():
    assert INDEXED.search('name = raw["name"]') and INDEXED.search('uptime = answer.get("system_uptime")')
    assert not INDEXED.search('name = dev.input_name_of(raw)')
    assert INDEXED.search('once = client.get(dev.SDCARD_DOWNLOAD_TOKEN)["token"]')
    assert not INDEXED.search('once = dev.download_token(client.get(dev.SDCARD_DOWNLOAD_TOKEN))')

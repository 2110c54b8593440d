# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""device_compatibility: every answer the collection reads, read once, against what the
device file declares it reads of it (READ_SHAPES), for the first contact with a device type
or firmware the collection was not built against."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import DeviceError
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import compatibility


def report(device, client):
    """The module result: ``endpoints`` (one entry per declared answer), ``compatible``
    (nothing required is missing and every answer was read), and ``summary``."""
    endpoints, answers = [], {}
    for declared in device.READ_SHAPES:
        entry = {"path": declared.path}
        try:
            answers[declared.path] = client.get(declared.path)
            entry.update(compatibility(declared, answers[declared.path]))
        except DeviceError as err:  # a refused or failed read is reported, the others still run
            entry["error"] = err.describe()
        endpoints.append(entry)
    missing = sorted("%s %s" % (e["path"], name) for e in endpoints for name in e.get("missing_required", []))
    failed = [e["path"] for e in endpoints if "error" in e]
    return {
        "changed": False,
        "compatible": not missing and not failed,
        "device": identity(device, answers),
        "endpoints": endpoints,
        "summary": {
            "endpoints": len(endpoints),
            "missing_required": missing,
            "not_read": failed,
            "aliases": sorted("%s %s as %s" % (e["path"], name, alias) for e in endpoints
                              for name, alias in e.get("aliases", {}).items()),
            "extra_fields": sum(len(e.get("extra", [])) for e in endpoints),
        },
    }


class _Answered:
    """A client that answers from what the report already read: the identity costs no request."""

    def __init__(self, answers):
        self.answers = answers

    def get(self, path):
        return self.answers[path]


def identity(device, answers):
    """Model, serial number and firmware version as the device file reads them from the answers
    already read; each None when its answer was not read or lacks it."""
    try:
        return device.read_identity(_Answered(answers))
    except (KeyError, AttributeError, TypeError):
        return {"model": None, "serial_number": None, "firmware_version": None}

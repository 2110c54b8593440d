# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""device_compatibility: every answer the collection reads, read once, against what the
device file declares it reads of it (READ_SHAPES), for the first contact with a device type
or firmware the collection was not built against."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils.client import DeviceError
from ansible_collections.broadcast.monitoring.plugins.module_utils.shapes import compatibility


def report(module):
    """The module result: ``endpoints`` (one entry per declared answer), ``compatible``
    (nothing required is missing and every answer was read), and ``summary``."""
    endpoints = []
    for declared in module.device.READ_SHAPES:
        entry = {"path": declared.path}
        try:
            entry.update(compatibility(declared, module.client.get(declared.path)))
        except DeviceError as err:  # a refused or failed read is reported, the others still run
            entry["error"] = err.describe()
        endpoints.append(entry)
    missing = sorted("%s %s" % (e["path"], name) for e in endpoints for name in e.get("missing_required", []))
    failed = [e["path"] for e in endpoints if "error" in e]
    return {
        "changed": False,
        "compatible": not missing and not failed,
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

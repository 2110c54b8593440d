# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer in the fleet status (plugin_utils/_fleet_status.py): one input of a snapshot
as a status item, and how the page sums up a device's inputs. Everything read is data: text
fields become plain strings and nothing here is templated."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import plain_text

#: the page's column heading for the device's items
ITEMS_LABEL = "Inputs"
#: whether the device's items report TR 101 290 priority-1 errors (the page's column)
PRIORITY1 = True
#: the part whose items, as the device's role declares them (ts_analyzer_inputs), the status
#: compares with those on the device
DECLARED = "inputs"


def item(snapshot_item):
    """The status item of one input of a snapshot (api_snapshot's ``inputs``)."""
    monitored = snapshot_item.get("monitoring") is not False
    errors = [plain_text(e) for e in snapshot_item.get("priority1_errors") or []]
    off_air = monitored and snapshot_item.get("receiving") is not True
    return {
        "id": snapshot_item.get("id"), "name": plain_text(snapshot_item.get("name")), "kind": "input",
        "in_use": monitored, "working": snapshot_item.get("receiving") is True,
        "state": plain_text(snapshot_item.get("state")), "bitrate": snapshot_item.get("bitrate"),
        "priority1_errors": errors, "alarms": [plain_text(a) for a in snapshot_item.get("alarms") or []],
        "problem": "off air (%s)" % plain_text(snapshot_item.get("state")) if off_air else (
            "priority-1 errors: %s" % ", ".join(errors) if errors and monitored else ""),
        "critical": off_air,
    }


def items_summary(entry):
    """The page's cell for a device's inputs: how many receive, of how many declared (or on
    the device, when the inventory declares none)."""
    declared = entry.get("declared")
    of = "%s declared" % declared if declared is not None else "%d on the device" % len(entry.get("items") or [])
    return "%d receiving / %s" % (entry.get("working") or 0, of)

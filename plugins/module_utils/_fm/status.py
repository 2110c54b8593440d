# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The FM monitor in the fleet status (plugin_utils/_fleet_status.py): one tuner of a snapshot
as a status item, and how the page sums up a device's tuners. Everything read is data: text
fields become plain strings and nothing here is templated."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import plain_text
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.snapshot import IDLE_STATES

#: the page's column heading for the device's items
ITEMS_LABEL = "Tuners"
#: whether the device's items report TR 101 290 priority-1 errors (the page's column)
PRIORITY1 = False
#: the part whose declared items the status compares with those on the device: none (a monitor's
#: tuners are its hardware, all on the device whatever its role declares)
DECLARED = None


def item(snapshot_item):
    """The status item of one tuner of a snapshot (api_snapshot's ``tuners``): a tuner off by
    choice (IDLE_STATES) is not in use, so neither unlocked nor alarmed."""
    enabled = snapshot_item.get("state") not in IDLE_STATES
    locked = snapshot_item.get("tuned") is True
    alarms = [plain_text(a) for a in snapshot_item.get("alarms") or []]
    unlocked = enabled and not locked
    return {
        "id": snapshot_item.get("id"), "name": plain_text(snapshot_item.get("name")), "kind": "tuner",
        "in_use": enabled, "working": enabled and locked,
        "state": plain_text(snapshot_item.get("state")), "frequency": snapshot_item.get("frequency"), "rssi": snapshot_item.get("rssi"),
        "signal_ok": snapshot_item.get("signal_ok") is True, "priority1_errors": [], "alarms": alarms if enabled else [],
        "problem": "not locked" if unlocked else ("alarms: %s" % ", ".join(alarms) if enabled and alarms else ""),
        "critical": unlocked,
    }


def items_summary(entry):
    """The page's cell for a device's tuners: how many are locked, of how many enabled."""
    return "%d locked / %d enabled" % (entry.get("working") or 0, entry.get("in_use") or 0)

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the monitor's snapshot items (its tuners) mean to the comparison of _snapshot.py: the
checks that find their regressions, what a backup keeps of a tuner, how a tuner is named."""

from __future__ import annotations

#: the checks that find regressions of a tuner (``ignore`` takes their names: _snapshot.ALL_CHECKS)
CHECKS = ("present", "tuned", "signal_ok", "stream_enabled", "alarms")
#: the flags whose loss is a regression, with what the loss means
LOST = {
    "tuned": "was tuned (locked onto its frequency), now is not",
    "signal_ok": "had its signal above the RSSI threshold, now has not",
    "stream_enabled": "was streaming over IP, now is not",
}
#: what a backup keeps of a tuner (its id is its hardware slot)
BASELINE_FIELDS = ("id", "name", "state", "tuned", "stream_enabled")
#: the fields an item of a snapshot may be matched by
IDENTS = ("id",)
#: the tuner states in which a tuner measures nothing (a tuned tuner in them did not work)
IDLE_STATES = ("disabled", "sleep")


def baseline_order(items):
    """A backup's tuners in a stable order: the device's (by slot)."""
    return items


def label(item):
    """How a tuner is named in changes and regressions: ``tuner 0 (Tuner 1)``."""
    return "tuner %s (%s)" % (item.get("id"), item.get("name"))


def worked(item):
    """Whether a tuner was doing its job (enabled and tuned: locked onto its frequency): only
    a tuner that worked can regress."""
    return item.get("tuned") is True and item.get("state") not in IDLE_STATES


def lost_detail(flag, new):
    """What a lost flag's message adds about the tuner now: nothing."""
    return ""


def regressions(old, new):
    """(check, message) of the regressions beyond a lost flag: a quality alarm raised."""
    if "alarms" not in old:
        return []
    raised = [name for name in new.get("alarms") or [] if name not in (old.get("alarms") or [])]
    return [("alarms", "quality alarm(s) raised: %s" % ", ".join(raised))] if raised else []

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the analyzer's snapshot items (its inputs) mean to the comparison of _snapshot.py: the
checks that find its regressions, what a backup keeps of an input, how an input is named."""

from __future__ import annotations

#: the checks that find regressions of an input (``ignore`` takes their names: _snapshot.ALL_CHECKS)
CHECKS = ("present", "receiving", "bitrate", "priority1")
#: the flags whose loss is a regression, with what the loss means
LOST = {"receiving": "was receiving its stream, now does not"}
#: what a backup keeps of an input: its name (the input ids are the device's own, and a
#: restored input gets a new one) and whether it received
BASELINE_FIELDS = ("name", "receiving")
#: the fields an item of a snapshot may be matched by: an input of a backup's snapshot has no id
IDENTS = ("id", "name")


def baseline_order(items):
    """A backup's inputs in a stable order: by name."""
    return sorted(items, key=lambda i: str(i.get("name")))


def label(item):
    """How an input is named in changes and regressions: ``input Mux 1 (id 1)``."""
    if "id" not in item:  # an input of a backup's snapshot (the device's ids are not kept)
        return "input %s" % item.get("name")
    return "input %s (id %s)" % (item.get("name"), item.get("id"))


def worked(item):
    """Whether an input was doing its job (receiving): only an input that worked can regress."""
    return item.get("receiving") is True


def lost_detail(flag, new):
    """What a lost flag's message adds about the input now: its state."""
    return " (state %s)" % new.get("state") if new.get("state") else ""


def regressions(old, new):
    """(check, message) of the regressions beyond a lost flag: the bitrate gone, priority 1 no longer ok."""
    found = []
    if (old.get("bitrate") or 0) > 0 and not (new.get("bitrate") or 0) > 0:
        found.append(("bitrate", "bitrate fell from %s bit/s to %s" % (old.get("bitrate"), new.get("bitrate") or 0)))
    if old.get("priority1") == "ok" and new.get("priority1") not in ("ok", None):
        found.append(("priority1", "TR 101 290 priority 1 was ok, now %s (%s)" % (
            new.get("priority1"), ", ".join(new.get("priority1_errors") or []) or "no error named")))
    return found

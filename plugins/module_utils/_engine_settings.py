# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The engine for one settings object (not a keyed list, _engine.py): compare what the user
set with what the device has, write when it differs, honour check mode, report a diff; a
lost answer is judged by a read, never by a blind resend."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import merge, strip_unset
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import UNREACHABLE, ConcurrentChange, DeviceError


def write_settings(write, after, read):
    """``write(after)`` for a whole settings object. When the answer is lost, ``read()`` tells
    whether it landed, and it is written again only if not (a settings write replaces, so
    sending it twice leaves nothing behind, but a blind resend could hide a failure).
    Returns the ``lost_answers`` entries (none when the answer came)."""
    try:
        write(after)
        return []
    except DeviceError as err:
        if err.kind != UNREACHABLE:
            raise
    landed = read() == after
    if not landed:
        write(after)
    return [{"landed": landed}]


def reconcile_settings(current, desired, write, check_mode, atomic=(), normalise=None):
    """One settings object: merge what the user set into what the device has, write it
    when it differs. ``write(after)`` does the device writes."""
    normalise = normalise or (lambda obj: obj)
    before = normalise(current)
    after = normalise(merge(current, strip_unset(desired), atomic))
    changed = after != before
    if changed and not check_mode:
        write(after)
    return {"changed": changed, "before": before, "after": after, "diff": {"before": before, "after": after}}


def replace_settings(current, wanted, write, read, check_mode, normalise=None):
    """A settings object written back whole, exactly as kept (a restore): written when it
    differs from ``current`` once both go through ``normalise`` (an order that means nothing),
    a lost answer judged by ``read()`` (write_settings). The diff shows both as they are."""
    normalise = normalise or (lambda obj: obj)
    changed = normalise(wanted) != normalise(current)
    lost = []
    if changed and not check_mode:
        # what is sent is ``wanted`` itself; only the comparisons go through ``normalise``
        lost = write_settings(lambda unused: write(wanted), normalise(wanted), lambda: normalise(read()))
    return {"changed": changed, "diff": {"before": current, "after": wanted}, **({"lost_answers": lost} if lost else {})}


#: writes of a settings object merged from what the device has, before a concurrent change is reported
MERGE_ATTEMPTS = 3


def reconcile_read_back(read, desired_from, write, check_mode, atomic=(), normalise=None):
    """A settings object whose desired value depends on what the device has (addresses the
    user adds to a list, or removes from it), written whole. The device has no compare-and-set:
    another run writing the same object between this run's read and write makes one of the two
    writes vanish. So each write is read back; when what this run set is missing (merging it
    into the fresh read would change something), it is merged into that read and written again,
    at most MERGE_ATTEMPTS times; then ConcurrentChange. A write whose answer is lost is judged
    by the same read-back, never resent blindly. ``desired_from(current)`` gives what the user
    set, as ``reconcile_settings`` takes it; ``write(after)`` writes the whole object."""
    normalise = normalise or (lambda obj: obj)
    current = read()
    result = reconcile_settings(current, desired_from(current), None, True, atomic, normalise)
    if not result["changed"] or check_mode:
        return result
    after, lost, attempts = result["after"], [], 0
    while True:
        attempts += 1
        answered = True
        try:
            write(after)
        except DeviceError as err:
            if err.kind != UNREACHABLE:
                raise
            answered = False
        fresh = read()
        again = reconcile_settings(fresh, desired_from(fresh), None, True, atomic, normalise)
        if not answered:
            lost.append({"landed": not again["changed"]})
        if not again["changed"]:
            break
        if attempts == MERGE_ATTEMPTS:
            raise ConcurrentChange(
                "a concurrent change was detected: %d write(s) of the whole settings were read back and each time"
                " what this run set had been overwritten (another run or user writing the same settings at once);"
                " the device keeps the other writer's version. Run again once the other writer is done" % attempts)
        after = again["after"]
    result["after"] = result["diff"]["after"] = normalise(fresh)
    if lost:
        result["lost_answers"] = lost
    if attempts > 1:
        result["merged_again"] = attempts - 1
    return result

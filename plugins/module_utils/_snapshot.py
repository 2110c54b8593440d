# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Operational snapshots (device_snapshot, the snapshot_compare filter, the snapshot a backup
keeps): what a device is doing now, and what changed between two snapshots, with the
regressions among the changes: something that worked in the earlier snapshot and does not in
the later one. An input that was not receiving, or a tuner that was not enabled and tuned,
did not work: it cannot regress, whatever it does later.

The reading is the device API layers' (``api_snapshot.py``: ``snapshot_items``, ``snapshot_system``); the comparison
here is pure (two snapshots in, a result out) so that a role, a filter and the unit tests
share it.
"""

from __future__ import annotations

import datetime
import time

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError

#: device-wide fields: changes, never regressions
DEVICE_FIELDS = ("firmware_version", "reboot_needed")
#: item fields that move by themselves from one reading to the next: never a change
MEASURED_FIELDS = ("rssi",)
#: every check that finds regressions (``ignore`` takes their names; a role passes the same list
#: to every device type): each device type's snapshot.py names the ones of its items (CHECKS)
ALL_CHECKS = ("present", "receiving", "bitrate", "priority1", "tuned", "signal_ok", "stream_enabled", "alarms")
#: a bitrate that moved by at most this share of the earlier one is not listed as a change
#: (a live stream's rate varies a little from one reading to the next)
BITRATE_TOLERANCE = 0.05
#: what a backup keeps of a snapshot (``baseline``): what says whether an item worked, and
#: nothing that moves by itself (bitrates, errors, alarms, the clock), so that two backups of
#: an unchanged device stay equal byte for byte; of the items, what their device type's
#: snapshot.py keeps (BASELINE_FIELDS)
BASELINE_DEVICE_FIELDS = ("firmware_version",)


def take(api, client, now=None):
    """A snapshot of the device behind ``client`` (``api``: its API layer)."""
    kind = devices.device_type(api.KIND)
    taken = now or datetime.datetime.now(datetime.timezone.utc)
    out = {"device_type": api.KIND, "taken_at": taken.strftime("%Y-%m-%dT%H:%M:%SZ")}
    reader = devices.api_snapshot(kind.NAME)
    out.update(reader.snapshot_system(client))
    out[kind.ITEMS] = reader.snapshot_items(client)
    return out


def baseline(api, client):
    """What a backup keeps of the device's snapshot (BASELINE_*): its items in a stable order
    (its device type's), no clock."""
    snap = take(api, client)
    kind = devices.device_type(snap["device_type"])
    vocabulary = kind.snapshot()
    items = [dict((f, item.get(f)) for f in vocabulary.BASELINE_FIELDS) for item in snap[kind.ITEMS]]
    out = {"device_type": kind.NAME}
    out.update((f, snap.get(f)) for f in BASELINE_DEVICE_FIELDS)
    out[kind.ITEMS] = vocabulary.baseline_order(items)
    return out


def as_snapshot(value, name):
    """``value`` (an option) as a snapshot, or InputError naming ``name``. The whole registered
    result of device_snapshot is taken too (its ``snapshot``), and a backup document (the
    snapshot it keeps)."""
    if isinstance(value, dict) and str(value.get("format", "")).startswith("broadcast.monitoring.backup/"):
        if not isinstance(value.get("snapshot"), dict):
            raise InputError(["%s: this backup holds no snapshot (taken by an older release of the collection);"
                              " take a new backup with device_backup" % name])
        value = value["snapshot"]
    if isinstance(value, dict) and isinstance(value.get("snapshot"), dict) and "device_type" not in value:
        value = value["snapshot"]
    hint = ("give the snapshot of an earlier device_snapshot result (for example before.snapshot) or of a backup"
            " (its snapshot)")
    if not isinstance(value, dict):
        raise InputError(["%s: must be a snapshot (a dictionary); %s" % (name, hint)])
    name_given = value.get("device_type")
    if not devices.known(name_given):
        raise InputError(["%s: not a snapshot taken by device_snapshot (device_type %s is not one of %s); %s" % (
            name, "missing" if name_given is None else repr(name_given), ", ".join(devices.NAMES), hint)])
    kind = devices.device_type(name_given)
    idents = kind.snapshot().IDENTS
    items = value.get(kind.ITEMS)
    if not isinstance(items, list) or not all(isinstance(i, dict) and any(f in i for f in idents) for i in items):
        raise InputError(["%s: a snapshot of a %s holds %s, a list of dictionaries with %s; %s" % (
            name, kind.NAME, kind.ITEMS, " or ".join(("an " if f[0] in "aeiou" else "a ") + f for f in idents),
            hint)])
    return value


def check_ignore(ignore):
    """InputError for names in ``ignore`` that are no check (of either device type: a role
    passes the same list to both)."""
    unknown = [name for name in ignore or [] if name not in ALL_CHECKS]
    if unknown:
        raise InputError(["ignore: unknown check(s) %s; choose from %s" % (
            ", ".join(map(str, unknown)), ", ".join(ALL_CHECKS))])


def _close(old, new):
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in (old, new)):
        return False
    return abs(new - old) <= BITRATE_TOLERANCE * old


def _regressions(vocabulary, old, new):
    """(what, message) of each regression of one item present in both snapshots: none for an
    item that did not work in the earlier one. A check whose field the earlier snapshot does
    not hold (the snapshot of a backup keeps only some) is not made."""
    if not vocabulary.worked(old):
        return []
    found = []
    for flag, lost in vocabulary.LOST.items():
        if old.get(flag) is True and new.get(flag) is not True:
            found.append((flag, lost + vocabulary.lost_detail(flag, new)))
    return found + vocabulary.regressions(old, new)


def compare(before, after, ignore=()):
    """``{"regressions": [...], "changes": [...]}`` between two snapshots of one device.

    ``changes``: every difference, ``{item, what, before, after}`` (``item`` ``device`` for
    the firmware version and reboot_needed; ``what`` ``present`` for an item added or gone),
    in item order; a bitrate within BITRATE_TOLERANCE is not a change. ``regressions``:
    ``{item, what, before, after, message}`` for what worked before and does not after: an
    input that stopped receiving, lost its bitrate or its TR 101 290 priority-1 OK status; a
    tuner no longer tuned, its signal no longer OK, its stream stopped, a quality alarm
    raised; an item that worked and is gone (``present``). A recovered item is a change, not
    a regression. ``ignore`` names checks whose regressions are left out (still changes).
    """
    before, after = as_snapshot(before, "compare_to"), as_snapshot(after, "snapshot")
    kind = devices.device_type(after["device_type"])
    if before["device_type"] != kind.NAME:
        raise InputError(["compare_to: a snapshot of a %s, this is a %s" % (before["device_type"], kind.NAME)])
    check_ignore(ignore)
    key, vocabulary = kind.ITEMS, kind.snapshot()
    changes, regressions = [], []
    for field in DEVICE_FIELDS:
        if field in before and before.get(field) != after.get(field):
            changes.append({"item": "device", "what": field, "before": before.get(field), "after": after.get(field)})
    match = "id" if all("id" in i for i in before[key] + after[key]) else "name"
    old_items = dict((i.get(match), i) for i in before[key])
    new_items = dict((i.get(match), i) for i in after[key])
    for ident in sorted(set(old_items) | set(new_items), key=lambda v: (str(type(v)), v)):
        old, new = old_items.get(ident), new_items.get(ident)
        name = vocabulary.label(new or old)
        if old is None or new is None:
            changes.append({"item": name, "what": "present", "before": old is not None, "after": new is not None})
            if new is None and vocabulary.worked(old):
                regressions.append({"item": name, "what": "present", "before": True, "after": False,
                                    "message": "%s: worked before, gone now" % name})
            continue
        for field in [f for f in old if f != "id" and f not in MEASURED_FIELDS]:
            if old.get(field) != new.get(field) and not (field == "bitrate" and _close(old[field], new.get(field))):
                changes.append({"item": name, "what": field, "before": old.get(field), "after": new.get(field)})
        for what, message in _regressions(vocabulary, old, new):
            regressions.append({"item": name, "what": what, "before": old.get(what), "after": new.get(what),
                                "message": "%s: %s" % (name, message)})
    return {"regressions": [r for r in regressions if r["what"] not in (ignore or ())], "changes": changes}


def confirm(earlier, first, take_next, ignore=(), count=0, interval=0.0, sleep=time.sleep):
    """The comparison of ``earlier`` with ``first`` (a snapshot just taken), its regressions
    confirmed: while some remain, up to ``count`` more snapshots (``take_next()``) are taken
    ``interval`` seconds apart, and a regression stands only when every snapshot shows it. A
    live stream has short errors (a TR 101 290 continuity error is current for seconds) and a
    tuner takes a moment to lock after a reboot: one reading alone would stop a rollout for them.

    Returns ``(snapshot, comparison)``: the last snapshot taken, and its comparison with
    ``earlier`` whose ``regressions`` are the confirmed ones and ``transient`` those that
    cleared (with ``message``), both in the order first found."""
    snap = first
    result = compare(earlier, snap, ignore)
    standing, transient = result["regressions"], []
    for dummy in range(count):
        if not standing:
            break
        sleep(interval)
        snap = take_next()
        result = compare(earlier, snap, ignore)
        now = dict(((r["item"], r["what"]), r) for r in result["regressions"])
        transient.extend(r for r in standing if (r["item"], r["what"]) not in now)
        standing = [now[(r["item"], r["what"])] for r in standing if (r["item"], r["what"]) in now]
    result["regressions"], result["transient"] = standing, transient
    return snap, result


def run(client, api, params):
    """device_snapshot: the snapshot, and with ``compare_to`` the comparison, its regressions
    confirmed by ``confirm_count`` more snapshots. With ``fail_on_regression``, a regression
    makes the result a failure (``failed`` and ``msg``, which _module.py reports)."""
    earlier = None
    if params.get("compare_to") is not None:
        earlier = as_snapshot(params["compare_to"], "compare_to")
    check_ignore(params.get("ignore"))
    if earlier is not None and earlier["device_type"] != api.KIND:
        raise InputError(["compare_to: a snapshot of a %s, this device is a %s" % (
            earlier["device_type"], api.KIND)])
    first = take(api, client)
    if earlier is None:
        return {"changed": False, "snapshot": first}
    snap, comparison = confirm(earlier, first, lambda: take(api, client),
                               params.get("ignore") or (), params.get("confirm_count") or 0,
                               params.get("confirm_interval") or 0.0)
    result = {"changed": False, "snapshot": snap}
    result.update(comparison)
    if params.get("fail_on_regression") and result["regressions"]:
        result.update(failed=True, msg=failure_message(result["regressions"], params.get("ignore_variable") or "ignore",
                                                       params.get("ignore") or ()))
    return result


def failure_message(regressions, variable, ignored=()):
    """What broke, each with its check, and how to waive those checks: the list the user sets
    (``variable``, such as a role's ``restore_snapshot_ignore``) with them added."""
    checks = []
    for regression in regressions:
        if regression["what"] not in checks:
            checks.append(regression["what"])
    waiver = [name for name in ignored if name not in checks] + checks
    return ("%d regression(s) since the earlier snapshot (something that worked then does not now): %s. If this is"
            " expected, waive the check(s) with %s: [%s]" % (
                len(regressions), "; ".join("%s [check %s]" % (r["message"], r["what"]) for r in regressions),
                variable, ", ".join(waiver)))

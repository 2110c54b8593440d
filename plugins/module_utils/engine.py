# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare desired with current state, plan the writes, honour check mode, report a diff.

Every module goes through here. A module describes its objects with a ``Resource``
(read, normalise, write one object); the engine does the rest the same way for all:
only the keys the user set are compared, both sides are normalised, check mode sends no
write at all, and a failure halfway says which writes landed and which did not.
"""

from __future__ import annotations

import copy

from ansible_collections.broadcast.monitoring.plugins.module_utils.client import UNREACHABLE, DeviceError

STATES = ("merged", "replaced", "overridden", "deleted", "gathered")


class InputError(Exception):
    """The desired state is invalid; raised before any write. ``problems`` name parameters."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


class Conflict(InputError):
    """The device's present state does not allow the change (a card busy recording, duplicate
    names on the device); raised before any write."""


class PartialFailure(Exception):
    """A write failed after others had landed. ``unknown`` is a write whose answer was lost
    and whose effect could not be read back either: it may or may not have landed."""

    def __init__(self, error, done, pending, unknown=None):
        super().__init__(error.describe())
        self.error = error
        self.done = done
        self.pending = pending
        self.unknown = unknown or []


def strip_unset(value):
    """Drop keys the user did not set (None), recursively: they are not compared."""
    if isinstance(value, dict):
        return {k: strip_unset(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_unset(v) for v in value]
    return value


def merge(current, desired, atomic=()):
    """``current`` updated with ``desired``; dicts merge recursively except under the
    top-level keys in ``atomic``, whose value replaces the current one whole."""
    out = copy.deepcopy(current)
    for key, value in desired.items():
        if key not in atomic and isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


class Change:
    """One planned write: ``create``, ``update`` or ``delete`` of the object at ``key``."""

    def __init__(self, action, key, before=None, after=None):
        self.action = action
        self.key = key
        self.before = before
        self.after = after

    def summary(self):
        return {"action": self.action, "key": self.key}


class Resource:
    """A list of objects on one device, keyed by ``key``; subclasses talk to the device.

    ``read`` returns ``{key: object}`` in the module's own shape (what the user writes).
    ``create``/``update``/``delete`` do one object's writes. ``defaults`` is what an object
    has when the user does not say (used for new objects and by ``replaced``).
    """

    key = "name"
    atomic = ()
    #: True when the device has a fixed set of objects (tuners, ports): nothing is created
    #: or deleted, and a key the device does not have is an input error.
    fixed = False

    def __init__(self, client):
        self.client = client
        self.state = "merged"  # set by reconcile before any check
        #: writes whose answer was lost, and whether the read-back found them landed
        self.lost_answers = []

    def check(self, desired):
        """Problems with the desired objects found without the device; [] when none."""
        return []

    def check_against(self, desired, current):
        """Problems that need the device's current state (e.g. a name that must exist)."""
        return []

    def read(self):
        raise NotImplementedError

    def refresh(self):
        """A fresh read, to learn whether a write whose answer was lost landed; a resource
        that keeps what it read overrides this to read again."""
        return self.read()

    def defaults(self):
        return {}

    def normalise(self, obj):
        return obj

    def create(self, after):
        raise NotImplementedError

    def update(self, before, after):
        raise NotImplementedError

    def delete(self, before):
        raise NotImplementedError

    def apply_changes(self, changes):
        """Write the planned changes. Override to batch them (one request for many
        objects), falling back to ``apply`` for what cannot be batched."""
        apply(self, changes)


def plan(resource, current, desired, state):
    """The resulting objects and the changes that lead there (nothing is written)."""
    after = dict(current)
    changes = []
    wanted = {obj[resource.key]: obj for obj in desired}
    if state == "deleted":
        doomed = list(current) if not desired else [k for k in wanted if k in current]
        for key in doomed:
            changes.append(Change("delete", key, before=current[key]))
            del after[key]
        return after, changes
    for key, obj in wanted.items():
        base = current.get(key) if state == "merged" and key in current else resource.defaults()
        target = resource.normalise(merge(base, obj, resource.atomic))
        if key not in current:
            changes.append(Change("create", key, after=target))
        elif target != resource.normalise(current[key]):
            changes.append(Change("update", key, before=current[key], after=target))
        after[key] = target
    if state == "overridden":
        for key in [k for k in current if k not in wanted]:
            changes.append(Change("delete", key, before=current[key]))
            del after[key]
    return after, changes


def apply(resource, changes):
    """Write the planned changes: updates, then creates, then deletes, so nothing is
    removed before what replaces it is in place."""
    order = {"update": 0, "create": 1, "delete": 2}
    todo = sorted(changes, key=lambda c: order[c.action])
    done = []
    for index, change in enumerate(todo):
        try:
            _write_verified(resource, change)
        except DeviceError as err:
            unknown = [change.summary()] if err.kind == UNREACHABLE else []
            raise PartialFailure(err, [c.summary() for c in done], [c.summary() for c in todo[index + len(unknown):]],
                                 unknown) from None
        done.append(change)


def _write(resource, change):
    if change.action == "create":
        resource.create(change.after)
    elif change.action == "update":
        resource.update(change.before, change.after)
    else:
        resource.delete(change.before)


def _write_verified(resource, change):
    """One object's write. Writes are never resent blindly (a create sent twice would make
    two objects): when the connection drops before the answer, the device is read back to
    find out whether the write landed, and only what is still missing is written."""
    try:
        _write(resource, change)
        return
    except DeviceError as err:
        if err.kind != UNREACHABLE:
            raise
        lost = err
    try:
        current = resource.refresh()
    except DeviceError:
        resource.lost_answers.append(dict(change.summary(), landed=None))
        raise lost from None
    present = current.get(change.key)
    if change.action == "delete":
        landed = present is None
    elif change.action == "create":
        landed = present is not None  # created; what a create does after (start, stop...) is checked below
    else:
        landed = present is not None and resource.normalise(present) == change.after
    resource.lost_answers.append(dict(change.summary(), landed=landed))
    if change.action == "delete":
        if not landed:
            resource.delete(present)
    elif present is None:
        resource.create(change.after)
    elif resource.normalise(present) != change.after:
        resource.update(present, change.after)


def check_config(resource, config, state):
    """Problems with the desired objects found without the device (``reconcile``'s first
    step, which the device_state action also takes on the controller before any request)."""
    desired = [strip_unset(obj) for obj in (config or [])]
    resource.state = state
    return _duplicates(desired, resource.key) + resource.check(desired)


def reconcile(resource, config, state, check_mode):
    """Bring a keyed list to the desired state; returns the module result."""
    desired = [strip_unset(obj) for obj in (config or [])]
    problems = check_config(resource, config, state)
    if problems:
        raise InputError(problems)
    current = resource.read()
    if state == "gathered":
        return {"changed": False, "gathered": list(current.values())}
    problems = resource.check_against(desired, current)
    if resource.fixed:
        problems = _unknown_keys(desired, current, resource.key) + problems
    if problems:
        raise InputError(problems)
    after, changes = plan(resource, current, desired, state)
    if changes and not check_mode:
        resource.apply_changes(changes)
    before_list = [resource.normalise(obj) for obj in current.values()]
    after_list = list(after.values())
    extra = {"lost_answers": resource.lost_answers} if resource.lost_answers else {}
    return {
        **extra,
        "changed": bool(changes),
        "before": before_list,
        "after": after_list,
        "changes": [c.summary() for c in changes],
        "diff": {"before": {o[resource.key]: o for o in before_list}, "after": {o[resource.key]: o for o in after_list}},
    }


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


def _unknown_keys(desired, current, key):
    known = ", ".join(str(k) for k in current)
    return ["config[%d]: %s %r: the device has no such object (it has %s)" % (i, key, obj[key], known)
            for i, obj in enumerate(desired) if obj[key] not in current]


def _duplicates(desired, key):
    seen, problems = set(), []
    for index, obj in enumerate(desired):
        name = obj.get(key)
        if name in seen:
            problems.append("config[%d]: %s %r is listed more than once" % (index, key, name))
        seen.add(name)
    return problems

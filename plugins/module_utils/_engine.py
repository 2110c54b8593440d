# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compare desired with current state, plan the writes, honour check mode, report a diff.

Every module goes through here. A module describes its objects with a ``Resource``
(read, normalise, write one object); the engine does the rest the same way for all:
only the keys the user set are compared, both sides are normalised, check mode sends no
write at all, and a failure halfway says which writes landed and which did not.

This file drives a keyed list (``reconcile``); a key held twice is _engine_duplicates.py's,
one settings object (not a list) _engine_settings.py's.
"""

from __future__ import annotations

import copy

from ansible_collections.broadcast.monitoring.plugins.module_utils._engine_duplicates import (
    copies_of,
    duplicates_warning,
    resolve_duplicates,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    UNREACHABLE,
    DeviceError,
    InputError,
    PartialFailure,
    masked,
)

STATES = ("merged", "replaced", "overridden", "deleted", "gathered")


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


# -- comparing nested settings leaf by leaf (the FM monitor's per-tuner objects) ----------
def changed_leaves(before, after):
    """What ``after`` changes in ``before``: dicts compared key by key, anything else whole."""
    out = {}
    for key, value in after.items():
        old = before.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            inner = changed_leaves(old, value)
            if inner:
                out[key] = inner
        elif key not in before or value != old:
            out[key] = copy.deepcopy(value)
    return out


def leaves(obj, prefix=()):
    """``{path: value}`` of a nested dict; lists and scalars are leaves."""
    out = {}
    for key, value in obj.items():
        if isinstance(value, dict) and value:
            out.update(leaves(value, prefix + (key,)))
        else:
            out[prefix + (key,)] = value
    return out


def nest(flat):
    """The nested dict of ``{path: value}``."""
    out = {}
    for path, value in flat.items():
        node = out
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = copy.deepcopy(value)
    return out


class Run:
    """What one reconcile is asked, handed to every hook that needs it: ``state``,
    ``check_mode``, ``labels`` ({key: how messages name that object}, for desired objects not
    taken from ``config`` one to one) and ``prechecked`` (the desired objects were checked
    before they were built, so ``check`` has nothing left to find)."""

    def __init__(self, state, check_mode=False, labels=None, prechecked=False):
        self.state = state
        self.check_mode = check_mode
        self.labels = labels or {}
        self.prechecked = prechecked


class Change:
    """One planned write: ``create``, ``update`` or ``delete`` of the object at ``key``;
    ``copy_id`` is the device id of an extra copy of ``key`` to delete (duplicates);
    ``declared`` is the desired object the change comes from (as ``prepare`` gave it)."""

    def __init__(self, action, key, before=None, after=None, copy_id=None, declared=None):
        self.action = action
        self.key = key
        self.before = before
        self.after = after
        self.copy_id = copy_id
        self.declared = declared

    def summary(self, detail=False):
        """The change as a result reports it; with ``detail``, an update's ``differences``, field
        by field (a create's fields are the object in ``after``, a delete's nothing)."""
        out = {"action": self.action, "key": self.key}
        if self.copy_id is not None:
            out["id"] = self.copy_id
        if detail and self.action == "update" and isinstance(self.after, dict):
            out["differences"] = differences(self.before, self.after)
        return out


def differences(before, after, path=()):
    """``[{path, current, declared}]``: the fields where ``after`` (the declared object, whole)
    differs from ``before`` (current; None for an object to create), dicts compared key by key
    (the path joins their keys with dots), lists and other values whole; secrets hidden,
    user-info masked. A field ``after`` adds has ``current`` None, one it drops (a nested
    object replaced whole without it) has ``declared`` None: each leaf of a dict added or
    dropped is listed."""
    out = []
    before = before if isinstance(before, dict) else {}
    for key in after:
        value, old = after[key], before.get(key)
        where = path + (str(key),)
        if isinstance(value, dict) and value and (isinstance(old, dict) or old is None):
            out.extend(differences(old, value, where))
        elif key not in before or value != old:
            out.append({"path": ".".join(where), "current": masked(old, str(key)),
                        "declared": masked(value, str(key))})
    for key in before:
        if key in after or before[key] is None:
            continue
        out.extend(dict(item, current=item["declared"], declared=None)
                   for item in differences(None, {key: before[key]}, path))
    return out


class Resource:
    """A list of objects on one device, keyed by ``key``; subclasses talk to the device.

    ``read`` returns ``{key: object}`` in the module's own shape (what the user writes).
    ``create``/``update``/``delete`` do one object's writes. ``defaults`` is what an object
    has when the user does not say (used for new objects and by ``replaced``).

    The lifecycle (``reconcile``): ``check(desired, run)``, ``read_for(desired, run)``,
    ``check_against(desired, current, run)``, ``prepare(desired, current, run)``, then the
    plan (``defaults``, ``normalise``, ``attainable``), ``check_planned(changes, run)`` and
    the writes (``apply_changes``, ``write``: ``create``, ``update``, ``delete``). Each hook
    gets what the run asks (``Run``) and what earlier steps found as arguments; none relies
    on another hook having run first. What a resource keeps is only what it read from the
    device (its elements in ``raw``, tables it looks names up in), read by whichever hook
    first needs it; ``normalise`` and ``defaults`` depend on nothing but their argument.
    """

    key = "name"
    #: what one object is called in messages
    noun = "object"
    atomic = ()
    #: True when the device has a fixed set of objects (tuners, ports): nothing is created
    #: or deleted, and a key the device does not have is an input error.
    fixed = False

    def __init__(self, client):
        self.client = client
        #: writes whose answer was lost, and whether the read-back found them landed
        self.lost_answers = []
        #: the device's element of each key (``id`` tells copies apart), set by ``index``
        self.raw = {}
        #: {key: [(element, object), ...]} keys the device holds more than once, by id
        self.duplicates = {}
        #: {key: id} the copy that stands for a duplicated key (chosen by the engine)
        self.kept = {}
        #: differences the device offers no way to write, named by ``attainable`` (warnings)
        self.unwritable = []

    def check(self, desired, run):
        """Problems with the desired objects found without the device; [] when none."""
        return []

    def read_for(self, desired, run):
        """The current objects, read knowing what the run wants (a resource may spare a read
        with it); ``read`` is the same read without that knowledge."""
        return self.read()

    def check_against(self, desired, current, run):
        """Problems that need the device's current state (e.g. a name that must exist)."""
        return []

    def prepare(self, desired, current, run):
        """The desired objects the plan is made from, once they are known to be valid: a
        resource may complete them from ``current`` (copies; ``desired`` is left as given)."""
        return desired

    def check_planned(self, changes, run):
        """Problems with the planned objects (``change.after``) that only the plan shows
        (a value the user set against one the device keeps); [] when none."""
        return []

    def read(self):
        raise NotImplementedError

    def element_id(self, element):
        """The id the device gave one of its elements (``index`` tells copies apart by it);
        resources keyed by a name the device may hold twice give it from their device file."""
        raise NotImplementedError

    def index(self, pairs):
        """``{key: object}`` from the device's elements as ``(element, object)`` pairs.
        Devices that key objects by id may hold one name twice (two runs creating it at
        once): such a key is recorded in ``duplicates``, and the copy returned for it is
        the one in ``kept``, else the one with the lowest id."""
        groups = {}
        for element, obj in pairs:
            groups.setdefault(obj[self.key], []).append((element, obj))
        current, self.raw, self.duplicates = {}, {}, {}
        for key, copies in groups.items():
            copies.sort(key=lambda pair: self.element_id(pair[0]))
            element, obj = next((c for c in copies if self.element_id(c[0]) == self.kept.get(key)), copies[0])
            self.raw[key] = element
            current[key] = obj
            if len(copies) > 1:
                self.duplicates[key] = copies
        return current

    def delete_copy(self, ident):
        """Delete the object with device id ``ident`` (an extra copy of a duplicated key)."""
        raise NotImplementedError

    def refresh(self):
        """A fresh read, to learn whether a write whose answer was lost landed; a resource
        that keeps what it read overrides this to read again."""
        return self.read()

    def defaults(self):
        return {}

    def normalise(self, obj):
        return obj

    def attainable(self, before, target):
        """``(target, notes)``: ``target`` (normalised) as the device's writes can make it from
        ``before`` (with what a write implies beyond the fields it names), and a note naming
        each difference the device offers no way to write (kept as ``before`` has it, so the
        plan holds only changes some request carries)."""
        return target, []

    def write(self, change):
        """The requests of one planned change (``change.declared`` says what was asked, for a
        resource whose requests depend on it, not only on ``before`` and ``after``)."""
        if change.copy_id is not None:
            self.delete_copy(change.copy_id)
        elif change.action == "create":
            self.create(change.after)
        elif change.action == "update":
            self.update(change.before, change.after)
        else:
            self.delete(change.before)

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
        if key in current:
            target, notes = resource.attainable(current[key], target)
            resource.unwritable.extend(notes)
        if key not in current:
            changes.append(Change("create", key, after=target, declared=obj))
        elif target != resource.normalise(current[key]):
            changes.append(Change("update", key, before=current[key], after=target, declared=obj))
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


def _write_verified(resource, change):
    """One object's write. Writes are never resent blindly (a create sent twice would make
    two objects): when the connection drops before the answer, the device is read back to
    find out whether the write landed, and only what is still missing is written."""
    try:
        resource.write(change)
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
    if change.copy_id is not None:
        landed = change.copy_id not in [resource.element_id(element) for element, _obj in resource.duplicates.get(change.key, [])]
        resource.lost_answers.append(dict(change.summary(), landed=landed))
        if not landed:
            resource.delete_copy(change.copy_id)
        return
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
        resource.write(Change("update", change.key, before=present, after=change.after, declared=change.declared))


def check_config(resource, config, state, check_mode=False, run=None):
    """Problems with the desired objects found without the device (``reconcile``'s first
    step, which the device_state action also takes on the controller before any request)."""
    desired = [strip_unset(obj) for obj in (config or [])]
    return _duplicates(desired, resource.key) + resource.check(desired, run or Run(state, check_mode))


def reconcile(resource, config, state, check_mode, labels=None, prechecked=False):
    """Bring a keyed list to the desired state; returns the module result. ``labels`` and
    ``prechecked``: see ``Run``."""
    run = Run(state, check_mode, labels, prechecked)
    desired = [strip_unset(obj) for obj in (config or [])]
    problems = check_config(resource, config, state, run=run)
    if problems:
        raise InputError(problems)
    current = resource.read_for(desired, run)
    warnings = []
    if state == "gathered":
        result = {"changed": False, "gathered": list(current.values())}
        if resource.duplicates:
            result["duplicates"] = copies_of(resource)
            warnings.append(duplicates_warning(resource, "gathered shows the copy with the lowest id of each"))
        return dict(result, warnings=warnings) if warnings else result
    problems = resource.check_against(desired, current, run)
    if resource.fixed:
        problems = _unknown_keys(desired, current, resource.key) + problems
    if problems:
        raise InputError(problems)
    desired = resource.prepare(desired, current, run)
    extras = resolve_duplicates(resource, current, desired, state, warnings,
                                lambda obj: resource.normalise(merge(resource.defaults(), obj, resource.atomic)))
    after, changes = plan(resource, current, desired, state)
    problems = resource.check_planned(changes, run)
    if problems:
        raise InputError(problems)
    changes += [Change("delete", key, before=obj, copy_id=resource.element_id(element)) for key, element, obj in extras]
    warnings += resource.unwritable
    if changes and not check_mode:
        resource.apply_changes(changes)
    before_list = [resource.normalise(obj) for obj in current.values()]
    after_list = list(after.values())
    diff_before = {o[resource.key]: o for o in before_list}
    for key, element, obj in extras:
        before_list.append(resource.normalise(obj))
        diff_before["%s (copy, id %s)" % (key, resource.element_id(element))] = before_list[-1]
    extra = {"lost_answers": resource.lost_answers} if resource.lost_answers else {}
    if extras:
        extra["duplicates_removed"] = [{resource.key: key, "id": resource.element_id(element)}
                                       for key, element, _obj in extras]
    if warnings:
        extra["warnings"] = warnings
    return {
        **extra,
        "changed": bool(changes),
        "before": before_list,
        "after": after_list,
        "changes": [c.summary(detail=True) for c in changes],
        "diff": {"before": diff_before, "after": {o[resource.key]: o for o in after_list}},
    }


def report_consequence(result, key, field, current, declared):
    """Report in ``result`` (reconcile's) a write that follows from a reconcile's writes and
    is made after it (the device does not make it by itself): ``field`` of the object at
    ``key`` set from ``current`` to ``declared``. It joins the differences of that object's
    change and the diff, and the result is changed."""
    difference = {"path": field, "current": current, "declared": declared}
    for change in result["changes"]:
        if change["key"] == key:
            change.setdefault("differences", []).append(difference)
    diff = result.get("diff") or {}
    for side, value in (("before", current), ("after", declared)):
        if isinstance((diff.get(side) or {}).get(key), dict):
            diff[side][key] = dict(diff[side][key], **{field: value})
    result["changed"] = True


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

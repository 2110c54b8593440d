# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The engine's handling of a key the device holds more than once (two inputs of one name):
which copies a reconcile keeps, which it deletes, and how it reports them (reconcile,
_engine.py, calls these)."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import Conflict


def resolve_duplicates(resource, current, desired, state, warnings, target_of):
    """The extra copies of duplicated keys to delete, as (key, element, object).

    ``overridden`` keeps one copy of each listed key: the one already as listed, else the
    lowest id (then updated); it deletes every copy of a key not listed. ``deleted`` deletes
    every copy of the keys it deletes. ``merged`` and ``replaced`` cannot tell the copies
    apart: a listed key held twice stops them before any write. Duplicated keys the state
    does not touch are left alone, with a warning. ``target_of(obj)``: a desired object as
    it would be written whole (normalised, on the defaults)."""
    if not resource.duplicates:
        return []
    wanted = {obj[resource.key]: obj for obj in desired}
    if state in ("merged", "replaced"):
        clashes = [key for key in resource.duplicates if key in wanted]
        if clashes:
            raise Conflict(["the device holds %s; state=%s cannot tell the copies apart. state=overridden keeps one"
                            " copy of each listed %s (the one already as listed, else the lowest id) and deletes the"
                            " others; state=deleted deletes them all" % (
                                _describe(resource, clashes), state, resource.key)])
    if state == "overridden":
        touched = list(resource.duplicates)
    elif state == "deleted":
        touched = [key for key in resource.duplicates if key in wanted or not desired]
    else:
        touched = []
    untouched = [key for key in resource.duplicates if key not in touched]
    if untouched:
        warnings.append("the device holds %s; left alone (state=overridden or deleted removes the extra copies)"
                        % _describe(resource, untouched))
    extras = []
    for key in touched:
        copies = resource.duplicates[key]
        keep = copies[0]
        if state == "overridden" and key in wanted:
            target = target_of(wanted[key])
            keep = next((c for c in copies if resource.normalise(c[1]) == target), keep)
        resource.kept[key] = resource.element_id(keep[0])
        resource.raw[key] = keep[0]
        current[key] = keep[1]
        extras += [(key, element, obj) for element, obj in copies if element is not keep[0]]
    return extras


def _describe(resource, keys):
    return "several %ss with one %s: %s" % (resource.noun, resource.key, "; ".join("%r (ids %s)" % (
        key, ", ".join(str(resource.element_id(element)) for element, _obj in resource.duplicates[key])) for key in keys))


def copies_of(resource):
    """Every copy of each duplicated key, with its id, for ``gathered``."""
    return [dict(obj, id=resource.element_id(element), shown=element is resource.raw[key])
            for key, copies in resource.duplicates.items() for element, obj in copies]


def duplicates_warning(resource, what):
    return "the device holds %s; %s (state=overridden or deleted removes the extra copies)" % (
        _describe(resource, list(resource.duplicates)), what)

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``gather_subset`` for the info modules: which parts of a device to read.

``all`` selects every subset, ``min`` the cheap ones; a name selects that subset, and a
name with ``!`` in front removes it, whatever its position in the list.
"""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError, ShapeError


def subset_spec(default=("min",)):
    """The argument spec entry every info module uses for ``gather_subset``."""
    return dict(type="list", elements="str", default=list(default))


def select(requested, available, minimal):
    """The subsets to read, in ``available`` order; InputError naming unknown ones.

    ``available`` is every subset name the module knows, ``minimal`` those ``min`` means.
    """
    chosen, removed, unknown = set(), set(), []
    for item in requested or []:
        name = item.strip()
        target = removed if name.startswith("!") else chosen
        name = name.lstrip("!")
        if name == "all":
            target.update(available)
        elif name == "min":
            target.update(minimal)
        elif name in available:
            target.add(name)
        else:
            unknown.append(item)
    if unknown:
        raise InputError(["gather_subset: unknown subset(s) %s; choose from all, min, %s" % (
            ", ".join(unknown), ", ".join(available))])
    if not chosen and removed:
        chosen = set(available)  # only exclusions given: everything else
    return [name for name in available if name in chosen and name not in removed]


def gather(selected, readers):
    """Read each selected subset with its reader: ``{name: readers[name]()}``. A subset whose
    answer the collection cannot read (ShapeError) is left out and named, with the reason, in
    ``failed_subsets`` (and a warning), the others are read as usual; when every selected
    subset fails, the first failure is raised. Any other failure stops the module."""
    out, failed, first = {}, {}, None
    for name in selected:
        try:
            out[name] = readers[name]()
        except ShapeError as err:
            failed[name] = err.describe()
            first = first or err
    if failed and not out:
        raise first
    if failed:
        out["failed_subsets"] = failed
        out["warnings"] = ["gather_subset %s: not read: %s" % (name, message) for name, message in failed.items()]
    return out

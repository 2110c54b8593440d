# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sections of a restore (restore.py runs them): each section's result as it is restored,
and the steps both devices' sections are made of."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import reconcile
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine_settings import replace_settings


class Sections(dict):
    """Each restored section's result, and the section being restored (a failure names it;
    the alert profiles are visited twice, so "the first one without a result" is not it)."""

    running = None
    #: sections check mode could not plan (they depend on an earlier write)
    not_planned = ()

    def __init__(self):
        super().__init__()
        #: what the sections warned of (differences the device offers no way to write...)
        self.warnings = []

    def run(self, name, step):
        self.running = name
        self[name] = step()
        self.warnings.extend(warning for warning in self[name].get("warnings", []) if warning not in self.warnings)
        return self[name]


def restore_settings(client, path, wanted, check_mode, normalise=None):
    """A settings object the device replaces whole: written back verbatim when it differs."""
    return replace_settings(client.get(path), wanted, lambda body: client.post(path, body), lambda: client.get(path),
                            check_mode, normalise)


def two_passes(sections, name, resource, wanted, check_mode):
    """``{name: first pass, (name, True): second pass}`` of a part the registry prunes after
    another (``pruned_after``): the first pass replaces (creates and updates, deletes
    nothing), the second, once the part it waits for is restored, deletes what the backup does
    not have (in check mode, planned from the first)."""
    names = [obj["name"] for obj in wanted]
    return {name: lambda: reconcile(resource(), wanted, "replaced", check_mode),
            (name, True): lambda: _joined(sections[name], reconcile(resource(), wanted, "overridden", check_mode)
                                          if not check_mode else _plan_prune(sections[name], names))}


def _plan_prune(put, names):
    """What the deleting pass would do, planned from the first pass (check mode)."""
    extra = [p for p in put["before"] if p["name"] not in names]
    after = [p for p in put["after"] if p["name"] in names]
    return {"changed": bool(extra), "diff": {"before": {p["name"]: p for p in put["after"]},
                                             "after": {p["name"]: p for p in after}}}


def _joined(first, second):
    return {"changed": first["changed"] or second["changed"],
            "diff": {"before": first["diff"]["before"], "after": second["diff"]["after"]}}

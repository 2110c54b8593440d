# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A role's own variable names, and the variables with its prefix it does not know (the
role_variables action, run as a role's first task, and device_state's check_role_variables);
both also refuse a host that a rehearsal on twins must not reach (_rehearsal)."""

from __future__ import annotations

import difflib
import os

import yaml

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._rehearsal import rehearsal_refusal


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def role_names(role_path):
    """``(known, internal)``: the options of every entry point of the role's argument spec,
    and the names its own tasks register or set as facts (results, not inputs)."""
    with open(os.path.join(role_path, "meta", "argument_specs.yml"), encoding="utf-8") as handle:
        specs = (yaml.safe_load(handle) or {}).get("argument_specs") or {}
    known = {name for entry in specs.values() for name in (entry or {}).get("options") or {}}
    internal = set()
    tasks = os.path.join(role_path, "tasks")
    for file_name in sorted(os.listdir(tasks)) if os.path.isdir(tasks) else []:
        if not file_name.endswith((".yml", ".yaml")):
            continue
        with open(os.path.join(tasks, file_name), encoding="utf-8") as handle:
            for task in _walk(yaml.safe_load(handle)):
                if isinstance(task.get("register"), str):
                    internal.add(task["register"])
                for action in ("ansible.builtin.set_fact", "set_fact"):
                    if isinstance(task.get(action), dict):
                        internal.update(task[action])
    return known, internal


def unknown_variables(prefix, variables, known, internal=()):
    """``[(name, closest known name or None)]`` of the variables named ``<prefix>...`` that
    are neither ``known`` nor ``internal``; a name with a second underscore after the prefix
    (``<prefix>_name``) is the role's private one and not judged."""
    found = []
    for name in sorted(variables):
        if not isinstance(name, str) or not name.startswith(prefix) or name in known or name in internal:
            continue
        if name[len(prefix):].startswith("_"):
            continue
        # compared without the prefix they all share, which would make any two names look close
        close = difflib.get_close_matches(name[len(prefix):], [k[len(prefix):] for k in sorted(known)
                                                               if k.startswith(prefix)], n=1)
        found.append((name, prefix + close[0] if close else None))
    return found


def refusal(role, task_vars, extra=()):
    """``(unknown names, message)`` for the variables with the prefix of ``role`` (the running
    role) that it does not know, or None when there are none. First, a host in an inventory of
    twins that is not a twin, or a twin pointed elsewhere, is refused (_rehearsal)."""
    name = role.get_name(include_role_fqcn=False)
    rehearsal = rehearsal_refusal(name, task_vars or {})
    if rehearsal:
        return rehearsal
    known, internal = role_names(role._role_path)
    problems = unknown_variables(name + "_", task_vars or {}, known | set(extra), internal)
    if not problems:
        return None
    return [problem[0] for problem in problems], (
        "role %s: %s; nothing was run (the role's variables are in its README and meta/argument_specs.yml)" % (
            name, "; ".join("%s is not a variable of this role%s" % (
                unknown, " (did you mean %s?)" % close if close else "") for unknown, close in problems)))

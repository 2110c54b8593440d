# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A role's own variable names, and the variables with its prefix it does not know (the
role_variables action, run as a role's first task, and device_state's check_role_variables);
both also refuse a host that a rehearsal on twins must not reach (_rehearsal). device_state
also checks a device role's variables against its argument spec and takes them by name
(``device_state_arguments``) instead of the role templating each option of its task.

What a role's files say is read once per run: this module is imported where Ansible's main
process loads an action plugin, before it forks a worker per host, and reads this collection's
roles then (``ROLES``); a role from elsewhere is read once per process, when first asked."""

from __future__ import annotations

import collections
import difflib
import os

import ansible.template
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._rehearsal import rehearsal_refusal
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._state_parts import plain

#: libyaml's parser where PyYAML has it (ten times faster than the pure-Python one)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: this collection's roles
ROLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "roles")
#: what a role's files say: ``known`` and ``internal`` as role_names gives them, ``options`` the
#: argument spec of its main entry point (empty without one)
RoleFiles = collections.namedtuple("RoleFiles", "known internal options defaults")
#: marks a string of ours as a template (public from ansible-core 2.19; before it, every string is one)
_TRUST_AS_TEMPLATE = getattr(ansible.template, "trust_as_template", lambda text: text)
#: what starts a Jinja expression, statement or comment (Ansible's default delimiters)
JINJA_MARKERS = ("{{", "{%", "{#")
#: a device role's connection options, each with the fleet's variable used where the role's is not set
CONNECTION_FALLBACKS = (
    ("port", "device_port"),
    ("protocol", "broadcast_monitoring_protocol"),
    ("validate_certs", "broadcast_monitoring_validate_certs"),
    ("ca_path", "broadcast_monitoring_ca_path"),
    ("role", "broadcast_monitoring_role"),
    ("password", "broadcast_monitoring_password"),
)


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=_LOADER)  # noqa: S506 (a safe loader: CSafeLoader or SafeLoader)


def _read(role_path):
    specs = (_load(os.path.join(role_path, "meta", "argument_specs.yml")) or {}).get("argument_specs") or {}
    known = frozenset(name for entry in specs.values() for name in (entry or {}).get("options") or {})
    internal = set()
    tasks = os.path.join(role_path, "tasks")
    for file_name in sorted(os.listdir(tasks)) if os.path.isdir(tasks) else []:
        if not file_name.endswith((".yml", ".yaml")):
            continue
        for task in _walk(_load(os.path.join(tasks, file_name))):
            if isinstance(task.get("register"), str):
                internal.add(task["register"])
            for action in ("ansible.builtin.set_fact", "set_fact"):
                if isinstance(task.get(action), dict):
                    internal.update(task[action])
    defaults = os.path.join(role_path, "defaults", "main.yml")
    return RoleFiles(known, frozenset(internal), (specs.get("main") or {}).get("options") or {},
                     (_load(defaults) or {}) if os.path.isfile(defaults) else {})


_READ = {}


def role_files(role_path):
    """The RoleFiles of the role in ``role_path``, read once per process (and for this
    collection's roles, once in the main process before the fork)."""
    found = _READ.get(role_path)
    if found is None:
        real = os.path.realpath(role_path)
        found = _READ.get(real) or _read(real)
        _READ[role_path] = _READ[real] = found
    return found


def role_names(role_path):
    """``(known, internal)``: the options of every entry point of the role's argument spec,
    and the names its own tasks register or set as facts (results, not inputs)."""
    return role_files(role_path)[:2]


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
    problems = unknown_variables(name + "_", task_vars or {}, known | frozenset(extra), internal)
    if not problems:
        return None
    return [problem[0] for problem in problems], (
        "role %s: %s; nothing was run (the role's variables are in its README and meta/argument_specs.yml)" % (
            name, "; ".join("%s is not a variable of this role%s" % (
                unknown, " (did you mean %s?)" % close if close else "") for unknown, close in problems)))


def role_values(role, task_vars, templar, extra=()):
    """``(values, type errors)``: the variables of the role's argument spec that are set (in the
    inventory, or else by the role's defaults), and those named in ``extra``, templated at once;
    and what Ansible's own argument validation of the role says of them (its messages, empty when
    they hold)."""
    files = role_files(role._role_path)
    values = variables(list(files.options) + list(extra), task_vars, templar, files.defaults)
    checked = {name: value for name, value in values.items() if name in files.options}
    return values, ArgumentSpecValidator(files.options).validate(checked).error_messages


class DeviceRole:
    """The device role of this collection for ``device_type``, for a device_state task outside it
    (site.yml runs the role's first task alone: docs/performance.md): what checked_role and
    refusal read of a running role."""

    def __init__(self, device_type):
        self.device_type = device_type
        self._role_path = os.path.join(ROLES, device_type)

    def get_name(self, include_role_fqcn=True):
        return ("broadcast.monitoring." if include_role_fqcn else "") + self.device_type


def asks_role_check(args):
    """Whether a task's (plain) arguments ask for ``check_role_variables``; a value that is
    not a boolean asks nothing here (the task's argument check names it)."""
    try:
        return boolean(args.get("check_role_variables", False), strict=True)
    except TypeError:
        return False


def checked_role(role, task_vars, templar, extra=(), known=()):
    """``(values, failure)``: role_values of the running ``role`` (``extra`` as there), and the
    failed result of a task whose role's variables do not hold - their types (Ansible's own
    messages), then their names (refusal, ``known``: further names it knows) - or None. A task
    outside a role (``role`` None) has no role variables to check: that is its failure."""
    if role is None:
        return {}, {"failed": True, "changed": False, "msg": "check_role_variables: the task is not part of a role"}
    values, errors = role_values(role, task_vars, templar, extra=extra)
    if errors:
        return values, {"failed": True, "changed": False, "argument_errors": errors,
                        "msg": "Validation of arguments failed:\n%s" % "\n".join(errors)}
    unknown = refusal(role, task_vars, known)
    if unknown:
        return values, {"failed": True, "changed": False, "unknown": unknown[0], "msg": unknown[1]}
    return values, None


def variables(names, task_vars, templar, defaults=None):
    """The variables ``names`` that are set, by name, templated at once; one the task's
    variables lack is taken from ``defaults`` (a role's defaults/main.yml, which a task outside the
    role does not have among its variables)."""
    values = {name: task_vars[name] for name in names if name in task_vars}
    # a default is this collection's own text: a template in it is one (ansible-core 2.19 and later
    # render only text marked so; before, every string is)
    values.update({name: _trusted(defaults[name]) for name in names if name not in values and name in (defaults or {})})
    # only what holds a template goes through the templar: it would copy an analyzer's inputs
    # whole to give them back unchanged
    templated = [name for name, value in values.items() if _holds_template(value)]
    return dict(plain(values), **plain(templar.template({name: values[name] for name in templated})))


def _trusted(value):
    """``value`` (a role default) with each string that holds a template marked as one."""
    if isinstance(value, str):
        return _TRUST_AS_TEMPLATE(value) if _holds_template(value) else value
    if isinstance(value, dict):
        return {key: _trusted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trusted(item) for item in value]
    return value


def _holds_template(value):
    """Whether ``value`` holds a string that Jinja would read as more than text (Ansible's own
    test: one of its start markers in it)."""
    if isinstance(value, str):
        return any(marker in value for marker in JINJA_MARKERS)
    if isinstance(value, dict):
        return any(_holds_template(key) or _holds_template(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_template(item) for item in value)
    return False


def device_state_arguments(prefix, values, parts, purge_parts):
    """device_state's arguments from a device role's variables (``values``, as role_values
    gives them): the connection options that are set, the role's or else the fleet's (left out
    when neither is: the modules' own fallbacks apply), and the declared state."""
    def role(name):
        return values.get("%s_%s" % (prefix, name))
    args = dict(connection_arguments(prefix, values), **{
        name: role(name) for name in ("login_once", "purge", "reboot") if "%s_%s" % (prefix, name) in values})
    args["purge_parts"] = {name: role("purge_" + name) for name in purge_parts}
    args["parts"] = {name: role(name) for name in parts}
    return args


def connection_names(prefix):
    """The variables connection_arguments reads: the device role's (``<prefix>_host``...) and the fleet's."""
    return ["%s_host" % prefix] + [name for option, fleet in CONNECTION_FALLBACKS
                                   for name in ("%s_%s" % (prefix, option), fleet)]


def connection_arguments(prefix, values):
    """The connection options of a device role's variables (``values``, by name): its host, and
    each of CONNECTION_FALLBACKS that is set, the role's or else the fleet's (left out when
    neither is: the modules' own fallbacks apply)."""
    args = {"host": values["%s_host" % prefix]} if "%s_host" % prefix in values else {}
    for option, fleet in CONNECTION_FALLBACKS:
        name = "%s_%s" % (prefix, option)
        if name in values or fleet in values:
            args[option] = values[name] if name in values else values[fleet]
    return args


if os.path.isdir(ROLES):
    for _role in sorted(os.listdir(ROLES)):
        if os.path.isfile(os.path.join(ROLES, _role, "meta", "argument_specs.yml")):
            role_files(os.path.join(ROLES, _role))

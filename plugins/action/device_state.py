# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The whole declared state of one device in one task: a login, then each declared part's
module in turn, run where the task runs (check mode and diff mode passed on), in this
process when it can be (plugin_utils/_direct_execution.py):
first every part in check mode (the plan), then, only when the whole plan holds, the parts
it would change.
One task per device instead of one per part: each task costs the controller a worker
(docs/performance.md). Which parts there are and what each module is given: plugin_utils/_state_parts.py."""

from __future__ import annotations

import json

from ansible.errors import AnsibleActionFail
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.utils.display import Display

from ansible_collections.broadcast.monitoring.plugins.module_utils._device_state import ARGUMENT_SPEC, PASSED_ON
from ansible_collections.broadcast.monitoring.plugins.module_utils._devices import device_type
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import differences
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import check_password
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._direct_execution import (
    FALLBACK_WARNING,
    DirectExecutionAction,
    preload,
)
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import (
    CONNECTION_FALLBACKS,
    DeviceRole,
    asks_role_check,
    checked_role,
    device_state_arguments,
)
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._state_parts import (
    PARTS,
    PURGED,
    joined,
    module_args,
    part_names,
    parts_names,
    plain,
    plan,
    purge_of,
    refused,
    role_names,
    scheduled_states,
    spec_problems,
    warning_text,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import PartError

COLLECTION = "broadcast.monitoring."

# The strategy loads this file in Ansible's main process before it forks the workers: the part
# modules imported now are in every worker already (a fleet run imports them once, not once
# per device).
preload(sorted({part.module for parts in PARTS.values() for part in parts} | {"device_login"}))

# what a part's result keeps: the rest is Ansible's bookkeeping, or the diff, which goes to the top
DROPPED = ("invocation", "diff", "warnings", "deprecations")


class ActionModule(DirectExecutionAction):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_diff = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        given, guarded, passwords = plain(self._task.args), None, None
        role = self._task._role
        if role is None and given.get("device_type") in PARTS:
            role = DeviceRole(given["device_type"])  # outside its role (site.yml): the device type's role
        # outside a role with a device_type that is none of them: the argument check below names device_type
        if asks_role_check(given) and role is not None:
            # the role's variables: their types (what the role's argument validation says), their names,
            # then taken by name for every option the task does not give itself
            values, failure = checked_role(role, task_vars or {}, self._templar,
                                           extra=[fleet for option, fleet in CONNECTION_FALLBACKS])
            if failure:
                return dict(result, **failure)
            prefix = role.get_name(include_role_fqcn=False)
            if prefix in PARTS and given.get("device_type") == prefix:  # a device role: its variables by name
                given = dict(device_state_arguments(prefix, values, part_names(prefix), PURGED[prefix]), **given)
                guarded = _guarded(prefix, values, (task_vars or {}).get(prefix + DEFERRED), self._task.check_mode)
                if guarded:
                    result["guarded"] = True
                else:  # under the gate or the revert, guarded.yml sets them last, after its own checks
                    passwords = values.get(prefix + PASSWORDS)
                # device_password's own checks of the passwords, before any request (and any write)
                refused_passwords = _password_problems(prefix, values.get(prefix + PASSWORDS))
                if refused_passwords:
                    return dict(result, failed=True, changed=False,
                                msg="%s; nothing was run" % "; ".join(refused_passwords))
        # the spec only asks parts to be a dict: each part is checked against its module's spec below,
        # and the validator's copy of an analyzer's inputs would cost more than that check
        parts = given.get("parts")
        problems, args = spec_problems(dict(PASSED_ON, **ARGUMENT_SPEC),
                                       dict(given, parts={}) if isinstance(parts, dict) else given)
        if problems:
            raise AnsibleActionFail("; ".join(problems))
        if isinstance(parts, dict):
            args["parts"] = parts
        try:
            declared = plan(args["device_type"], args["parts"])
            options = {"purge": purge_of(args["device_type"], args["purge"], args["purge_parts"]),
                       "reboot": args["reboot"]}
        except PartError as error:
            return dict(result, failed=True, msg=str(error))
        # a role's user wrote role variables (<role>_<part>): problems name those
        names = role_names(role.get_name(include_role_fqcn=False)) if (
            args["check_role_variables"] and role is not None) else parts_names
        problems = [problem for part in declared if module_args(part, args["parts"], options, {}) is not None
                    for problem in refused(part, module_args(part, args["parts"], options, {}), names)]
        problems += scheduled_states(args["device_type"], args["parts"], names)
        if problems:
            return dict(result, failed=True, msg="invalid parts, nothing was run: %s" % "; ".join(problems))
        try:
            outcome = self._apply(args, declared, options, task_vars, defer=guarded is False)
            if passwords is not None and not outcome.get("failed") and not outcome.get("deferred"):
                outcome = self._set_passwords(outcome, args, passwords, task_vars)
            return _told(dict(result, **outcome), (task_vars or {}).get("inventory_hostname"))
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

    #: while True, the modules run in check mode whatever the task says (the plan pass)
    _planning = False

    def _update_module_args(self, *args, **kwargs):
        super()._update_module_args(*args, **kwargs)
        if self._planning:
            module_args = args[1] if len(args) > 1 else kwargs["module_args"]
            module_args["_ansible_check_mode"] = True

    def _apply(self, args, declared, options, task_vars, defer=False):
        connection = _connection(args)
        modules = []
        if args["login_once"] and declared:
            login = self._execute_module(COLLECTION + "device_login", dict(connection, device_type=args["device_type"]),
                                         task_vars=task_vars)
            modules.append("device_login")
            if login.get("failed"):
                return {"failed": True, "changed": False, "parts": {}, "modules": modules,
                        "msg": "login: %s" % login.get("msg"), "error": login.get("error")}
            connection.pop("password", None)
            connection["token"] = login["token"]

        # Plan every part (its module in check mode: every check it makes, against the device
        # too, and no write), then apply only the parts the plan would change. A part the plan
        # refuses stops the task before anything is written on any part.
        run = _Runner(self, args, declared, options, connection, task_vars, modules)
        self._planning = not self._task.check_mode
        try:
            plans = run.parts(check_mode=True)
        finally:
            self._planning = False
        if self._task.check_mode or plans.failed or not plans.changed:
            return plans.summary(modules, declared, planned_only=plans.failed is not None and not self._task.check_mode,
                                 lean=not self._task.check_mode)
        if defer:
            return dict(plans.summary(modules, declared, planned_only=True), deferred=True)
        return run.parts(check_mode=False, plans=plans.outcomes).summary(modules, declared, lean=True)

    def _set_passwords(self, outcome, args, passwords, task_vars):
        """``outcome`` with the role's passwords set after the state (device_password, the user
        role's first, so that the admin password it is set with is still the one given), at the
        address the network part may have just given the device."""
        connection = _connection(args)
        network = (outcome.get("parts") or {}).get("network") or {}
        if network.get("host"):
            connection["host"] = network["host"]
        results = {}
        for role in PASSWORD_ROLES:
            if passwords.get(role) is None:
                continue
            done = self._execute_module(COLLECTION + "device_password", dict(
                connection, device_type=args["device_type"], target_role=role, new_password=passwords[role]),
                task_vars=task_vars)
            outcome["modules"].append("device_password")
            results[role] = {key: value for key, value in done.items() if key not in DROPPED}
            if done.get("failed"):
                applied = "changed" if outcome.get("changed") else "unchanged"
                return dict(outcome, passwords=results, failed=True, changed=bool(outcome.get("changed")),
                            msg="passwords: %s: %s; the declared state was applied before (%s)" % (
                                role, done.get("msg"), applied))
        return dict(outcome, passwords=results,
                    changed=bool(outcome.get("changed")) or any(r.get("changed") for r in results.values()))


#: a device role's variable of the passwords its roles should have (``<role>_passwords``), and those roles in
#: the order they are set
PASSWORDS = "_passwords"
PASSWORD_ROLES = ("user", "admin")
#: a device role's task variable ``<role>__deferred``: true on the task of the role's guarded.yml,
#: which applies the change that the role's first task deferred to it
DEFERRED = "__deferred"


def _password_problems(prefix, passwords):
    """What device_password would refuse in the role's passwords (``<role>_passwords``), each
    problem naming the variable; never quoting a password."""
    return ["%s%s.%s: %s" % (prefix, PASSWORDS, role, problem.partition(": ")[2])  # (each names new_password)
            for role in PASSWORD_ROLES if (passwords or {}).get(role) is not None
            for problem in check_password({"new_password": passwords[role]})]


def _connection(args):
    """The connection options the task's modules are given: those that are set."""
    return {name: args[name] for name in PASSED_ON if args.get(name) is not None}


def _guarded(prefix, values, deferred, check_mode):
    """None when no snapshot gate or revert guards the role's change (it is applied here), True
    on the task that applies it under them (guarded.yml), False on the role's first task: a
    change it plans is deferred to guarded.yml (when nothing changes, nothing is deferred)."""
    def on(name):
        return boolean(values.get("%s_%s" % (prefix, name)) or False, strict=False)
    if check_mode or not (on("revert_on_regression") or (on("reboot") and on("snapshot"))):
        return None
    return bool(deferred and boolean(deferred, strict=False))


class _Runner:
    """Runs the declared parts' modules in order, in one pass (the plan, or the writes)."""

    def __init__(self, action, args, declared, options, connection, task_vars, modules):
        self.action, self.args, self.declared, self.options = action, args, declared, options
        self.connection, self.task_vars, self.modules = connection, task_vars, modules

    def parts(self, check_mode, plans=None):
        """A pass over the parts; with ``plans``, a part the plan found unchanged keeps its
        planned result and is not run again."""
        outcome_of, diffs, warnings = {}, [], []
        for part in self.declared:
            if plans is not None and part.name in plans and not plans[part.name].get("changed"):
                outcome_of[part.name] = plans[part.name]
                continue
            part_args = module_args(part, self.args["parts"], self.options, outcome_of)
            if part_args is None:
                continue  # nothing to do (a second pass with nothing left for it)
            outcome = part.planned(part_args, outcome_of) if part.planned and check_mode else None
            if outcome is None:
                outcome = self.action._execute_module(COLLECTION + part.module, dict(self.connection, **part_args),
                                                      task_vars=self.task_vars)
                self.modules.append(part.module)
            if outcome.get("diff") and outcome.get("changed"):
                diffs.extend(_headed(part.name, outcome["diff"]))
            # (ansible-core 2.21 adds the task's own warnings to a module result that has none: the
            # task says the fallback's warning once itself)
            warnings.extend("%s: %s" % (part.name, warning_text(warning)) for warning in outcome.get("warnings") or []
                            if not warning_text(warning).startswith(FALLBACK_WARNING))
            kept = {key: value for key, value in outcome.items() if key not in DROPPED}
            outcome_of[part.name] = joined(outcome_of[part.name], kept) if part.name in outcome_of else kept
            if outcome.get("failed"):
                break
        return _Pass(outcome_of, diffs, warnings)


class _Pass:
    """What one pass over the parts gave."""

    def __init__(self, outcomes, diffs, warnings):
        self.outcomes, self.diffs, self.warnings = outcomes, diffs, warnings
        self.changed = any(outcome.get("changed") for outcome in outcomes.values())
        self.failed = next((name for name, outcome in outcomes.items() if outcome.get("failed")), None)

    def summary(self, modules, declared, planned_only=False, lean=False):
        """With ``lean`` (outside check mode), an unchanged part's result leaves out its
        ``before`` and ``after``: the state it already had, which a fleet's idempotent run would
        otherwise carry back through every worker and callback (docs/performance.md)."""
        summary = {
            "changed": self.changed and not planned_only,
            "parts": {name: _lean(outcome) for name, outcome in self.outcomes.items()} if lean else self.outcomes,
            "modules": modules,
            "reboot_needed": any(outcome.get("reboot_needed") for outcome in self.outcomes.values()),
        }
        if self.diffs and not planned_only:
            summary["diff"] = self.diffs
        if self.warnings:
            summary["warnings"] = self.warnings
        if self.failed:
            msg = _failure(self.failed, self.outcomes, declared, planned_only)
            summary.update(failed=True, failed_part=self.failed, msg=msg)
        return summary


def _lean(outcome):
    if outcome.get("changed") or outcome.get("failed"):
        return outcome
    return {key: value for key, value in outcome.items() if key not in ("before", "after")}


def _headed(name, diff):
    """The part's diff(s), each headed with the part's name; a list part's diff (its objects
    keyed by name or tuner) as one diff per object that differs, headed with the object's name."""
    entries = diff if isinstance(diff, list) else [diff]
    if name in LISTED and all(isinstance(entry.get("before"), dict) and isinstance(entry.get("after"), dict)
                              for entry in entries):
        entries = [{"before": before, "after": after,
                    "before_header": _object(name, key), "after_header": _object(name, key)}
                   for entry in entries for key, before, after in _objects(entry["before"], entry["after"])]
    for entry in entries:
        header = entry.get("before_header")
        entry = dict(entry, before_header="%s: %s" % (name, header) if header else name)
        entry["after_header"] = "%s: %s" % (name, entry["after_header"]) if entry.get("after_header") else name
        yield entry


def _failure(name, parts, declared, planned_only=False):
    """Which part failed, why, and where that leaves the device."""
    if planned_only:
        return "%s: %s; nothing was written (every part is planned before the first write)" % (
            name, parts[name].get("msg"))
    done = [part for part in parts if part != name]
    left = [part.name for part in declared if part.name not in parts]
    where = "; applied before it: %s" % ", ".join(
        "%s (%s)" % (part, "changed" if parts[part].get("changed") else "unchanged") for part in done) if done else ""
    if left:
        where += "; not applied: %s" % ", ".join(left)
    return "%s: %s%s" % (name, parts[name].get("msg"), where)


# -- what a run changed, one readable line per part and object ----------------------------------
#: the parts that are lists of objects (their results list ``changes``, their diffs are keyed by object)
LISTED = frozenset(part.name for parts in PARTS.values() for part in parts if part.kind is list)
#: the list parts whose objects are the device's items (keyed by item id), which take a ``<part>_all``: what
#: the device type calls an item (its registry entry's ITEM), by part
PER_ITEM = {part.name: device_type(kind).ITEM for kind, parts in PARTS.items() for part in parts if part.common_part}
#: how long a value may get in a line before it is cut
SHOWN_MAX = 60

_display = Display()


def _object(part, key):
    return "%s %s" % (PER_ITEM[part], key) if part in PER_ITEM else str(key)


def _objects(before, after):
    """``(key, before, after)`` of each object that differs, in the order the device lists them
    (the objects it would create last); None for an object that is not on that side."""
    keys = list(before) + [key for key in after if key not in before]
    return [(key, before.get(key), after.get(key)) for key in keys if before.get(key) != after.get(key)]


def _value(value):
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= SHOWN_MAX else text[:SHOWN_MAX - 3] + "..."


def _fields(found):
    """``path current -> declared, ...`` of engine.differences (secrets already hidden)."""
    return ", ".join("%s %s -> %s" % (d["path"], "(none)" if d["current"] is None else _value(d["current"]),
                                      "(removed)" if d["declared"] is None else _value(d["declared"]))
                     for d in found)


def summary_lines(parts):
    """What the parts changed (in check mode: would change), one line per object of a list part
    (``inputs: update Mux 1: source.multicast.port 5000 -> 5002``), one per settings part
    (``logging: level "info" -> "warning"``)."""
    lines = []
    for name, outcome in parts.items():
        if not outcome.get("changed"):
            continue
        if isinstance(outcome.get("changes"), list):
            for change in outcome["changes"]:
                line = "%s: %s %s" % (name, change.get("action"), _object(name, change.get("key")))
                if change.get("id") is not None:
                    line += " (copy, id %s)" % change["id"]
                if change.get("differences"):
                    line += ": " + _fields(change["differences"])
                lines.append(line)
        elif isinstance(outcome.get("before"), dict) and isinstance(outcome.get("after"), dict):
            found = differences(outcome["before"], outcome["after"])
            lines.append("%s: %s" % (name, _fields(found) if found else "changed"))
        else:
            lines.append("%s: changed" % name)
    return lines


def _told(result, host):
    """``result`` with ``changes_summary``, the lines of summary_lines, which are also shown in
    the default output (no -v needed) headed with the host: a run says what it changed (in
    check mode, what it would change)."""
    # a plan refused before any write changed nothing, whatever its parts would have changed
    lines = summary_lines(result.get("parts") or {}) if result.get("changed") else []
    if lines:
        result["changes_summary"] = lines
        for line in lines:
            _display.display("%s: %s" % (host, line) if host else line)
    return result

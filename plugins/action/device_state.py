# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The whole declared state of one device in one task: a login, then each declared part's
module in turn, run where the task runs (check mode and diff mode passed on), in this
process when it can be (plugin_utils/direct_execution.py):
first every part in check mode (the plan), then, only when the whole plan holds, the parts
it would change.
One task per device instead of one per part: each task costs the controller a worker
(docs/performance.md). Which parts there are and what each module is given: plugin_utils/state_parts.py."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.broadcast.monitoring.plugins.module_utils.device_state import ARGUMENT_SPEC, PASSED_ON
from ansible_collections.broadcast.monitoring.plugins.plugin_utils.direct_execution import DirectExecutionAction, preload
from ansible_collections.broadcast.monitoring.plugins.plugin_utils.role_variables import refusal
from ansible_collections.broadcast.monitoring.plugins.plugin_utils.state_parts import (
    PARTS,
    PartError,
    joined,
    module_args,
    plain,
    plan,
    purge_of,
    refused,
    scheduled_states,
    spec_problems,
    warning_text,
)

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
        problems, args = spec_problems(dict(PASSED_ON, **ARGUMENT_SPEC), plain(self._task.args))
        if problems:
            raise AnsibleActionFail("; ".join(problems))
        if args["check_role_variables"]:
            if self._task._role is None:
                return dict(result, failed=True, msg="check_role_variables: the task is not part of a role")
            unknown = refusal(self._task._role, task_vars)
            if unknown:
                return dict(result, failed=True, changed=False, unknown=unknown[0], msg=unknown[1])
        try:
            declared = plan(args["device_type"], args["parts"])
            options = {"purge": purge_of(args["device_type"], args["purge"], args["purge_parts"]),
                       "reboot": args["reboot"]}
        except PartError as error:
            return dict(result, failed=True, msg=str(error))
        problems = [problem for part in declared if module_args(part, args["parts"], options, {}) is not None
                    for problem in refused(part, module_args(part, args["parts"], options, {}))]
        problems += scheduled_states(args["device_type"], args["parts"])
        if problems:
            return dict(result, failed=True, msg="invalid parts, nothing was run: %s" % "; ".join(problems))
        try:
            return dict(result, **self._apply(args, declared, options, task_vars))
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

    #: while True, the modules run in check mode whatever the task says (the plan pass)
    _planning = False

    def _update_module_args(self, *args, **kwargs):
        super()._update_module_args(*args, **kwargs)
        if self._planning:
            module_args = args[1] if len(args) > 1 else kwargs["module_args"]
            module_args["_ansible_check_mode"] = True

    def _apply(self, args, declared, options, task_vars):
        connection = {name: args[name] for name in PASSED_ON if args.get(name) is not None}
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
            return plans.summary(modules, declared, planned_only=plans.failed is not None and not self._task.check_mode)
        return run.parts(check_mode=False, plans=plans.outcomes).summary(modules, declared)


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
            warnings.extend("%s: %s" % (part.name, warning_text(warning)) for warning in outcome.get("warnings") or [])
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

    def summary(self, modules, declared, planned_only=False):
        summary = {
            "changed": self.changed and not planned_only,
            "parts": self.outcomes,
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


def _headed(name, diff):
    """The part's diff(s), each headed with the part's name."""
    for entry in diff if isinstance(diff, list) else [diff]:
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

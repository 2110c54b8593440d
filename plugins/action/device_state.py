# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The whole declared state of one device in one task: a login, then each declared part's
module in turn, run by Ansible where the task runs (check mode and diff mode passed on).
One task per device instead of one per part: each task costs the controller a worker
(docs/performance.md). Which parts there are and what each module is given: plugin_utils/state_parts.py."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase

from ansible_collections.broadcast.monitoring.plugins.module_utils.device_state import ARGUMENT_SPEC, PASSED_ON
from ansible_collections.broadcast.monitoring.plugins.plugin_utils.state_parts import (
    PartError,
    joined,
    module_args,
    plain,
    plan,
    refused,
    scheduled_states,
)

COLLECTION = "broadcast.monitoring."

# what a part's result keeps: the rest is Ansible's bookkeeping, or the diff, which goes to the top
DROPPED = ("invocation", "diff", "warnings", "deprecations")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_diff = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        validation = ArgumentSpecValidator(dict(PASSED_ON, **ARGUMENT_SPEC)).validate(plain(self._task.args))
        if validation.errors.errors:
            raise AnsibleActionFail("; ".join(
                ("unsupported option " if isinstance(error, UnsupportedError) else "") + error.msg
                for error in validation.errors.errors))
        args = validation.validated_parameters
        try:
            declared = plan(args["device_type"], args["parts"])
        except PartError as error:
            return dict(result, failed=True, msg=str(error))
        options = {"purge": args["purge"], "reboot": args["reboot"]}
        problems = [problem for part in declared if module_args(part, args["parts"], options, {}) is not None
                    for problem in refused(part, module_args(part, args["parts"], options, {}))]
        problems += scheduled_states(args["device_type"], args["parts"])
        if problems:
            return dict(result, failed=True, msg="invalid parts, nothing was run: %s" % "; ".join(problems))
        try:
            return dict(result, **self._apply(args, declared, options, task_vars))
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

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

        parts, diffs, warnings = {}, [], []
        for part in declared:
            part_args = module_args(part, args["parts"], options, parts)
            if part_args is None:
                continue  # nothing to do (a second pass with nothing left for it)
            outcome = part.planned(part_args, parts) if part.planned and self._task.check_mode else None
            if outcome is None:
                outcome = self._execute_module(COLLECTION + part.module, dict(connection, **part_args),
                                               task_vars=task_vars)
                modules.append(part.module)
            if outcome.get("diff") and outcome.get("changed"):
                diffs.extend(_headed(part.name, outcome["diff"]))
            warnings.extend("%s: %s" % (part.name, warning) for warning in outcome.get("warnings") or [])
            kept = {key: value for key, value in outcome.items() if key not in DROPPED}
            parts[part.name] = joined(parts[part.name], kept) if part.name in parts else kept
            if outcome.get("failed"):
                break

        summary = {
            "changed": any(outcome.get("changed") for outcome in parts.values()),
            "parts": parts,
            "modules": modules,
            "reboot_needed": any(outcome.get("reboot_needed") for outcome in parts.values()),
        }
        if diffs:
            summary["diff"] = diffs
        if warnings:
            summary["warnings"] = warnings
        failed = [name for name, outcome in parts.items() if outcome.get("failed")]
        if failed:
            summary.update(failed=True, failed_part=failed[0], msg=_failure(failed[0], parts, declared))
        return summary


def _headed(name, diff):
    """The part's diff(s), each headed with the part's name."""
    for entry in diff if isinstance(diff, list) else [diff]:
        header = entry.get("before_header")
        entry = dict(entry, before_header="%s: %s" % (name, header) if header else name)
        entry["after_header"] = "%s: %s" % (name, entry["after_header"]) if entry.get("after_header") else name
        yield entry


def _failure(name, parts, declared):
    """Which part failed, why, and where that leaves the device."""
    done = [part for part in parts if part != name]
    left = [part.name for part in declared if part.name not in parts]
    where = "; applied before it: %s" % ", ".join(
        "%s (%s)" % (part, "changed" if parts[part].get("changed") else "unchanged") for part in done) if done else ""
    if left:
        where += "; not applied: %s" % ", ".join(left)
    return "%s: %s%s" % (name, parts[name].get("msg"), where)

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet status's reading of one device in one task: the role's variables checked, the
device's connection settings taken by name, a device_snapshot run where the task runs (in this
process when it can be, plugin_utils/_direct_execution.py) and the reading set as a fact, a
device that fails recorded in it. One task per device instead of four (the role's argument
validation, role_variables, the snapshot, a set_fact): each task costs the controller a worker
(docs/performance.md)."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.utils.unsafe_proxy import wrap_var

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import masked, register_secret
from ansible_collections.broadcast.monitoring.plugins.module_utils._status_reading import ARGUMENT_SPEC
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._direct_execution import (
    COLLECTION,
    FALLBACK_WARNING,
    DirectExecutionAction,
    preload,
)
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._fleet_status import declared_variable, reading
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import (
    asks_role_check,
    checked_role,
    connection_arguments,
    connection_names,
    variables,
)
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._state_parts import plain, spec_problems, warning_text

SNAPSHOT = "device_snapshot"
#: the fact the reading is
FACT = "fleet_status_reading"

# loaded in Ansible's main process before it forks the workers: imported once per run, not per device
preload([SNAPSHOT])


class ActionModule(DirectExecutionAction):
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}
        given = plain(self._task.args)
        if asks_role_check(given):
            known = given.get("play_variables") if isinstance(given.get("play_variables"), list) else []
            # the fact set here: a fact cache may hold it from an earlier run
            failure = checked_role(self._task._role, task_vars, self._templar, known=known + [FACT])[1]
            if failure:
                return dict(result, **failure)
        problems, args = spec_problems(ARGUMENT_SPEC, given)
        if problems:
            raise AnsibleActionFail("; ".join(problems))
        kind = args["device_type"]
        declared = declared_variable(kind)
        values = variables(connection_names(kind) + ["ansible_host"] + ([declared] if declared else []),
                           task_vars, self._templar)
        connection = connection_arguments(kind, values)
        connection.setdefault("host", values.get("ansible_host", task_vars.get("inventory_hostname")))
        register_secret(connection.get("password"))  # masked below whichever way the module runs
        try:
            outcome = self._execute_module(COLLECTION + SNAPSHOT, dict(connection, device_type=kind),
                                           task_vars=task_vars)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        error = (outcome.get("msg") or "failed without a message") if outcome.get("failed") else ""
        found = reading(kind, task_vars.get("group_names") or [], values.get(declared), outcome.get("snapshot"),
                        plain(error))
        warnings = [warning_text(warning) for warning in outcome.get("warnings") or []
                    if not warning_text(warning).startswith(FALLBACK_WARNING)]
        if warnings:
            result["warnings"] = warnings
        # device text is data: marked so that no template ever evaluates it
        return dict(result, changed=False, ansible_facts={FACT: wrap_var(masked(plain(found)))})

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Refuse a variable that carries the running role's prefix but that the role does not know
(a misspelt ``fm_monitor_tuner`` would otherwise manage nothing and report ok). A role's
argument spec cannot do this: Ansible checks only the options it lists. Runs on the
controller as each role's first task, before any request to a device."""

from __future__ import annotations


from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import refusal


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        role = self._task._role
        if role is None:
            raise AnsibleActionFail("role_variables checks the variables of the role it runs in: run it in a role")
        extra = self._task.args.get("play_variables") or []
        unexpected = set(self._task.args) - {"play_variables"}
        if unexpected or not isinstance(extra, list):
            raise AnsibleActionFail("role_variables takes only play_variables, a list of names")
        result["changed"] = False
        refused = refusal(role, task_vars, extra)
        if refused:
            result.update(failed=True, unknown=refused[0], msg=refused[1])
        return result

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Onboarding one device: a login, then each part of the device's state read by the module
that writes it (in check mode: nothing can be written), turned into the variables of the
device's role (plugin_utils/_onboard.py). The raw readings stay inside this plugin; only the
variables, with no secret in them, are returned."""

from __future__ import annotations

from ansible.errors import AnsibleActionFail

from ansible_collections.broadcast.monitoring.plugins.module_utils._device_state import PASSED_ON
from ansible_collections.broadcast.monitoring.plugins.module_utils._onboard import ARGUMENT_SPEC
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._direct_execution import DirectExecutionAction
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._onboard import (
    READS,
    document,
    header,
    plain_strings,
    role_variables,
    variable_texts,
    without_secrets,
)
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._state_parts import plain, spec_problems, warning_text

COLLECTION = "broadcast.monitoring."


class ActionModule(DirectExecutionAction):
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp
        problems, args = spec_problems(dict(PASSED_ON, **ARGUMENT_SPEC), plain(self._task.args))
        if problems:
            raise AnsibleActionFail("; ".join(problems))
        host = (task_vars or {}).get("inventory_hostname") or args.get("host") or "device"
        try:
            return dict(result, **self._onboard(args, host, task_vars))
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

    def _update_module_args(self, *args, **kwargs):
        # every module runs in check mode, whatever the task says: onboarding only reads
        super()._update_module_args(*args, **kwargs)
        module_args = args[1] if len(args) > 1 else kwargs["module_args"]
        module_args["_ansible_check_mode"] = True

    def _onboard(self, args, host, task_vars):
        device_type = args["device_type"]
        connection = {name: args[name] for name in PASSED_ON if args.get(name) is not None}
        modules = []
        if not connection.get("token"):
            login = self._execute_module(COLLECTION + "device_login", dict(connection, device_type=device_type),
                                         task_vars=task_vars)
            modules.append("device_login")
            if login.get("failed"):
                return {"failed": True, "changed": False, "modules": modules,
                        "msg": "login: %s" % login.get("msg"), "error": login.get("error")}
            connection.pop("password", None)
            connection["token"] = login["token"]
        read, warnings = {}, []
        for one in READS[device_type]:
            outcome = self._execute_module(COLLECTION + one.module, dict(connection, **one.args), task_vars=task_vars)
            modules.append(one.module)
            warnings.extend("%s: %s" % (one.part, warning_text(warning)) for warning in outcome.get("warnings") or [])
            if outcome.get("failed") or one.key not in outcome:
                return {"failed": True, "changed": False, "modules": modules, "failed_part": one.part,
                        "msg": "%s: %s; no variables were made" % (one.part, outcome.get("msg") or "nothing read")}
            read[one.part] = plain(outcome[one.key])  # (YAML cannot write ansible-core's unsafe text)
        variables, secrets = without_secrets(host, role_variables(device_type, read))
        if secrets:
            warnings.append("the device holds secrets; the variables refer to vault variables instead, define them: %s"
                            % ", ".join(secrets))
        texts = variable_texts(variables)
        out = {"changed": False, "variables": plain_strings(variables), "secrets": secrets, "modules": modules,
               "header": header(host, device_type, secrets), "variable_texts": texts}
        out["content"] = document(host, device_type, variables, secrets)
        if warnings:
            out["warnings"] = warnings
        return out

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Direct execution: a module of this collection run inside the controller's worker process
instead of in a module process of its own.

Our modules run where Ansible runs (``connection: local``) and only speak HTTP, so a module
process buys nothing but its start-up: about 0.25 CPU s of Python and Ansible's module
runtime per call, against a few milliseconds of HTTP (docs/performance.md). Here the module
gets exactly what a module process gets -- its arguments with Ansible's ``_ansible_*``
internal options, the task's environment on top of the controller's, its own warnings -- and
its JSON result goes through the same parsing as a module process's output. Everything it
changed in this process (environment, working directory, ansible-core's module globals) is
put back before the next module runs, so nothing passes from one task or part to the next.

Where that cannot be done faithfully, the module runs as a module process, as Ansible would
(``refusal`` says why): another connection than local (a task delegated to a jump host),
``become``, ``async``, a module of another collection, an ansible-core without the
serialization profiles of 2.19, or the opt-out (variable ``broadcast_monitoring_direct_execution``
or environment variable ``BROADCAST_MONITORING_DIRECT_EXECUTION`` set to false).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import traceback

from ansible.errors import AnsibleActionFail
from ansible.module_utils import basic
from ansible.module_utils.common import warnings as module_warnings
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display
from ansible.vars.clean import remove_internal_keys

try:  # ansible-core 2.19: serialization profiles, and module_utils that know which side they run on
    from ansible.module_utils import _internal as module_runtime
    from ansible.module_utils.common.json import Direction, get_module_encoder
except ImportError:  # before 2.19: no direct execution (refusal says so), modules run as processes
    module_runtime = get_module_encoder = Direction = None

display = Display()

COLLECTION = "broadcast.monitoring."
PACKAGE = "ansible_collections.broadcast.monitoring.plugins.modules."
#: the serialization profile of a Python module without metadata (ansible-core's default)
PROFILE = "legacy"
OPT_OUT_VARIABLE = "broadcast_monitoring_direct_execution"
OPT_OUT_ENVIRONMENT = "BROADCAST_MONITORING_DIRECT_EXECUTION"


def opted_out(variable, environment):
    """True when the setting turns direct execution off: the variable (if set) decides, else
    the controller's environment variable; both are booleans, on unless set false."""
    setting = variable if variable is not None else environment
    if setting is None or setting == "":
        return False
    try:
        return not boolean(setting, strict=True)
    except TypeError:
        raise ValueError("%s: want a boolean, got %r" % (
            OPT_OUT_VARIABLE if variable is not None else OPT_OUT_ENVIRONMENT, setting)) from None


def preload(module_names):
    """Import the modules ``module_names`` (short names) and what they need at their first
    request. Called where Ansible's main process loads an action plugin (the strategy does,
    before it forks a worker per host and task): every worker then starts with them imported
    instead of importing them again, once per device."""
    for name in module_names:
        importlib.import_module(PACKAGE + name)
    importlib.import_module("http.client")  # transport.py imports it at the first connection


def run_in_process(module_name, arguments, environment):
    """(stdout, stderr, exit code) of the module ``module_name`` (its FQCN) run with
    ``arguments`` (already holding the ``_ansible_*`` options) and the task's ``environment``,
    as a module process would give them."""
    encoder = get_module_encoder(PROFILE, Direction.CONTROLLER_TO_MODULE)
    payload = json.dumps({"ANSIBLE_MODULE_ARGS": arguments}, cls=encoder).encode()
    stdout, stderr, code = io.StringIO(), "", 0
    with _as_a_module_process(payload, environment), contextlib.redirect_stdout(stdout):
        try:
            importlib.import_module(PACKAGE + module_name[len(COLLECTION):]).main()
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except Exception:  # what a crashing module process would print on stderr
            stderr, code = traceback.format_exc(), 1
    return stdout.getvalue(), stderr, code


@contextlib.contextmanager
def _as_a_module_process(payload, environment):
    """This process, for the time of one module, as the module's own process would be: the
    module's arguments in ansible-core's module globals, module_utils on the module's side,
    no warnings from before, the task's environment; all of it put back afterwards."""
    saved_environment, saved_cwd = dict(os.environ), os.getcwd()
    saved_arguments = (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE)
    saved_side = module_runtime.is_controller
    saved_warnings = (dict(module_warnings._global_warnings), dict(module_warnings._global_deprecations))
    module_warnings._global_warnings.clear()
    module_warnings._global_deprecations.clear()
    os.environ.update(environment)
    basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE = payload, PROFILE
    # module side: warnings and deprecations go into the result, as a module process's do,
    # instead of straight to the controller's display
    module_runtime.is_controller = False
    try:
        yield
    finally:
        module_runtime.is_controller = saved_side
        basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE = saved_arguments
        for registry, saved in zip((module_warnings._global_warnings, module_warnings._global_deprecations),
                                   saved_warnings):
            registry.clear()
            registry.update(saved)
        os.environ.clear()
        os.environ.update(saved_environment)
        os.chdir(saved_cwd)


class DirectExecutionAction(ActionBase):
    """An action whose modules of this collection run in this process when they can.
    ``_execute_module`` keeps ActionBase's signature and result, so any action built on it
    (the plain module action, device_state's parts) gets direct execution unchanged."""

    def _execute_module(self, module_name=None, module_args=None, tmp=None, task_vars=None, persist_files=False,
                        delete_remote_tmp=None, wrap_async=False, ignore_unknown_opts=False):
        name = module_name or self._task.resolved_action or self._task.action
        task_vars = task_vars if task_vars is not None else {}
        why = self.refusal(name, wrap_async, task_vars)
        if why:
            display.vvv("%s runs as a module process: %s" % (name, why), host=self._play_context.remote_addr)
            return super()._execute_module(module_name=module_name, module_args=module_args, tmp=tmp,
                                           task_vars=task_vars, persist_files=persist_files,
                                           delete_remote_tmp=delete_remote_tmp, wrap_async=wrap_async,
                                           ignore_unknown_opts=ignore_unknown_opts)
        display.vvv("%s runs in the controller's process (direct execution)" % name,
                    host=self._play_context.remote_addr)
        module_args = self._task.args if module_args is None else module_args
        self._update_module_args(name, module_args, task_vars, ignore_unknown_opts=ignore_unknown_opts)
        environment = {}
        self._compute_environment_string(environment)
        stdout, stderr, code = run_in_process(name, module_args, environment)
        data = self._parse_returned_data({"stdout": stdout, "stderr": stderr, "rc": code}, PROFILE)
        data.pop("_ansible_suppress_tmpdir_delete", None)
        remove_internal_keys(data)
        return data

    def refusal(self, name, wrap_async, task_vars):
        """Why module ``name`` cannot run in this process for this task, or None when it can."""
        if not name.startswith(COLLECTION):
            return "not a module of this collection"
        if get_module_encoder is None:
            return "direct execution needs ansible-core 2.19 or later"
        if wrap_async or self._task.async_val:
            return "async task"
        if self._connection.transport != "local":
            return "connection %s, not local" % self._connection.transport
        if self._connection.become is not None:
            return "become"
        setting = task_vars.get(OPT_OUT_VARIABLE)
        if setting is not None:
            setting = self._templar.template(setting)
        try:
            off = opted_out(setting, os.environ.get(OPT_OUT_ENVIRONMENT))
        except ValueError as error:
            raise AnsibleActionFail(str(error)) from None
        if off:
            return "turned off (%s / %s)" % (OPT_OUT_VARIABLE, OPT_OUT_ENVIRONMENT)
        return None

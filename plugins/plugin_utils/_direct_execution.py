# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Direct execution: a module of this collection run inside the controller's worker process
instead of in a module process of its own.

Our modules run where Ansible runs (``connection: local``) and only speak HTTP, so a module
process buys nothing but its start-up: about 0.25 CPU s of Python and Ansible's module
runtime per call, against a few milliseconds of HTTP (docs/performance.md). Here the module
gets exactly what a module process gets -- its arguments with Ansible's ``_ansible_*``
internal options, the task's environment on top of the controller's (as text, as the shell
hands it over), the working directory a module process starts in, its own warnings -- and
its JSON result goes through the same parsing as a module process's output. Everything it
changed in this process (environment, working directory, locale, ansible-core's module
globals) is put back before the next module runs, on every path, so nothing passes from one
task or part to the next.

Where that cannot be done faithfully, the module runs as a module process, as Ansible would
(``refusal`` and ``module_environment`` say why): another connection than local (a task
delegated to a jump host), ``become``, ``async``, a module of another collection, an
ansible-core without the serialization profiles of 2.19 (2.16 to 2.18), a task environment a
module process gets otherwise, or the opt-out (variable ``broadcast_monitoring_direct_execution``
or environment variable ``BROADCAST_MONITORING_DIRECT_EXECUTION`` set to false).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import locale
import os
import re
import traceback

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.text.converters import to_bytes
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import DirectExecutionUnavailable
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._core_private import bound

display = Display()

COLLECTION = "broadcast.monitoring."
PACKAGE = "ansible_collections.broadcast.monitoring.plugins.modules."
OPT_OUT_VARIABLE = "broadcast_monitoring_direct_execution"
OPT_OUT_ENVIRONMENT = "BROADCAST_MONITORING_DIRECT_EXECUTION"
#: a name a POSIX shell takes as a variable in ``NAME=value`` before a command
SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: variables a process reads only when it starts: Python's interpreter, the dynamic loader
STARTUP_VARIABLES = ("PYTHON", "LD_")
#: how the warning of an ansible-core without direct execution starts (warn_once)
FALLBACK_WARNING = "broadcast.monitoring runs its modules as module processes"


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
    importlib.import_module("http.client")  # _transport.py imports it at the first connection


def run_in_process(module_name, arguments, environment, directory=None):
    """(stdout, stderr, exit code) of the module ``module_name`` (its FQCN) run with
    ``arguments`` (already holding the ``_ansible_*`` options) and the task's ``environment``
    (as ``module_environment`` gives it) in ``directory`` (where ansible-core starts a module
    process of a local connection: the task's base directory), as a module process would give them."""
    private = bound()
    payload = json.dumps({"ANSIBLE_MODULE_ARGS": arguments}, cls=private.encoder).encode()
    stdout, stderr, code = io.StringIO(), "", 0
    with _as_a_module_process(private, payload, environment, directory), contextlib.redirect_stdout(stdout):
        try:
            importlib.import_module(PACKAGE + module_name[len(COLLECTION):]).main()
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except Exception:  # what a crashing module process would print on stderr
            stderr, code = traceback.format_exc(), 1
    return stdout.getvalue(), stderr, code


def module_environment(environment):
    """The task's environment (as ActionBase._compute_environment_string renders it) as a
    module process gets it, or (None, why) where this process cannot get it the same way.

    ansible-core hands it to a module process as ``NAME=value`` words in front of the module's
    command line, each value as ``str(value)`` (ShellBase.env_prefix), which the shell sets.
    A name the shell does not take as a variable, or a value no command line can carry (a NUL),
    gives a module process that fails (or an environment other than the task's), and a variable
    read only when a process starts (the interpreter's ``PYTHON*``, the loader's ``LD_*``)
    would change nothing here: those run as module processes, which show what they do."""
    converted = {}
    for name, value in environment.items():
        text = str(value)
        if not SHELL_NAME.match(name):
            return None, "environment variable name %r is not a shell variable name" % name
        if "\0" in text:
            return None, "environment variable %s holds a NUL character" % name
        if name.startswith(STARTUP_VARIABLES):
            return None, "environment variable %s is read when a process starts" % name
        converted[name] = text
    return converted, None


@contextlib.contextmanager
def _as_a_module_process(private, payload, environment, directory):
    """This process, for the time of one module, as the module's own process would be: the
    module's arguments in ansible-core's module globals, module_utils on the module's side,
    no warnings from before (``private.module_side``), the task's environment, its working
    directory; all of it put back afterwards, whatever happens (each piece put back even if
    another cannot be)."""
    with contextlib.ExitStack() as restore:
        saved_environment = dict(os.environ)

        def put_environment_back():
            for name in set(os.environ) - set(saved_environment):
                del os.environ[name]
            os.environ.update(saved_environment)
        restore.callback(put_environment_back)
        _check_environment(environment)  # all or nothing: what os.environ cannot hold, before setting any
        # the working directory, even one deleted meanwhile (getcwd() fails in it: no name to go back to)
        try:
            cwd = os.open(".", getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY)
        except OSError:  # no O_PATH on this system, and not readable: by its name
            restore.callback(os.chdir, os.getcwd())
        else:
            restore.callback(os.close, cwd)
            restore.callback(os.fchdir, cwd)
        saved_locale = locale.setlocale(locale.LC_ALL)  # AnsibleModule sets it from the environment
        restore.callback(locale.setlocale, locale.LC_ALL, saved_locale)
        os.environ.update(environment)
        restore.enter_context(private.module_side(payload))
        if directory is not None:
            os.chdir(directory)  # fails as starting the module process there would (the same OSError)
        _enter_a_readable_directory()
        yield


def _check_environment(environment):
    for name, value in environment.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("environment: want text, got %r: %r" % (type(name).__name__, type(value).__name__))
        if not name or "=" in name or "\0" in name + value:
            raise ValueError("environment: %r cannot be an environment variable" % name)


def _enter_a_readable_directory():
    """What a module process does first (ansible-core's AnsiballZ wrapper) when its working
    directory cannot be read (deleted, or not readable after become): go home, else to /."""
    try:
        os.getcwd()
    except OSError:
        try:
            os.chdir(os.path.expanduser("~"))
        except OSError:
            os.chdir("/")


class DirectExecutionAction(ActionBase):
    """An action whose modules of this collection run in this process when they can.
    ``_execute_module`` keeps ActionBase's signature and result, so any action built on it
    (the plain module action, device_state's parts) gets direct execution unchanged."""

    def _execute_module(self, module_name=None, module_args=None, tmp=None, task_vars=None, persist_files=False,
                        delete_remote_tmp=None, wrap_async=False, ignore_unknown_opts=False):
        name = module_name or self._task.resolved_action or self._task.action
        task_vars = task_vars if task_vars is not None else {}
        why = self.refusal(name, wrap_async, task_vars)
        environment = None
        if not why:
            rendered = {}
            self._compute_environment_string(rendered)
            environment, why = module_environment(rendered)
        if why:
            display.vvv("%s runs as a module process: %s" % (name, why), host=self._play_context.remote_addr)
            # ignore_unknown_opts only when given: ansible-core 2.16's ActionBase has no such parameter
            extra = {"ignore_unknown_opts": ignore_unknown_opts} if ignore_unknown_opts else {}
            return super()._execute_module(module_name=module_name, module_args=module_args, tmp=tmp,
                                           task_vars=task_vars, persist_files=persist_files,
                                           delete_remote_tmp=delete_remote_tmp, wrap_async=wrap_async, **extra)
        display.vvv("%s runs in the controller's process (direct execution)" % name,
                    host=self._play_context.remote_addr)
        module_args = self._task.args if module_args is None else module_args
        self._update_module_args(name, module_args, task_vars, ignore_unknown_opts=ignore_unknown_opts)
        # where ActionBase._low_level_execute_command starts a module process of a local connection
        directory = to_bytes(self._loader.get_basedir(), errors="surrogate_or_strict")
        stdout, stderr, code = run_in_process(name, module_args, environment, directory)
        return bound().result(self, stdout, stderr, code)

    def refusal(self, name, wrap_async, task_vars):
        """Why module ``name`` cannot run in this process for this task, or None when it can."""
        if not name.startswith(COLLECTION):
            return "not a module of this collection"
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
        try:
            bound()
        except DirectExecutionUnavailable as missing:
            if not missing.expected:
                warn_once(missing)
            return str(missing)
        return None


def warn_once(missing):
    """Say, once per process, that this ansible-core cannot have direct execution and why. A
    worker says it in its task's result (where Ansible puts an action's warnings); ansible-core's
    display shows a warning's text once per run, however many tasks carry it."""
    if not _WARNED:
        _WARNED.append(missing)
        display.warning("%s (the same results, slower): direct execution does not work with %s. Please report it "
                        "to the collection." % (FALLBACK_WARNING, missing))


_WARNED = []

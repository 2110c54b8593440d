# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The private names of ansible-core that direct execution stands on: bound here and nowhere
else in the collection.

Direct execution (_direct_execution.py) puts a module's arguments where ansible-core's module
runtime reads them, tells module_utils which side they run on, empties its warning registries,
and hands the module's output to the action's own result parsing. None of that is
ansible-core's public API; any release may move a name. So no private name is imported by a
plain import statement: ``bound`` looks each up under guard, once per process, and tries it
(does it do what direct execution relies on?). When one is missing or behaves otherwise it
raises ``DirectExecutionUnavailable`` naming it, and the modules run as module processes, ansible-core's own
way: the same results, slower. Nothing here can make a plugin fail to load. Which of two known forms a name has (the
module result as a dict or as a result object) is told by what it does, not by the version.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
from collections.abc import MutableMapping

from ansible.plugins.action import ActionBase
from ansible.release import __version__ as CORE_VERSION

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import DirectExecutionUnavailable

#: the serialization profile of a Python module without metadata (ansible-core's default)
PROFILE = "legacy"
BASIC = "ansible.module_utils.basic"
RUNTIME = "ansible.module_utils._internal"
WARNINGS = "ansible.module_utils.common.warnings"
ACTION = "ansible.plugins.action.ActionBase"
#: every private name direct execution uses, as ``DirectExecutionUnavailable`` names it
NAMES = (
    BASIC + "._ANSIBLE_ARGS", BASIC + "._ANSIBLE_PROFILE", BASIC + "._PARSED_MODULE_ARGS", BASIC + "._load_params",
    RUNTIME + ".is_controller", WARNINGS + "._global_warnings", WARNINGS + "._global_deprecations",
    ACTION + "._parse_returned_data", ACTION + "._compute_environment_string", ACTION + "._update_module_args",
    "ansible.vars.clean.remove_internal_keys",
)
#: what the probe gives ActionBase._parse_returned_data: a module's output, as a process would print it
SAMPLE = {"stdout": json.dumps({"changed": False, "probe": [1]}), "stderr": "", "rc": 0}
SAMPLE_ARGUMENTS = {"probe": [1], "_ansible_check_mode": True}


def _unavailable(name, why, expected=False):
    return DirectExecutionUnavailable(CORE_VERSION, name, why, expected)


class Private:
    """ansible-core's private names, looked up and tried (``bound`` makes one per process)."""

    def __init__(self):
        try:
            common_json = importlib.import_module("ansible.module_utils.common.json")
            self.encoder = common_json.get_module_encoder(PROFILE, common_json.Direction.CONTROLLER_TO_MODULE)
        except (ImportError, AttributeError):
            raise _unavailable("ansible.module_utils.common.json.get_module_encoder",
                               "is missing: direct execution needs the serialization profiles of 2.19 or later",
                               expected=True) from None
        self.basic = _module(BASIC)
        for name in ("_ANSIBLE_ARGS", "_ANSIBLE_PROFILE", "_PARSED_MODULE_ARGS", "_load_params"):
            _attribute(self.basic, BASIC, name)
        self.runtime = _module(RUNTIME)
        if not isinstance(_attribute(self.runtime, RUNTIME, "is_controller"), bool):
            raise _unavailable(RUNTIME + ".is_controller", "is no longer a flag (a bool)")
        self.warnings = _module(WARNINGS)
        registries = ("_global_warnings", "_global_deprecations")
        self.registries = tuple(_attribute(self.warnings, WARNINGS, name) for name in registries)
        for name, registry in zip(registries, self.registries):
            if not isinstance(registry, MutableMapping):
                raise _unavailable("%s.%s" % (WARNINGS, name), "is no longer a mapping")
        self._try_the_module_side()
        self.parsed_form = None  # what ActionBase._parse_returned_data gives: told by try_the_action

    def _try_the_module_side(self):
        """On the module side with SAMPLE_ARGUMENTS, the module runtime must read them from
        the module globals and a warning must land in the registry a module result takes."""
        with self.module_side(json.dumps({"ANSIBLE_MODULE_ARGS": SAMPLE_ARGUMENTS}).encode()):
            try:
                read = self.basic._load_params()
                parsed = self.basic._PARSED_MODULE_ARGS
            except Exception as error:  # any failure: it does not do what direct execution relies on
                raise _unavailable(BASIC + "._load_params", "does not read _ANSIBLE_ARGS (%s)" % error) from None
            if read != SAMPLE_ARGUMENTS or parsed != SAMPLE_ARGUMENTS:
                raise _unavailable(BASIC + "._PARSED_MODULE_ARGS", "is not what _load_params leaves")
            try:
                self.warnings.warn("probe")
            except Exception as error:
                raise _unavailable(RUNTIME + ".is_controller", "set false does not make a module's warning (%s)" % error) from None
            if len(self.registries[0]) != 1:
                raise _unavailable(WARNINGS + "._global_warnings", "does not take a module's warning")

    @contextlib.contextmanager
    def module_side(self, payload):
        """For the time of one module, ansible-core's module globals as in the module's own
        process: its arguments (``payload``, JSON) where the runtime reads them, module_utils on
        the module's side (warnings and deprecations go into the result, not straight to the
        display), no warnings from before; all put back afterwards, whatever happens."""
        with contextlib.ExitStack() as restore:
            basic, runtime = self.basic, self.runtime
            saved = (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE, basic._PARSED_MODULE_ARGS)
            restore.callback(self._set_arguments, *saved)
            restore.callback(setattr, runtime, "is_controller", runtime.is_controller)
            for registry in self.registries:
                restore.callback(_refill, registry, dict(registry))
                registry.clear()
            self._set_arguments(payload, PROFILE, None)
            runtime.is_controller = False
            yield

    def _set_arguments(self, arguments, profile, parsed):
        self.basic._ANSIBLE_ARGS, self.basic._ANSIBLE_PROFILE, self.basic._PARSED_MODULE_ARGS = arguments, profile, parsed

    def try_the_action(self):
        """ActionBase's own result parsing, tried on SAMPLE: which form its result has (a dict
        to clean, or a result object that cleans itself), and the action methods direct
        execution calls, with the parameters it passes."""
        for name, parameter in (("_compute_environment_string", "raw_environment_out"),
                                ("_update_module_args", "ignore_unknown_opts")):
            method = getattr(ActionBase, name, None)  # the action's own may pass arguments on as they come
            if method is None or parameter not in inspect.signature(method).parameters:
                raise _unavailable("%s.%s" % (ACTION, name), "is missing or has no parameter %s" % parameter)
        if not callable(getattr(ActionBase, "_parse_returned_data", None)):
            raise _unavailable(ACTION + "._parse_returned_data", "is missing")
        try:
            parsed = _SampleAction.bare()._parse_returned_data(dict(SAMPLE), PROFILE)
        except Exception as error:
            raise _unavailable(ACTION + "._parse_returned_data", "does not take a module's output (%s)" % error) from None
        if isinstance(parsed, dict):
            form = _dict_result
            try:
                clean = importlib.import_module("ansible.vars.clean").remove_internal_keys
            except (ImportError, AttributeError):
                raise _unavailable("ansible.vars.clean.remove_internal_keys",
                                   "is missing, and ActionBase._parse_returned_data gives a dict") from None
            self.clean = clean
        elif callable(getattr(parsed, "remove_internal_keys", None)) and callable(getattr(parsed, "as_result_dict", None)):
            form = _result_object
        else:
            raise _unavailable(ACTION + "._parse_returned_data", "gives a %s, neither a dict nor a result object"
                               % type(parsed).__name__)
        try:
            sample = form(self, parsed)
        except Exception as error:
            raise _unavailable(ACTION + "._parse_returned_data", "gives a result that cannot be cleaned (%s)" % error) from None
        if not isinstance(sample, dict) or sample.get("probe") != [1] or sample.get("changed") is not False:
            raise _unavailable(ACTION + "._parse_returned_data", "gives a result that is not the module's")
        self.parsed_form = form

    def result(self, action, stdout, stderr, code):
        """The task result of a module's output, as ActionBase._execute_module makes it."""
        return self.parsed_form(self, action._parse_returned_data({"stdout": stdout, "stderr": stderr, "rc": code}, PROFILE))


class _SampleAction(ActionBase):
    """An action as far as ActionBase's result parsing goes: it reads nothing of a task or a
    connection unless the output is not JSON (then the interpreter used, none here)."""

    def run(self, tmp=None, task_vars=None):
        raise NotImplementedError

    @classmethod
    def bare(cls):
        action = cls.__new__(cls)
        action._used_interpreter = None
        return action


def _dict_result(private, data):
    """ansible-core up to 2.20: a dict, whose internal keys go, as _execute_module removes them."""
    data.pop("_ansible_suppress_tmpdir_delete", None)
    private.clean(data)
    return data


def _result_object(private, data):
    """ansible-core 2.21: a task result object, cleaned and turned into the dict an action's
    _execute_module returns, as ansible-core's own does."""
    data.remove_internal_keys()
    return data.as_result_dict(for_round_trip=True)


_BOUND = {}


def bound():
    """This process's ``Private`` (made and tried at the first call; a worker forked after it
    has it already), or ``DirectExecutionUnavailable`` raised again at every call once it was raised."""
    if "failure" in _BOUND:
        raise _BOUND["failure"]
    try:
        if "private" not in _BOUND:
            private = Private()
            private.try_the_action()
            _BOUND["private"] = private
    except DirectExecutionUnavailable as failure:
        _BOUND["failure"] = failure
        raise
    return _BOUND["private"]


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise _unavailable(name, "is missing") from None


def _attribute(python_module, python_module_name, name):
    try:
        return getattr(python_module, name)
    except AttributeError:
        raise _unavailable("%s.%s" % (python_module_name, name), "is missing") from None


def _refill(registry, content):
    registry.clear()
    registry.update(content)

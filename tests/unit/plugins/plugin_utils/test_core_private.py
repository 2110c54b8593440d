"""The private names of ansible-core that direct execution uses (plugin_utils/_core_private.py):
each, missing or changed in turn, is found and named before any module runs, so the modules
run as module processes; on this ansible-core they are all there and behave."""

import importlib.util
import json
import os

import pytest

from ansible.plugins.action import ActionBase
from ansible.release import __version__

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import DirectExecutionUnavailable
from ansible_collections.broadcast.monitoring.plugins.plugin_utils import _core_private as core_private
from ansible_collections.broadcast.monitoring.plugins.action.device_login import ActionModule

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
HOOK = os.path.join(ROOT, "tests", "core_private_gone", "sitecustomize.py")


def the_stand_in():
    """tests/core_private_gone/sitecustomize.py, loaded as a plain module (its hook stays off)."""
    spec = importlib.util.spec_from_file_location("core_private_gone", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GONE = the_stand_in()


def an_action():
    """An action of the collection as far as parsing a module's output goes: ActionBase's own
    _parse_returned_data reads nothing of the task or connection unless the output is not JSON."""
    action = ActionModule.__new__(ActionModule)
    action._used_interpreter = None
    return action


def probed():
    private = core_private.Private()
    private.try_the_action()
    return private


def test_the_stand_in_covers_every_private_name():
    assert sorted(GONE.PATCHES) == sorted(core_private.NAMES)


@pytest.mark.parametrize("name", core_private.NAMES)
def test_each_private_name_gone_or_changed_is_named(name, monkeypatch):
    try:
        GONE.apply(name, monkeypatch.setattr, monkeypatch.delattr)
    except AttributeError:  # not in this ansible-core: then direct execution must not need it here
        assert name == "ansible.vars.clean.remove_internal_keys", name
        assert not isinstance(an_action()._parse_returned_data(dict(core_private.SAMPLE), core_private.PROFILE), dict)
        assert probed().parsed_form is not None
        return
    with pytest.raises(DirectExecutionUnavailable) as raised:
        probed()
    assert raised.value.name == name, str(raised.value)
    assert str(raised.value).startswith("ansible-core %s: %s " % (__version__, name))
    assert raised.value.expected is False


def test_the_probe_changes_nothing_it_tries():
    """Trying the module side puts every module global and registry back as it was."""
    basic = importlib.import_module("ansible.module_utils.basic")
    runtime = importlib.import_module("ansible.module_utils._internal")
    warnings = importlib.import_module("ansible.module_utils.common.warnings")
    before = (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE, basic._PARSED_MODULE_ARGS, runtime.is_controller,
              dict(warnings._global_warnings), dict(warnings._global_deprecations))
    probed()
    assert (basic._ANSIBLE_ARGS, basic._ANSIBLE_PROFILE, basic._PARSED_MODULE_ARGS, runtime.is_controller,
            dict(warnings._global_warnings), dict(warnings._global_deprecations)) == before


def test_a_result_is_what_ansible_core_makes_of_the_same_output():
    """A module's output, made a task result by direct execution, equals what this
    ansible-core's own _execute_module makes of it: parsed, then cleaned its own way."""
    output = json.dumps({"changed": True, "diff": {"before": "a", "after": "b"}, "warnings": [],
                         "_ansible_suppress_tmpdir_delete": True, "invocation": {"module_args": {"x": 1}}})
    action = an_action()
    ours = probed().result(action, output, "", 0)
    theirs = action._parse_returned_data({"stdout": output, "stderr": "", "rc": 0}, core_private.PROFILE)
    if isinstance(theirs, dict):
        theirs.pop("_ansible_suppress_tmpdir_delete", None)
        importlib.import_module("ansible.vars.clean").remove_internal_keys(theirs)
    else:
        theirs.remove_internal_keys()
        theirs = theirs.as_result_dict(for_round_trip=True)
    assert ours == theirs
    assert ours["changed"] is True and ours["diff"] == {"before": "a", "after": "b"}
    assert not any(key.startswith("_ansible_") and key != "_ansible_parsed" for key in ours), ours


def test_a_failure_is_kept_for_the_process_and_named_each_time(monkeypatch):
    monkeypatch.setattr(core_private, "_BOUND", {})
    GONE.apply("ansible.module_utils.basic._ANSIBLE_ARGS", monkeypatch.setattr, monkeypatch.delattr)
    for _attempt in range(2):
        with pytest.raises(DirectExecutionUnavailable, match="_ANSIBLE_ARGS is missing"):
            core_private.bound()
    monkeypatch.undo()
    monkeypatch.setattr(core_private, "_BOUND", {})
    assert core_private.bound().parsed_form is not None


def test_an_ansible_core_before_serialization_profiles_is_expected(monkeypatch):
    """2.16 to 2.18 (no ansible.module_utils.common.json.get_module_encoder): documented, no warning."""
    monkeypatch.delattr(importlib.import_module("ansible.module_utils.common.json"), "get_module_encoder")
    with pytest.raises(DirectExecutionUnavailable) as raised:
        core_private.Private()
    assert raised.value.expected is True


def test_nothing_private_is_imported_with_a_plugin():
    """_core_private's own imports at its top are public ansible-core modules only."""
    import ast
    with open(core_private.__file__, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    top = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    names = [node.module for node in top if isinstance(node, ast.ImportFrom)] + [
        alias.name for node in top if isinstance(node, ast.Import) for alias in node.names]
    ansible = [name for name in names if name and name.split(".")[0] == "ansible"]
    assert ansible and not [name for name in ansible if any(part.startswith("_") for part in name.split("."))], ansible
    assert ActionBase  # the action base class is public API

"""A stand-in for an ansible-core release that moved one private name direct execution uses
(plugins/plugin_utils/_core_private.py): with this folder on PYTHONPATH and BM_CORE_NAME_GONE
set to one of _core_private.NAMES, ansible-core loses that name (or it changes) the moment
ansible.plugins.action is imported, as a new release would have it. Its own code keeps
working, as that release's would; only what the collection relies on is gone. The unit tests
apply the same changes with ``apply``."""

import importlib
import importlib.abc
import importlib.machinery
import os
import sys

GONE = os.environ.get("BM_CORE_NAME_GONE")
BASIC = "ansible.module_utils.basic"
ACTION = "ansible.plugins.action"


class CoreResult(dict):
    """What this stand-in's ActionBase._low_level_execute_command returns: its own type."""


def marking(original):
    def _low_level_execute_command(self, *args, **kwargs):
        return CoreResult(original(self, *args, **kwargs))
    return _low_level_execute_command


def requiring_the_mark(original):
    """_parse_returned_data takes only the release's own command result type now."""
    def _parse_returned_data(self, res, profile):
        if not isinstance(res, CoreResult):
            raise TypeError("res: want the command result of _low_level_execute_command, got %s" % type(res).__name__)
        return original(self, res, profile)
    return _parse_returned_data


def without_raw_environment_out(original):
    def _compute_environment_string(self, raw_environment=None):
        return original(self, raw_environment)
    return _compute_environment_string


def keywords_only(original):
    def _update_module_args(self, module_name, module_args, task_vars, **options):
        return original(self, module_name, module_args, task_vars, **options)
    return _update_module_args


class Side:
    """Another way of telling the side than a bool flag (truthy: the controller's code still works)."""

    def __bool__(self):
        return True


#: name -> [(module, class or None, attribute, None to delete it or a function of the original giving
#: its replacement)]; names whose own ansible-core still needs them are changed, not deleted
PATCHES = {
    BASIC + "._ANSIBLE_ARGS": [(BASIC, None, "_ANSIBLE_ARGS", None)],
    BASIC + "._ANSIBLE_PROFILE": [(BASIC, None, "_ANSIBLE_PROFILE", None)],
    BASIC + "._PARSED_MODULE_ARGS": [(BASIC, None, "_PARSED_MODULE_ARGS", None)],
    BASIC + "._load_params": [(BASIC, None, "_load_params", None)],
    "ansible.module_utils._internal.is_controller": [
        ("ansible.module_utils._internal", None, "is_controller", lambda original: Side())],
    "ansible.module_utils.common.warnings._global_warnings": [
        ("ansible.module_utils.common.warnings", None, "_global_warnings", None)],
    "ansible.module_utils.common.warnings._global_deprecations": [
        ("ansible.module_utils.common.warnings", None, "_global_deprecations", None)],
    ACTION + ".ActionBase._parse_returned_data": [
        (ACTION, "ActionBase", "_low_level_execute_command", marking),
        (ACTION, "ActionBase", "_parse_returned_data", requiring_the_mark)],
    ACTION + ".ActionBase._compute_environment_string": [
        (ACTION, "ActionBase", "_compute_environment_string", without_raw_environment_out)],
    ACTION + ".ActionBase._update_module_args": [(ACTION, "ActionBase", "_update_module_args", keywords_only)],
    "ansible.vars.clean.remove_internal_keys": [("ansible.vars.clean", None, "remove_internal_keys", None)],
}


def apply(name, set_attribute=setattr, delete_attribute=delattr):
    """Make ansible-core lose or change ``name``."""
    for module, cls, attribute, replacement in PATCHES[name]:
        owner = importlib.import_module(module)
        if cls:
            owner = getattr(owner, cls)
        if replacement is None:
            delete_attribute(owner, attribute)
        else:
            set_attribute(owner, attribute, replacement(getattr(owner, attribute)))


class AfterActionImport(importlib.abc.MetaPathFinder):
    """Applies the change once ansible.plugins.action has been imported (which binds its own
    references first, as the release's own code would have them)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != ACTION:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            apply(GONE)
        spec.loader.exec_module = exec_module
        return spec


if GONE:
    sys.meta_path.insert(0, AfterActionImport())

"""Fitness tests of the layout (issue 32; docs/docsite/rst/architecture.rst): the rules a
newcomer reads from the tree stay true. Each rule is one test over the whole tree, so a new
rule is one more function here; the helpers read the sources with ast, without importing
them, except where the rule is about what importing does."""

from __future__ import annotations

import ast
import builtins
import inspect
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PLUGINS = os.path.join(ROOT, "plugins")
COLLECTION = "ansible_collections.broadcast.monitoring.plugins."
MODULE_UTILS = COLLECTION + "module_utils."
ERRORS = MODULE_UTILS + "_errors"
#: the folders whose files are internal code (the rules below are about them)
UTILS = ("module_utils", "plugin_utils")
#: each device's folder in module_utils, by the prefix of its modules' names
DEVICE_FOLDERS = {"ts": "_ts", "fm": "_fm"}


def source_files(folders=UTILS):
    """``{dotted name below plugins.: path}`` of every Python file of ``folders``."""
    found = {}
    for folder in folders:
        for directory, _dirs, files in os.walk(os.path.join(PLUGINS, folder)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    dotted = os.path.relpath(path, PLUGINS)[:-3].replace(os.sep, ".")
                    found[dotted[:-len(".__init__")] if dotted.endswith(".__init__") else dotted] = path
    return found


def imports_of(path):
    """The collection's modules ``path`` imports, at the top or inside a function (a lazy
    import still makes a cycle), as dotted names below plugins."""
    names = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(COLLECTION):
            module = node.module[len(COLLECTION):]
            names.add(module)
            names.update("%s.%s" % (module, alias.name) for alias in node.names)  # `from pkg import mod`
        elif isinstance(node, ast.Import):
            names.update(alias.name[len(COLLECTION):] for alias in node.names if alias.name.startswith(COLLECTION))
    return names


def import_graph():
    files = source_files()
    return {name: sorted(n for n in imports_of(path) if n in files and n != name) for name, path in files.items()}


def cycles(graph):
    """Every import cycle of ``graph`` ({name: [imported names]}), each as a path that ends where it starts."""
    found, state = [], {}

    def visit(name, path):
        state[name] = "open"
        for other in graph[name]:
            if state.get(other) == "open":
                found.append(path[path.index(other):] + [other])
            elif other not in state:
                visit(other, path + [other])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


def module_utils_loaded(module):
    """The collection's module_utils a fresh interpreter holds after importing ``module`` (a
    module's short name): what every run of that module compiles and imports."""
    code = ("import sys; import %smodules.%s; print('\\n'.join(sorted(m for m in sys.modules if m.startswith(%r))))"
            % (COLLECTION, module, MODULE_UTILS))
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=True)
    return [name[len(MODULE_UTILS):] for name in out.stdout.split()]


def device_modules():
    """``(module, its device prefix)`` for every module named after a device (ts_*, fm_*)."""
    names = sorted(name[:-3] for name in os.listdir(os.path.join(PLUGINS, "modules")) if name.endswith(".py"))
    return [(name, name.split("_")[0]) for name in names if name.split("_")[0] in DEVICE_FOLDERS]


# -- a module loads only its own device ---------------------------------------------------------
@pytest.mark.parametrize("module, device", device_modules(), ids=[module for module, _device in device_modules()])
def test_a_device_module_loads_no_file_of_the_other_device(module, device):
    others = [folder for prefix, folder in DEVICE_FOLDERS.items() if prefix != device]
    loaded = module_utils_loaded(module)
    assert DEVICE_FOLDERS[device] + ".api" in loaded, "the check sees no device file at all: %s" % loaded
    foreign = [name for name in loaded if name.split(".")[0] in others]
    assert foreign == [], "%s loads the other device's files: %s" % (module, foreign)


def test_a_device_neutral_module_loads_no_device_at_start_up():
    """device_time talks to either device; the one it talks to is imported once known."""
    loaded = module_utils_loaded("device_time")
    assert [name for name in loaded if name.split(".")[0] in DEVICE_FOLDERS.values()] == []


# -- no import cycle --------------------------------------------------------------------------------
def test_no_import_cycle_among_module_utils_and_plugin_utils():
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in found)


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": ["b"], "b": []}) == []


def test_module_utils_never_imports_plugin_utils():
    """module_utils runs where the modules run; plugin_utils is controller code."""
    found = {name: [n for n in imports_of(path) if n.startswith("plugin_utils")]
             for name, path in source_files(("module_utils",)).items()}
    assert {name: names for name, names in found.items() if names} == {}


# -- one home for exceptions ------------------------------------------------------------------------
def exception_classes(path):
    """The names of the classes ``path`` defines that derive from an exception (by name: a
    base that is a builtin exception or one of the collection's)."""
    known = {name for name, value in vars(builtins).items() if inspect.isclass(value) and issubclass(value, BaseException)}
    errors = ast.parse(open(source_files()["module_utils._errors"], encoding="utf-8").read())
    known |= {node.name for node in errors.body if isinstance(node, ast.ClassDef)}
    found = []
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.ClassDef):
            bases = {base.id if isinstance(base, ast.Name) else getattr(base, "attr", None) for base in node.bases}
            if bases & known:
                found.append(node.name)
                known.add(node.name)
    return found


def test_every_exception_class_is_defined_in_errors_only():
    found = {name: exception_classes(path) for name, path in source_files(UTILS).items() if name != "module_utils._errors"}
    found = {name: classes for name, classes in found.items() if classes}
    assert found == {}, "exception classes outside _errors.py: %s" % found


def test_errors_imports_nothing_of_the_collection():
    """So any file may import it, and it never takes part in a cycle."""
    assert imports_of(source_files()["module_utils._errors"]) == set()


def test_errors_names_are_imported_from_errors_only():
    """No re-export: an exception or masking helper is imported from _errors, not from a file
    that imported it."""
    errors = ast.parse(open(source_files()["module_utils._errors"], encoding="utf-8").read())
    names = {node.name for node in errors.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    found = []
    for name, path in source_files(UTILS + ("modules", "action", "filter")).items():
        for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(MODULE_UTILS) \
                    and node.module != ERRORS:
                found.extend("%s: %s from %s" % (name, alias.name, node.module)
                             for alias in node.names if alias.name in names)
    assert found == [], "imported from another file than _errors: " + "; ".join(found)


def test_the_exception_check_finds_an_exception_class(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("class A(ValueError):\n    pass\n\n\nclass B(A):\n    pass\n\n\nclass C(dict):\n    pass\n")
    assert exception_classes(str(path)) == ["A", "B"]

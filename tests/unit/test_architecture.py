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


def module_names():
    names = sorted(name[:-3] for name in os.listdir(os.path.join(PLUGINS, "modules")) if name.endswith(".py"))
    return [name for name in names if name != "__init__"]


def device_modules():
    """``(module, its device prefix)`` for every module named after a device (ts_*, fm_*)."""
    return [(name, name.split("_")[0]) for name in module_names() if name.split("_")[0] in DEVICE_FOLDERS]


def device_neutral_modules():
    """Every module not named after a device: device_* (either device, by device_type) and the others."""
    return [name for name in module_names() if name.split("_")[0] not in DEVICE_FOLDERS]


def device_files_among(loaded):
    """The names of ``loaded`` (below module_utils.) that are files of a device folder."""
    return [name for name in loaded if name.split(".")[0] in DEVICE_FOLDERS.values()]


# -- a module loads only its own device ---------------------------------------------------------
@pytest.mark.parametrize("module, device", device_modules(), ids=[module for module, _device in device_modules()])
def test_a_device_module_loads_no_file_of_the_other_device(module, device):
    others = [folder for prefix, folder in DEVICE_FOLDERS.items() if prefix != device]
    loaded = module_utils_loaded(module)
    assert DEVICE_FOLDERS[device] + ".api" in loaded, "the check sees no device file at all: %s" % loaded
    foreign = [name for name in loaded if name.split(".")[0] in others]
    assert foreign == [], "%s loads the other device's files: %s" % (module, foreign)


@pytest.mark.parametrize("module", device_neutral_modules())
def test_a_device_neutral_module_loads_no_device_at_start_up(module):
    """A device_* module talks to either device; the one it talks to is imported once known
    (_devices.py). The others (role_variables) talk to none."""
    loaded = module_utils_loaded(module)
    assert "_errors" in loaded or module == "role_variables", "the check sees no module_utils at all: %s" % loaded
    assert device_files_among(loaded) == [], "%s loads device files at start-up" % module


def test_the_start_up_check_finds_a_device_file():
    assert "device_restore" in device_neutral_modules() and "role_variables" in device_neutral_modules()
    assert "ts_input" not in device_neutral_modules()
    assert "_ts.api" in device_files_among(module_utils_loaded("ts_input"))
    assert device_files_among(["_errors", "_devices", "_ts.restore", "_fm", "_backup.restore"]) == ["_ts.restore", "_fm"]


# -- a device's files: reached through _devices.py, never from the other device -----------------------
#: the one file that maps a device type to the files of its folder (and imports them lazily)
DEVICES = "module_utils._devices"


def device_folder_of(name):
    """The device folder (``_ts``, ``_fm``) a dotted name below plugins. lies in, or None."""
    parts = name.split(".")
    return parts[1] if parts[0] == "module_utils" and len(parts) > 1 and parts[1] in DEVICE_FOLDERS.values() else None


def device_imports(path):
    """``line: name`` of every file of a device folder ``path`` imports, at the top or inside a function."""
    found = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(COLLECTION):
            module = node.module[len(COLLECTION):]
            names = ["%s.%s" % (module, a.name) for a in node.names] if device_folder_of(module + ".x") \
                and module.count(".") == 1 else [module]
            found.extend("%d: %s" % (node.lineno, name) for name in names if device_folder_of(name))
        elif isinstance(node, ast.Import):
            found.extend("%d: %s" % (node.lineno, a.name[len(COLLECTION):]) for a in node.names
                         if a.name.startswith(COLLECTION) and device_folder_of(a.name[len(COLLECTION):]))
    return found


def foreign_device_imports(name, path):
    """The device files ``path`` (``name`` below plugins.) may not import: a shared file of
    module_utils none (but _devices.py), a device folder's file none of the other folder."""
    if name == DEVICES:
        return []
    own = device_folder_of(name)
    return [line for line in device_imports(path) if own is None or device_folder_of(line.split(": ")[1]) != own]


def test_shared_files_reach_a_device_through_devices_py_only():
    """What serves either device loads the one it serves through _devices.py, once it knows it."""
    found = {name: foreign_device_imports(name, path) for name, path in source_files(("module_utils",)).items()
             if device_folder_of(name) is None}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_a_device_folder_imports_nothing_of_the_other_device():
    found = {name: foreign_device_imports(name, path) for name, path in source_files(("module_utils",)).items()
             if device_folder_of(name)}
    assert [name for name in found if name.endswith(".restore")] != [], "the check sees no restore.py"
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_device_import_checks_find_a_device_import(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_api\n"
                    "from ansible_collections.broadcast.monitoring.plugins.module_utils import _engine\n\n\n"
                    "def f():\n"
                    "    from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.restore import steps\n"
                    "    import ansible_collections.broadcast.monitoring.plugins.module_utils._fm.parts\n")
    assert device_imports(str(path)) == ["1: module_utils._ts.api", "6: module_utils._fm.restore",
                                         "7: module_utils._fm.parts"]
    assert foreign_device_imports("module_utils._backup.restore", str(path)) == device_imports(str(path))
    assert foreign_device_imports("module_utils._ts.restore", str(path)) == [
        "6: module_utils._fm.restore", "7: module_utils._fm.parts"]
    assert foreign_device_imports(DEVICES, str(path)) == []


# -- what AnsiballZ ships is found by its import statements ------------------------------------------
def computed_imports(path):
    """``line: what`` of every import by a computed name in ``path`` (importlib, __import__):
    AnsiballZ would leave the module it names out of a module's payload."""
    found = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found.extend("%d: import %s" % (node.lineno, m) for m in modules if m.split(".")[0] == "importlib")
        elif isinstance(node, ast.Call) and (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) in (
                "__import__", "import_module"):
            found.append("%d: %s" % (node.lineno, ast.unparse(node)[:80]))
    return found


def test_modules_and_module_utils_import_by_name_only():
    found = {name: computed_imports(path) for name, path in source_files(("module_utils", "modules")).items()}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_computed_import_check_finds_one(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("import importlib\n\n\ndef f(kind):\n    a = importlib.import_module('x.' + kind)\n"
                    "    return a, __import__(kind)\n")
    assert computed_imports(str(path)) == ["1: import importlib", "5: importlib.import_module('x.' + kind)",
                                           "6: __import__(kind)"]


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


# -- paths and request bodies only in the device API files ------------------------------------------
#: the device API layers (and what both devices' share): the only files that name a path or build a request body
DEVICE_API_FILES = tuple("module_utils.%s.%s" % (folder, name) for folder in DEVICE_FOLDERS.values()
                         for name in ("api", "api_backup", "api_snapshot")) + ("module_utils._device_api",)
#: every plugin file a rule below is about (modules, action and filter plugins, utils), and the EDA source
PLUGIN_FOLDERS = ("module_utils", "plugin_utils", "modules", "action", "filter")
EDA_PLUGINS = os.path.join(ROOT, "extensions", "eda", "plugins")
#: the client's writing methods, and where each takes the request body (position, keywords)
BODY_ARGUMENT = {"post": 1, "put": 1, "patch": 1, "delete": 1, "request": 2}
BODY_KEYWORDS = ("body", "data", "json")
#: a module's documentation strings, which may show a path as the device names it
DOC_STRINGS = ("DOCUMENTATION", "EXAMPLES", "RETURN")


def plugin_files():
    """``{name: path}`` of every Python file of plugins/** and extensions/eda/plugins/**."""
    found = source_files(PLUGIN_FOLDERS)
    for directory, _dirs, files in os.walk(EDA_PLUGINS):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                found["eda." + os.path.relpath(path, EDA_PLUGINS)[:-3].replace(os.sep, ".")] = path
    return found


def parsed(path):
    with open(path, encoding="utf-8") as handle:
        return ast.parse(handle.read(), path)


def documentation_nodes(tree):
    """The string nodes of ``tree`` that document rather than run: docstrings and a module's
    DOCUMENTATION, EXAMPLES and RETURN."""
    nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body \
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
            nodes.add(node.body[0].value)
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in DOC_STRINGS for t in node.targets):
            nodes.update(n for n in ast.walk(node.value) if isinstance(n, ast.Constant))
    return nodes


def api_paths(path):
    """``line: text`` of every string in ``path`` that names a device path (/api...), docs left out."""
    tree = parsed(path)
    documented = documentation_nodes(tree)
    return ["%d: %s" % (node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in documented
            and (node.value.startswith("/api") or "/api/" in node.value)]


def is_client(node):
    """``client``, ``self.client``, ``self._client`` ...: what the collection calls its device client."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name.lstrip("_").endswith("client")


def outside_the_device_api_files(check):
    found = {name: check(path) for name, path in plugin_files().items() if name not in DEVICE_API_FILES}
    return {name: lines for name, lines in sorted(found.items()) if lines}


def test_device_paths_are_named_in_the_device_api_files_only():
    found = outside_the_device_api_files(api_paths)
    assert found == {}, "device paths outside the device API files (_ts/api*.py, _fm/api*.py): %s" % found


def test_the_path_and_body_checks_find_a_path_and_a_body(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('"""Reads /api/inputs."""\nDOCUMENTATION = "path: /api/inputs"\n\n\n'
                    'def f(client, self, api, ident):\n'
                    '    client.post("/api/inputs", api.body())\n'
                    '    client.post(api.INPUTS, {"name": "x"})\n'
                    '    self.client.request("POST", api.ALERTS, body=dict(limit=1), idempotent=True)\n'
                    '    self._client.delete(api.INPUT % ident, [i for i in ident])\n'
                    '    client.post(api.REBOOT)\n'
                    '    client.get(api.INPUTS, params={"page": 1})\n'
                    '    limits = {"seconds": 5}\n'
                    '    client.post(api.RECORD, limits)\n'
                    '    client.post(api.RECORD, api.record_body(limits))\n')
    assert api_paths(str(path)) == ["6: /api/inputs"]
    assert [line.split(":")[0] for line in bodies_not_from_the_api(str(path))] == ["7", "8", "9", "13"]


# -- what code does with device answers and request bodies, whatever the names (issue 45) ---------
#: the client's methods whose value is a device's answer
ANSWERING = ("get", "post", "put", "patch", "delete", "request", "try_get")
#: how the code outside the device API layer calls the modules of that layer
API_MODULES = ("api", "api_backup", "api_snapshot")
#: the files below the device API layer that speak the protocol itself (the login answer, an
#: answer's shape and errors), and _offline.py, which stands in for a device
PROTOCOL_FILES = tuple("module_utils." + name for name in ("_client", "_transport", "_shapes", "_errors", "_offline"))
#: the dict methods that hand on a device answer's elements
ELEMENTS = ("items", "values")


def is_client_call(node, methods=ANSWERING):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods \
        and is_client(node.func.value)


def answer_holders(tree):
    """The attributes (``self.<name>``) of ``tree`` that hold a device's answer, or answers by key."""
    holders = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(is_client_call(n) for n in ast.walk(node.value)):
            holders.update(t.attr for t in node.targets if isinstance(t, ast.Attribute))
    return holders


class Answers:
    """Tells whether an expression of one function is a device's answer (or an element of one)."""

    def __init__(self, function, holders):
        self.names, self.holders = set(), holders
        bindings = []
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                bindings.extend((target, node.value) for target in node.targets)
            elif isinstance(node, (ast.For, ast.comprehension)):
                bindings.append((node.target, node.iter))
        grown = True
        while grown:
            grown = False
            for target, value in bindings:
                if self.holds(value):
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and name.id not in self.names:
                            self.names.add(name.id)
                            grown = True

    def holds(self, node):
        if is_client_call(node):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute):
            return node.attr in self.holders and isinstance(node.value, ast.Name) and node.value.id == "self"
        if isinstance(node, ast.Subscript):  # an element, by an index or key the code holds
            return not is_text(node.slice) and self.holds(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ELEMENTS:
            return self.holds(node.func.value)
        return False


def is_text(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def field_reads(path):
    """``line: code`` of every read of a device's field by its name in ``path``: ``answer["field"]``
    or ``answer.get("field")`` on an answer of the client, whatever the variables are called."""
    tree = parsed(path)
    holders = answer_holders(tree)
    found = set()
    for function in [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        answers = Answers(function, holders)
        for node in ast.walk(function):
            if isinstance(node, ast.Subscript) and is_text(node.slice) and answers.holds(node.value):
                found.add((node.lineno, ast.unparse(node)[:100]))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                    and node.args and is_text(node.args[0]) and answers.holds(node.func.value):
                found.add((node.lineno, ast.unparse(node)[:100]))
    return ["%d: %s" % line for line in sorted(found)]


def terminal_name(node):
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)


def from_the_api(node, names):
    """Whether a request body ``node`` is what the device API layer built: the value of one of
    its functions (``api.input_body(...)``, ``self.api.alerts_query(...)``), a Request's body,
    or a name bound to either or handed in (a parameter: whoever calls the function that sends
    it gives the body, as ``apply`` hands ``write`` the object to write)."""
    if node is None or isinstance(node, ast.Constant) and node.value is None:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return terminal_name(node.func.value) in API_MODULES
    if isinstance(node, ast.Attribute):
        return node.attr == "body"
    return isinstance(node, ast.Name) and node.id in names


def bodies_not_from_the_api(path):
    """``line: call`` of every request in ``path`` whose body is not what the device API layer
    built (a dict built here, or a value handed on from elsewhere)."""
    found = []
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    for function in [node for node in ast.walk(parsed(path)) if isinstance(node, functions)]:
        names = {a.arg for f in ast.walk(function) if isinstance(f, functions)
                 for a in f.args.posonlyargs + f.args.args + f.args.kwonlyargs}
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and from_the_api(node.value, set()):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        for node in ast.walk(function):
            if not is_client_call(node, BODY_ARGUMENT):
                continue
            position = BODY_ARGUMENT[node.func.attr]
            bodies = node.args[position:position + 1] + [k.value for k in node.keywords if k.arg in BODY_KEYWORDS]
            if not all(from_the_api(body, names) for body in bodies):
                found.append("%d: %s" % (node.lineno, ast.unparse(node)[:100]))
    return sorted(set(found), key=lambda line: int(line.split(":")[0]))


def outside_the_device_api_layer(check):
    found = {name: check(path) for name, path in plugin_files().items()
             if name not in DEVICE_API_FILES + PROTOCOL_FILES}
    return {name: lines for name, lines in sorted(found.items()) if lines}


def test_device_fields_are_read_in_the_device_api_files_only():
    """Outside the device API layer a device's answer goes to a function of that layer; its
    fields are never read by name (a firmware that names them differently is met in one file)."""
    found = outside_the_device_api_layer(field_reads)
    assert found == {}, "device fields read outside the device API files:\n" + "\n".join(
        "%s:%s" % (name, line) for name, lines in found.items() for line in lines)


#: files that reach the device API module by another name, each with what removes it (the
#: test below fails once a file is clean: then its entry goes)
BODIES_PENDING = {}


def test_request_bodies_come_from_the_device_api_files_only():
    """Outside the device API layer a request's body is what a function of that layer built
    (or what the caller of the function that sends it handed in), never a value made here."""
    found = outside_the_device_api_layer(bodies_not_from_the_api)
    assert [name for name in BODIES_PENDING if name not in found] == [], "clean now: remove from BODIES_PENDING"
    found = {name: lines for name, lines in found.items() if name not in BODIES_PENDING}
    assert found == {}, "request bodies not built by the device API files:\n" + "\n".join(
        "%s:%s" % (name, line) for name, lines in found.items() for line in lines)


def test_the_field_and_body_checks_find_a_read_and_a_body(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('class R:\n'
                    '    def read(self):\n'
                    '        self._raw = {api.tuner_id_of(t): t for t in self.client.get(api.TUNERS)}\n\n'
                    '    def state(self, tid, client, after):\n'
                    '        now = self._raw[tid]["state"]\n'
                    '        listed = client.get(api.INPUTS)\n'
                    '        names = [item["name"] for item in listed]\n'
                    '        for key, element in self._raw.items():\n'
                    '            element.get("id")\n'
                    '        token = client.get(api.TOKEN).get("token")\n'
                    '        body = api.input_body(after)\n'
                    '        client.post(api.INPUTS, body)\n'
                    '        client.post(api.INPUTS, self.saved["inputs"])\n'
                    '        client.post(api.INPUTS, {"name": after["name"]})\n'
                    '        client.request("POST", api.UPGRADE, data=api_backup.raw(after))\n'
                    '        client.post(api.ALERTS, self.api.alerts_query(after), idempotent=True)\n'
                    '        client.post(api.ALERTS, query(after))\n'
                    '        client.post(api.REBOOT)\n'
                    '        return now, names, token, api.input_name_of(listed[0]), after["name"]\n')
    assert [line.split(":")[0] for line in field_reads(str(path))] == ["6", "8", "10", "11"]
    assert [line.split(":")[0] for line in bodies_not_from_the_api(str(path))] == ["14", "15", "18"]


# -- the AnsibleModule only at the top ---------------------------------------------------------------
#: the only files that may hold the AnsibleModule: _module.py, and the modules that make it
MODULE_HOLDERS = ("module_utils._module",)
#: what only the AnsibleModule does (its results and messages) and reads (its options and mode)
MODULE_CALLS = ("fail_json", "exit_json", "warn", "deprecate")
MODULE_READS = ("check_mode", "params")


def module_uses(path):
    """``line: what`` of every place in ``path`` that takes or uses an AnsibleModule: a
    parameter named ``module``, a call of its result and message methods, a read of its
    options or check mode on a name that is a module (``module``, ``self.module``, ``mod`` ...)."""
    found = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            found.extend("%d: parameter %s" % (node.lineno, a.arg) for a in arguments if a.arg == "module")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MODULE_CALLS \
                and not is_warnings_module(node.func.value):
            found.append("%d: .%s()" % (node.lineno, node.func.attr))
        elif isinstance(node, ast.Attribute) and node.attr in MODULE_READS and is_module(node.value):
            found.append("%d: .%s" % (node.lineno, node.attr))
    return found


def is_warnings_module(node):
    """ansible-core's module_utils.common.warnings (its warn and deprecate are functions of that
    module, not of an AnsibleModule), as _core_private.py names it."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name == "warnings"


def is_module(node):
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return name.lstrip("_") in ("module", "mod", "ansible_module", "fake_module")


def test_no_function_below_module_py_takes_the_ansible_module():
    """Below _module.py functions take what they need (client, device file, parameters, check
    mode), so tests and the restore call them directly."""
    found = {name: module_uses(path) for name, path in plugin_files().items()
             if name not in MODULE_HOLDERS and not name.startswith("modules.")}
    found = {name: uses for name, uses in sorted(found.items()) if uses}
    assert found == {}, "the AnsibleModule below _module.py:\n" + "\n".join(
        "%s:%s" % (name, use) for name, uses in found.items() for use in uses)


def test_the_module_check_finds_a_module(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("def f(module, client):\n    module.fail_json(msg='x')\n    return module.check_mode\n\n\n"
                    "def g(self, params, check_mode):\n    self.module.warn('w')\n    return self.module.params, params\n\n\n"
                    "def h(client, check_mode):\n    return client.get('x'), check_mode\n\n\n"
                    "def k(self):\n    self.warnings.warn('ansible-core module_utils function')\n")
    assert module_uses(str(path)) == ["1: parameter module", "2: .fail_json()", "3: .check_mode", "7: .warn()",
                                      "8: .params"]


# -- no file over 400 lines of code -----------------------------------------------------------------
MAX_CODE_LINES = 400


def code_lines(path):
    """The lines of ``path`` that hold code: not blank, not a comment, not in a docstring, and
    in a module not in its DOCUMENTATION, EXAMPLES or RETURN."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    tree = ast.parse(source, path)
    documented = documentation_nodes(tree)
    left_out = set()
    for node in ast.walk(tree):
        if node in documented or (isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) in DOC_STRINGS for t in node.targets)):
            left_out.update(range(node.lineno, node.end_lineno + 1))
    return sum(1 for number, line in enumerate(source.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and number not in left_out)


def test_no_file_over_400_lines_of_code():
    found = {name: code_lines(path) for name, path in plugin_files().items()}
    over = {name: lines for name, lines in sorted(found.items()) if lines > MAX_CODE_LINES}
    assert over == {}, "files over %d lines of code (split them by job): %s" % (MAX_CODE_LINES, over)


def test_code_lines_leave_out_blank_lines_comments_and_documentation(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('"""A module.\n\nMore."""\n\n# a comment\nDOCUMENTATION = r"""\nmodule: x\n"""\n\n\n'
                    'def f():\n    """Docstring."""\n    return 1  # counted\n')
    assert code_lines(str(path)) == 2


# -- ansible-core's private names in one place ------------------------------------------------------
CORE_PRIVATE = "plugin_utils._core_private"
#: ActionBase methods an action plugin calls on itself (ansible-core's action API): _core_private
#: tries them, _direct_execution calls them
ACTION_METHODS = ("_compute_environment_string", "_update_module_args")


def core_private_uses(path, names):
    """``line: name`` of every attribute, name or import in ``path`` that is one of ``names``."""
    found = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Attribute) and node.attr in names and not is_super(node.value):
            found.append("%d: %s" % (node.lineno, node.attr))
        elif isinstance(node, ast.Name) and node.id in names:
            found.append("%d: %s" % (node.lineno, node.id))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            prefix = node.module + "." if isinstance(node, ast.ImportFrom) and node.module else ""
            dotted = [prefix + alias.name for alias in node.names]
            found.extend("%d: import %s" % (node.lineno, m) for m in dotted
                         if m.startswith("ansible.") and any(part.startswith("_") for part in m.split(".")))
    return found


def is_super(node):
    """``super()``: a method of the class's own base (an AnsibleModule's _load_params that
    _module.py extends), not the module function of the same name."""
    return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "super"


def test_ansible_core_private_names_are_used_in_core_private_only():
    """Issue 41: any ansible-core release may move a private name; the one file that uses them
    looks each up and tries it (a missing one turns direct execution off, never a run)."""
    from ansible_collections.broadcast.monitoring.plugins.plugin_utils._core_private import NAMES
    names = {name.rsplit(".", 1)[1] for name in NAMES} - set(ACTION_METHODS)
    found = {name: core_private_uses(path, names) for name, path in plugin_files().items() if name != CORE_PRIVATE}
    found = {name: uses for name, uses in sorted(found.items()) if uses}
    assert found == {}, found


def test_the_private_name_check_finds_one(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("from ansible.module_utils import _internal\nimport ansible.vars.clean\n\n\n"
                    "def f(basic):\n    return basic._ANSIBLE_ARGS, _internal.is_controller, super()._ANSIBLE_ARGS\n")
    assert sorted(core_private_uses(str(path), {"_ANSIBLE_ARGS", "is_controller"})) == [
        "1: import ansible.module_utils._internal", "6: _ANSIBLE_ARGS", "6: is_controller"]


# -- one masking function (issue 42) ----------------------------------------------------------------
#: where masking code would be: every Python file of these folders
MASKING_FOLDERS = ("plugins", "extensions", os.path.join("simulator", "src"))
#: the one home of masking: _errors.masked and its helpers
MASKING_HOME = os.path.join("plugins", "module_utils", "_errors.py")
#: files that still mask by themselves, each with what removes it (the test below fails once
#: a file no longer does: then its entry goes)
MASKING_PENDING = {}
#: words of a function name that say it masks (split at "_": a netmask is not one)
MASKING_WORDS = {"mask", "masked", "masking", "unmasked", "redact", "redacted", "scrub", "scrubbed", "sanitize",
                 "sanitized", "censor", "censored", "hide", "hidden", "shown"}
#: words of a name that say it holds a secret or a mask
SECRET_WORDS = ("secret", "password", "token", "mask", "shown")
#: calls that replace text
REPLACING = {"replace", "sub", "subn", "translate"}


def masking_files():
    """``{path relative to the root: path}`` of every Python file of MASKING_FOLDERS."""
    found = {}
    for folder in MASKING_FOLDERS:
        for directory, _dirs, files in os.walk(os.path.join(ROOT, folder)):
            found.update((os.path.relpath(os.path.join(directory, name), ROOT), os.path.join(directory, name))
                         for name in files if name.endswith(".py"))
    return found


def names_a_secret(node):
    """Whether ``node`` (an argument) names a secret or a mask, or is a mask of stars."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return len(node.value) >= 3 and set(node.value) == {"*"}
    for inner in ast.walk(node):
        name = inner.id if isinstance(inner, ast.Name) else inner.attr if isinstance(inner, ast.Attribute) else ""
        if any(word in name.lower() for word in SECRET_WORDS):
            return True
    return False


def masking_code(path):
    """``["line: what"]``: functions named for masking, text replaced with a secret or a mask,
    and masks of stars written out, in ``path``."""
    found = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                MASKING_WORDS & set(node.name.lower().strip("_").split("_")):
            found.append("%d: function %s" % (node.lineno, node.name))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in REPLACING \
                and any(names_a_secret(arg) for arg in list(node.args) + [k.value for k in node.keywords]):
            found.append("%d: %s() with a secret or a mask" % (node.lineno, node.func.attr))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 3 \
                and set(node.value) == {"*"}:
            found.append("%d: a mask written out (%s)" % (node.lineno, node.value))
    return sorted(found, key=lambda line: int(line.split(":")[0]))


def test_one_masking_function_for_every_output():
    """Every output is masked by _errors.masked alone: no other function named for masking, no
    ``text.replace(secret, ...)`` (nor re.sub) and no mask of stars outside _errors.py, in the
    collection's plugins, the EDA source and the simulator (whose logs hold no request body,
    query or header, so there is nothing to mask)."""
    found = {path: masking_code(full) for path, full in masking_files().items() if path != MASKING_HOME}
    found = {path: what for path, what in found.items() if what}
    assert sorted(set(found) - set(MASKING_PENDING)) == [], "masking outside _errors.masked: %s" % found
    assert sorted(set(MASKING_PENDING) - set(found)) == [], "no longer masks by itself: drop it from MASKING_PENDING"


def test_the_masking_check_finds_masking_code(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("MASK = '********'\n\n\ndef masked_text(text, secret):\n    return text.replace(secret, MASK)\n\n\n"
                    "def want_netmask(value):\n    return re.sub(self.password, 'x', value).replace('Z', '+00:00')\n")
    assert masking_code(str(path)) == ["1: a mask written out (********)", "4: function masked_text",
                                       "5: replace() with a secret or a mask", "9: sub() with a secret or a mask"]


# -- a device type is known by the registry and its folder only (issue 45) ---------------------------
#: the registry of device types: the one shared file that names them (and each one's folder)
REGISTRY = "module_utils._devices"
#: shared files that still name device types, and why (each entry is a debt, to be paid by the
#: work named): none
NAMING_DEVICE_TYPES = ()


def registered_device_types():
    """``{name: folder}`` of the registry's device types, read from the registry and the
    folders' device_type.py without importing them."""
    folders = {}
    for folder in sorted(os.listdir(os.path.join(PLUGINS, "module_utils"))):
        path = os.path.join(PLUGINS, "module_utils", folder, "device_type.py")
        if os.path.isfile(path):
            for node in parsed(path).body:
                if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["NAME"]:
                    folders[node.value.value] = folder
    return folders


def device_type_mentions(path, names, folders, modules):
    """``line: what`` of every mention of a device type in ``path``'s code (documentation left
    out): a registered name as a word of a string, a device folder imported or named in a
    string, a device's own module (``ts_info``) named."""
    tree = parsed(path)
    documented = documentation_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node not in documented:
            words = set(node.value.replace("/", " ").replace(".", " ").replace("'", " ").replace('"', " ").split())
            found.extend("%d: %r" % (node.lineno, word) for word in sorted(words & (set(names) | set(folders) | modules)))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imported = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            names_too = [] if isinstance(node, ast.Import) else [a.name for a in node.names]
            if any(m.startswith(MODULE_UTILS) and set(m.split(".") + names_too) & folders for m in imported):
                found.append("%d: import %s" % (node.lineno, ", ".join(
                    "%s%s" % (m, "" if isinstance(node, ast.Import) else " (%s)" % ", ".join(names_too)) for m in imported)))
    return sorted(found, key=lambda line: (int(line.split(":")[0]), line))


def shared_files():
    """Every plugin file that serves any device type: all but the device folders, the
    registry and the modules of one device (ts_*, fm_*)."""
    own = {"modules.%s" % module for module, _prefix in device_modules()}
    return {name: path for name, path in plugin_files().items()
            if device_folder_of(name) is None and name != REGISTRY and name not in own}


def test_no_device_type_is_named_outside_its_folder_and_the_registry():
    types = registered_device_types()
    assert sorted(types.values()) == sorted(DEVICE_FOLDERS.values()), "the check sees other device folders: %s" % types
    modules = {module for module, _prefix in device_modules()}
    found = {name: device_type_mentions(path, types, set(types.values()), modules)
             for name, path in shared_files().items() if name not in NAMING_DEVICE_TYPES}
    assert {name: lines for name, lines in sorted(found.items()) if lines} == {}, (
        "device types named outside their folders and the registry (_devices.py): ask the registry")


def test_the_device_type_check_finds_a_name_an_import_and_a_module(tmp_path):
    path = tmp_path / "x.py"
    path.write_text('"""Serves ts_analyzer and fm_monitor."""\nDOCUMENTATION = "choices: [ts_analyzer]"\n'
                    "from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api\n\n\n"
                    "def f(kind):\n"
                    "    import ansible_collections.broadcast.monitoring.plugins.module_utils._ts.parts\n"
                    '    return kind == "ts_analyzer" or "run fm_info" or "fm_monitor_tuners" or "see _ts/api.py"\n')
    found = device_type_mentions(str(path), {"ts_analyzer": "_ts", "fm_monitor": "_fm"}, {"_ts", "_fm"}, {"fm_info"})
    assert found == ["3: import ansible_collections.broadcast.monitoring.plugins.module_utils._fm (api)",
                     "7: import ansible_collections.broadcast.monitoring.plugins.module_utils._ts.parts",
                     "8: '_ts'", "8: 'fm_info'", "8: 'ts_analyzer'"]
    assert "plugin_utils._state_parts" in shared_files() and "modules.device_state" in shared_files()
    assert "modules.ts_input" not in shared_files() and REGISTRY not in shared_files()

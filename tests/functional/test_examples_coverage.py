"""Every module's EXAMPLES run in a functional test: each module in plugins/modules must be
named in a test function that calls ``module_examples(...)`` (as ``module_examples("ts_input")``,
or as a string in that function or its parametrize decorator when the call takes a variable),
so a new module without an EXAMPLES test fails here."""

import ast
import glob
import os

from tests.functional.conftest import ROOT


def _calls_module_examples(node):
    return any(isinstance(call, ast.Call) and getattr(call.func, "id", None) == "module_examples"
               for call in ast.walk(node))


def _strings(node):
    return {value.value for value in ast.walk(node) if isinstance(value, ast.Constant) and isinstance(value.value, str)}


def examples_tested():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "tests", "functional", "test_*.py")):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _calls_module_examples(node):
                names |= _strings(node)  # the body and the decorators (parametrize)
    return names


def test_every_module_has_an_examples_test():
    modules = {os.path.basename(path)[:-3] for path in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
               if not os.path.basename(path).startswith("_")}
    assert len(modules) > 10, modules
    missing = sorted(modules - examples_tested())
    assert not missing, "modules whose EXAMPLES no functional test runs (call module_examples(...)): %s" % ", ".join(missing)

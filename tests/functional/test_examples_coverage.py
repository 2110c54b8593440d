"""Every module's EXAMPLES run in a functional test: each module in plugins/modules must be
named in a test function that calls ``module_examples(...)``, or a helper of tasks.py that
calls it (as ``run_examples(play, "ts_input", ts)``, or as a string in that function or its
parametrize decorator when the call takes a variable), so a new module without an EXAMPLES
test fails here."""

import ast
import glob
import os

from tests.functional.conftest import ROOT


def _calls(node, names):
    return any(isinstance(call, ast.Call) and getattr(call.func, "id", None) in names for call in ast.walk(node))


def _parse(path):
    with open(path, encoding="utf-8") as handle:
        return ast.parse(handle.read())


def examples_runners():
    """module_examples and the helpers of tasks.py that call it."""
    tree = _parse(os.path.join(ROOT, "tests", "functional", "tasks.py"))
    return {"module_examples"} | {node.name for node in tree.body
                                  if isinstance(node, ast.FunctionDef) and _calls(node, {"module_examples"})}


def _strings(node):
    return {value.value for value in ast.walk(node) if isinstance(value, ast.Constant) and isinstance(value.value, str)}


def examples_tested():
    names, runners = set(), examples_runners()
    for path in glob.glob(os.path.join(ROOT, "tests", "functional", "test_*.py")):
        for node in ast.walk(_parse(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _calls(node, runners):
                names |= _strings(node)  # the body and the decorators (parametrize)
    return names


def test_a_helper_that_runs_the_examples_counts_as_running_them():
    assert "run_examples" in examples_runners()


def test_every_module_has_an_examples_test():
    modules = {os.path.basename(path)[:-3] for path in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
               if not os.path.basename(path).startswith("_")}
    assert len(modules) > 10, modules
    missing = sorted(modules - examples_tested())
    assert not missing, "modules whose EXAMPLES no functional test runs (call module_examples(...)): %s" % ", ".join(missing)

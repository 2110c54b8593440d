"""Every module's argument spec, checked without running it."""

from __future__ import annotations

import importlib
import os

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._connection import CONNECTION_SPEC

PLUGINS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "modules")
MODULES = sorted(name[:-3] for name in os.listdir(PLUGINS) if name.endswith(".py") and not name.startswith("_"))


@pytest.mark.parametrize("name", MODULES)
def test_no_module_option_shadows_a_connection_option(name):
    module = importlib.import_module("ansible_collections.broadcast.monitoring.plugins.modules." + name)
    assert set(module.ARGUMENT_SPEC) & set(CONNECTION_SPEC) == set()

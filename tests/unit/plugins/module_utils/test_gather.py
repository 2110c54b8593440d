"""Unit tests of gather_subset selection."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._gather import gather, select

AVAILABLE = ["status", "inputs", "profiles", "log"]
MINIMAL = ["status"]


@pytest.mark.parametrize("requested, expected", [
    (["min"], ["status"]),
    (["all"], AVAILABLE),
    (["all", "!log"], ["status", "inputs", "profiles"]),
    (["!log", "all"], ["status", "inputs", "profiles"]),
    (["!inputs"], ["status", "profiles", "log"]),
    (["log", "inputs"], ["inputs", "log"]),
    (["all", "!min"], ["inputs", "profiles", "log"]),
    ([], []),
])
def test_select(requested, expected):
    assert select(requested, AVAILABLE, MINIMAL) == expected


def test_unknown_subset_is_named():
    with pytest.raises(InputError) as caught:
        select(["inputs", "colours"], AVAILABLE, MINIMAL)
    assert "gather_subset: unknown subset(s) colours" in caught.value.problems[0]


def test_gather_calls_only_selected_readers():
    calls = []
    readers = {name: (lambda n=name: calls.append(n) or n.upper()) for name in AVAILABLE}
    assert gather(["inputs"], readers) == {"inputs": "INPUTS"}
    assert calls == ["inputs"]

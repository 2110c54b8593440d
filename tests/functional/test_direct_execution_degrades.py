"""Direct execution degrades, never breaks (issue 41): on an ansible-core that lost or changed
one private name direct execution uses (the stand-in release of tests/core_private_gone, one
name at a time), a run completes with one warning naming the ansible-core version and the
name, its modules run as module processes, and its results (check mode, diff, a failure)
are those of direct execution on the same devices."""

import os
import re

import pytest

from ansible.release import __version__

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._core_private import NAMES
from tests.functional.conftest import connection
from tests.functional.test_direct_execution import comparable

HOOK = os.path.join(os.path.dirname(__file__), "..", "core_private_gone")
TEXT = "broadcast.monitoring runs its modules as module processes"
WARNING = re.compile(r"\[WARNING\]: " + re.escape(TEXT))


def without_the_warning(results):
    """The results without the warning this run adds (each task's result carries its action's
    warnings; the display shows it once)."""
    kept = []
    for result in results:
        result = dict(result)
        warnings = [w for w in result.pop("warnings", []) if not w.startswith(TEXT)]
        if warnings:
            result["warnings"] = warnings
        kept.append(result)
    return kept


def tasks(sim):
    """In check mode (nothing written, so every run finds the devices as the first did): a read,
    a change with its diff, device_state's plan, and a refused parameter."""
    analyzer = connection(sim.fleet.by_name("ts-001"))
    return [
        {"name": "info", "broadcast.monitoring.ts_info": dict(analyzer, gather_subset=["system_device", "snmp"])},
        {"name": "snmp", "broadcast.monitoring.ts_snmp": dict(analyzer, trap_addresses=["192.0.2.41:162"])},
        {"name": "state", "broadcast.monitoring.device_state": dict(
            analyzer, device_type="ts_analyzer", parts={"logging": {"level": "debug"}})},
        {"name": "refused", "broadcast.monitoring.ts_snmp": dict(analyzer, trap_addresses=["not an address"])},
    ]


@pytest.fixture(scope="module")
def direct(sim, collections_path, tmp_path_factory):
    """The results of direct execution, the reference."""
    from tests.functional.conftest import Play
    play = Play(sim, collections_path, tmp_path_factory.mktemp("direct"))
    out = play.run(tasks(sim), "ts-001", check=True, diff=True)
    assert "runs in the controller's process" in out.output and not WARNING.search(out.output), out.output
    return comparable(out.results, tasks(sim), sim)


@pytest.mark.parametrize("name", NAMES)
def test_a_run_without_a_private_name_completes_with_one_warning_and_the_same_results(play, sim, direct, name):
    out = play.run(tasks(sim), "ts-001", check=True, diff=True,
                   env={"PYTHONPATH": os.path.abspath(HOOK), "BM_CORE_NAME_GONE": name})
    if name == "ansible.vars.clean.remove_internal_keys" and "runs in the controller's process" in out.output:
        # an ansible-core whose module results are objects never needs it (2.21 has none)
        assert not WARNING.search(out.output), out.output
    else:
        warnings = WARNING.findall(out.output)
        assert len(warnings) == 1, out.output
        line = next(line for line in out.output.splitlines() if WARNING.search(line))
        assert "ansible-core %s: %s" % (__version__, name) in line, line
        assert "runs in the controller's process" not in out.output
        assert "runs as a module process: ansible-core %s: %s" % (__version__, name) in out.output
    assert comparable(without_the_warning(out.results), tasks(sim), sim) == direct
    assert [r.get("changed") for r in out.results[:3]] == [False, True, True], out.results
    assert out.results[1]["diff"] and out.results[3]["failed"] is True

"""Unit tests of the registries of parts (_ts/parts.py, _fm/parts.py): device_state, onboarding,
backup and restore all derive from them, so adding a part is one edit."""

from __future__ import annotations

import types

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._backup.format import FORMAT, FORMAT_1
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import parts as fm_parts
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import restore as fm_restore
from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import (
    Part,
    purged,
    restore_order,
    restore_passes,
    with_second_passes,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import parts as ts_parts
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import restore as ts_restore
from ansible_collections.broadcast.monitoring.plugins.plugin_utils import _onboard as onboard
from ansible_collections.broadcast.monitoring.plugins.plugin_utils import _state_parts as state_parts

REGISTRIES = (ts_parts, fm_parts)


@pytest.mark.parametrize("registry", REGISTRIES, ids=lambda r: r.KIND)
def test_device_state_onboarding_and_purge_follow_the_registry(registry):
    names = [part.name for part in registry.PARTS]
    steps = state_parts.PARTS[registry.KIND]
    assert [step.name for step in steps if steps.index(step) == [s.name for s in steps].index(step.name)] == names
    assert [(step.module, step.kind, step.common_part) for step in steps[:3]] == [
        (part.module, part.kind, part.common_part) for part in registry.PARTS[:3]]
    assert [read.part for read in onboard.READS[registry.KIND]] == names
    assert [read.module for read in onboard.READS[registry.KIND]] == [part.module for part in registry.PARTS]
    assert state_parts.PURGED[registry.KIND] == tuple(part.name for part in registry.PARTS if part.purged)
    assert onboard.ROLES[registry.KIND] == registry.ROLE


def test_backup_sections_follow_the_registries():
    ts_sections = ts_restore.section_order({"format": FORMAT})
    fm_sections = fm_restore.section_order({"format": FORMAT})
    assert ts_sections == restore_order(ts_parts) == ts_restore.section_order({"format": FORMAT_1})
    assert fm_sections == restore_order(fm_parts)
    # monitoring first, the system settings last, network at the very end
    assert ts_sections == ("alert_profiles", "inputs", "snmp", "converters", "time", "logging", "network")
    # the monitor's tuner parts in the one dependency order device_state applies them in
    assert fm_sections == ("conf", "schedules", "tuners", "thresholds", "time", "logging", "network")
    # a format-1 backup of the monitor holds its /conf only
    assert fm_restore.section_order({"format": FORMAT_1}) == ("conf",)


def test_the_second_pass_follows_the_part_it_waits_for_everywhere():
    assert [step.name for step in state_parts.PARTS["ts_analyzer"]].count("alert_profiles") == 2
    passes = restore_passes(ts_parts)
    assert passes.index(("alert_profiles", True)) == passes.index(("inputs", False)) + 1
    steps = [step.name for step in state_parts.PARTS["ts_analyzer"]]
    assert steps[steps.index("inputs") + 1] == "alert_profiles"


def test_a_part_added_to_a_registry_reaches_every_consumer():
    """One new entry in a registry: device_state applies it, onboarding reads it, purge knows
    it, a backup restores it (and in the right place)."""
    kind = "ts_analyzer"
    added = Part(kind, "recordings", "ts_recording", list, purged=True)
    registry = types.SimpleNamespace(KIND=kind, ROLE="ts_analyzer", RAW_SECTIONS=(),
                                     PARTS=ts_parts.PARTS + (added,))
    steps = state_parts._steps(registry)
    assert steps[-1].name == "recordings" and steps[-1].module == "ts_recording"
    assert steps[-1].build([{"name": "r"}], {"purge": {"recordings": True}}, {}) == {
        "state": "replaced", "config": [{"name": "r"}]}
    assert added.read() == ("ts_recording", {"state": "gathered"}, "gathered")
    assert "recordings" in purged(registry)
    assert restore_order(registry)[:5] == ("alert_profiles", "inputs", "snmp", "converters", "recordings")
    assert ("recordings", False) in restore_passes(registry)


def test_second_passes_without_a_waiting_part_are_the_parts_alone():
    parts = fm_parts.PARTS
    assert with_second_passes(parts) == [(part, False) for part in parts]

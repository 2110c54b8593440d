"""The snapshot_compare filter: module_utils/_snapshot.py's comparison, errors as filter errors."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.broadcast.monitoring.plugins.filter.snapshot_compare import FilterModule
from ansible_collections.broadcast.monitoring.plugins.module_utils import _snapshot as snapshot


def a_tuner(ident, **fields):
    out = {"id": ident, "name": "Tuner %d" % (ident + 1), "state": "enabled", "frequency": 94300, "tuned": True,
           "signal_ok": True, "stream_enabled": True, "alarms": []}
    out.update(fields)
    return out


def fm(*tuners):
    return {"device_type": "fm_monitor", "taken_at": "2026-11-25T20:00:00Z", "firmware_version": "1.0.0",
            "reboot_needed": False, "tuners": list(tuners)}


def test_the_filter_gives_the_same_and_names_the_argument():
    compare = FilterModule().filters()["snapshot_compare"]
    before, after = fm(a_tuner(0)), fm(a_tuner(0, tuned=False))
    assert compare(before, after) == snapshot.compare(before, after)
    assert compare(before, after)["regressions"]
    assert compare(before, after, ignore=["tuned"])["regressions"] == []
    with pytest.raises(AnsibleFilterError, match="snapshot_compare: snapshot: must be a snapshot"):
        compare(before, None)

"""Data safety: backup, factory reset, restore, backup gives the same file byte for byte,
on both devices, also when a fault hits the middle of the restore and the restore is run
again."""

import pytest

from tests.functional.test_backup import configure_fm, configure_ts
from tests.reliability import figures
from tests.functional.conftest import connection
from tests.functional.device_api import Api

SECTION = "data_safety"

#: (device, fault rule hitting the middle of the restore, what it is, whether the first restore fails)
CASES = [
    ("ts-002", None, "no fault", False),
    ("fm-002", None, "no fault", False),
    # profiles are restored, then the first input create fails: the unit has profiles but no inputs
    ("ts-002", {"kind": "error", "count": 1, "method": "POST", "path": "/api/inputs"}, "500 on the first input", True),
    # the input is made but its answer is lost: the module reads back and must not make it twice
    ("ts-002", {"kind": "drop_response", "count": 1, "method": "POST", "path": "/api/inputs"}, "answer lost", False),
    # the device is busy (503) for longer than the module waits, when SNMP is restored (a count, not
    # seconds: how long the run takes to reach SNMP depends on the machine's load)
    ("ts-002", {"kind": "unavailable", "count": 1000, "method": "POST", "path": "/api/snmp"}, "busy past the budget",
     True),
    # the monitor takes its whole configuration in one write
    ("fm-002", {"kind": "error", "count": 1, "method": "POST", "path": "/api/conf"}, "500 on the configuration", True),
    ("fm-002", {"kind": "drop", "count": 1, "method": "POST", "path": "/api/conf"}, "connection dropped", False),
    ("fm-002", {"kind": "drop_response", "count": 1, "method": "POST", "path": "/api/conf"}, "answer lost", False),
]

CONFIGURE = {"ts_analyzer": configure_ts, "fm_monitor": configure_fm}


def module(name, device, **options):
    return {"name": name, "broadcast.monitoring.%s" % name: dict(connection(device), device_type=device.kind, **options)}


@pytest.mark.parametrize("name, rule, label, fails", CASES, ids=["%s-%s" % (c[0], c[2].replace(" ", "-")) for c in CASES])
def test_backup_reset_restore_backup_is_identical(play, sim, tmp_path, name, rule, label, fails):
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    CONFIGURE[device.kind](device)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    saved = play.run([module("device_backup", device, dest=str(first))], name)[0]
    assert saved.get("failed") is not True, saved
    sim.call(device.reset)  # the unit is replaced: factory state
    restore = module("device_restore", device, src=str(first), busy_timeout=1)
    attempts = []
    if rule:
        sim.call(device.faults.add, rule)
        attempts.append(play.run([restore], name)[0])
        sim.call(device.faults.replace, [])  # the fault is over: what follows is the rerun
    out = play.run([restore, restore, module("device_backup", device, dest=str(second))], name)
    attempts += out.results[:2]
    if fails:
        failed = attempts[0]
        assert failed["failed"] is True and "Traceback" not in str(failed)
        # it says what was restored and what was not; a rerun completes the restore
        assert "written before the failure" in failed["msg"]
        assert failed["not_written"], failed
        assert attempts[1].get("failed") is not True and attempts[1]["changed"] is True, attempts[1]
        outcome = "first restore failed (%s), rerun completed" % failed["error"]["kind"]
    else:
        assert attempts[0].get("failed") is not True and attempts[0]["changed"] is True, attempts[0]
        outcome = "restored at once" + (" (lost answer read back: %s)" % attempts[0]["lost_answers"]
                                        if attempts[0].get("lost_answers") else "")
    if rule and rule["kind"] in ("drop", "drop_response"):
        # the module read the device back and says whether the write had landed
        landed = rule["kind"] == "drop_response"
        # inputs are restored in the backup's order, by name: "ASI" first
        where = {"section": "inputs", "action": "create", "key": "ASI"} if device.kind == "ts_analyzer" else {
            "section": "conf", "key": "conf"}
        assert attempts[0]["lost_answers"] == [dict(where, landed=landed)]
    assert attempts[-1].get("failed") is not True and attempts[-1]["changed"] is False, attempts[-1]
    assert out[2].get("failed") is not True, out[2]
    assert second.read_bytes() == first.read_bytes()
    figures.add(SECTION, "restores compared byte for byte", 1)
    if rule:
        figures.add(SECTION, "faults in the middle of a restore, each recovered (in the same run or by a rerun)", 1)
    figures.row(SECTION, "%s: %s" % (device.kind, label), outcome + "; backup identical")


def test_a_failure_deleting_stray_profiles_names_the_alert_profiles(play, sim, tmp_path):
    """The restore deletes the profiles the backup does not have last (after the inputs that
    used them are gone); a failure there is reported under alert_profiles, not the next section."""
    device = sim.fleet.by_name("ts-002")
    sim.call(device.reset)
    configure_ts(device)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert play.run([module("device_backup", device, dest=str(first))], device.name)[0].get("failed") is not True
    sim.call(device.reset)
    Api(device).post("/profiles", {"name": "Stray", "entries": []})
    sim.call(device.faults.add, {"kind": "error", "count": 1, "method": "DELETE", "path": "/api/profiles/"})
    restore = module("device_restore", device, src=str(first))
    failed = play.run([restore], device.name)[0]
    sim.call(device.faults.replace, [])
    assert failed["failed"] is True and failed["error"]["status"] == 500, failed
    assert failed["not_written"] == [{"section": "alert_profiles", "not_written": [{"action": "delete", "key": "Stray"}]},
                                     {"section": "snmp"}, {"section": "converters"}, {"section": "time"},
                                     {"section": "logging"}], failed
    assert failed["written"] == [{"section": "alert_profiles", "changed": True}, {"section": "inputs", "changed": True}]
    out = play.run([restore, module("device_backup", device, dest=str(second))], device.name)
    assert out[0].get("failed") is not True and out[0]["changed"] is True, out[0]
    assert second.read_bytes() == first.read_bytes()

"""Authentication and roles: wrong password, wrong role, a token made invalid by a factory
reset, and the user role on every writing module: each is its own clear error, and nothing
is written."""

import pytest

from tests.reliability import figures
from tests.functional.device_api import Api
from tests.functional.tasks import task

SECTION = "auth"
MUX = {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}

#: Writes the user role may not make, per device: (module, options). Each needs the admin role
#: on the device (simulator/: endpoints marked role="admin", from the interface documents).
USER_WRITES = {
    "ts_analyzer": [
        ("ts_input", {"config": [MUX]}),
        ("ts_alert_profile", {"config": [{"name": "Strict"}]}),
        ("ts_snmp", {"enabled": True}),
        ("ts_converter", {"config": [{"asi_port": 1, "running": True, "multicast_address": "239.10.0.1",
                                      "multicast_port": 5000, "interface": "eth1", "ttl": 16}]}),
        ("ts_statistics", {"operation": "reset_current"}),
        ("device_network", {"device_type": "ts_analyzer", "hostname": "renamed"}),
        ("device_time", {"device_type": "ts_analyzer", "timezone": "Europe/Berlin"}),
        ("device_logging", {"device_type": "ts_analyzer", "level": "error"}),
        ("device_password", {"device_type": "ts_analyzer", "target_role": "user", "new_password": "Changed-1"}),
        ("device_reboot", {"device_type": "ts_analyzer"}),
    ],
    "fm_monitor": [
        ("fm_tuner", {"config": [{"tuner_id": 0, "operating_state": "enabled"}]}),
        ("device_network", {"device_type": "fm_monitor", "hostname": "renamed"}),
        ("device_time", {"device_type": "fm_monitor", "timezone": "2"}),
        ("device_logging", {"device_type": "fm_monitor", "level": "error"}),
        ("device_password", {"device_type": "fm_monitor", "target_role": "user", "new_password": "Changed-1"}),
        ("device_reboot", {"device_type": "fm_monitor"}),
    ],
}


def landed_writes(sim, device):
    """Write and action requests the device accepted (a refused one is logged with its status)."""
    return [r for r in sim.call(device.writes) if r["status"] < 400]


# The analyzer's document gives no status for a user token on an admin route: the simulator
# offers 403 and 401 (simulator/README.md); the FM document says 401.
@pytest.mark.parametrize("name, role_denied", [("ts-001", 403), ("ts-001", 401), ("fm-001", 401)])
def test_the_user_role_on_every_writing_module_gets_the_admin_role_error(play, sim, name, role_denied):
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    sim.call(setattr, device, "role_denied_status", role_denied)
    try:
        cases = USER_WRITES[device.kind]
        tasks = [task(module, device, role="user", password="user", **options) for module, options in cases]
        out = play.run(tasks, device.name)
    finally:
        sim.call(setattr, device, "role_denied_status", 403 if device.kind == "ts_analyzer" else 401)
    variant = " (HTTP %d)" % role_denied if device.kind == "ts_analyzer" else ""
    for (module, options), result in zip(cases, out.results):
        assert result.get("failed") is True, (module, result)
        assert result["error"]["kind"] == "permission", (module, result)
        assert "needs the admin role" in result["msg"], (module, result["msg"])
        figures.row(SECTION, "%s as user on %s%s" % (module, device.kind, variant), "refused: needs the admin role")
    assert landed_writes(sim, device) == []
    figures.add(SECTION, "writing modules tried with the user role", len(cases))


def test_wrong_password_wrong_role_and_a_stale_token_are_distinct_errors(play, sim, ts):
    stale = Api(ts).token
    sim.call(ts.reset)  # a factory reset invalidates every token issued before
    Api(ts).post("/user/password", {"role": "user", "password": "changed-1"})
    cases = {
        "wrong password": task("ts_input", ts, password="not-the-password", config=[MUX]),
        "user role with the admin password": task("ts_input", ts, role="user", password="admin", config=[MUX]),
        "token invalid after a factory reset": {"name": "stale", "broadcast.monitoring.ts_input": {
            "host": ts.address, "port": ts.port, "token": stale, "config": [MUX]}},
        "stale token, password given too": {"name": "stale+password", "broadcast.monitoring.ts_input": {
            "host": ts.address, "port": ts.port, "token": stale, "password": "admin", "config": [MUX]}},
        # Ansible masks the no_log password wherever it appears, so the role must not be named
        "the factory password (the role's name), no longer valid": task(
            "ts_input", ts, role="user", password="user", config=[MUX]),
    }
    out = play.run(list(cases.values()), ts.name)
    results = dict(zip(cases, out.results))
    wrong, role, invalid, relogged, factory = (results[c] for c in cases)
    assert factory["failed"] and factory["error"]["kind"] == "credentials"
    assert factory["msg"].startswith("login as the role in option role was refused") and "*" not in factory["msg"]
    assert wrong["failed"] and wrong["error"]["kind"] == "credentials"
    assert wrong["msg"].startswith("login as role admin was refused")
    assert role["failed"] and role["error"]["kind"] == "credentials"
    assert role["msg"].startswith("login as role user was refused")
    assert invalid["failed"] and invalid["error"]["kind"] == "credentials"
    assert invalid["msg"].startswith("the device refused the admin token")
    # with a password as well, the module logs in once more and goes on
    assert relogged.get("failed") is not True and relogged["changed"] is True
    messages = {wrong["msg"], role["msg"], invalid["msg"]}
    assert len(messages) == 3  # each failure reads differently
    for case, result in results.items():
        figures.row(SECTION, case, "failed: %s" % result["msg"].split(" (")[0] if result.get("failed") else
                    "logged in again with the password, changed=%s" % result["changed"])
    figures.add(SECTION, "credential cases", len(cases))

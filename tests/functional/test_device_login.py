"""device_login end to end: one login, a token the other modules accept, nothing written."""

import pytest

from .conftest import EXAMPLE_VARS, connection, module_examples


@pytest.fixture(params=["ts-001", "fm-001"])
def device(request, sim):
    found = sim.fleet.by_name(request.param)
    sim.call(found.reset)
    return found


def login_task(device, **options):
    args = dict(connection(device), device_type=device.kind)
    args.update(options)
    return {"name": "Log in", "broadcast.monitoring.device_login": args, "register": "login", "no_log": True}


def kinds(sim, device):
    return [r["kind"] for r in sim.call(lambda: list(device.requests))]


def test_login_token_used_by_other_modules(play, sim, device):
    """One login; the token reaches every module through module_defaults; check mode too."""
    reader = "broadcast.monitoring.ts_info" if device.kind == "ts_analyzer" else "broadcast.monitoring.fm_info"
    tasks = [
        login_task(device),
        {"name": "Time with the token", "broadcast.monitoring.device_time": {"device_type": device.kind, "ntp": False}},
        {"name": "Info with the token", reader: {"gather_subset": ["min"]}},
    ]
    group = {"host": device.address, "port": device.port, "token": "{{ login.token | default(omit) }}"}
    defaults = {"group/broadcast.monitoring.all": group}
    for check in (True, False):
        sim.call(device.requests.clear)
        out = play.run(tasks, device.name, check=check, module_defaults=defaults)
        assert out[0].get("failed") is not True, out.output
        assert out[0]["changed"] is False
        assert out[0]["device_type"] == device.kind
        assert out[0]["requests"] == {"login": 1, "read": 0, "write": 0}
        assert out[1].get("failed") is not True, out[1]
        assert out[1]["requests"]["login"] == 0
        assert out[2].get("failed") is not True, out[2]
        assert kinds(sim, device).count("login") == 1
        if check:  # check mode: nothing written, the login included
            assert sim.call(device.writes) == []
        token = out[0]["token"]
        assert token and token not in out.output  # no_log keeps it out of the output


def test_detect_token_only_wrong_password_user_role(play, sim, device):
    args = dict(connection(device), device_type=device.kind, token="abc")
    del args["password"]
    tasks = [
        login_task(device, device_type="auto"),
        {"name": "Token only", "broadcast.monitoring.device_login": args, "no_log": True},
        login_task(device, password="wrong"),
        login_task(device, role="user", password="user"),
    ]
    for task in tasks:
        task.pop("register", None)
    out = play.run(tasks, device.name)
    detected, token_only, wrong, user = out.results
    assert detected["device_type"] == device.kind, detected
    assert token_only["failed"] is True and "password" in token_only["msg"], token_only
    assert wrong["failed"] is True and "refused" in wrong["msg"], wrong
    assert user.get("failed") is not True and user["token"], user
    assert user["token"] != detected["token"]
    assert kinds(sim, device).count("login") == 3  # the token-only task sent nothing
    assert sim.call(device.writes) == []


def test_examples_run_as_written(play, sim):
    device = sim.fleet.by_name("ts-001")
    sim.call(device.reset)
    out = play.run(module_examples("device_login"), device.name, extra_vars=EXAMPLE_VARS)
    assert all(r.get("failed") is not True for r in out.results), out.output
    assert out[0]["token"]

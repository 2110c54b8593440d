"""No password or token reaches output or logs, at any verbosity, with ANSIBLE_DEBUG on.

Every ansible-playbook run of the functional and reliability suites already runs at -vvvv
with --diff and a log file, and fails when any password or token the simulator issued
appears (tests/functional/conftest.py: leak_watch). This file adds ANSIBLE_DEBUG=1, which
makes ansible-core trace every module's raw arguments and raw output, no_log or not. So here
the credentials reach the modules the way an AWX credential passes them: through
BROADCAST_MONITORING_* environment variables, never as module arguments; and the roles run
with login_once false, so no token is handed from one task to the next. Each scenario runs
both ways a module can run: in the controller's process (direct execution, the default) and
as a module process.
"""

import os

import pytest
import yaml

from tests.functional.conftest import ROOT, ansible_playbook
from tests.functional.device_api import Api
from tests.reliability import figures

SECTION = "secrets"
TS_ADMIN, TS_USER = "Ts-Admin-5b2e9c", "Ts-User-0d7f4a"
FM_ADMIN, FM_USER = "Fm-Admin-8a1c3e", "Fm-User-6e9b2d"
CANARY = "Canary-Input-4c8e"  # not a secret: proves the search sees the traced module arguments


@pytest.fixture(params=["direct", "module process"])
def execution(request):
    """Environment variables for one way of running modules."""
    return {} if request.param == "direct" else {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"}


def way(execution):
    return "module process" if execution else "direct execution"


def debug_env(execution, **variables):
    env = dict(execution, ANSIBLE_DEBUG="1")
    env.update(("BROADCAST_MONITORING_" + k.upper(), str(v)) for k, v in variables.items())
    return env


def at(device):
    """Module defaults that reach the device: address only, credentials come from the environment."""
    return {"group/broadcast.monitoring.all": {"host": device.address, "port": device.port}}


def set_passwords(sim, device, admin, user):
    sim.call(device.state["passwords"].update, {"admin": admin, "user": user})


def scan(sim, devices, text, extra):
    """Occurrences of every secret the devices issued (and ``extra`` ones) in ``text``."""
    secrets = set(extra)
    for device in devices:
        secrets.update(s for s in sim.call(device.issued_secrets) if s not in ("admin", "user"))
    found = [s for s in secrets if s in text]
    figures.add(SECTION, "ANSIBLE_DEBUG scenarios searched (each one or more playbook runs)", 1)
    figures.add(SECTION, "characters searched (ANSIBLE_DEBUG runs)", len(text))
    figures.add(SECTION, "distinct secrets searched for (ANSIBLE_DEBUG runs)", len(secrets))
    figures.add(SECTION, "occurrences found (ANSIBLE_DEBUG runs)", len(found))
    return secrets, found


def run_debug(play, device, tasks, execution, check=False, **credentials):
    log = play.workdir / ("debug-%d.log" % (play.runs + 1))
    env = dict(debug_env(execution, **credentials), ANSIBLE_LOG_PATH=str(log))
    out = play.run(tasks, device.name, check=check, diff=True, verbosity=4, module_defaults=at(device), env=env)
    text = out.output + log.read_text(errors="replace")
    assert "_execute_module" in text  # ANSIBLE_DEBUG really traced the module calls
    assert ("runs in the controller's process" in text) is (execution == {})
    return out, text


def test_analyzer_modules_with_ansible_debug(play, sim, ts, tmp_path, execution):
    set_passwords(sim, ts, TS_ADMIN, TS_USER)
    mux = {"name": CANARY, "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}
    tasks = [
        {"name": "input", "broadcast.monitoring.ts_input": {"config": [mux]}},
        {"name": "profile", "broadcast.monitoring.ts_alert_profile": {"config": [
            {"name": "Strict", "errors": {"ts_sync_loss": {"alert_type": "critical", "snmp_trap": True}}}]}},
        {"name": "snmp", "broadcast.monitoring.ts_snmp": {"enabled": True, "trap_addresses": ["192.0.2.1:162"]}},
        {"name": "time", "broadcast.monitoring.device_time": {"device_type": "ts_analyzer", "timezone": "Europe/Berlin"}},
        {"name": "logging", "broadcast.monitoring.device_logging": {"device_type": "ts_analyzer", "level": "warning"}},
        {"name": "info", "broadcast.monitoring.ts_info": {"gather_subset": ["all"]}},
        {"name": "backup", "broadcast.monitoring.device_backup": {"device_type": "ts_analyzer", "dest": str(tmp_path / "ts.json")}},
        {"name": "user password", "broadcast.monitoring.device_password": {"device_type": "ts_analyzer", "target_role": "user"}},
        {"name": "refused value", "broadcast.monitoring.ts_input": {"config": [dict(mux, alert_profile="Nope")]}},
    ]
    new_user = "Ts-User-New-77c1"
    checked, checked_text = run_debug(play, ts, tasks, execution, check=True, password=TS_ADMIN, new_password=new_user)
    out, text = run_debug(play, ts, tasks, execution, password=TS_ADMIN, new_password=new_user)
    assert [r.get("failed", False) for r in out.results] == [False] * 8 + [True]
    assert out[7]["changed"] is True and out[0]["changed"] is True
    assert CANARY in text  # the trace holds module arguments: a secret argument would be found
    secrets, found = scan(sim, [ts], checked_text + text, [TS_ADMIN, TS_USER, new_user])
    assert new_user in secrets and len(secrets) > 4  # passwords and the tokens of every module's login
    assert found == []


def test_failure_paths_with_ansible_debug(play, sim, ts, fm, execution):
    """Wrong password, a token made invalid by a factory reset, the user role writing, and
    a device error: each fails, clearly, and none shows a secret."""
    set_passwords(sim, fm, FM_ADMIN, FM_USER)
    stale = Api(fm, FM_ADMIN).token
    write = {"name": "logging", "broadcast.monitoring.device_logging": {"device_type": "fm_monitor", "level": "error"}}
    wrong, wrong_text = run_debug(play, fm, [write], execution, password=FM_ADMIN + "-wrong")
    as_user, user_text = run_debug(play, fm, [write], execution, password=FM_USER, role="user")
    sim.call(fm.faults.add, {"kind": "error", "count": 1, "path": "/api/conf/log"})
    failing, failing_text = run_debug(play, fm, [write], execution, password=FM_ADMIN)
    sim.call(fm.reset)  # factory reset: the token issued above is no longer valid
    invalid, invalid_text = run_debug(play, fm, [write], execution, token=stale)
    results = {"wrong password": wrong[0], "user role write": as_user[0], "device error": failing[0],
               "token invalid after a factory reset": invalid[0]}
    assert all(r["failed"] is True for r in results.values())
    kinds = {case: r["error"]["kind"] for case, r in results.items()}
    assert kinds == {"wrong password": "credentials", "user role write": "permission", "device error": "device",
                     "token invalid after a factory reset": "credentials"}
    assert "needs the admin role" in as_user[0]["msg"] and "refused the admin token" in invalid[0]["msg"]
    text = wrong_text + user_text + failing_text + invalid_text
    secrets, found = scan(sim, [fm], text, [FM_ADMIN, FM_USER, FM_ADMIN + "-wrong", stale])
    assert stale in secrets and found == []
    for case, result in sorted(results.items()):
        figures.row(SECTION, "ANSIBLE_DEBUG, %s, %s" % (way(execution), case), "failed (%s), no secret shown" % result["error"]["kind"])


def test_site_playbook_with_ansible_debug_and_login_once_false(sim, collections_path, tmp_path, execution):
    ts_dev, fm_dev = sim.fleet.by_name("ts-002"), sim.fleet.by_name("fm-002")
    for device, admin in ((ts_dev, "Site-Ts-3e7a"), (fm_dev, "Site-Fm-9c4d")):
        sim.call(device.reset)
        set_passwords(sim, device, admin, "Site-User-%s" % device.name)
    desired = os.path.join(ROOT, "playbooks", "inventory", "group_vars")
    hosts = {"all": {"vars": {"ansible_connection": "local", "ansible_python_interpreter": "{{ ansible_playbook_python }}",
                              "ts_analyzer_login_once": False, "fm_monitor_login_once": False},
                     "children": {}}}
    for group, device in (("ts_analyzers", ts_dev), ("fm_monitors", fm_dev)):
        with open(os.path.join(desired, group + ".yml"), encoding="utf-8") as handle:
            state = yaml.safe_load(handle)
        hosts["all"]["children"][group] = {"vars": state, "hosts": {device.name: {
            "ansible_host": device.address, "device_port": device.port}}}
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump(hosts))
    texts = []
    for name, device, admin in (("ts", ts_dev, "Site-Ts-3e7a"), ("fm", fm_dev, "Site-Fm-9c4d")):
        log = tmp_path / ("site-%s.log" % name)
        env = dict(debug_env(execution, password=admin), ANSIBLE_LOG_PATH=str(log))
        args = ["-i", str(inventory), "--limit", device.name, "--diff", os.path.join(ROOT, "playbooks", "site.yml")]
        proc = ansible_playbook(sim, collections_path, tmp_path, args, env=env)
        assert proc.returncode == 0, proc.output[-3000:]
        assert "changed=" in proc.output and "failed=0" in proc.output
        texts.append(proc.output + log.read_text(errors="replace"))
    secrets, found = scan(sim, [ts_dev, fm_dev], "".join(texts), [])
    assert len(secrets) > 6 and found == []
    figures.row(SECTION, "ANSIBLE_DEBUG, %s, site.yml with login_once false" % way(execution), "converged, no secret shown")

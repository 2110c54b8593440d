"""Runs that overlap on one device, and a run whose controller is killed (issue 24, items 2
and 3; issue 29, item 5): two ansible-playbook processes at once, and kill -9 of
ansible-playbook mid-run.

The simulator's latency fault (simulator/README.md, "Faults": the device acts after
the delay) holds writes back long enough that, without the device lock
(plugins/module_utils/_device_lock.py), the second run reads before the first run's write
acts. With the lock, runs from one controller that write to one device take turns; one run
is a module process and the other runs inside the controller (direct execution), so both
modes take the same lock."""

import json
import os
import pwd
import subprocess
import sys
import time

import pytest
import requests
import yaml

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_lock as device_lock, _errors as errors

from tests.functional.device_api import Api
from tests.functional.tasks import task
from tests.functional.conftest import ROOT


def faults(device, rules):
    answer = requests.post(device.base_url + "/_sim/faults", json=rules, timeout=5)
    assert answer.status_code == 200, answer.text


#: the environment of a run whose modules run as module processes (direct execution off)
PROCESS = {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"}
#: ... and of one whose modules run inside the controller (the default)
DIRECT = {}


def start(sim, collections_path, workdir, name, tasks, host, env=None):
    """ansible-playbook running ``tasks`` against ``host``, in the background; its results
    land in ``workdir/<name>.json``. ``env``: on top of this process's environment."""
    inventory = workdir / ("%s-inventory.yml" % name)
    sim.write_inventory(str(inventory))
    wrapped = [dict(t, register="result_%d" % i, ignore_errors=True) for i, t in enumerate(tasks)]
    wrapped.append({"name": "Save results", "ansible.builtin.copy": {
        "content": "{{ [%s] | to_json }}" % ", ".join("result_%d" % i for i in range(len(tasks))),
        "dest": str(workdir / ("%s.json" % name))}})
    playbook = workdir / ("%s.yml" % name)
    playbook.write_text(yaml.safe_dump([{"name": name, "hosts": host, "gather_facts": False, "tasks": wrapped}]))
    environment = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path, ANSIBLE_NOCOLOR="1",
                       ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_RETRY_FILES_ENABLED="0")
    environment.pop("PYTHONPATH", None)
    environment.update(env or {})
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", str(inventory), str(playbook)]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment,
                            cwd=ROOT)


def finish(proc, workdir, name):
    output = proc.communicate(timeout=300)[0]
    path = workdir / ("%s.json" % name)
    assert path.exists(), output
    return json.loads(path.read_text()), output


def inputs_task(device, state, config):
    return task("ts_input", device, state=state, config=config)


NAMES = ["Feed %d" % n for n in range(1, 7)]


def feeds(port_base=5000):
    return [{"name": name, "source": {"multicast": {"address": "239.1.1.%d" % (index + 1), "port": port_base}}}
            for index, name in enumerate(NAMES)]


def wait_for_request(sim, device, method, path, proc):
    """Until ``device`` has answered ``method path`` (the simulator logs a request once it is
    answered); fails if ``proc`` ends first."""
    deadline = time.monotonic() + 120
    while not any(r["method"] == method and r["path"] == path for r in sim.call(lambda: list(device.requests))):
        assert proc.poll() is None and time.monotonic() < deadline, "the first run never sent %s %s" % (method, path)
        time.sleep(0.05)


def test_two_ts_input_runs_at_once_create_each_input_once(sim, collections_path, tmp_path, ts):
    """Each create is held back 1.5 s, and the second run starts once the first has read the
    inputs: without the lock it reads before the first create acts and creates every feed
    again (twelve inputs, six names twice)."""
    sim.call(ts.requests.clear)
    faults(ts, [{"kind": "latency", "seconds": 1.5, "method": "POST", "path": "/api/inputs"}])
    try:
        first = start(sim, collections_path, tmp_path, "run1", [inputs_task(ts, "merged", feeds())], ts.name,
                      env=PROCESS)
        wait_for_request(sim, ts, "GET", "/api/inputs", first)
        second = start(sim, collections_path, tmp_path, "run2", [inputs_task(ts, "merged", feeds())], ts.name,
                       env=DIRECT)
        results = [finish(proc, tmp_path, name)[0][0] for name, proc in (("run1", first), ("run2", second))]
    finally:
        faults(ts, [])
    assert all(r.get("failed") is not True for r in results), results
    assert sorted(i["name"] for i in Api(ts).get("/inputs")) == NAMES
    assert [r["changed"] for r in results] == [True, False], results


def test_duplicates_made_elsewhere_are_reported_and_overridden_resolves_them(sim, collections_path, tmp_path, ts):
    """The lock serializes this controller's runs only: another controller, or a person at the
    web page, can still create an input twice. Those copies are reported, merged refuses to
    pick one, and overridden keeps one copy (README, Limits)."""
    api = Api(ts)
    for unused in range(2):  # what two writers the lock does not cover leave behind
        for feed in feeds():
            api.call("POST", "/inputs", {"name": feed["name"], "config": {"eth": {"stream_protocol": 0, "multicast": {
                "multicast_address": feed["source"]["multicast"]["address"], "multicast_port": 5000}}},
                "alerts_config": {"profile_id": api.get("/profiles")[0]["id"], "pid_error_list": []}})
    proc = start(sim, collections_path, tmp_path, "after", [
        inputs_task(ts, "gathered", []), inputs_task(ts, "merged", feeds()), inputs_task(ts, "overridden", feeds()),
        inputs_task(ts, "overridden", feeds())], ts.name)
    (gathered, merged, overridden, again), output = finish(proc, tmp_path, "after")
    assert [i["name"] for i in gathered["gathered"]] == NAMES, gathered
    assert len(gathered["duplicates"]) == 2 * len(NAMES)
    assert "several inputs with one name" in output
    assert merged["failed"] is True and "state=overridden keeps one copy" in merged["msg"], merged
    assert overridden.get("failed") is not True, overridden
    assert len(overridden["duplicates_removed"]) == len(NAMES)
    assert sorted(i["name"] for i in Api(ts).get("/inputs")) == NAMES
    assert again["changed"] is False, again


def descendants(pid):
    """Every process below ``pid``, from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry, "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            children.setdefault(int(stat[stat.rindex(b")") + 2:].split()[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            return handle.read().split()[2] != b"Z"
    except OSError:
        return False


def test_a_module_whose_controller_was_killed_stops_before_its_next_write(sim, collections_path, tmp_path, ts):
    wanted = [{"name": "Feed %d" % n, "source": {"asi": {"port": 1}}} for n in range(1, 13)]
    faults(ts, [{"kind": "latency", "seconds": 0.4, "method": "POST", "path": "/api/inputs"}])
    proc = start(sim, collections_path, tmp_path, "killed", [inputs_task(ts, "merged", wanted)], ts.name)
    try:
        deadline = time.monotonic() + 120
        while not any(w["path"] == "/api/inputs" for w in sim.call(ts.writes)):
            assert time.monotonic() < deadline and proc.poll() is None, "the run never wrote"
            time.sleep(0.05)
        below = descendants(proc.pid)
        proc.kill()  # kill -9 of ansible-playbook only: its worker has its own session and goes on
        proc.communicate(timeout=30)
        written_at_kill = len(sim.call(ts.writes))
        deadline = time.monotonic() + 120
        while any(alive(pid) for pid in below):
            assert time.monotonic() < deadline, "the orphaned module did not end"
            time.sleep(0.1)
    finally:
        faults(ts, [])
    created = Api(ts).get("/inputs")
    # at most the write under way when the controller died lands after it; before the check the
    # orphan went on to create all 12
    assert len(sim.call(ts.writes)) - written_at_kill <= 1, sim.call(ts.writes)
    assert 1 <= len(created) < len(wanted), [i["name"] for i in created]


def test_two_ts_snmp_runs_adding_addresses_at_once_keep_both_pairs(sim, collections_path, tmp_path, ts):
    # reads held back longer than writes: each run reads before the other's write acts, and
    # reads back after it, the interleaving in which one whole-object write erases the other
    faults(ts, [{"kind": "latency", "seconds": 3, "method": "GET", "path": "/api/snmp/settings"},
                {"kind": "latency", "seconds": 2, "method": "POST", "path": "/api/snmp/settings"}])
    pairs = {1: ["10.0.1.1:162", "10.0.1.2:162"], 2: ["10.0.2.1:162", "10.0.2.2:162"]}
    try:
        runs = {n: start(sim, collections_path, tmp_path, "snmp%d" % n,
                         [task("ts_snmp", ts, lists="add", trap_addresses=pairs[n])], ts.name) for n in pairs}
        results = {n: finish(proc, tmp_path, "snmp%d" % n)[0][0] for n, proc in runs.items()}
    finally:
        faults(ts, [])
    assert all(r.get("failed") is not True and r["changed"] is True for r in results.values()), results
    assert Api(ts).get("/snmp/settings")["trap_addresses"] == pairs[1] + pairs[2], results


def test_two_ts_snmp_runs_adding_addresses_one_after_the_others_read_back_keep_both_pairs(
        sim, collections_path, tmp_path, ts):
    """The interleaving the read-back merge cannot see: the second run reads before the first
    run's write acts, and writes after the first run's read back. Each write is held back 8 s;
    the second run starts once the first has read. Without the lock the first run's pair is
    gone and both report success."""
    Api(ts).call("POST", "/snmp/settings", {"enabled": True, "listen_addresses": [], "trap_addresses": []})
    sim.call(ts.requests.clear)
    faults(ts, [{"kind": "latency", "seconds": 8, "method": "POST", "path": "/api/snmp/settings"}])
    pairs = {1: ["10.0.3.1:162", "10.0.3.2:162"], 2: ["10.0.4.1:162", "10.0.4.2:162"]}
    try:
        first = start(sim, collections_path, tmp_path, "snmp1", [task("ts_snmp", ts, lists="add",
                                                                      trap_addresses=pairs[1])], ts.name, env=DIRECT)
        wait_for_request(sim, ts, "GET", "/api/snmp/settings", first)
        second = start(sim, collections_path, tmp_path, "snmp2", [task("ts_snmp", ts, lists="add",
                                                                       trap_addresses=pairs[2])], ts.name, env=PROCESS)
        results = [finish(proc, tmp_path, name)[0][0] for name, proc in (("snmp1", first), ("snmp2", second))]
    finally:
        faults(ts, [])
    assert all(r.get("failed") is not True and r["changed"] is True for r in results), results
    assert Api(ts).get("/snmp/settings")["trap_addresses"] == pairs[1] + pairs[2], results


@pytest.mark.parametrize("env", [DIRECT, PROCESS], ids=["direct", "process"])
def test_a_run_that_waits_too_long_for_the_lock_names_the_device_and_writes_nothing(
        sim, collections_path, tmp_path, ts, env):
    """Another run holds the device's lock (here: this test) longer than the wait
    (BROADCAST_MONITORING_LOCK_TIMEOUT=1): the writer fails, naming the device, the wait and
    the variable, before any request; check mode and state=gathered only read, and do not wait."""
    key = device_lock.device_key(ts.address, ts.port, "http")
    sim.call(ts.requests.clear)
    with device_lock.device_lock(key, 0, "the test"):
        proc = start(sim, collections_path, tmp_path, "locked", [
            task("ts_snmp", ts, lists="add", trap_addresses=["10.0.5.1:162"]),
            dict(task("ts_snmp", ts, lists="add", trap_addresses=["10.0.5.1:162"]), check_mode=True),
            task("ts_input", ts, state="gathered")], ts.name, env=dict(env, BROADCAST_MONITORING_LOCK_TIMEOUT="1"))
        (written, checked, gathered), output = finish(proc, tmp_path, "locked")
        requests_while_locked = sim.call(lambda: list(ts.requests))
    assert written["failed"] is True, written
    for text in ("another run from this controller (the test, process %d)" % os.getpid(),
                 "%s:%d" % (ts.address, ts.port), "wait of 1 s", "BROADCAST_MONITORING_LOCK_TIMEOUT",
                 "nothing was sent to the device"):
        assert text in written["msg"], written["msg"]
    assert checked.get("failed") is not True and checked["changed"] is True, checked
    assert gathered.get("failed") is not True, gathered
    assert "write" not in [r["kind"] for r in requests_while_locked], requests_while_locked
    assert "10.0.5.1:162" not in Api(ts).get("/snmp/settings")["trap_addresses"]


def test_the_lock_file_is_per_device_and_the_default_wait_is_documented():
    """Address (case aside) and port make the key; the default wait is the one README gives."""
    assert device_lock.device_key("TS-1.Example", None, "http") == "ts-1.example:80"
    assert device_lock.device_key("[::1]", None, "https") == "::1:443"
    assert device_lock.lock_file("a:80") != device_lock.lock_file("a:81")
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    assert "BROADCAST_MONITORING_LOCK_TIMEOUT" in readme
    assert "%d seconds" % device_lock.DEFAULT_TIMEOUT in readme
    assert device_lock.timeout_from({}) == device_lock.DEFAULT_TIMEOUT
    assert device_lock.timeout_from({device_lock.TIMEOUT_ENV: "2.5"}) == 2.5
    with pytest.raises(Exception, match=device_lock.TIMEOUT_ENV):
        device_lock.timeout_from({device_lock.TIMEOUT_ENV: "soon"})
    path = device_lock.lock_file("x:1")
    assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700
    with device_lock.device_lock("x:1", 0, "one run"):  # 0: do not wait
        with pytest.raises(errors.LockError, match=r"\(one run, process \d+\) .* device x:1 .* wait of 0 s"):
            with device_lock.device_lock("x:1", 0, "another run"):
                pass
    with device_lock.device_lock("x:1", 0, "a later run"):  # released when the holder is done
        pass


@pytest.mark.skipif(os.geteuid() != 0, reason="making another account's folder needs root (chown)")
@pytest.mark.parametrize("env", [DIRECT, PROCESS], ids=["direct", "process"])
def test_a_lock_folder_another_account_made_first_does_not_block_a_write(sim, collections_path, tmp_path, ts, env):
    """Another account made $TMPDIR/broadcast.monitoring-locks-<uid> first (which this one could not
    remove from a sticky /tmp): a writing module still writes, and its lock is in the home
    (~/.ansible/broadcast.monitoring-locks, README "Runs that overlap on one device")."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir(mode=0o700)
    tmp.mkdir()
    tmp.chmod(0o1777)
    taken = tmp / ("broadcast.monitoring-locks-%d" % os.getuid())
    taken.mkdir(mode=0o777)
    os.chown(taken, pwd.getpwnam("nobody").pw_uid, -1)
    try:
        proc = start(sim, collections_path, tmp_path, "taken", [
            task("ts_snmp", ts, lists="add", trap_addresses=["10.0.6.1:162"])], ts.name,
            env=dict(env, HOME=str(home), TMPDIR=str(tmp)))
        (written,), output = finish(proc, tmp_path, "taken")
        assert written.get("failed") is not True and written["changed"] is True, written
        assert "10.0.6.1:162" in Api(ts).get("/snmp/settings")["trap_addresses"]
        assert list(taken.iterdir()) == []
        assert [p.name for p in (home / ".ansible" / "broadcast.monitoring-locks").iterdir()] == [
            os.path.basename(device_lock.lock_file(device_lock.device_key(ts.address, ts.port, "http")))]
    finally:
        sim.call(ts.reset)

"""Runs that overlap on one device, and a run whose controller is killed (issue 24, items 2
and 3): two ansible-playbook processes at once, and kill -9 of ansible-playbook mid-run.

The simulator's latency fault (tests/simulator/README.md, "Faults": the device acts after
the delay) holds writes back long enough that both runs read before either write acts, which
is the interleaving that two runs started together meet on a busy controller."""

import json
import os
import subprocess
import sys
import time

import requests
import yaml

from tests.functional.analyzer import Api
from tests.functional.tasks import task
from tests.functional.conftest import ROOT


def faults(device, rules):
    answer = requests.post(device.base_url + "/_sim/faults", json=rules, timeout=5)
    assert answer.status_code == 200, answer.text


def start(sim, collections_path, workdir, name, tasks, host):
    """ansible-playbook running ``tasks`` against ``host``, in the background; its results
    land in ``workdir/<name>.json``."""
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


def test_two_ts_input_runs_at_once_leave_duplicates_that_overridden_resolves(sim, collections_path, tmp_path, ts):
    # each create is held back: the second run reads before the first run's first create acts
    faults(ts, [{"kind": "latency", "seconds": 1.5, "method": "POST", "path": "/api/inputs"}])
    runs = [start(sim, collections_path, tmp_path, "run%d" % n, [inputs_task(ts, "merged", feeds())], ts.name)
            for n in (1, 2)]
    results = [finish(proc, tmp_path, "run%d" % n)[0][0] for n, proc in zip((1, 2), runs)]
    faults(ts, [])
    assert all(r.get("failed") is not True for r in results), results
    on_device = Api(ts).get("/inputs")
    assert len(on_device) == 2 * len(NAMES), [i["name"] for i in on_device]  # both runs created every feed

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

"""The example rulebooks end to end with the real ansible-rulebook (and its Java runtime), against
a simulated fleet. `make eda` installs both (build/eda-venv, Debian's openjdk-17-jre-headless);
without them these tests are skipped, saying what is missing."""

import json
import os
import shutil
import signal
import subprocess
import time

import pytest
import yaml

from tests.simulator.fleet import running_fleet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EDA_BIN = os.environ.get("BM_EDA_BIN", os.path.join(ROOT, "build", "eda-venv", "bin"))
RULEBOOK = os.path.join(EDA_BIN, "ansible-rulebook")
PASSWORD = "admin"  # the factory password; the events never carry it (tests/eda/test_device_events.py)
WAIT = 120  # seconds: the bound of every wait (ansible-rulebook starts a JVM, then ansible-playbook)

pytestmark = [
    pytest.mark.skipif(not os.access(RULEBOOK, os.X_OK), reason="ansible-rulebook is not installed in %s: run make eda"
                       % EDA_BIN),
    pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (java) on PATH: ansible-rulebook needs"
                       " Java 17 (Debian: apt-get install openjdk-17-jre-headless); make eda installs it as root"),
]


@pytest.fixture(scope="module")
def sim():
    with running_fleet(ts=1, fm=0, time_scale=0.02) as fleet:
        yield fleet


def start_rulebook(sim, tmp_path, rulebook):
    inventory = tmp_path / "hosts.yml"
    sim.write_inventory(str(inventory))
    devices = [{"name": d.name, "host": d.address, "port": d.port, "device_type": d.kind} for d in sim.fleet.devices]
    variables = tmp_path / "vars.yml"
    variables.write_text(yaml.safe_dump({"devices": devices, "poll_interval": 1}))
    collections = os.path.join(ROOT, "build", "collections")
    env = dict(os.environ, PATH=EDA_BIN + os.pathsep + os.environ["PATH"], ANSIBLE_COLLECTIONS_PATH=collections,
               BROADCAST_MONITORING_PASSWORD=PASSWORD, ANSIBLE_NOCOLOR="1")
    env.pop("PYTHONPATH", None)  # the source finds the collection's code by itself
    log = open(tmp_path / "rulebook.log", "w")
    proc = subprocess.Popen([RULEBOOK, "-i", str(inventory), "-r", "broadcast.monitoring." + rulebook, "-e",
                             str(variables), "-E", "BROADCAST_MONITORING_PASSWORD", "-v"],
                            cwd=str(tmp_path), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    return proc, tmp_path / "rulebook.log"


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_for(condition, what, proc, log):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if condition():
            return
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    raise AssertionError("%s: not within %d s (ansible-rulebook %s); its log:\n%s" % (
        what, WAIT, "running" if proc.poll() is None else "exited %s" % proc.returncode, log.read_text()[-6000:]))


def test_a_lost_signal_downloads_that_inputs_alert_log(sim, tmp_path):
    device = sim.fleet.by_name("ts-001")
    sim.call(device.reset)
    from ansible_collections.broadcast.monitoring.plugins.module_utils import connection, ts_device
    params = {name: spec.get("default") for name, spec in connection.CONNECTION_SPEC.items()}
    params.update(host=device.address, port=device.port, password=PASSWORD)
    client = connection.client_from_params(params, ts_device)
    for name, address in (("Mux 1", "239.1.1.1"), ("Mux 2", "239.1.1.2")):
        client.post("/api/inputs", {"name": name, "alerts_config": {"profile_id": 1}, "config": {
            "eth": {"stream_protocol": 0, "multicast": {"multicast_address": address, "multicast_port": 5000}}}})
    sim.call(lambda: device.requests.clear())
    proc, log = start_rulebook(sim, tmp_path, "diagnose_on_signal_loss")
    try:
        # the source polled once (its baseline) before the signal goes
        wait_for(lambda: any(r["method"] == "GET" and r["path"] == "/api/inputs" for r in sim.call(lambda: list(device.requests))),
                 "the source's first poll", proc, log)
        sim.call(device.lose_signal, 2)
        wait_for(lambda: any(r["path"] == "/api/inputs/2/alerts/download" and r["status"] == 200
                             for r in sim.call(lambda: list(device.requests))),
                 "GET /api/inputs/2/alerts/download", proc, log)
        downloads = [r["path"] for r in sim.call(lambda: list(device.requests)) if r["path"].endswith("/download")]
        assert "/api/inputs/1/alerts/download" not in downloads  # only the input that lost its signal
        wait_for(lambda: bool(list(tmp_path.glob("diagnostics/ts-001-input-2-*/input-2-alerts.csv"))),
                 "the alert log in the incident folder", proc, log)
        incident = next((tmp_path / "diagnostics").glob("ts-001-input-2-*"))
        assert json.loads((incident / "snapshot.json").read_text())["items"]
        assert (incident / "info.json").exists()
    finally:
        stop(proc)
        sim.call(device.restore_signal, 2)

"""The example rulebooks end to end with the real ansible-rulebook (and its Java runtime), against
a simulated analyzer. `make eda` installs both (build/eda-venv, Debian's openjdk-17-jre-headless);
without them these tests are skipped, saying what is missing.

One ansible-rulebook process runs the three rulebooks of extensions/eda/rulebooks together (their
rulesets in one file), plus a ruleset that prints every priority-1 raise it sees: one JVM start
and one analyzer and one FM monitor for the whole scenario (about a minute)."""

import os
import shutil
import signal
import subprocess
import time

import pytest
import yaml

from bm_simulator.fleet import running_fleet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EDA_BIN = os.environ.get("BM_EDA_BIN", os.path.join(ROOT, "build", "eda-venv", "bin"))
RULEBOOK = os.path.join(EDA_BIN, "ansible-rulebook")
RULEBOOKS = ("diagnose_on_signal_loss", "reprovision_on_restart", "capture_on_errors")
PASSWORD = "admin"  # the factory password; the events never carry it (tests/eda/test_device_events.py)
WAIT = 120  # seconds: the bound of every wait (ansible-rulebook starts a JVM, then ansible-playbook)
PRIORITY_1 = ("ts_sync_loss", "sync_byte_error", "pat_error2", "continuity_count_error", "pmt_error2", "pid_error")
QUIET = {"name": "Quiet", "errors": {name: {"threshold": 1000} for name in PRIORITY_1}}
DECLARED = [  # Mux 1 raises no priority-1 alert by itself; Mux 2 (factory profile) does, now and then
    {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}, "alert_profile": "Quiet",
     "monitoring": "started"},
    {"name": "Mux 2", "source": {"multicast": {"address": "239.1.1.2", "port": 5000}}, "alert_profile": "Default",
     "monitoring": "started"},
]

pytestmark = [
    pytest.mark.skipif(not os.access(RULEBOOK, os.X_OK), reason="ansible-rulebook is not installed in %s: run make eda"
                       % EDA_BIN),
    pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime (java) on PATH: ansible-rulebook needs"
                       " Java 17 (Debian: apt-get install openjdk-17-jre-headless); make eda installs it as root"),
]


@pytest.fixture(scope="module")
def sim():
    with running_fleet(ts=1, fm=1, time_scale=0.02) as fleet:
        yield fleet


def client_for(device):
    from ansible_collections.broadcast.monitoring.plugins.module_utils import _connection as connection
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device

    params = {name: spec.get("default") for name, spec in connection.CONNECTION_SPEC.items()}
    params.update(host=device.address, port=device.port, password=PASSWORD)
    return connection.client_from_params(params, ts_device)


def input_body(declared, profile_id, address=None):
    multicast = declared["source"]["multicast"]
    return {"name": declared["name"], "alerts_config": {"profile_id": profile_id}, "config": {"eth": {
        "stream_protocol": 0, "multicast": {"multicast_address": address or multicast["address"],
                                            "multicast_port": multicast["port"]}}}}


def write_files(sim, tmp_path):
    """The inventory (with the declared state as group vars: ansible-rulebook copies the file
    alone), the variables and one rulebook holding the three example rulebooks' rulesets."""
    inventory = sim.fleet.inventory()
    inventory["all"]["children"]["ts_analyzers"]["vars"] = {"ts_analyzer_alert_profiles": [QUIET],
                                                            "ts_analyzer_inputs": DECLARED}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    devices = [{"name": d.name, "host": d.address, "port": d.port, "device_type": d.kind} for d in sim.fleet.devices]
    (tmp_path / "vars.yml").write_text(yaml.safe_dump({"devices": devices, "poll_interval": 1,
                                                      "diagnostics_dir": str(tmp_path / "diagnostics")}))
    rulesets = []
    for name in RULEBOOKS:
        with open(os.path.join(ROOT, "extensions", "eda", "rulebooks", name + ".yml"), encoding="utf-8") as handle:
            rulesets.extend(yaml.safe_load(handle))
    observer = yaml.safe_load(yaml.safe_dump(rulesets[-1]))  # the capture ruleset's source, printing raises
    observer.update(name="Observe raises", rules=[{"name": "Print a raise", "condition": 'event.kind == "errors_raised"'
                                                   ' and event.detail.receiving == true',
                                                   "action": {"print_event": {"pretty": False}}}])
    rulesets.append(observer)
    (tmp_path / "rulebook.yml").write_text(yaml.safe_dump(rulesets, sort_keys=False))


def start_rulebook(tmp_path):
    env = dict(os.environ, PATH=EDA_BIN + os.pathsep + os.environ["PATH"],
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "build", "collections"),
               BROADCAST_MONITORING_PASSWORD=PASSWORD, ANSIBLE_NOCOLOR="1")
    env.pop("PYTHONPATH", None)  # the source finds the collection's code by itself
    log = tmp_path / "rulebook.log"
    with open(log, "w") as handle:
        proc = subprocess.Popen([RULEBOOK, "-i", "hosts.yml", "-r", "rulebook.yml", "-e", "vars.yml", "-E",
                                 "BROADCAST_MONITORING_PASSWORD", "-v"], cwd=str(tmp_path), env=env, stdout=handle,
                                stderr=subprocess.STDOUT, start_new_session=True)
    return proc, log


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
        what, WAIT, "running" if proc.poll() is None else "exited %s" % proc.returncode, log.read_text()[-8000:]))


def test_the_rulebooks_react_to_a_lost_signal_a_restart_and_an_error_storm(sim, tmp_path):
    device = sim.fleet.by_name("ts-001")
    sim.call(device.reset)
    monitor = sim.fleet.by_name("fm-001")
    sim.call(monitor.reset)
    station = sorted(f for f, s in monitor.band.items() if s["rssi"] >= 30)[0]

    def tuner_on_air():  # tuner 0 enabled and locked on a strong station
        monitor.state["tuners"][0].update(frequency=station, state=1)
    sim.call(tuner_on_air)
    client = client_for(device)
    quiet = client.post("/api/profiles", {"name": "Quiet", "entries": [
        dict(QUIET["errors"][name], error_name=name) for name in PRIORITY_1]})
    ids = {"Quiet": quiet["id"], "Default": 1}
    for declared in DECLARED:
        client.post("/api/inputs", input_body(declared, ids[declared["alert_profile"]]))
    write_files(sim, tmp_path)
    sim.call(device.requests.clear)

    def requested(method, path, unit=device):
        return [r for r in sim.call(lambda: list(unit.requests))
                if r["method"] == method and r["path"] == path and r["status"] == 200]

    proc, log = start_rulebook(tmp_path)
    try:
        # every ruleset's source has its baseline (four sources, each GET /api/inputs once a poll)
        wait_for(lambda: len(requested("GET", "/api/inputs")) >= 8, "the sources' first polls", proc, log)

        # 5. an input with priority-1 errors is captured once, however often they come back
        wait_for(lambda: requested("POST", "/api/record/start/2"), "a capture of Mux 2", proc, log)
        wait_for(lambda: log.read_text().count("'errors_raised'") >= 4, "four raises of priority-1 errors", proc, log)
        assert len(requested("POST", "/api/record/start/2")) == 1

        # 3. an input that loses its signal: its alert log is downloaded into an incident folder
        sim.call(device.lose_signal, 1)
        wait_for(lambda: requested("GET", "/api/inputs/1/alerts/download"), "GET /api/inputs/1/alerts/download",
                 proc, log)
        wait_for(lambda: bool(list(tmp_path.glob("diagnostics/ts-001-input-1-*/input-1-alerts.csv"))),
                 "the alert log in the incident folder", proc, log)
        incident = next(tmp_path.glob("diagnostics/ts-001-input-1-*"))
        assert (incident / "snapshot.json").stat().st_size and (incident / "info.json").stat().st_size
        assert not requested("GET", "/api/inputs/2/alerts/download")  # only the input that lost its signal
        assert not requested("POST", "/api/record/start/1")  # not receiving: no capture
        sim.call(device.restore_signal, 1)

        # 4. a declared setting changed by hand, then a restart: the setting is back as declared
        client.post("/api/inputs/1", dict(input_body(DECLARED[0], quiet["id"], address="239.9.9.9"), input_id=1))
        client.post("/api/system/reboot")

        def mux1_address():
            try:
                raw = next(i for i in client.get("/api/inputs") if i["id"] == 1)
            except Exception:  # the analyzer is rebooting
                return None
            return raw["config"]["eth"]["multicast"]["multicast_address"]

        wait_for(lambda: mux1_address() == "239.1.1.1", "Mux 1 back on 239.1.1.1 after the restart", proc, log)

        # 3, FM: a tuner that loses lock: the monitor's alert log is collected (POST /alerts/csv)
        assert not requested("POST", "/api/alerts/csv", monitor)
        sim.call(monitor.lose_signal, 0)
        wait_for(lambda: requested("POST", "/api/alerts/csv", monitor), "POST /api/alerts/csv on the FM monitor", proc, log)
        wait_for(lambda: bool(list(tmp_path.glob("diagnostics/fm-001-tuner-0-*/alerts.csv"))),
                 "the FM alert log in the tuner's incident folder", proc, log)
    finally:
        stop(proc)
        sim.call(device.restore_signal, 1)
        sim.call(monitor.restore_signal, 0)

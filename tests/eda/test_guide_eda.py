"""The EDA guide (docs/docsite/rst/guide_eda.rst) runs as written: its files and commands, taken
from the guide itself by the docs test's reader, with the variables and PATH the guide gives,
against a simulated analyzer. The blocks whose doc-test marker names this file are the ones the
docs test cannot run (they need ansible-rulebook and Java: ``make eda``); without them these
tests are skipped, saying what is missing.

What the test gives besides the blocks: the simulator's address and port in place of the ones
shown (as the docs test does for a hosts file), and a scratch folder in place of the guide's
diagnostics_dir (SUBSTITUTED). The guide's poll_interval (10 s) makes it take about a minute."""

import os
import subprocess
import time

import pytest
import yaml

from bm_simulator.fleet import running_fleet
from tests.functional.conftest import leak_watch
from tests.functional.test_docs_run import blocks, commands, hosts_for_fleet

from . import test_rulebooks
from .test_rulebooks import EDA_BIN, PASSWORD, ROOT, client_for, input_body, stop

pytestmark = test_rulebooks.pytestmark  # skipped, saying what is missing, without ansible-rulebook or Java

GUIDE = os.path.join("docs", "docsite", "rst", "guide_eda.rst")
HERE = "tests/eda/test_guide_eda.py"
#: the guide's diagnostics_dir, a system folder: the test's scratch folder instead
SUBSTITUTED = {"/var/lib/broadcast-monitoring/diagnostics": "diagnostics"}
WAIT = 150  # seconds: a JVM start, the guide's 10 s polls, then an ansible-playbook run
INPUT = {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}}}


@pytest.fixture(scope="module")
def sim():
    with running_fleet(ts=1, fm=0, time_scale=0.02) as fleet:
        yield fleet


def vars_for_fleet(text, fleet, workdir):
    """The rulebook variables shown, each device at a simulated one's address and port."""
    data = yaml.safe_load(text)
    for entry in data["devices"]:
        device = next(d for d in fleet.fleet.devices if d.kind == entry["device_type"])
        entry.update(host=device.address, port=device.port)
    data["diagnostics_dir"] = str(workdir / SUBSTITUTED[data["diagnostics_dir"]])
    return yaml.safe_dump(data, sort_keys=False)


def guide_blocks():
    """(files {path: text}, [the run blocks this test runs]) of the guide, in its order."""
    files, runs = {}, []
    for line, marker, text in blocks(GUIDE):
        if marker.startswith("file "):
            files[marker[len("file "):]] = text
        elif marker.startswith("not run:") and HERE in marker:
            runs.append((line, commands(text)))
    return files, runs


@pytest.fixture
def workdir(sim, tmp_path):
    """The scratch clone the guide's commands run in: build/ (eda-venv, collections) and the
    guide's files; ts-001 in factory state with input 1, Mux 1, receiving its stream."""
    work = tmp_path / "work"
    (work / "build").mkdir(parents=True)
    (work / "build" / "eda-venv").symlink_to(os.path.dirname(EDA_BIN))
    (work / "build" / "collections").symlink_to(os.path.join(ROOT, "build", "collections"))
    files = guide_blocks()[0]
    assert sorted(files) == ["hosts.yml", "vars.yml"], files
    (work / "hosts.yml").write_text(hosts_for_fleet(files["hosts.yml"], sim))
    (work / "vars.yml").write_text(vars_for_fleet(files["vars.yml"], sim, work))
    device = sim.fleet.by_name("ts-001")
    sim.call(device.reset)
    client_for(device).post("/api/inputs", input_body(INPUT, 1))
    sim.call(device.requests.clear)
    return work


def environment():
    """The shell of a user who followed the README: the password set, no ANSIBLE_* of the test's
    own, and ansible-rulebook not on PATH until the guide puts it there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_") and k != "PYTHONPATH"}
    env.update(BROADCAST_MONITORING_PASSWORD=PASSWORD, ANSIBLE_NOCOLOR="1",
               PATH=os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                    if os.path.realpath(p) != os.path.realpath(EDA_BIN)))
    return env


def test_the_guide_names_the_blocks_this_test_runs():
    runs = guide_blocks()[1]
    assert [("ansible-rulebook" in text, "eda_diagnose" in text) for line, text in runs] == [
        (True, False), (False, True)], runs


def test_the_rulebook_runs_as_the_guide_says_and_collects_a_lost_signal(sim, workdir):
    runs = guide_blocks()[1]
    script = runs[0][1]
    device = sim.fleet.by_name("ts-001")
    log = workdir / "rulebook.log"
    with open(log, "w") as handle:
        proc = subprocess.Popen(["bash", "-e", "-c", script], cwd=str(workdir), env=environment(), stdout=handle,
                                stderr=subprocess.STDOUT, start_new_session=True)

    def wait_for(condition, what):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and proc.poll() is None:
            if condition():
                return
            time.sleep(0.5)
        raise AssertionError("%s: not within %d s (the guide's ansible-rulebook %s); its output:\n%s" % (
            what, WAIT, "running" if proc.poll() is None else "exited %s" % proc.returncode, log.read_text()[-8000:]))

    def polls():
        return [r for r in sim.call(lambda: list(device.requests)) if r["path"] == "/api/inputs" and r["status"] == 200]

    try:
        wait_for(polls, "the event source's first poll")
        sim.call(device.lose_signal, 1)
        wait_for(lambda: bool(list(workdir.glob("diagnostics/ts-001-input-1-*/input-1-alerts.csv"))),
                 "the incident folder in the guide's diagnostics_dir")
        incident = next(workdir.glob("diagnostics/ts-001-input-1-*"))
        assert (incident / "snapshot.json").stat().st_size and (incident / "info.json").stat().st_size
    finally:
        stop(proc)
        sim.call(device.restore_signal, 1)
    output = log.read_text()
    assert "Error calling action" not in output and "Terminating" not in output, output[-8000:]
    leak_watch(sim, output)


def test_the_playbook_runs_by_hand_as_the_guide_says(sim, workdir):
    """The by-hand block, in the shell the set-up block left (its exports)."""
    runs = guide_blocks()[1]
    exports = "\n".join(line for line in runs[0][1].splitlines() if line.startswith("export "))
    proc = subprocess.run(["bash", "-e", "-c", exports + "\n" + runs[1][1]], cwd=str(workdir), env=environment(),
                          capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]
    leak_watch(sim, output)
    incident = workdir / "diagnostics" / "ts-001-input-1-20261126T101500Z"
    assert (incident / "info.json").stat().st_size and (incident / "input-1-alerts.csv").is_file(), sorted(
        os.listdir(workdir / "diagnostics"))

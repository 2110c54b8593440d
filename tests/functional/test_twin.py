"""Twins (issue 33): ``bm-simulator twin`` starts one simulated device per device_backup file,
in the backed-up state. Two simulator instances: one stands for the units on site (configured
by hand through their own HTTP API, every configurable field away from factory, fields no
document names kept, one input and one tuner without signal), the other serves their twins,
built from the units' backups. Proven here:

- a backup taken from a twin is the unit's backup (lossless), field by field;
- onboarding a twin gives the unit's variables, and site.yml with them changes nothing;
- a site.yml change rehearsed on the twins, then run on the units, leaves twins and units with
  equal backups;
- ``pip install ./simulator`` in a new virtual environment gives a ``bm-simulator`` that
  starts twins from backup files.

The user's inventory directory (hosts, group_vars, host_vars) is used unchanged; an extra
inventory, the one the twins write, points the hosts at the twins. Every unit has a twin here,
so the roles let it run; the twin guide rehearses on the twins' inventory alone, which
test_docs_run runs with a unit that has none.
"""

import json
import os
import shutil
import signal
import subprocess
import sys

import pytest
import yaml

from bm_simulator import twin
from bm_simulator.fleet import running_fleet

from .conftest import ROOT, ansible_playbook, recap
from .device_api import Api
from .test_disaster_recovery import configure_fm, configure_ts
from .test_onboard import load_vars

UNITS = ("ts-001", "fm-001")
#: the unit's address as its network settings give it (off loopback: stored and reported, the
#: simulated unit stays where it listens), so the twin's network identity is not its own
SITE_NETWORK = {"dhcp": False, "address": "10.20.30.40", "netmask": "255.255.255.0", "gateway": "10.20.30.1",
                "dns": ["10.20.30.2"]}


@pytest.fixture(scope="module")
def units():
    """The units on site: set by hand, one input's stream and one enabled tuner's signal lost."""
    with running_fleet(ts=1, fm=1, time_scale=0.02, unknown_fields="keep") as runner:
        ts, fm = runner.fleet.by_name("ts-001"), runner.fleet.by_name("fm-001")
        analyzer, monitor = Api(ts), Api(fm)
        configure_ts(analyzer, True)
        analyzer.post("/system/network", SITE_NETWORK)
        configure_fm(monitor, True)  # forwarding to a syslog server given as host:port
        monitor.post("/tuner/3/station", {"station_id": monitor.get("/stations/all")[0]["station_id"]})
        ids = {i["name"]: i["id"] for i in analyzer.get("/inputs")}
        runner.call(ts.lose_signal, ids["T2-MI"])
        runner.call(fm.lose_signal, 0)  # tuner 0 is enabled (state 1) and tuned on a station of the list
        yield runner


def playbook_run(fleet, directory, inventories, *args):
    """ansible-playbook with the inventories given (later ones override host variables) and
    playbooks/<name> for each name in args that ends in .yml; returns (code, output, recap)."""
    command = []
    for inventory in inventories:
        command += ["-i", str(inventory)]
    command += [os.path.join(ROOT, "playbooks", a) if a.endswith(".yml") else a for a in args]
    proc = ansible_playbook(fleet, directory.collections_path, directory.path, command, cwd=str(directory.path))
    return proc.returncode, proc.output, recap(proc.stdout)


class Site:
    """The user's files: an inventory directory (hosts of the units, group_vars, host_vars)."""

    def __init__(self, path, collections_path):
        self.path, self.collections_path = path, collections_path
        self.inventory = path / "inventory"


@pytest.fixture(scope="module")
def site(units, collections_path, tmp_path_factory):
    """The units backed up and onboarded into the user's inventory directory."""
    here = Site(tmp_path_factory.mktemp("twin"), collections_path)
    (here.inventory / "group_vars").mkdir(parents=True)
    # the simulator's factory password; the example group_vars read it from the environment
    (here.inventory / "group_vars" / "all.yml").write_text("broadcast_monitoring_password: admin\n")
    units.write_inventory(str(here.inventory / "hosts.yml"))
    code, output, unused = playbook_run(units, here, [here.inventory], "backup.yml", "onboard.yml", "-e",
                                        "backup_dir=%s" % (here.path / "backups"), "-e",
                                        "onboard_dir=%s" % here.inventory)
    assert code == 0, output
    return here


@pytest.fixture(scope="module")
def twins(site):
    """The twins of the units, from their backups (the names of the files name the hosts)."""
    backups = sorted(str(site.path / "backups" / (name + ".json")) for name in UNITS)
    with running_fleet(ts=0, fm=0, time_scale=0.02, unknown_fields="keep",
                       twins=[twin.read_backup(path) for path in backups]) as runner:
        runner.write_inventory(str(site.path / "twins.yml"))
        yield runner


def differences(before, after, path=""):
    """Every path at which two JSON documents differ, with both values."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for key in sorted(set(before) | set(after)):
            out += differences(before.get(key, "<absent>"), after.get(key, "<absent>"), "%s.%s" % (path, key))
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [d for index, pair in enumerate(zip(before, after)) for d in differences(*pair, "%s[%d]" % (path, index))]
    return [] if before == after else ["%s: %r != %r" % (path, before, after)]


def backup_of(directory, name):
    return json.loads((directory / (name + ".json")).read_text())


def test_a_backup_of_a_twin_is_the_units_backup(site, twins):
    """Lossless: the format has no time-of-taking field (the Disaster recovery guide: no clock,
    no measurement), so nothing is left out of the comparison."""
    code, output, counts = playbook_run(twins, site, [site.inventory, site.path / "twins.yml"], "backup.yml", "-e",
                                        "backup_dir=%s" % (site.path / "twin-backups"))
    assert code == 0, output
    assert sorted(counts) == sorted(UNITS), output
    for name in UNITS:
        unit, copy = backup_of(site.path / "backups", name), backup_of(site.path / "twin-backups", name)
        assert differences(unit, copy) == [], name
    ts, fm = backup_of(site.path / "backups", "ts-001"), backup_of(site.path / "backups", "fm-001")
    # what makes the backups rich, so that their equality says something
    assert ts["system"]["network"]["address"] == "10.20.30.40" and ts["system"]["network"]["hostname"] == "studio-b-analyzer"
    assert {i["name"]: i["receiving"] for i in ts["snapshot"]["inputs"]}["T2-MI"] is False
    assert any(i["receiving"] for i in ts["snapshot"]["inputs"])
    assert ts["raw"]["log_settings"]["facility"] == "local3"  # a field no document names
    assert fm["snapshot"]["tuners"][0]["state"] == "enabled" and fm["snapshot"]["tuners"][0]["tuned"] is False
    assert fm["snapshot"]["tuners"][3]["state"] == "enabled" and fm["snapshot"]["tuners"][3]["tuned"] is True
    assert fm["raw"]["conf"]["site"] == {"rack": 4} and fm["raw"]["conf"]["hostname"] == "studio-b-fm"
    # a twin answers at its own loopback address, under the unit's identity
    for name, doc in (("ts-001", ts), ("fm-001", fm)):
        device = twins.fleet.by_name(name)
        assert (device.model, device.serial_number) == (doc["device"]["model"], doc["device"]["serial_number"])
        assert device.address != doc["system"]["network"]["address"]


def in_name_order(variables):
    """Onboarded variables with the analyzer's inputs by name: onboarding lists them in the
    device's id order, and ids are the device's own, which no backup keeps (the twin numbers
    them in the backup's order, by name)."""
    if "ts_analyzer_inputs" in variables:
        variables = dict(variables, ts_analyzer_inputs=sorted(variables["ts_analyzer_inputs"], key=lambda i: i["name"]))
    return variables


def test_onboarding_a_twin_gives_the_units_variables_and_site_yml_then_changes_nothing(site, twins):
    onboarded = site.path / "from-twins"
    code, output, unused = playbook_run(twins, site, [site.inventory, site.path / "twins.yml"], "onboard.yml", "-e",
                                        "onboard_dir=%s" % onboarded)
    assert code == 0, output
    for name in UNITS:
        assert in_name_order(load_vars(onboarded / "host_vars" / (name + ".yml"))) == in_name_order(
            load_vars(site.inventory / "host_vars" / (name + ".yml"))), name
    for device in twins.fleet.devices:
        twins.call(device.requests.clear)
    # with purge: the units' factory profile is renamed, and purge keeps it as it is
    code, output, counts = playbook_run(twins, site, [site.inventory, site.path / "twins.yml"], "site.yml", "-e",
                                        "ts_analyzer_purge=true", "-e", "fm_monitor_purge=true")
    assert code == 0, output
    assert {name: (counts[name]["changed"], counts[name]["failed"]) for name in UNITS} == {
        n: (0, 0) for n in UNITS}, output
    for device in twins.fleet.devices:
        kinds = [r["kind"] for r in twins.call(lambda d=device: list(d.requests))]
        assert "read" in kinds and "write" not in kinds and "action" not in kinds, (device.name, kinds)


def test_a_change_rehearsed_on_the_twins_leaves_twins_and_units_alike(site, units, twins):
    """The same site.yml, the same host_vars: first against the twins (the extra inventory),
    then against the units (the user's inventory alone)."""
    ts_vars = load_vars(site.inventory / "host_vars" / "ts-001.yml")
    fm_vars = load_vars(site.inventory / "host_vars" / "fm-001.yml")
    ts_vars["ts_analyzer_inputs"][0]["name"] = "Renamed on rehearsal"
    fm_vars["fm_monitor_tuners"][1]["name"] = "Rehearsed"
    (site.inventory / "host_vars" / "ts-001.yml").write_text(yaml.safe_dump(ts_vars))
    (site.inventory / "host_vars" / "fm-001.yml").write_text(yaml.safe_dump(fm_vars))
    results = {}
    for label, fleet, inventories in (("twins", twins, [site.inventory, site.path / "twins.yml"]),
                                      ("units", units, [site.inventory])):
        code, output, counts = playbook_run(fleet, site, inventories, "site.yml", "backup.yml", "-e",
                                            "backup_dir=%s" % (site.path / ("after-" + label)))
        assert code == 0, output
        assert all(counts[name]["changed"] > 0 and counts[name]["failed"] == 0 for name in UNITS), output
        results[label] = {name: backup_of(site.path / ("after-" + label), name) for name in UNITS}
    for name in UNITS:
        assert differences(results["units"][name], results["twins"][name]) == [], name
        assert differences(backup_of(site.path / "backups", name), results["units"][name]), name  # it changed
    assert "Renamed on rehearsal" in [i["name"] for i in results["units"]["ts-001"]["raw"]["inputs"]]


def test_a_new_virtual_environment_with_only_the_simulator_runs_twins(site, tmp_path):
    """pip install ./simulator (dependencies from the package index) gives bm-simulator; its
    twin command starts twins from backup files, from any directory."""
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    bindir = env / "bin"
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    source = tmp_path / "simulator"  # a copy: the build writes into the source tree
    shutil.copytree(os.path.join(ROOT, "simulator"), source, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    install = subprocess.run([str(bindir / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              str(source)], capture_output=True, text=True, env=clean, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    command = str(bindir / "bm-simulator")
    helped = subprocess.run([command, "--help"], capture_output=True, text=True, env=clean, cwd=tmp_path, check=True)
    for name in ("fleet", "twin", "bundle"):
        assert name in helped.stdout
        usage = subprocess.run([command, name, "--help"], capture_output=True, text=True, env=clean, check=True)
        assert usage.stdout.startswith("usage: bm-simulator %s" % name), usage.stdout
    for name in UNITS:
        shutil.copy(site.path / "backups" / (name + ".json"), tmp_path / (name + ".json"))
    inventory = tmp_path / "twins.yml"
    proc = subprocess.Popen([command, "twin", "ts-001.json", "fm-001.json", "--address", "127.21.33.1", "--port",
                             "0", "--time-scale", "0.02", "--inventory", str(inventory)],
                            cwd=tmp_path, env=clean, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready: 2 devices", proc.stderr.read()
        groups = yaml.safe_load(inventory.read_text())["all"]["children"]
        assert groups["ts_analyzers"]["hosts"]["ts-001"]["ansible_host"] == "127.21.33.1"
        assert groups["fm_monitors"]["hosts"]["fm-001"]["ansible_host"] == "127.21.33.2"
        assert groups["fm_monitors"]["hosts"]["fm-001"]["device_type"] == "fm_monitor"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0

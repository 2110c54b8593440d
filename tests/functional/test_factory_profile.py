"""The analyzer's factory profile is the profile with id 1, whatever its name: the analyzer
refuses to delete it but lets it be renamed (ts-analyzer-api.md, alert profiles: POST
/profiles/{id} updates a profile), and an input created without a profile gets it.

A unit whose factory profile was renamed, onboarded: site.yml then changes nothing and creates
no profile, with purge off and on, and the audit finds no drift and no undeclared profile.
Declared without it: the audit does not call it undeclared, purge keeps it under its own name
at factory values (it cannot be deleted), and a new input without a profile gets it."""

import json
import os

import pytest
import yaml

from bm_simulator.fleet import running_fleet

from .conftest import ROOT, ansible_playbook, recap
from .device_api import Api
from .test_onboard import load_vars

#: the unit's factory profile (id 1), renamed by hand
FACTORY = "Factory"
PURGE = ("-e", "ts_analyzer_purge=true")


@pytest.fixture
def unit(tmp_path, collections_path):
    """One analyzer set by hand (factory profile renamed, one profile more, an input on each),
    onboarded into an inventory directory."""
    with running_fleet(ts=1, fm=0, time_scale=0.02) as runner:
        api = Api(runner.fleet.by_name("ts-001"))
        api.post("/profiles/1", {"name": FACTORY, "entries": [{"error_name": "crc_error", "alert_type": "none"}]})
        strict = api.post("/profiles", {"name": "Strict", "entries": [{"error_name": "pts_error", "snmp_trap": True}]})
        api.add_input("On the factory profile", {"asi": {"port": 1}}, profile_id=1)
        api.add_input("On Strict", {"asi": {"port": 2}}, profile_id=strict["id"])
        inventory = tmp_path / "inventory"
        (inventory / "group_vars").mkdir(parents=True)
        (inventory / "group_vars" / "all.yml").write_text("broadcast_monitoring_password: admin\n")
        runner.write_inventory(str(inventory / "hosts.yml"))
        runner.api, runner.inventory, runner.collections_path = api, inventory, collections_path
        code, output, unused = playbook(runner, "onboard.yml", "-e", "onboard_dir=%s" % inventory)
        assert code == 0, output
        yield runner


def playbook(unit, name, *args):
    proc = ansible_playbook(unit, unit.collections_path, unit.inventory.parent,
                            ["-i", str(unit.inventory), os.path.join(ROOT, "playbooks", name)] + list(args),
                            cwd=str(unit.inventory.parent))
    return proc.returncode, proc.output, recap(proc.stdout)


def audit(unit, *args):
    report = unit.inventory.parent / "drift.json"
    code, output, unused = playbook(unit, "audit.yml", "-e", "audit_report=%s" % report, *args)
    assert code == 0, output
    return json.loads(report.read_text()), output


def differing(report):
    """{section: details} of the analyzer's sections that differ from the declared state."""
    return {entry["section"]: entry["details"] for entry in report["drift"]["ts-001"] if entry["changed"]}


def writes(unit):
    device = unit.fleet.by_name("ts-001")
    return [(r["method"], r["path"]) for r in unit.call(device.writes)]


def clear(unit):
    unit.call(unit.fleet.by_name("ts-001").requests.clear)


def profiles(unit):
    return {p["id"]: p for p in unit.api.get("/profiles")}


def test_an_onboarded_unit_with_a_renamed_factory_profile_is_converged(unit):
    onboarded = load_vars(unit.inventory / "host_vars" / "ts-001.yml")
    assert [p["name"] for p in onboarded["ts_analyzer_alert_profiles"]] == [FACTORY, "Strict"]
    before = profiles(unit)
    for purge in ((), PURGE):
        clear(unit)
        code, output, counts = playbook(unit, "site.yml", *purge)
        assert code == 0, output
        assert counts["ts-001"]["changed"] == 0 and counts["ts-001"]["failed"] == 0, (purge, output)
        assert writes(unit) == [], (purge, writes(unit))
        assert profiles(unit) == before, purge
    for purge in ((), PURGE):
        report, output = audit(unit, *purge)
        assert report["devices_with_drift"] == [] and report["not_declared"] == {}, (purge, output)


def test_the_factory_profile_left_undeclared_keeps_its_name_and_a_new_input_gets_it(unit):
    path = unit.inventory / "host_vars" / "ts-001.yml"
    onboarded = load_vars(path)
    declared = dict(onboarded, ts_analyzer_alert_profiles=[
        p for p in onboarded["ts_analyzer_alert_profiles"] if p["name"] != FACTORY])
    declared["ts_analyzer_inputs"] = onboarded["ts_analyzer_inputs"] + [{"name": "New", "source": {"asi": {"port": 1}}}]
    path.write_text(yaml.safe_dump(declared))

    # without purge the factory profile is left as it is, and not called undeclared
    report, output = audit(unit)
    assert report["not_declared"] == {}, output
    assert differing(report) == {"inputs": ["create New"]}, output
    code, output, counts = playbook(unit, "site.yml")
    assert code == 0 and counts["ts-001"]["changed"] == 1, output
    made = {i["name"]: i for i in unit.api.get("/inputs")}["New"]
    assert made["alerts_config"]["profile_id"] == 1, made
    assert [p["name"] for p in profiles(unit).values()] == [FACTORY, "Strict"]
    code, output, counts = playbook(unit, "site.yml")
    assert code == 0 and counts["ts-001"]["changed"] == 0, output

    # with purge it cannot be deleted: it keeps its name, its entries back at factory values
    report, output = audit(unit, *PURGE)
    assert report["not_declared"] == {}, output
    assert list(differing(report)) == ["alert_profiles"], output
    assert [line.split(":")[0] for line in differing(report)["alert_profiles"]] == ["update " + FACTORY], output
    code, output, counts = playbook(unit, "site.yml", *PURGE)
    assert code == 0 and counts["ts-001"]["changed"] == 1, output
    factory = profiles(unit)[1]
    assert factory["name"] == FACTORY and [p["name"] for p in profiles(unit).values()] == [FACTORY, "Strict"]
    crc = next(e for e in factory["entries"] if e["error_name"] == "crc_error")
    assert crc["alert_type"] != "none", crc  # the factory value again
    clear(unit)
    code, output, counts = playbook(unit, "site.yml", *PURGE)
    assert code == 0 and counts["ts-001"]["changed"] == 0, output
    assert writes(unit) == []
    report, output = audit(unit, *PURGE)
    assert report["devices_with_drift"] == [] and report["not_declared"] == {}, output

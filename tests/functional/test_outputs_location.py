"""Files the playbooks write land where the user runs ansible-playbook, not inside the collection:
run by their FQCN from an installed copy (as after `ansible-galaxy collection install`), the
backup, firmware_rollout and audit playbooks write backups/ and audit-report.json into the
working directory, and nothing into the installed collection."""

import json
import os
import subprocess
import sys

import pytest
from bm_simulator import swu
from bm_simulator.fleet import running_fleet

from .conftest import ROOT, ansible_playbook

GALAXY = os.path.join(os.path.dirname(sys.executable), "ansible-galaxy")


@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=1, fm=1, time_scale=0.02) as runner:
        yield runner


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A collections path holding an installed copy (BM_COLLECTIONS_PATH when the artifact run
    gives one, else the working tree built and installed as Galaxy would)."""
    given = os.environ.get("BM_COLLECTIONS_PATH")
    if given:
        return given
    base = tmp_path_factory.mktemp("installed")
    subprocess.run([GALAXY, "collection", "build", "--output-path", str(base / "dist"), ROOT],
                   check=True, capture_output=True, text=True)
    tarball = next((base / "dist").iterdir())
    subprocess.run([GALAXY, "collection", "install", "--offline", "--force", "-p", str(base / "collections"), str(tarball)],
                   check=True, capture_output=True, text=True)
    return str(base / "collections")


def collection_files(collections_path):
    top = os.path.join(collections_path, "ansible_collections", "broadcast", "monitoring")
    return {os.path.relpath(os.path.join(d, f), top) for d, dirs, files in os.walk(top) for f in files}


def run_fqcn(fleet, collections_path, workdir, name, *args):
    inventory = workdir / "hosts.yml"
    fleet.write_inventory(str(inventory))
    proc = ansible_playbook(fleet, collections_path, workdir,
                            ["-i", str(inventory), "broadcast.monitoring." + name, "-e", "broadcast_monitoring_password=admin"]
                            + list(args), cwd=str(workdir))
    assert proc.returncode == 0, proc.output
    return proc


def test_backup_and_audit_by_fqcn_write_into_the_working_directory(fleet, installed, tmp_path):
    before = collection_files(installed)
    work = tmp_path / "work"
    work.mkdir()
    run_fqcn(fleet, installed, work, "backup")
    assert sorted(os.listdir(work / "backups")) == ["fm-001.json", "history", "ts-001.json"]
    run_fqcn(fleet, installed, work, "audit")
    report = json.loads((work / "audit-report.json").read_text())
    assert sorted(report["drift"]) == ["fm-001", "ts-001"]
    assert collection_files(installed) == before


def test_firmware_rollout_by_fqcn_backs_up_into_the_working_directory(fleet, installed, tmp_path):
    before = collection_files(installed)
    work = tmp_path / "work"
    work.mkdir()
    (work / "analyzer-2.4.1.swu").write_bytes(swu.build("2.4.1"))
    run_fqcn(fleet, installed, work, "firmware_rollout", "-e", "firmware_rollout_bundle=analyzer-2.4.1.swu",
             "-e", "firmware_rollout_hosts=ts_analyzers", "-e", "firmware_rollout_timeout=30")
    assert os.listdir(work / "backups") == ["pre-upgrade"]  # the pre-upgrade backups have a folder of their own
    kept = os.listdir(work / "backups" / "pre-upgrade")
    assert len(kept) == 1 and kept[0].startswith("ts-001-1.0.0-"), kept
    assert json.loads((work / "backups" / "pre-upgrade" / kept[0]).read_text())["device_type"] == "ts_analyzer"
    assert collection_files(installed) == before

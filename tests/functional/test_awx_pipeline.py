"""The collection's playbooks run the way an AWX execution node runs a job: each job's private
data dir goes through ``ansible-runner transmit | ansible-runner worker | ansible-runner process``
(ansible-runner's streaming protocol, which AWX sends through receptor to the execution node;
receptor is left out), several slices of one inventory at once, against one simulated fleet.

What AWX does is taken from its source (ansible/awx at commit
e21dd0a0933fd544d1fe2513c54fe41203775eb5; docs/awx.md, section 4, says more):

* slice n of N gets the inventory's hosts ordered by name, ``hosts[n-1::N]``
  (``Inventory.get_script_data`` and ``Inventory.get_sliced_hosts``, awx/main/models/inventory.py),
  and its groups hold only those hosts;
* each job's extra variables include ``awx_meta_vars`` (``UnifiedJob.awx_meta_vars``,
  ``Job.awx_meta_vars``): its own job id, the sliced job's workflow job id and name, nothing
  naming the slice;
* a job's artifacts are the ``artifact_data`` of its ``playbook_on_stats`` event
  (awx/main/tasks/callback.py); a sliced job's are its slices' merged with ``dict.update`` in
  the order they finished (``WorkflowJob.get_effective_artifacts``); a workflow node gets its
  parents' artifacts, parents by id, merged the same way, as extra variables
  (``WorkflowJobNode.get_job_kwargs``).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
import yaml

from bm_simulator import swu
from bm_simulator.fleet import running_fleet

from .conftest import ROOT
from .test_roles_rollout import quiet_inputs

PASSWORD = "awx-Pipeline-5"
SLICES = 3


@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=3, fm=3, time_scale=0.02) as runner:
        yield runner


def reset(fleet):
    for device in fleet.devices:
        fleet.call(device.reset)


def set_password(fleet):
    for device in fleet.devices:
        fleet.call(lambda device=device: device.state["passwords"].update(admin=PASSWORD))
        fleet.call(device.requests.clear)


def awx_slices(hosts, count):
    """Inventory.get_sliced_hosts over the hosts ordered by name: slice n gets hosts[n-1::count]."""
    ordered = sorted(hosts)
    return [ordered[number - 1::count] for number in range(1, count + 1)]


def slice_inventory(fleet, hosts):
    """The inventory of a slice (Inventory.get_script_data): its hosts only, in their groups; per
    host only address, port and type, as in tests/functional/test_awx.py."""
    inventory = fleet.fleet.inventory()
    del inventory["all"]["vars"]
    for group in inventory["all"]["children"].values():
        group["hosts"] = {name: hostvars for name, hostvars in group["hosts"].items() if name in hosts}
    return inventory


class Job:
    """One AWX job through transmit | worker | process: its private data dir, as AWX writes it
    (inventory, env/envvars with the credential's environment, env/extravars with the launch's and
    awx_meta_vars), the project (this repository's playbooks and roles), and the directory
    `ansible-runner process` writes the job's events and artifacts into, which is what AWX reads."""

    def __init__(self, workdir, name, collections_path, playbook, inventory, extravars):
        self.name = name
        self.private = workdir / ("private-" + name)
        self.processed = workdir / ("processed-" + name)
        for folder in (self.private, self.processed):
            if folder.exists():
                shutil.rmtree(folder)
        for folder in ("inventory", "env", "project"):
            (self.private / folder).mkdir(parents=True)
        for folder in ("playbooks", "roles"):
            shutil.copytree(os.path.join(ROOT, folder), self.private / "project" / folder)
        (self.private / "inventory" / "hosts.yml").write_text(yaml.safe_dump(inventory, sort_keys=False))
        (self.private / "env" / "envvars").write_text(yaml.safe_dump({
            "BROADCAST_MONITORING_PASSWORD": PASSWORD,  # what the credential injects
            # what the execution environment provides: the collection, and the Python that runs Ansible
            "ANSIBLE_COLLECTIONS_PATH": collections_path, "ANSIBLE_PYTHON_INTERPRETER": sys.executable,
            "ANSIBLE_NOCOLOR": "1"}))
        (self.private / "env" / "extravars").write_text(json.dumps(extravars))
        self.playbook = playbook
        self.procs = []

    def start(self):
        bindir = os.path.dirname(sys.executable)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("BROADCAST_MONITORING_") and key not in ("PYTHONPATH", "ANSIBLE_COLLECTIONS_PATH")}
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        runner = os.path.join(bindir, "ansible-runner")
        transmit = subprocess.Popen([runner, "transmit", str(self.private), "-p", self.playbook],
                                    stdout=subprocess.PIPE, env=env)
        worker = subprocess.Popen([runner, "worker"], stdin=transmit.stdout, stdout=subprocess.PIPE, env=env)
        transmit.stdout.close()
        with open(str(self.private) + ".log", "wb") as log:
            process = subprocess.Popen([runner, "process", str(self.processed)], stdin=worker.stdout,
                                       stdout=log, stderr=subprocess.STDOUT, env=env)
        worker.stdout.close()
        self.procs = [transmit, worker, process]
        return self

    def wait(self):
        for proc in self.procs:
            proc.wait(timeout=900)
        artifacts = self.processed / "artifacts"
        self.status = (artifacts / "status").read_text().strip()
        self.stdout = (artifacts / "stdout").read_text()
        self.events = [json.loads((artifacts / "job_events" / name).read_text())
                       for name in sorted(os.listdir(artifacts / "job_events"), key=lambda n: int(n.split("-")[0]))]
        stats = [e for e in self.events if e["event"] == "playbook_on_stats"]
        self.artifacts = stats[-1]["event_data"].get("artifact_data", {}) if stats else {}
        self.finished = os.path.getmtime(artifacts / "status")
        return self

    def hosts(self, event="runner_on_ok"):
        return {e["event_data"]["host"] for e in self.events if e["event"] == event}


def run_jobs(jobs):
    for job in jobs:
        job.start()
    return [job.wait() for job in jobs]


def meta_vars(job_id, workflow_id=None, workflow_name=None):
    """awx_meta_vars of a job (a subset: what a playbook could use to know where it runs)."""
    meta = {}
    for prefix in ("awx", "tower"):
        meta.update({prefix + "_job_id": job_id, prefix + "_job_launch_type": "workflow" if workflow_id else "manual"})
        if workflow_id:
            meta.update({prefix + "_workflow_job_id": workflow_id, prefix + "_workflow_job_name": workflow_name})
    return meta


def sliced_job(fleet, workdir, collections_path, name, playbook, extravars, first_job_id, count=SLICES):
    """The jobs of a sliced job template launch, started at once; their job ids follow each other."""
    hosts = [device.name for device in fleet.devices]
    return [Job(workdir, "%s-%d" % (name, number), collections_path, playbook, slice_inventory(fleet, part),
                dict(extravars, **meta_vars(first_job_id + number, first_job_id, "Broadcast monitoring - " + name)))
            for number, part in enumerate(awx_slices(hosts, count), start=1)]


def effective_artifacts(jobs):
    """WorkflowJob.get_effective_artifacts: the jobs' artifacts by finish time, then id, dict.update."""
    merged = {}
    for job in sorted(jobs, key=lambda job: (job.finished, job.name)):
        merged.update(job.artifacts)
    return merged


def assert_no_secret(fleet, jobs, *folders):
    """No password or token reaches what AWX gets back (events, stdout, artifacts) or a report."""
    secrets = {PASSWORD} | {s for d in fleet.devices for s in fleet.call(d.issued_secrets)} - {"admin", "user"}
    assert len(secrets) > 1, "the devices issued no token: the search would prove nothing"
    searched = 0
    for folder in [job.processed for job in jobs] + list(folders):
        for base, _dirs, files in os.walk(folder):
            for name in files:
                text = open(os.path.join(base, name), encoding="utf-8", errors="replace").read()
                if name == "command" and os.path.basename(base) == "artifacts":
                    # ansible-runner records the job's command and its whole environment, the
                    # credential's included (runner.py, Runner.run); AWX stores that environment
                    # with every variable whose name matches API|TOKEN|KEY|SECRET|PASS hidden
                    # (awx/main/models/credential.py, build_safe_env; tasks/callback.py,
                    # RunnerCallback.status_handler): the password may only be under such names.
                    env = json.loads(text)["env"]
                    assert all(re.search(r"API|TOKEN|KEY|SECRET|PASS", key, re.I)
                               for key, value in env.items() if any(secret in str(value) for secret in secrets))
                    continue
                searched += 1
                for secret in secrets:
                    assert secret not in text, "a secret reached %s" % os.path.join(base, name)
    assert searched > 3 * len(jobs)


def test_the_slicing_is_awx_s():
    hosts = ["ts-002", "fm-001", "ts-001", "fm-003", "ts-003", "fm-002", "ts-004"]
    assert awx_slices(hosts, 3) == [["fm-001", "ts-001", "ts-004"], ["fm-002", "ts-002"], ["fm-003", "ts-003"]]


def test_site_and_audit_in_slices_converge_each_device_once_and_report_every_device(fleet, collections_path, tmp_path):
    reset(fleet)
    set_password(fleet)
    state = {"ts_analyzer_time": {"timezone": "Europe/Berlin"}, "fm_monitor_time": {"timezone": "2"}}
    site = run_jobs(sliced_job(fleet, tmp_path, collections_path, "configure", "playbooks/site.yml", state, 100))
    assert [job.status for job in site] == ["successful"] * SLICES, [job.stdout for job in site]
    names = sorted(device.name for device in fleet.devices)
    # each device in exactly one slice, as AWX slices
    assert [sorted(job.hosts()) for job in site] == [sorted(part) for part in awx_slices(names, SLICES)]
    for device in fleet.devices:  # converged once: one write, the timezone
        assert len(fleet.call(device.writes)) == 1, (device.name, fleet.call(device.writes))

    audit = run_jobs(sliced_job(fleet, tmp_path, collections_path, "audit", "playbooks/audit.yml",
                                dict(state, audit_report="audit.json"), 200))
    assert [job.status for job in audit] == ["successful"] * SLICES, [job.stdout for job in audit]
    merged = effective_artifacts(audit)
    assert sorted(merged) == ["broadcast_monitoring_audit_%d" % number for number in (201, 202, 203)]
    validate = run_jobs(sliced_job(fleet, tmp_path, collections_path, "validate", "playbooks/validate.yml", state, 250))
    assert [job.status for job in validate] == ["successful"] * SLICES, [job.stdout for job in validate]
    validated = effective_artifacts(validate)
    assert sorted(validated) == ["broadcast_monitoring_validation_%d" % number for number in (251, 252, 253)]
    # a child workflow node's job: the report, from the merged artifacts as extra variables
    reports = tmp_path / "reports"
    report = run_jobs([Job(tmp_path, "report", collections_path, "playbooks/report.yml", slice_inventory(fleet, names),
                           dict(merged, report_dir=str(reports), **validated, **meta_vars(300)))])[0]
    assert report.status == "successful", report.stdout
    result = json.loads((reports / "audit-report.json").read_text())
    assert sorted(result["audited"]) == names and result["devices_with_drift"] == [] and result["failed"] == {}
    assert "0 of 6 device(s) differ" in (reports / "audit-report.txt").read_text()
    # the validation report of every slice's devices (JUnit: one test suite per device)
    suites = ET.parse(reports / "validate.xml").getroot().findall("testsuite")
    assert sorted(suite.get("name") for suite in suites) == names
    assert [suite.get("name") for suite in suites if suite.get("failures") != "0"] == []
    assert sorted(json.loads((reports / "validate.json").read_text())) == names
    assert_no_secret(fleet, site + audit + validate + [report], reports)


def test_rollout_canary_then_slices_a_regression_stops_only_its_slice(fleet, collections_path, tmp_path):
    """Canary fm-001 (size 1), then the others in 2 slices of the six devices by name,
    [fm-001, fm-003, ts-002] and [fm-002, ts-001, ts-003], without the canary. ts-001's upgrade
    loses an input's stream: its slice stops there (ts-003 is not contacted), the other slice
    carries on (ts-002 is upgraded). The report from all artifacts lists the six devices."""
    reset(fleet)
    ts001 = fleet.fleet.by_name("ts-001")
    quiet_inputs(ts001)  # receiving inputs, with the factory password
    set_password(fleet)
    fleet.call(ts001.lose_signal, 2, True)
    bundle = tmp_path / "firmware"
    bundle.mkdir()
    (bundle / "all-2.4.1.swu").write_bytes(swu.build("2.4.1"))
    survey = {"firmware_rollout_bundle": str(bundle / "all-2.4.1.swu"), "firmware_rollout_hosts": "all", "firmware_rollout_serial": "1",
              "firmware_rollout_canary_size": 1, "firmware_rollout_backup": 0,
              "firmware_rollout_snapshot_confirm_interval": 1, "firmware_rollout_timeout": 60}
    everyone = sorted(device.name for device in fleet.devices)

    # launched alone, the job after the canary refuses before any request
    alone = run_jobs([Job(tmp_path, "alone", collections_path, "playbooks/firmware_rollout.yml",
                          slice_inventory(fleet, everyone),
                          dict(survey, firmware_rollout_phase="after_canary", **meta_vars(400)))])[0]
    assert alone.status == "failed" and "no canary result" in alone.stdout, alone.stdout
    assert all(fleet.call(lambda d=d: list(d.requests)) == [] for d in fleet.devices)

    canary = run_jobs([Job(tmp_path, "canary", collections_path, "playbooks/firmware_rollout.yml",
                           slice_inventory(fleet, everyone),
                           dict(survey, firmware_rollout_phase="canary", **meta_vars(501, 500, "canary first")))])[0]
    assert canary.status == "successful", canary.stdout
    assert {h: r["status"] for h, r in canary.artifacts["broadcast_monitoring_rollout_501"].items()} == {
        "fm-001": "upgraded"}

    # the approval node passes the canary's artifacts on; the sliced job gets them as extra variables
    rest = run_jobs(sliced_job(fleet, tmp_path, collections_path, "rollout", "playbooks/firmware_rollout.yml",
                               dict(survey, firmware_rollout_phase="after_canary", **canary.artifacts), 600, count=2))
    assert [job.status for job in rest] == ["successful", "failed"], [job.stdout for job in rest]
    assert rest[1].hosts("runner_on_failed") == {"ts-001"}
    assert fleet.call(lambda: list(fleet.fleet.by_name("ts-003").requests)) == []  # its slice stopped

    merged = dict(canary.artifacts, **effective_artifacts(rest))
    reports = tmp_path / "reports"
    report = run_jobs([Job(tmp_path, "rollout-report", collections_path, "playbooks/report.yml", slice_inventory(fleet, everyone),
                           dict(merged, report_dir=str(reports), **meta_vars(700)))])[0]
    assert report.status == "successful", report.stdout
    status = {d["host"]: d["status"] for d in json.loads((reports / "firmware_rollout.json").read_text())["devices"]}
    assert status == {"fm-001": "upgraded", "fm-002": "upgraded", "fm-003": "upgraded", "ts-002": "upgraded",
                      "ts-001": "regression", "ts-003": "not reached"}, status
    assert "| ts-001 | regression | 1.0.0 | 2.4.1 |" in (reports / "firmware_rollout.md").read_text()
    assert_no_secret(fleet, [alone, canary, report] + rest, reports)


def test_backup_and_onboarding_in_slices_hand_on_a_summary_of_every_device(fleet, collections_path, tmp_path):
    reset(fleet)
    set_password(fleet)
    names = sorted(device.name for device in fleet.devices)
    backup = run_jobs(sliced_job(fleet, tmp_path, collections_path, "backup", "playbooks/backup.yml",
                                 {"backup_dir": str(tmp_path / "backups")}, 800, count=2))
    onboard = run_jobs(sliced_job(fleet, tmp_path, collections_path, "onboard", "playbooks/onboard.yml",
                                  {"onboard_dir": str(tmp_path / "inventory")}, 900, count=2))
    assert [job.status for job in backup + onboard] == ["successful"] * 4, [job.stdout for job in backup + onboard]
    for jobs, kind, first, folder in ((backup, "backup", 800, tmp_path / "backups"),
                                      (onboard, "onboard", 900, tmp_path / "inventory" / "host_vars")):
        merged = effective_artifacts(jobs)
        assert sorted(merged) == ["broadcast_monitoring_%s_%d" % (kind, first + n) for n in (1, 2)]
        summaries = {host: summary for results in merged.values() for host, summary in results.items()}
        assert sorted(summaries) == names
        for host, summary in summaries.items():
            assert summary["changed"] is True and summary["file"] == str(folder / (host + (
                ".json" if kind == "backup" else ".yml"))), summary
    assert_no_secret(fleet, backup + onboard, tmp_path / "backups", tmp_path / "inventory")

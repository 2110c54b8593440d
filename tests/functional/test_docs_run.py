"""The README and the guides run as written: every code block carries a doc-test marker, and the
blocks marked to run are run, in document order, against one simulated fleet.

Markers (the line before a Markdown fence, or an RST comment before ``.. code-block::``):

- ``doc-test: run``: a shell block (``$`` prompts in a console block; output lines are ignored),
  run with bash -e in a scratch directory that has the clone's ``.venv``, ``build`` and
  ``playbooks``; the environment a block exports carries over to the next block of the document;
- ``doc-test: file <path>``: written to <path> as shown; a hosts file gets only the simulator's
  addresses and ports in place of the ones shown;
- ``doc-test: not run: <reason>``: not run, and the reason says why.

A block without a marker fails the test, so a new command is never skipped silently. Besides the
blocks, the test gives only what SUBSTITUTED and PROVIDED list.
"""

import glob
import os
import re
import shutil
import signal
import subprocess
import sys

import pytest
import yaml

from bm_simulator import swu
from bm_simulator.fleet import running_fleet

from .conftest import ROOT, leak_watch

DOCUMENTS = ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "docsite", "rst", "*.rst")))
# What the test replaces in the commands: the simulator's inventory file for the one the
# getting-started guide has the simulator write.
SUBSTITUTED = {"/tmp/inv.yml": "simulator-inventory.yml"}
# Files the documents assume the user has: the vendor's signed firmware bundle.
PROVIDED = {"analyzer-2.4.1.swu": lambda: swu.build("2.4.1")}
# this tree's simulator for bm-simulator, whichever copy the venv has installed (the Makefile's SIMULATOR)
SIMULATOR = os.path.join(ROOT, "simulator", "src")
MARKER = re.compile(r"(run|file \S+|not run: \S.*)$", re.DOTALL)


def markdown_blocks(text):
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        if re.match(r"^```\w*$", lines[index]):
            end = lines.index("```", index + 1)
            before = [line for line in lines[:index] if line.strip()]
            comment = re.match(r"^<!-- (.*) -->$", before[-1]) if before else None
            yield index + 1, comment.group(1) if comment else "", "\n".join(lines[index + 1:end]) + "\n"
            index = end
        index += 1


def rst_blocks(text):
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if not line.startswith(".. code-block::"):
            continue
        body = []
        for following in lines[index + 1:]:
            if following.strip() and not following.startswith("    "):
                break
            body.append(following[4:])
        marker, back = [], index - 1
        while back >= 0 and not lines[back].strip():
            back -= 1
        while back >= 0 and lines[back].startswith("   ") and not lines[back].startswith(".."):
            marker.insert(0, lines[back].strip())
            back -= 1
        comment = lines[back][3:].strip() if back >= 0 and lines[back].startswith(".. doc-test:") else ""
        yield index + 1, " ".join([comment] + marker) if comment else "", "\n".join(body).strip("\n") + "\n"


def blocks(document):
    with open(os.path.join(ROOT, document), encoding="utf-8") as handle:
        text = handle.read()
    found = (markdown_blocks if document.endswith(".md") else rst_blocks)(text)
    return [(line, marker[len("doc-test: "):] if marker.startswith("doc-test: ") else "", block)
            for line, marker, block in found]


def commands(block):
    """The shell text of a run block: console blocks keep only their $ lines (and continuations)."""
    if not re.search(r"^\$ ", block, re.MULTILINE):
        return block
    kept, continued = [], False
    for line in block.splitlines():
        if line.startswith("$ ") or continued:
            kept.append(line[2:] if line.startswith("$ ") else line)
            continued = line.rstrip().endswith("\\")
    return "\n".join(kept) + "\n"


def test_every_code_block_says_how_it_is_run():
    unmarked = ["%s:%d" % (document, line) for document in DOCUMENTS for line, marker, text in blocks(document)
                if not MARKER.match(marker)]
    assert not unmarked, "code blocks without a doc-test marker (run, file <path> or not run: <reason>): %s" % unmarked
    assert any(entry[1] == "run" for document in DOCUMENTS for entry in blocks(document))


@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=1, fm=1, time_scale=0.02) as runner:
        yield runner


def hosts_for_fleet(text, fleet):
    """The hosts file shown, with each host's address and port replaced by a simulated device's
    (the n-th host of a device type gets the n-th device of that type)."""
    data = yaml.safe_load(text)
    taken = set()
    for group in data["all"]["children"].values():
        for hostvars in group["hosts"].values():
            device = next(d for d in fleet.fleet.devices if d.kind == hostvars["device_type"] and d.name not in taken)
            taken.add(device.name)
            hostvars.update(ansible_host=device.address, device_port=device.port)
    return yaml.safe_dump(data, sort_keys=False)


def run_block(script, workdir, environment):
    """bash -e on the block; returns (process, the environment the block leaves)."""
    for shown, given in SUBSTITUTED.items():
        script = script.replace(shown, str(workdir / given))
    env_file = workdir / ".doc-test-env"
    proc = subprocess.run(["bash", "-e", "-c", script + "\nenv -0 > %s\n" % env_file], cwd=str(workdir), env=environment,
                          input="admin\n", capture_output=True, text=True, timeout=900, check=False)
    left = dict(item.split("=", 1) for item in env_file.read_text().split("\0") if "=" in item) \
        if proc.returncode == 0 else environment
    return proc, left


def test_readme_and_guides_run_as_written(fleet, collections_path, tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    for name in (".venv", "build", "playbooks"):
        (workdir / name).symlink_to(os.path.join(ROOT, name))
    fleet.write_inventory(str(workdir / SUBSTITUTED["/tmp/inv.yml"]))
    for name, content in PROVIDED.items():
        (workdir / name).write_bytes(content())
    base = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_") and k not in ("PYTHONPATH",
                                                                                              "BROADCAST_MONITORING_PASSWORD")}
    base.update(PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"], ANSIBLE_NOCOLOR="1",
                ANSIBLE_COLLECTIONS_PATH=collections_path, PYTHONPATH=SIMULATOR)
    ran = []
    try:
        run_documents(fleet, workdir, base, ran)
    finally:
        stop_what_blocks_left_running(workdir)
    assert ran, "no block was run"
    # where the README says the outputs go: the directory ansible-playbook runs in
    assert (workdir / "audit-report.json").is_file()
    assert sorted(os.listdir(workdir / "backups")) == ["fm-tx-north.json", "history", "pre-upgrade", "ts-studio-a.json"]
    # the rollout's backups before each upgrade, beside (never instead of) backup.yml's
    assert {name.rsplit("-", 2)[0] for name in os.listdir(workdir / "backups" / "pre-upgrade")} == {"ts-studio-a"}


def run_documents(fleet, workdir, base, ran):
    for document in DOCUMENTS:
        environment = dict(base)
        if document != "README.md":  # the guides go on in the shell the README set up (its read -rs)
            environment["BROADCAST_MONITORING_PASSWORD"] = "admin"
        run_document(fleet, workdir, document, environment, ran)


def run_document(fleet, workdir, document, environment, ran, after_block=None):
    """The blocks of ``document`` in order; ``after_block(line)`` runs after each one."""
    for line, marker, block in blocks(document):
        where = "%s:%d" % (document, line)
        if marker.startswith("file "):
            target = workdir / marker[len("file "):]
            shown = yaml.safe_load(block) if target.suffix == ".yml" else None
            is_hosts = isinstance(shown, dict) and "children" in shown.get("all", {})
            target.parent.mkdir(parents=True, exist_ok=True)  # a file the guide keeps in a folder of its own
            target.write_text(hosts_for_fleet(block, fleet) if is_hosts else block)
        elif marker == "run":
            rehearsal = is_rehearsal(block)
            if rehearsal:
                clear_requests(fleet)
            proc, environment = run_block(commands(block), workdir, environment)
            output = proc.stdout + proc.stderr
            if rehearsal:
                assert units_contacted(fleet) == {}, "%s, a rehearsal on twins, reached units:\n%s" % (
                    where, output[-6000:])
            leak_watch(fleet, output)
            assert proc.returncode == 0, "%s failed as written:\n%s" % (where, output[-6000:])
            assert "Unable to parse" not in output and "[WARNING]" not in output, "%s warns:\n%s" % (where, output)
            ran.append(where)
        if after_block:
            after_block(line)


def is_rehearsal(block):
    """A block that runs on the twin guide's rehearsal inventory: it must send nothing to any
    simulated unit of the fleet (the twins are another simulator, the guide's bm-simulator twin)."""
    return "-i rehearsal" in commands(block)


def clear_requests(fleet):
    for device in fleet.fleet.devices:
        fleet.call(device.requests.clear)


def units_contacted(fleet):
    """{unit: requests} of the fleet's units that received any request since clear_requests."""
    received = {device.name: fleet.call(lambda device=device: list(device.requests)) for device in fleet.fleet.devices}
    return {name: requests for name, requests in received.items() if requests}


def stop_what_blocks_left_running(workdir):
    """A block that starts a process in the background (the twin guide's bm-simulator) writes
    its pid to a .pid file, and the block that stops it removes the file; one left means the
    test failed in between, and the process is stopped here."""
    for path in workdir.glob("*.pid"):
        try:
            os.kill(int(path.read_text().strip()), signal.SIGTERM)
        except (ValueError, ProcessLookupError):
            pass


def test_the_fleet_status_guide_alert_rule_passes_promtool(tmp_path):
    """The sample alert rule of the fleet status guide, as written, is a valid Prometheus rule file
    (promtool check rules, Debian's prometheus package), on the metrics the status writes."""
    from . import fleet_page

    document = "docs/docsite/rst/guide_fleet_status.rst"
    rules = [block for _line, marker, block in blocks(document) if marker == "file status-demo/fleet-status-rules.yml"]
    assert len(rules) == 1, "the guide's rule file block is gone"
    path = tmp_path / "fleet-status-rules.yml"
    path.write_text(rules[0])
    code, output = fleet_page.promtool("check", "rules", str(path))
    assert code == 0 and "SUCCESS: 3 rules found" in output, output
    # every metric the rule names is one the status writes (for a device that answers)
    from ansible_collections.broadcast.monitoring.plugins.plugin_utils import _fleet_status

    reading = {"device_type": "ts_analyzer", "groups": [], "read_at": "2026-11-28T09:00:00Z", "snapshot": {
        "device_type": "ts_analyzer", "model": "TSA-4", "firmware_version": "1.0.0", "reboot_needed": False,
        "inputs": [{"id": 1, "name": "News", "monitoring": True, "state": "ok", "receiving": True}]}}
    written = set(re.findall(r"^(broadcast_monitoring_\w+)[{ ]", _fleet_status.metrics(
        _fleet_status.document({"ts-1": reading})), re.MULTILINE))
    named = set(re.findall(r"broadcast_monitoring_\w+", rules[0]))
    assert named and named <= written, named - written


TWIN_GUIDE = os.path.join("docs", "docsite", "rst", "guide_twin.rst")


@pytest.fixture
def units():
    """Units in production: the README's two, and ts-studio-b, which gets no twin."""
    with running_fleet(ts=2, fm=1, time_scale=0.02) as runner:
        yield runner


def test_twin_guide_rehearses_without_reaching_a_unit(units, collections_path, tmp_path):
    """Issue 43 item 1: the twin guide run as written where the user's inventory holds a unit
    that gets no twin (ts-studio-b). No block that runs on the rehearsal inventory sends any
    request to any unit; the form the guide used to give (the user's inventory, then the twins'
    hosts file) is refused by the roles for the unit without a twin, before any request to it."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    for name in (".venv", "build", "playbooks"):
        (workdir / name).symlink_to(os.path.join(ROOT, name))
    shutil.copytree(os.path.join(ROOT, "playbooks", "inventory"), str(workdir / "my-inventory"))  # the README's cp -r
    shown = next(block for line, marker, block in blocks("README.md") if marker == "file my-inventory/hosts.yml")
    hosts = yaml.safe_load(shown)
    hosts["all"]["children"]["ts_analyzers"]["hosts"]["ts-studio-b"] = {"device_type": "ts_analyzer"}
    (workdir / "my-inventory" / "hosts.yml").write_text(hosts_for_fleet(yaml.safe_dump(hosts), units))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_") and k != "PYTHONPATH"}
    environment.update(PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"], ANSIBLE_NOCOLOR="1",
                       ANSIBLE_COLLECTIONS_PATH=collections_path, BROADCAST_MONITORING_PASSWORD="admin",
                       PYTHONPATH=SIMULATOR)
    twins_started = next(line for line, marker, block in blocks(TWIN_GUIDE) if "bm-simulator twin " in block)
    refused = []

    def mixed_inventories_are_refused(line):
        if line != twins_started:
            return
        clear_requests(units)
        proc, unused = run_block("ansible-playbook -i my-inventory -i rehearsal/hosts.yml playbooks/site.yml "
                                 "-e broadcast_monitoring_password=admin\n", workdir, environment)
        output = proc.stdout + proc.stderr
        assert units_contacted(units) == {}, output
        assert proc.returncode != 0 and "ts-studio-b is a unit, not a twin" in output, output
        assert re.search(r"fm-tx-north\s+: ok=\d+\s+changed=[1-9]", output), output  # the twins did run
        refused.append(line)

    ran = []
    try:
        run_document(units, workdir, TWIN_GUIDE, environment, ran, after_block=mixed_inventories_are_refused)
    finally:
        stop_what_blocks_left_running(workdir)
    rehearsals = ["%s:%d" % (TWIN_GUIDE, line) for line, marker, block in blocks(TWIN_GUIDE)
                  if marker == "run" and is_rehearsal(block)]
    assert refused and len(rehearsals) >= 4 and set(rehearsals) <= set(ran), (refused, rehearsals, ran)

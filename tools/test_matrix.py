"""The collection against every ansible-core release line requires_ansible admits (`make matrix`).

For each version given (2.16 2.17 2.18 2.19), with that ansible-core's own ansible-playbook and
ansible-doc (a venv build/matrix/<version> from requirements/matrix/<version>.txt; the project's
.venv when it already has that line), against a small simulated fleet (1 TS analyzer, 1 FM
monitor, started here on loopback for each version):

- playbooks/site.yml, then again: the second run must report changed=0;
- playbooks/audit.yml (check mode, drift report), playbooks/backup.yml;
- playbooks/restore.yml on the analyzer from its backup, and a backup taken afterwards equals it;
- tests/matrix/check_diff.yml: ts_snmp in check mode with diff writes nothing and shows the change
  (at -vvv, which also says whether the modules ran in the controller's process or as processes);
- ansible-doc of every module, filter and role of the collection.

With --sanity and --units: `ansible-test sanity --venv` and `ansible-test units --local` on a copy
of the tree (ansible-test resolves symlinks) with that version too.

Prints a result table; with --readme check it must equal the table in README.md between the
matrix markers (--readme write puts it there), so the README claims only what this run proved.
Exits non-zero when a step failed or the README table differs; logs in build/matrix/<version>.log.
"""

import argparse
import difflib
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "simulator", "src")]

from bm_simulator.fleet import free_base_address, running_fleet  # noqa: E402  (after the path)

MATRIX = os.path.join(ROOT, "build", "matrix")
COLLECTIONS = os.path.join(ROOT, "build", "collections")
COPIES = os.path.join(os.path.expanduser("~"), ".cache", "broadcast.monitoring", "matrix-" + os.path.basename(ROOT))
CACHE = os.path.join(os.path.expanduser("~"), ".ansible", "test", "cache")
EXCLUDE = {".venv", "build", ".git", "tests/output", ".pytest_cache", ".hypothesis"}
README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- matrix: begin (tools/test_matrix.py writes this table) -->", "<!-- matrix: end -->"
COLUMNS = ["ansible-core", "site.yml twice (2nd changed=0)", "audit.yml", "backup.yml", "restore.yml",
           "check mode + diff", "ansible-doc", "modules run"]


class StepFailed(Exception):
    pass


class Version:
    def __init__(self, line, log):
        self.line = line
        self.log = log
        self.env = None
        self.bin = None

    def run(self, command, cwd=None, env=None, check=True):
        """Run command with this version's tools; its output goes to the log and is returned."""
        started = time.monotonic()
        result = subprocess.run(command, cwd=cwd, env=env or self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, check=False)
        with open(self.log, "a", encoding="utf-8") as handle:
            handle.write("$ %s  (in %s)\n%s\n[exit %d, %.1f s]\n\n" % (
                " ".join(command), cwd or os.getcwd(), result.stdout, result.returncode, time.monotonic() - started))
        if check and result.returncode:
            raise StepFailed("%s exited %d (log: %s)" % (os.path.basename(command[0]), result.returncode,
                                                         os.path.relpath(self.log, ROOT)))
        return result.stdout

    def prepare(self):
        """The venv of this line: the project's own when it has it, else build/matrix/<line>."""
        project = os.path.join(ROOT, ".venv", "bin")
        if core_version(os.path.join(project, "python")).startswith(self.line + "."):
            self.bin = project
        else:
            venv = os.path.join(MATRIX, self.line)
            pins = os.path.join(ROOT, "requirements", "matrix", self.line + ".txt")
            stamp = os.path.join(venv, ".installed")
            if not (os.path.exists(stamp) and os.path.getmtime(stamp) >= os.path.getmtime(pins)):
                if not os.path.exists(os.path.join(venv, "bin", "python")):
                    self.run([sys.executable, "-m", "venv", venv], env=os.environ)
                self.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--quiet",
                          "--disable-pip-version-check", "-r", pins], env=os.environ)
                with open(stamp, "w", encoding="utf-8"):
                    pass
            self.bin = os.path.join(venv, "bin")
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ["PATH"], ANSIBLE_COLLECTIONS_PATH=COLLECTIONS,
                   ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_RETRY_FILES_ENABLED="0",
                   ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_DISPLAY_SKIPPED_HOSTS="0",
                   # the example inventory takes the password from here (the simulator's factory one)
                   BROADCAST_MONITORING_PASSWORD="admin")
        for name in ("PYTHONPATH", "VIRTUAL_ENV", "ANSIBLE_CONFIG", "BROADCAST_MONITORING_DIRECT_EXECUTION"):
            env.pop(name, None)
        self.env = env
        return core_version(os.path.join(self.bin, "python"))


def core_version(python):
    if not os.path.exists(python):
        return ""
    return subprocess.run([python, "-c", "import ansible.release as r; print(r.__version__)"],
                          capture_output=True, text=True, check=False).stdout.strip()


def recap(output):
    """{host: {ok, changed, failed, ...}} from the PLAY RECAP."""
    hosts = {}
    for host, counts in re.findall(r"^(\S+)\s+:\s+(ok=.*)$", output.split("PLAY RECAP", 1)[-1], re.M):
        hosts[host] = {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", counts)}
    return hosts


def playbooks(version, work, address):
    """The playbook set against a fresh fleet; returns the table cells it proved."""
    cells = {}
    inventory = os.path.join(work, "inventory")
    shutil.copytree(os.path.join(ROOT, "playbooks", "inventory"), inventory)
    with running_fleet(ts=1, fm=1, address=address) as fleet:
        fleet.write_inventory(os.path.join(inventory, "hosts.yml"))

        def playbook(name, *extra, hosts=("fm-001", "ts-001")):
            output = version.run([os.path.join(version.bin, "ansible-playbook"), "-i", inventory,
                                  os.path.join(ROOT, name)] + list(extra), cwd=work)
            counts = recap(output)
            counts.pop("localhost", None)  # audit.yml's report play
            if sorted(counts) != list(hosts) or any(c.get("failed") or c.get("unreachable") for c in counts.values()):
                raise StepFailed("%s: recap %s" % (name, counts))
            return output, counts

        first = playbook("playbooks/site.yml")[1]
        if not all(c["changed"] for c in first.values()):
            raise StepFailed("site.yml changed nothing on a factory-fresh fleet: %s" % first)
        second = playbook("playbooks/site.yml")[1]
        if any(c["changed"] for c in second.values()):
            raise StepFailed("site.yml again changed something: %s" % second)
        cells["site.yml twice (2nd changed=0)"] = "passed"

        report = os.path.join(work, "drift.json")
        playbook("playbooks/audit.yml", "-e", "audit_report=" + report)
        with open(report, encoding="utf-8") as handle:
            drift = json.load(handle)
        if drift.get("devices_with_drift"):
            raise StepFailed("audit.yml after site.yml found drift: %s" % drift["devices_with_drift"])
        cells["audit.yml"] = "passed"

        backups = os.path.join(work, "backups")
        playbook("playbooks/backup.yml", "-e", "backup_dir=" + backups, "-e", "backup_history=false")
        if sorted(os.listdir(backups)) != ["fm-001.json", "ts-001.json"]:
            raise StepFailed("backup.yml wrote %s" % sorted(os.listdir(backups)))
        cells["backup.yml"] = "passed"

        playbook("playbooks/restore.yml", "-e", "restore_hosts=ts-001", "-e", "restore_backup_dir=" + backups,
                 "-e", "restore_snapshot_confirm_interval=0.2", hosts=("ts-001",))
        after = os.path.join(work, "after")
        playbook("playbooks/backup.yml", "-e", "backup_dir=" + after, "-e", "backup_history=false", "-e",
                 "backup_hosts=ts-001", hosts=("ts-001",))
        with open(os.path.join(backups, "ts-001.json"), "rb") as one, open(os.path.join(after, "ts-001.json"), "rb") as two:
            if one.read() != two.read():
                raise StepFailed("the backup after restore.yml differs from the one restored")
        cells["restore.yml"] = "passed"

        output = version.run([os.path.join(version.bin, "ansible-playbook"), "-i", inventory, "-vvv",
                              os.path.join(ROOT, "tests", "matrix", "check_diff.yml")], cwd=work)
        if recap(output).get("ts-001", {}).get("failed", 1):
            raise StepFailed("check_diff.yml: %s" % recap(output))
        cells["check mode + diff"] = "passed"
        direct = "broadcast.monitoring.ts_snmp runs in the controller's process" in output
        process = "AnsiballZ_ts_snmp.py" in output  # the module payload ansible-core writes for a module process
        cells["modules run"] = {(True, False): "in the controller's process",
                                (False, True): "as module processes"}.get((direct, process), "?")
    return cells


def plugin_docs(version):
    """ansible-doc of every module, filter and role; each must come back with its documentation."""
    expected = {
        "module": sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
                         if not os.path.basename(p).startswith("_")),
        "filter": sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "plugins", "filter", "*.py"))
                         if not os.path.basename(p).startswith("_")),
        "role": sorted(os.path.basename(os.path.dirname(os.path.dirname(p)))
                       for p in glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))),
    }
    total = 0
    for kind, names in expected.items():
        if not names:
            continue
        listed = json.loads(version.run([os.path.join(version.bin, "ansible-doc"), "-t", kind, "-l", "--json",
                                         "broadcast.monitoring"]))
        fqcns = ["broadcast.monitoring." + name for name in names]
        missing = sorted(set(fqcns) - set(listed))
        if missing:
            raise StepFailed("ansible-doc -t %s -l does not list %s" % (kind, ", ".join(missing)))
        docs = json.loads(version.run([os.path.join(version.bin, "ansible-doc"), "-t", kind, "--json"] + fqcns))
        for fqcn in fqcns:
            entry = docs.get(fqcn) or {}
            if kind == "role":
                ok = bool(entry.get("entry_points", {}).get("main", {}).get("short_description"))
            else:
                ok = bool((entry.get("doc") or {}).get("short_description"))
            if not ok:
                raise StepFailed("ansible-doc -t %s %s: no documentation" % (kind, fqcn))
        total += len(fqcns)
    return "%d plugins and roles" % total


def copy_tree(target):
    shutil.rmtree(os.path.dirname(os.path.dirname(os.path.dirname(target))), ignore_errors=True)
    os.makedirs(target)
    archive = target + ".tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(ROOT, arcname=".", filter=lambda info: None if info.name[2:] in EXCLUDE else info)
    with tarfile.open(archive) as tar:
        tar.extractall(target)  # noqa: S202  (our own archive)
    os.remove(archive)


def seed_get_pip(bin_dir):
    """ansible-test downloads get_pip_<pip version>.py; give it the offline stand-in."""
    versions = set()
    for path in glob.glob(os.path.join(os.path.dirname(bin_dir), "lib", "python*", "site-packages", "ansible_test",
                                       "_internal", "*.py")):
        with open(path, encoding="utf-8") as handle:
            versions.update(re.findall(r"""pip=['"]([0-9.]+)['"]""", handle.read()))
    os.makedirs(CACHE, exist_ok=True)
    for pip in versions or {"24.2"}:
        target = os.path.join(CACHE, "get_pip_%s.py" % pip.replace(".", "_"))
        if not os.path.exists(target):
            shutil.copy(os.path.join(ROOT, "tools", "get_pip_offline.py"), target)


def ansible_test(version, what):
    seed_get_pip(version.bin)
    copy = os.path.join(COPIES, version.line, "ansible_collections", "broadcast", "monitoring")
    if not os.path.isdir(copy):
        copy_tree(copy)
    command = [os.path.join(version.bin, "ansible-test"), what, "--venv", "--python", "3.11", "--color", "no"]
    started = time.monotonic()
    version.run(command, cwd=copy)
    return "passed (%.0f s)" % (time.monotonic() - started)


def one(line, args):
    os.makedirs(MATRIX, exist_ok=True)
    log = os.path.join(MATRIX, line + ".log")
    if os.path.exists(log):
        os.remove(log)
    version = Version(line, log)
    row = {column: "-" for column in COLUMNS}
    row["ansible-core"] = line
    step = "installing ansible-core %s" % line
    started = time.monotonic()
    shutil.rmtree(os.path.join(COPIES, line), ignore_errors=True)
    try:
        row["ansible-core"] = version.prepare() or line
        work = os.path.join(MATRIX, "work-" + line)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        step = "the playbooks"
        row.update(playbooks(version, work, args.address(line)))
        step = "ansible-doc"
        row["ansible-doc"] = plugin_docs(version)
        if args.units:
            step = "ansible-test units"
            row["units"] = ansible_test(version, "units")
        if args.sanity:
            step = "ansible-test sanity"
            row["sanity"] = ansible_test(version, "sanity")
        failure = None
    except (StepFailed, subprocess.SubprocessError, OSError, KeyError, ValueError) as error:
        failure = "%s: %s" % (step, error)
    return row, failure, time.monotonic() - started


def table(rows, columns):
    lines = ["| %s |" % " | ".join(columns), "|" + "---|" * len(columns)]
    lines += ["| %s |" % " | ".join(row.get(column, "-") for column in columns) for row in rows]
    return "\n".join(lines)


def readme(text, mode):
    """Compare (check) or replace (write) README.md's matrix table with this run's."""
    with open(README, encoding="utf-8") as handle:
        current = handle.read()
    match = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), current, re.S)
    text += "\n"
    if not match:
        return "README.md has no matrix table between %r and %r" % (BEGIN, END)
    if mode == "write":
        with open(README, "w", encoding="utf-8") as handle:
            handle.write(current[:match.start(1)] + text + current[match.end(1):])
        return None
    if match.group(1) != text:
        diff = "\n".join(difflib.unified_diff(match.group(1).splitlines(), text.splitlines(), "README.md", "this run",
                                              lineterm=""))
        return ("README.md's version table is not what this run proved (if the run is right, "
                "`make matrix-readme` writes it):\n" + diff)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("versions", nargs="*", default=["2.16", "2.17", "2.18", "2.19"])
    parser.add_argument("--sanity", action="store_true", help="also ansible-test sanity --venv with each version")
    parser.add_argument("--units", action="store_true", help="also ansible-test units --local with each version")
    parser.add_argument("--readme", choices=("check", "write", "none"), default="none",
                        help="compare README.md's table with this run, or write it there")
    parser.add_argument("--address", help="first loopback address of the fleets (a /24 each; default: a random one)")
    args = parser.parse_args()
    base = args.address
    args.address = (lambda line: base.rsplit(".", 2)[0] + ".%d.1" % (int(base.split(".")[2]) + args.versions.index(line))
                    if base else free_base_address())
    columns = list(COLUMNS) + [c for c, on in (("units", args.units), ("sanity", args.sanity)) if on]
    rows, failures, started = [], [], time.monotonic()
    for line in args.versions:
        row, failure, seconds = one(line, args)
        rows.append(row)
        print("%s: %s (%.0f s)" % (row["ansible-core"], failure or "passed", seconds), flush=True)
        if failure:
            failures.append("%s: %s" % (line, failure))
    text = table(rows, columns)
    print("\n" + text + "\n\nlogs: build/matrix/<version>.log; %.0f s in all" % (time.monotonic() - started))
    if args.readme == "write" and failures:
        failures.append("README.md not written: the run failed")
    elif args.readme != "none":
        if sorted(args.versions) != ["2.16", "2.17", "2.18", "2.19"]:
            failures.append("--readme needs the whole matrix: 2.16 2.17 2.18 2.19")
        else:
            problem = readme(table(rows, COLUMNS), args.readme)
            if problem:
                failures.append(problem)
    if failures:
        print("\nFAILED:\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

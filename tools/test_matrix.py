"""The collection against every ansible-core release line requires_ansible admits (`make matrix`).

For each release line given (default: 2.16 to 2.21), with that ansible-core's own ansible-playbook
and ansible-doc, on a Python it supports (LINES: 3.11 up to 2.19, 3.12 for 2.20, 3.13 for 2.21;
the interpreters come from --pythons), in a venv build/matrix/<line> pinned by
requirements/matrix/<line>.txt (the project's .venv when it already has that line), and against a
small simulated fleet (1 TS analyzer, 1 FM monitor) of its own:

- playbooks/site.yml, then again: the second run must report changed=0;
- playbooks/audit.yml (check mode): no drift, and no write reached a device;
- playbooks/backup.yml; playbooks/restore.yml on the analyzer from its backup, and a backup taken
  afterwards equals it;
- playbooks/validate.yml: every device passes;
- tests/matrix/check_diff.yml: ts_snmp in check mode with diff writes nothing and shows the change
  (at -vvv, which also says whether the modules ran in the controller's process or as processes);
- ansible-doc of every module, filter, lookup and role of the collection.

The playbooks run once per execution mode: with direct execution (the default) and with module
processes (BROADCAST_MONITORING_DIRECT_EXECUTION=false) from 2.19 on; before 2.19 the default is
module processes. With --units / --sanity LINES: `ansible-test units --venv` / `ansible-test
sanity --venv` on a copy of the tree (ansible-test resolves symlinks) with those lines too.
Independent steps run --jobs at a time.

--latest instead installs the newest ansible-core on PyPI (build/matrix/latest, newest Python
given) and runs the same steps with it: the check against tomorrow's ansible-core.

Prints a result table; with --readme check it must equal the table in README.md between the
matrix markers (--readme write puts it there), so the README claims only what this run proved.
Exits non-zero when a step failed or the README table differs; logs in build/matrix/*.log.
"""

import argparse
import concurrent.futures
import difflib
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "simulator", "src")]

from bm_simulator.fleet import running_fleet  # noqa: E402  (after the path)

MATRIX = os.path.join(ROOT, "build", "matrix")
COLLECTIONS = os.path.join(ROOT, "build", "collections")
COPIES = os.path.join(os.path.expanduser("~"), ".cache", "broadcast.monitoring", "matrix-" + os.path.basename(ROOT))
CACHE = os.path.join(os.path.expanduser("~"), ".ansible", "test", "cache")
EXCLUDE = {".venv", "build", ".git", "tests/output", ".pytest_cache", ".hypothesis"}
README = os.path.join(ROOT, "README.md")
BEGIN, END = "<!-- matrix: begin (tools/test_matrix.py writes this table) -->", "<!-- matrix: end -->"

# Release line: (the Python we run it on, the controller Pythons it supports). The lines up to 2.19
# run on the project's Python; 2.20 and 2.21 on the two newer ones the machines have.
LINES = {
    "2.16": ("3.11", ("3.10", "3.11", "3.12")),
    "2.17": ("3.11", ("3.10", "3.11", "3.12")),
    "2.18": ("3.11", ("3.11", "3.12", "3.13")),
    "2.19": ("3.11", ("3.11", "3.12", "3.13")),
    "2.20": ("3.12", ("3.12", "3.13", "3.14")),
    "2.21": ("3.13", ("3.12", "3.13", "3.14")),
}
DIRECT_SINCE = (2, 19)  # direct execution needs 2.19's serialization profiles
DIRECT, PROCESSES = "default", "BROADCAST_MONITORING_DIRECT_EXECUTION=false"
IN_PROCESS, AS_PROCESSES = "in the controller's process", "as module processes"
COLUMNS = ["ansible-core", "Python", "execution mode", "modules run", "site.yml twice (2nd changed=0)", "audit.yml",
           "backup.yml", "restore.yml", "validate.yml", "check mode + diff", "ansible-doc"]


class StepFailed(Exception):
    pass


def python_version(python):
    """'3.13' for a working interpreter, else None."""
    try:
        result = subprocess.run([python, "-c", "import sys, ssl; print('%d.%d' % sys.version_info[:2])"],
                                capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def interpreters(paths):
    """{'3.12': path, ...} of the interpreters given and this one (the first of a version wins)."""
    found = {}
    for path in [sys.executable] + [p for p in paths if p]:
        version = python_version(path)
        if version and version not in found:
            found[version] = path
    return found


def core_version(python):
    if not os.path.exists(python):
        return ""
    return subprocess.run([python, "-c", "import ansible.release as r; print(r.__version__)"],
                          capture_output=True, text=True, check=False).stdout.strip()


def has_direct_execution(core):
    return tuple(int(part) for part in core.split(".")[:2]) >= DIRECT_SINCE


class Version:
    """One ansible-core: its venv, the environment its tools run in, and the log of each step."""

    def __init__(self, line, pythons, latest=False):
        self.line, self.latest = line, latest
        self.core = ""
        self.python = None  # (version, path)
        self.bin = None
        self.env = None
        self.pythons = pythons

    def log(self, step):
        return os.path.join(MATRIX, "%s-%s.log" % (self.line, step))

    def run(self, command, step, cwd=None, env=None, check=True, stdout_only=False):
        """Run command with this version's tools; its output goes to the step's log as it comes and
        is returned (with stdout_only, its standard output alone: ansible-doc warns beside its JSON)."""
        started = time.monotonic()
        with open(self.log(step), "ab") as handle:
            handle.write(("$ %s  (in %s)\n" % (" ".join(command), cwd or os.getcwd())).encode())
            handle.flush()
            start = handle.tell()
            result = subprocess.run(command, cwd=cwd, env=env or self.env, stdout=subprocess.PIPE if stdout_only
                                    else handle, stderr=handle, check=False)
            if stdout_only:
                output = result.stdout
                handle.write(output)
            else:
                with open(self.log(step), "rb") as log:
                    log.seek(start)
                    output = log.read()
            handle.write(("\n[exit %d, %.1f s]\n\n" % (result.returncode, time.monotonic() - started)).encode())
        if check and result.returncode:
            raise StepFailed("%s exited %d (log: %s)" % (os.path.basename(command[0]), result.returncode,
                                                         os.path.relpath(self.log(step), ROOT)))
        return output.decode("utf-8", "replace")

    def choose_python(self):
        if self.latest:  # the newest Python there is: what a new user installs today
            version = max(self.pythons, key=lambda v: tuple(int(p) for p in v.split(".")))
            return version, self.pythons[version]
        preferred, supported = LINES[self.line]
        for version in (preferred,) + supported:
            if version in self.pythons:
                return version, self.pythons[version]
        raise StepFailed("ansible-core %s needs Python %s; none of them was given (--pythons, the Makefile's "
                         "MATRIX_PYTHONS)" % (self.line, " or ".join(supported)))

    def prepare(self):
        """The venv of this line: the project's own when it has it on the chosen Python, else
        build/matrix/<line> (recreated when its Python or its pins changed)."""
        self.python = self.choose_python()
        project = os.path.join(ROOT, ".venv", "bin")
        if (not self.latest and python_version(os.path.join(project, "python")) == self.python[0]
                and core_version(os.path.join(project, "python")).startswith(self.line + ".")):
            self.bin = project
        else:
            venv = os.path.join(MATRIX, self.line)
            python = os.path.join(venv, "bin", "python")
            if self.latest:
                install = ["--upgrade", "ansible-core"]  # whatever PyPI has now
                pins = None
            else:
                pins = os.path.join(ROOT, "requirements", "matrix", self.line + ".txt")
                install = ["-r", pins]
            stamp = os.path.join(venv, ".installed")
            fresh = (os.path.exists(stamp) and pins and os.path.getmtime(stamp) >= os.path.getmtime(pins)
                     and python_version(python) == self.python[0])
            if not fresh:
                if python_version(python) != self.python[0]:
                    shutil.rmtree(venv, ignore_errors=True)
                    self.run([self.python[1], "-m", "venv", venv], "install", env=os.environ)
                self.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + install,
                         "install", env=os.environ)
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
        self.core = core_version(os.path.join(self.bin, "python"))
        if not self.core:
            raise StepFailed("no ansible-core in %s" % self.bin)
        return self.core

    def modes(self):
        return [DIRECT, PROCESSES] if has_direct_execution(self.core) else [DIRECT]

    def expected(self, mode):
        return IN_PROCESS if mode == DIRECT and has_direct_execution(self.core) else AS_PROCESSES


def recap(output):
    """{host: {ok, changed, failed, ...}} from the PLAY RECAP."""
    hosts = {}
    for host, counts in re.findall(r"^(\S+)\s+:\s+(ok=.*)$", output.split("PLAY RECAP", 1)[-1], re.M):
        hosts[host] = {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", counts)}
    return hosts


def writes(fleet):
    """How many requests that change (or could change) something the fleet's devices received."""
    return sum(len(fleet.call(device.writes)) for device in fleet.fleet.devices)


def playbooks(version, mode, strict):
    """The playbook set in one execution mode against a fleet of its own; returns the cells it proved."""
    step = "direct" if mode == DIRECT else "processes"
    work = os.path.join(MATRIX, "work-%s-%s" % (version.line, step))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(version.env)
    if mode == PROCESSES:
        env["BROADCAST_MONITORING_DIRECT_EXECUTION"] = "false"
    cells = {}
    inventory = os.path.join(work, "inventory")
    shutil.copytree(os.path.join(ROOT, "playbooks", "inventory"), inventory)
    with running_fleet(ts=1, fm=1) as fleet:
        fleet.write_inventory(os.path.join(inventory, "hosts.yml"))

        def playbook(name, *extra, hosts=("fm-001", "ts-001")):
            output = version.run([os.path.join(version.bin, "ansible-playbook"), "-i", inventory,
                                  os.path.join(ROOT, name)] + list(extra), step, cwd=work, env=env)
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
        before = writes(fleet)
        playbook("playbooks/audit.yml", "-e", "audit_report=" + report)
        with open(report, encoding="utf-8") as handle:
            drift = json.load(handle)
        if drift.get("devices_with_drift"):
            raise StepFailed("audit.yml after site.yml found drift: %s" % drift["devices_with_drift"])
        if writes(fleet) != before:
            raise StepFailed("audit.yml wrote to a device (%d write requests)" % (writes(fleet) - before))
        cells["audit.yml"] = "passed, 0 writes"

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

        # The simulated streams raise random TR 101 290 priority-1 errors, which the example profile
        # makes critical: that check is waived (it still runs, and is reported as waived when it fails).
        playbook("playbooks/validate.yml", "-e", "validate_confirm_delay=1", "-e", "validate_report_dir=reports",
                 "-e", '{"validate_waive": ["input_priority1"]}')
        with open(os.path.join(work, "reports", "validate.json"), encoding="utf-8") as handle:
            results = json.load(handle)
        statuses = {host: result.get("status") for host, result in results.items()}
        checks = [check for result in results.values() for check in result.get("checks", [])]
        unexpected = [check for check in checks if check.get("status") == "failed"
                      or (check.get("status") == "waived" and check.get("check") != "input_priority1")]
        if statuses != {"fm-001": "passed", "ts-001": "passed"} or unexpected or not any(
                check.get("status") == "passed" for check in checks):
            raise StepFailed("validate.yml: %s %s" % (statuses, unexpected))
        cells["validate.yml"] = "passed"

        before = writes(fleet)
        output = version.run([os.path.join(version.bin, "ansible-playbook"), "-i", inventory, "-vvv",
                              os.path.join(ROOT, "tests", "matrix", "check_diff.yml")], step, cwd=work, env=env)
        if recap(output).get("ts-001", {}).get("failed", 1):
            raise StepFailed("check_diff.yml: %s" % recap(output))
        if writes(fleet) != before:
            raise StepFailed("check_diff.yml (check mode) wrote to the device")
        cells["check mode + diff"] = "passed"
    direct = "broadcast.monitoring.ts_snmp runs in the controller's process" in output
    process = "AnsiballZ_ts_snmp.py" in output  # the module payload ansible-core writes for a module process
    ran = {(True, False): IN_PROCESS, (False, True): AS_PROCESSES}.get((direct, process), "?")
    if ran != version.expected(mode):
        if strict or ran == "?":
            raise StepFailed("the modules ran %s, expected %s (log: %s)" % (ran, version.expected(mode),
                                                                            os.path.relpath(version.log(step), ROOT)))
        ran += " (fallback)"
    cells["modules run"] = ran
    return cells


def plugin_docs(version):
    """ansible-doc of every module, filter, lookup and role; each must come back with its documentation."""
    expected = {
        "module": sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
                         if not os.path.basename(p).startswith("_")),
        "filter": sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "plugins", "filter", "*.py"))
                         if not os.path.basename(p).startswith("_")),
        "lookup": sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "plugins", "lookup", "*.py"))
                         if not os.path.basename(p).startswith("_")),
        "role": sorted(os.path.basename(os.path.dirname(os.path.dirname(p)))
                       for p in glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))),
    }
    total = 0
    doc = os.path.join(version.bin, "ansible-doc")
    for kind, names in expected.items():
        if not names:
            continue
        listed = json.loads(version.run([doc, "-t", kind, "-l", "--json", "broadcast.monitoring"], "doc",
                                        stdout_only=True))
        fqcns = ["broadcast.monitoring." + name for name in names]
        missing = sorted(set(fqcns) - set(listed))
        if missing:
            raise StepFailed("ansible-doc -t %s -l does not list %s" % (kind, ", ".join(missing)))
        docs = json.loads(version.run([doc, "-t", kind, "--json"] + fqcns, "doc", stdout_only=True))
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


SEED_LOCK = threading.Lock()


def seed_get_pip(bin_dir):
    """ansible-test downloads get_pip_<pip version>.py; give it the offline stand-in."""
    versions = set()
    for path in glob.glob(os.path.join(os.path.dirname(bin_dir), "lib", "python*", "site-packages", "ansible_test",
                                       "_internal", "*.py")):
        with open(path, encoding="utf-8") as handle:
            versions.update(re.findall(r"""pip=['"]([0-9.]+)['"]""", handle.read()))
    with SEED_LOCK:
        os.makedirs(CACHE, exist_ok=True)
        for pip in versions or {"24.2"}:
            target = os.path.join(CACHE, "get_pip_%s.py" % pip.replace(".", "_"))
            if not os.path.exists(target):
                shutil.copy(os.path.join(ROOT, "tools", "get_pip_offline.py"), target)


def ansible_test(version, what):
    """ansible-test units or sanity in a virtual environment of its own (--venv), on a copy of the tree."""
    seed_get_pip(version.bin)
    copy = os.path.join(COPIES, "%s-%s" % (version.line, what), "ansible_collections", "broadcast", "monitoring")
    copy_tree(copy)
    command = [os.path.join(version.bin, "ansible-test"), what, "--venv", "--python", version.python[0],
               "--color", "no"]
    started = time.monotonic()
    try:
        version.run(command, what, cwd=copy)
    finally:
        shutil.rmtree(os.path.dirname(os.path.dirname(os.path.dirname(copy))), ignore_errors=True)
    return "passed (%.0f s)" % (time.monotonic() - started)


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


def line_list(text):
    return [line for line in re.split(r"[\s,]+", text or "") if line]


def run(versions, args):
    """Prepare each version, then run every step (playbooks per mode, ansible-doc, units, sanity)
    --jobs at a time; returns (rows, extra rows, failures)."""
    os.makedirs(MATRIX, exist_ok=True)
    for path in glob.glob(os.path.join(MATRIX, "*.log")):
        os.remove(path)
    failures, steps = [], []
    for version in versions:
        try:
            version.prepare()
            where = os.path.relpath(version.bin, ROOT)
            print("%s: ansible-core %s on Python %s (%s)" % (version.line, version.core, version.python[0], where),
                  flush=True)
        except (StepFailed, subprocess.SubprocessError, OSError) as error:
            failures.append("%s: installing: %s" % (version.line, error))
            continue
        if version.line in args.sanity or (args.latest and args.sanity):
            steps.append((version, "sanity", None))
        if version.line in args.units or (args.latest and args.units):
            steps.append((version, "units", None))
        steps += [(version, "playbooks", mode) for mode in version.modes()]
        steps.append((version, "doc", None))

    # the longest first (ansible-test, then the playbooks), so that the workers end together
    steps.sort(key=lambda s: ("sanity", "units", "playbooks", "doc").index(s[1]))

    def step(version, what, mode):
        started = time.monotonic()
        try:
            if what == "playbooks":
                result = playbooks(version, mode, strict=not args.latest)
            elif what == "doc":
                result = plugin_docs(version)
            else:
                result = ansible_test(version, what)
            failure = None
        except (StepFailed, subprocess.SubprocessError, OSError, KeyError, ValueError) as error:
            result, failure = None, "%s" % error
        name = what + (" (%s)" % mode if mode else "")
        print("%s %s: %s (%.0f s)" % (version.core, name, failure or "passed", time.monotonic() - started), flush=True)
        return result, failure and "%s %s: %s" % (version.line, name, failure)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda s: step(*s), steps))
    rows, extra = [], []
    for (version, what, mode), (result, failure) in zip(steps, results):
        if failure:
            failures.append(failure)
        if what == "playbooks":
            row = {column: "-" for column in COLUMNS}
            row.update({"ansible-core": version.core, "Python": version.python[0], "execution mode": mode})
            row.update(result or {"modules run": "failed"})
            rows.append(row)
        elif what in ("units", "sanity"):
            extra.append({"ansible-core": version.core, "Python": version.python[0], "ansible-test": what,
                          "result": result or "failed"})
    docs = {step[0].core: outcome[0] for step, outcome in zip(steps, results) if step[1] == "doc"}
    for row in rows:
        row["ansible-doc"] = docs.get(row["ansible-core"]) or "failed"
    return rows, extra, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("versions", nargs="*", default=list(LINES))
    parser.add_argument("--pythons", default="", help="interpreters to run ansible-core on, separated by %r "
                        "(besides this one)" % os.pathsep)
    parser.add_argument("--sanity", default="", help="the lines to run ansible-test sanity --venv with (comma list)")
    parser.add_argument("--units", default="", help="the lines to run ansible-test units --venv with (comma list)")
    parser.add_argument("--latest", action="store_true", help="the newest ansible-core on PyPI instead of the lines "
                        "(--sanity/--units: any value turns them on)")
    parser.add_argument("--jobs", type=int, default=2, help="steps run at a time")
    parser.add_argument("--readme", choices=("check", "write", "none"), default="none",
                        help="compare README.md's table with this run, or write it there")
    args = parser.parse_args()
    args.sanity, args.units = line_list(args.sanity), line_list(args.units)
    pythons = interpreters(args.pythons.split(os.pathsep))
    if args.latest:
        versions = [Version("latest", pythons, latest=True)]
    else:
        unknown = sorted(set(args.versions) - set(LINES))
        if unknown:
            parser.error("unknown release line %s (known: %s)" % (", ".join(unknown), " ".join(LINES)))
        versions = [Version(line, pythons) for line in args.versions]
    started = time.monotonic()
    rows, extra, failures = run(versions, args)
    text = table(rows, COLUMNS)
    if extra:
        text += "\n\n" + table(extra, ["ansible-core", "Python", "ansible-test", "result"])
    print("\n" + text + "\n\nlogs: build/matrix/<line>-<step>.log; %.0f s in all" % (time.monotonic() - started))
    if args.readme == "write" and failures:
        failures.append("README.md not written: the run failed")
    elif args.readme != "none":
        if args.latest or sorted(args.versions) != sorted(LINES):
            failures.append("--readme needs the whole matrix: %s" % " ".join(LINES))
        else:
            problem = readme(table(rows, COLUMNS), args.readme)
            if problem:
                failures.append(problem)
    if failures:
        print("\nFAILED:\n" + "\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

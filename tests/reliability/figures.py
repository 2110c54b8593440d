"""Figures the reliability suite reports in docs/reliability.md.

Each test file records what it tried under its own section (``record("faults", "cases", 12)``,
``add(...)`` to count up); at the end of a session every section recorded so far (this run's,
and earlier runs' kept in build/reliability/) is rendered into docs/reliability.md, so a run
of one file refreshes its own figures without dropping the others'. Counts over a whole run
(the leak watch's) are recorded only when the whole suite ran (``whole_suite``).
"""

import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STORE = os.path.join(ROOT, "build", "reliability")
REPORT = os.path.join(ROOT, "docs", "reliability.md")

#: section -> {"title": str, "claim": str, "figures": {name: value}, "rows": [...]} of this session
_SECTIONS = {}

#: the order sections appear in the report, with their titles and what they show
SECTIONS = [
    ("check_mode", "Check mode", "A run with --check sends no write request, and reports the same changes and diff as the real run after it."),
    ("idempotency", "Idempotency at scale", "Random valid desired states: applied, applied again (changed=false), read back (equal to the desired state)."),
    ("faults", "Faults", "Injected by the simulator: 503 bursts, 500s, dropped connections, latency, reboot gaps, a device that never returns."),
    ("bad_input", "Bad input", "Invalid parameter sets: each fails before the first request, with a message naming the parameter and no traceback."),
    ("secrets", "Secrets", "Every password and token the simulator issued, searched for in all output and log files. "
     "Every ansible-playbook run of the suite is made at -vvvv with --diff and a log file and searched; the "
     "ANSIBLE_DEBUG runs pass credentials through BROADCAST_MONITORING_* environment variables (as an AWX "
     "credential does), because ansible-core's debug trace prints module arguments raw, no_log or not."),
    ("leak_watch", "Secrets in the functional suite", "The functional suite's runs (every module's scenarios, the "
     "roles and playbooks), each at -vvvv with --diff and a log file, searched the same way."),
    ("auth", "Authentication and roles", "Each failure is its own clear, distinct error."),
    ("data_safety", "Data safety", "backup, factory reset, restore, backup: byte-identical, also after a fault in the middle of the restore."),
]


def section(name):
    return _SECTIONS.setdefault(name, {"figures": {}, "rows": []})


def record(name, figure, value):
    section(name)["figures"][figure] = value


def add(name, figure, count=1):
    figures = section(name)["figures"]
    figures[figure] = figures.get(figure, 0) + count


def row(name, *cells):
    """A line of the section's table: what was tried and what happened."""
    section(name)["rows"].append([str(c) for c in cells])


COMMAND = "make reliability   # python -m pytest tests/reliability; the functional suite adds its leak-watch section"


def whole_suite(session, directory):
    """Whether this pytest session ran every test under ``directory`` (no file, -k, -m or
    BM_SHARD narrowed it): counts over a whole run, such as the leak watch's, are kept only then."""
    options = session.config.option
    if getattr(options, "keyword", "") or getattr(options, "markexpr", "") or os.environ.get("BM_SHARD"):
        return False
    args = [arg.split("::")[0] for arg in session.config.args]
    return bool(args) and all(os.path.isdir(arg) and os.path.samefile(arg, directory) for arg in args)


def record_leak_watch(name, suite, watch):
    """The leak watch's counts (tests/functional/conftest.py: LEAK_WATCH) under ``name``."""
    record(name, "runs searched at -vvvv with --diff and a log file (%s)" % suite, watch["runs"])
    record(name, "distinct secrets searched for (%s)" % suite, len(watch["secrets"]))
    record(name, "occurrences found (%s)" % suite, watch["occurrences"])


def write_report(command=COMMAND):
    """Keep this session's figures (over those an earlier run kept for the same section, so
    one file's run leaves the others' figures alone) in build/; render docs/reliability.md from
    all of them only when asked (BM_WRITE_REPORT=1, as `make reliability` does): a test run
    never rewrites a tracked file by itself."""
    os.makedirs(STORE, exist_ok=True)
    for name, data in _SECTIONS.items():
        path = os.path.join(STORE, name + ".json")
        earlier = {}
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                earlier = json.load(handle)
        data = {"figures": dict(earlier.get("figures", {}), **data["figures"]),
                "rows": sorted(data["rows"]) or earlier.get("rows", [])}
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=1, sort_keys=True)
    if os.environ.get("BM_WRITE_REPORT") == "1":
        render(command)


def render(command=COMMAND):
    """docs/reliability.md from the figures kept in build/reliability."""
    kept = {}
    for name, _title, _claim in SECTIONS:
        path = os.path.join(STORE, name + ".json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                kept[name] = json.load(handle)
    if not kept:
        return
    lines = [
        "# Reliability and security figures",
        "",
        "Produced by the reliability suite against the simulator's fault injection; do not edit by hand.",
        "",
        "    %s" % command,
        "",
        "Every figure below is counted by a test that fails when the property does not hold.",
        "",
    ]
    for name, title, claim in SECTIONS:
        if name not in kept:
            continue
        data = kept[name]
        lines += ["## %s" % title, "", claim, ""]
        lines += ["| Figure | Value |", "|---|---|"]
        lines += ["| %s | %s |" % (key, value) for key, value in sorted(data["figures"].items())]
        lines.append("")
        if data["rows"]:
            lines += ["| Case | Outcome |", "|---|---|"]
            lines += ["| %s |" % " | ".join(cells) for cells in data["rows"]]
            lines.append("")
    with open(REPORT, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines))

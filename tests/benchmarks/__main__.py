"""Fleet benchmark: ours (site.yml, audit.yml; modules run in the controller's process, and
again as module processes) against the ping floor and a plain uri baseline.

    python -m tests.benchmarks [--sizes 10,30,100] [--quick] [--mitogen|--no-mitogen]
                               [--baseline-sizes 10] [--scale 1000]
                               [--forks 10] [--out docs/performance.json] [--workdir build/bench]

The largest size is the headline: every case runs there (linear and, when mitogen is
installed, mitogen strategy), with the audit and the single-module measurement; the smaller
sizes run ours both ways, the floor and (at --baseline-sizes, default all) the baseline for
the plot. --scale N adds one fleet of N devices (one simulator process) where ours converges
and runs again, for the time and memory of a large fleet. A benchmark, not a test: it exits 0
whether or not the targets hold, and writes the verdicts into the JSON and docs/performance.md.
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time

from . import cases, config, fleet_bench, probe, report

DEFAULT_SIZES = (10, 30, 100)
QUICK_SIZES = (2,)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks", description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--sizes", help="comma-separated fleet sizes (devices); the largest is the headline"
                                        " (default %s)" % ",".join(map(str, DEFAULT_SIZES)))
    parser.add_argument("--quick", action="store_true", help="smoke run: sizes %s" % ",".join(map(str, QUICK_SIZES)))
    parser.add_argument("--mitogen", dest="mitogen", action="store_true", default=None,
                        help="also run the headline size under the mitogen strategy (default: when installed)")
    parser.add_argument("--no-mitogen", dest="mitogen", action="store_false")
    parser.add_argument("--baseline-sizes", help="comma-separated sizes at which the uri baseline runs (default:"
                                                 " every size); it is by far the slowest case")
    parser.add_argument("--scale", type=int, help="also converge and re-run ours on one fleet of this many devices")
    parser.add_argument("--forks", type=int, default=10, help="ansible forks for every run (default %(default)s)")
    parser.add_argument("--out", help="results JSON; the Markdown and PNG go next to it (default"
                                      " docs/performance.json, with --quick build/bench/quick.json)")
    parser.add_argument("--workdir", default="build/bench", help="logs, inventories and generated playbooks")
    parser.add_argument("--from-json", metavar="JSON",
                        help="run nothing: evaluate the targets again and rewrite the Markdown and plot of a results"
                             " JSON written before (next to it, or next to --out when given)")
    args = parser.parse_args(argv)
    if args.sizes:
        args.sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    else:
        args.sizes = list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    args.baseline_sizes = (sorted({int(s) for s in args.baseline_sizes.split(",") if s.strip()})
                           if args.baseline_sizes else list(args.sizes))
    if not args.sizes or min(args.sizes) < 2:
        parser.error("--sizes: each size must be at least 2 (one analyzer and one FM monitor)")
    args.out_given = bool(args.out)
    if not args.out:
        args.out = "build/bench/quick.json" if args.quick else "docs/performance.json"
    if args.mitogen is None:
        args.mitogen = fleet_bench.mitogen_strategy_dir() is not None
    elif args.mitogen and fleet_bench.mitogen_strategy_dir() is None:
        parser.error("--mitogen: mitogen is not installed (pip install -r requirements/bench.in)")
    return args


def machine():
    def version(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "ansible_core": version("ansible-core"),
            "mitogen": version("mitogen"), "requests": version("requests"), "platform": platform.platform(),
            "git": git_state()}


def git_state():
    """The commit measured, and whether the code under test differed from it."""
    def git(*words):
        proc = subprocess.run(["git"] + list(words), cwd=fleet_bench.ROOT, capture_output=True, text=True, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else None
    return {"commit": git("rev-parse", "HEAD"),
            "modified": git("status", "--porcelain", "--", "plugins", "roles", "playbooks", "meta") or ""}


def collections_path():
    """build/collections/ansible_collections/broadcast/monitoring -> this tree (as `make link`)."""
    base = os.path.join(fleet_bench.ROOT, "build", "collections")
    link = os.path.join(base, "ansible_collections", "broadcast", "monitoring")
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if not os.path.islink(link):
        os.symlink(fleet_bench.ROOT, link)
    return base


def run_size(devices, args, ansible, sizes):
    """Every case for one fleet size; returns (records, single-module measurement or None).

    The headline (largest) size runs every case, under both strategies. The baseline is by far
    the slowest case, so its converge run (linear) is measured at the smallest size only; at
    the other sizes its second run is measured on the devices ours converged (same state)."""
    headline, ts = devices == max(sizes), (devices + 1) // 2
    main_label, other_label = ("small", "full") if args.quick else ("full", "small")
    workdir = os.path.join(ansible.workdir, "size-%d" % devices)
    os.makedirs(workdir, exist_ok=True)
    print("\n== %d devices (%d TS analyzers, %d FM monitors)%s" % (
        devices, ts, devices - ts, ", headline" if headline else ""))
    sim = fleet_bench.Simulator(workdir, ts, devices - ts).start()
    measured = None
    try:
        inventory = config.write_group_vars(os.path.join(workdir, "inventory-" + main_label), config.SIZES[main_label])
        fleet = cases.Fleet(sim, ansible, inventory, "n%d" % devices, main_label)
        reference = fleet.ours("linear", audit=headline)
        invocations = cases.ours_invocations(fleet.records[1])
        fleet.ours("linear", audit=False, reference=reference, case="ours-module")
        if devices in args.baseline_sizes:
            converge_here = devices == min(args.baseline_sizes)
            fleet.baseline("linear", reference, ("converge", "idempotent") if converge_here else ("idempotent",))
        fleet.floor("linear", invocations)
        if headline and args.mitogen:
            fleet.ours("mitogen", audit=True, reference=reference)
            fleet.baseline("mitogen", reference, ("idempotent",))
            fleet.floor("mitogen", invocations)
        if headline:
            module_args = {"host": "{{ ansible_host }}", "port": "{{ device_port }}", "password": config.FACTORY_PASSWORD,
                           "config": config.role_vars(config.SIZES[main_label])["ts_analyzers"]["ts_analyzer_inputs"]}
            try:
                measured = probe.measure(ansible, sim, inventory, module_args, workdir)
            except RuntimeError as err:  # keep the fleet results; say what is missing
                print("\n!!! one-module measurement failed: %s" % err)
            else:
                p = measured["ts_input"]
                print("  one ts_input process: wall %.3f s, CPU %.3f s, peak RSS %.1f MB; own start-up %.3f s ="
                      " %.0f%% (requests import %.3f s)" % (
                          p["wall_s"], p["cpu_s"], p["maxrss_mb"], p["own_startup_s"], 100 * p["own_startup_share"],
                          p["imports_s"]["requests"]))
        records = fleet.records
        if devices == min(sizes):
            other = cases.Fleet(sim, ansible, config.write_group_vars(os.path.join(workdir, "inventory-" + other_label),
                                                                      config.SIZES[other_label]),
                                "n%d" % devices, other_label)
            other.ours("linear", audit=False)
            records = records + other.records
    finally:
        sim.stop()
    return records, measured


def run_scale(devices, ansible):
    """Ours on one large fleet: converge, then the idempotent run (time, CPU, peak memory)."""
    ts = (devices + 1) // 2
    workdir = os.path.join(ansible.workdir, "scale-%d" % devices)
    os.makedirs(workdir, exist_ok=True)
    print("\n== scale: %d devices (%d TS analyzers, %d FM monitors), one simulator process" % (devices, ts, devices - ts))
    sim = fleet_bench.Simulator(workdir, ts, devices - ts).start()
    try:
        inventory = config.write_group_vars(os.path.join(workdir, "inventory-full"), config.SIZES["full"])
        fleet = cases.Fleet(sim, ansible, inventory, "n%d" % devices, "full")
        fleet.ours("linear", audit=False)
        for record in fleet.records:
            record["scale"] = True
        return fleet.records
    finally:
        sim.stop()


def rewrite(path, out=None):
    """Targets, Markdown and plot again from an earlier run's JSON (no fleet is started)."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    stem = os.path.splitext(os.path.abspath(out or path))[0]
    data["targets"] = report.evaluate(data["runs"], data["headline"], data["module_process"], data["main_config"])
    report.print_targets(data["targets"])
    report.plot(stem + ".png", data["runs"], data["forks"], data["main_config"])
    report.write_json(stem + ".json", dict(data, json=os.path.relpath(stem + ".json", fleet_bench.ROOT),
                                           plot=os.path.relpath(stem + ".png", fleet_bench.ROOT)))
    report.write_markdown(stem + ".md", dict(data, json=stem + ".json", plot=stem + ".png"))
    print("rewrote %s.{json,md,png} from %s" % (os.path.relpath(stem), path))
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.from_json:
        return rewrite(args.from_json, args.out if args.out_given else None)
    started = time.time()
    workdir = os.path.join(fleet_bench.ROOT, args.workdir, "quick" if args.quick else "full")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    ansible = fleet_bench.Ansible(workdir, collections_path(), args.forks)
    headline = max(args.sizes)
    print("fleet benchmark: sizes %s (headline %d), forks %d, mitogen %s; logs in %s" % (
        ",".join(map(str, args.sizes)), headline, args.forks, "on" if args.mitogen else "off", workdir))
    records, measured = [], None
    for devices in args.sizes:
        got, probe_result = run_size(devices, args, ansible, args.sizes)
        records += got
        measured = probe_result or measured
        # what is measured so far survives an interrupted run
        report.write_json(os.path.join(workdir, "partial.json"), {"runs": records, "module_process": measured})
    if args.scale:
        records += run_scale(args.scale, ansible)
    main_config = "small" if args.quick else "full"
    targets = report.evaluate(records, headline, measured, main_config)
    report.print_targets(targets)
    out = os.path.abspath(args.out)
    stem = os.path.splitext(out)[0]
    command = "python -m tests.benchmarks " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    data = {
        "command": command.strip(), "run_label": "quick smoke run" if args.quick else "full run",
        "finished": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "duration_s": round(time.time() - started, 1), "machine": machine(), "forks": args.forks,
        "time_scale": fleet_bench.TIME_SCALE, "sizes": args.sizes, "headline": headline,
        "main_config": main_config,
        "desired_state": {"full": config.FULL, "small": config.SMALL, "managed": config.MANAGED},
        "targets": targets, "module_process": measured, "runs": records,
        "json": out, "plot": stem + ".png", "workdir": os.path.relpath(workdir, fleet_bench.ROOT),
    }
    report.plot(stem + ".png", records, args.forks, main_config)
    report.write_json(out, dict(data, json=os.path.relpath(out, fleet_bench.ROOT),
                                plot=os.path.relpath(stem + ".png", fleet_bench.ROOT)))
    report.write_markdown(stem + ".md", data)
    print("\nwrote %s, %s.md, %s.png (%.1f min)" % (os.path.relpath(out), os.path.relpath(stem),
                                                    os.path.relpath(stem), data["duration_s"] / 60))
    return 0


if __name__ == "__main__":
    sys.exit(main())

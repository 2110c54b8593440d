"""Benchmark of the fleet status play on a simulated fleet (issue 46), not a timed test:
    PYTHONPATH=build/collections:simulator/src .venv/bin/python -m tests.benchmarks.fleet_status \\
        [--devices 1000] [--quick] [--rounds 2] [--forks 10] [--out build/bench-fleet-status/result.json]

One ``bm-simulator fleet`` process of DEVICES devices (half TS analyzers, half FM monitors;
--quick: 20), brought to the fleet benchmark's full desired state (tests/benchmarks/config.py) by
site.yml; then, on one in twenty devices, a signal lost (an analyzer's input off air, an FM
monitor's tuner not locked). Then ROUNDS rounds, each an idempotent site.yml and the status play
(playbooks/fleet_status.yml) back to back on the same devices and forks, with the order swapped
every other round so that neither always runs on the warmer machine: the pairs give the status
run's CPU and wall time per device beside site.yml's. The status play's fleet-status.html is then
measured: its size, and the time headless Chromium takes to load it, run its script and lay out
every row (navigation start to the end of a forced layout, in the browser, read through the
DevTools protocol; the median of ROUNDS loads).

Targets (the issue's "Done when"): the status run costs no more CPU per device than the
idempotent site.yml of the same round, the page stays under 2 MB, Chromium renders it in under
2 s. A benchmark, not a test: it prints the figures and verdicts as JSON (also written to --out)
and exits 0 whether or not the targets hold; it exits 1 when a run fails or the page is wrong."""

import argparse
import json
import os
import statistics
import sys
import time

from . import cases, config, fleet_bench
from .__main__ import collections_path
from tests.functional import fleet_page

OUT = os.path.join(fleet_bench.ROOT, "build", "bench-fleet-status")
STATUS_PLAY = os.path.join(fleet_bench.ROOT, "playbooks", "fleet_status.yml")
PAGE_LIMIT_BYTES = 2 * 1024 * 1024
RENDER_LIMIT_S = 2.0
#: one device in PROBLEM_EVERY loses a signal (input 1 of an analyzer, tuner 0 of an FM monitor)
PROBLEM_EVERY = 20


def lose_signals(sim):
    """One device in PROBLEM_EVERY loses a signal (the simulator's /_sim/signals): the page then
    has problem rows, sorted first, as a real fleet's would."""
    lost = []
    for number, device in enumerate(sim.devices):
        if number % PROBLEM_EVERY == 0:
            signal = 1 if device.kind == "ts_analyzer" else 0
            sim.http.post(device.base + "/_sim/signals", json={"lost": [signal]}, timeout=10).raise_for_status()
            lost.append(device.name)
    return lost


def per_device(record):
    devices = record["devices"]
    return {"cpu_s": round(record["cpu_s"] / devices, 4), "wall_s": round(record["wall_s"] / devices, 4)}


def page_in_chromium(path, rounds):
    """Load times of the page in headless Chromium and what it showed."""
    loads = []
    with fleet_page.Browser() as browser:
        for dummy in range(rounds):
            browser.open(path)
            # reading a box forces the layout of the whole table; performance.now() counts from
            # the navigation's start
            took, rows, ready = browser.evaluate(
                "[(document.body.getBoundingClientRect(), performance.now()) / 1000,"
                " document.querySelectorAll('tbody tr').length, document.body.dataset.ready]")
            loads.append(took)
            console = browser.console
    return {"render_seconds_median": round(statistics.median(loads), 3),
            "render_seconds": [round(x, 3) for x in loads], "rows": rows, "script_ran": ready == "1",
            "console": console}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.fleet_status",
                                     description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="20 devices, one round (a smoke run)")
    parser.add_argument("--rounds", type=int, default=2, help="paired rounds of site.yml and the status play")
    parser.add_argument("--forks", type=int, default=10)
    parser.add_argument("--out", default=os.path.join(OUT, "result.json"))
    args = parser.parse_args(argv)
    if args.quick:
        args.devices, args.rounds = 20, 1
    started = time.time()
    workdir = os.path.join(OUT, "n%d" % args.devices)
    status_dir = os.path.join(workdir, "status")
    os.makedirs(status_dir, exist_ok=True)
    ansible = fleet_bench.Ansible(workdir, collections_path(), args.forks)
    ts = (args.devices + 1) // 2
    load = [os.getloadavg()[0]]
    print("fleet status benchmark: %d devices (%d TS analyzers, %d FM monitors), %d round(s), forks %d; logs in %s"
          % (args.devices, ts, args.devices - ts, args.rounds, args.forks, workdir), flush=True)
    sim = fleet_bench.Simulator(workdir, ts, args.devices - ts).start()
    try:
        fleet = cases.Fleet(sim, ansible, config.write_group_vars(os.path.join(workdir, "inventory"), config.FULL),
                            "n%d" % args.devices, "full")
        sim.reset()
        fleet.run(cases.SITE, "ours", "converge", "linear")
        lost = lose_signals(sim)
        pairs = []
        for number in range(args.rounds):
            order = ("site", "status") if number % 2 == 0 else ("status", "site")
            pair = {}
            for which in order:
                sim.clear()
                if which == "site":
                    pair["site"] = fleet.run(cases.SITE, "ours", "idempotent", "linear")
                else:
                    pair["status"] = fleet.run(STATUS_PLAY, "status", "run", "linear",
                                               extra=("-e", "status_dir=" + status_dir))
                load.append(os.getloadavg()[0])
            pairs.append(pair)
    finally:
        sim.stop()
    failed = [r["log"] for pair in pairs for r in pair.values() if r["rc"] != 0 or r["failed_hosts"]]
    failed += [r["log"] for pair in pairs for r in pair.values() if r["case"] == "ours" and r["changed_hosts"]]
    writes = [r["requests_per_device"]["all"]["write"] + r["requests_per_device"]["all"]["action"]
              for pair in pairs for r in (pair["status"],)]
    page = os.path.join(status_dir, "fleet-status.html")
    with open(os.path.join(status_dir, "fleet-status.json"), encoding="utf-8") as handle:
        doc = json.load(handle)
    chromium = page_in_chromium(page, max(args.rounds, 3))
    page_bytes = os.path.getsize(page)
    status_cpu = [per_device(pair["status"])["cpu_s"] for pair in pairs]
    site_cpu = [per_device(pair["site"])["cpu_s"] for pair in pairs]
    result = {
        "command": "python -m tests.benchmarks.fleet_status " + " ".join(sys.argv[1:] if argv is None else argv),
        "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "duration_s": round(time.time() - started),
        "devices": args.devices, "forks": args.forks, "rounds": args.rounds, "signals_lost_on": len(lost),
        "load_1m": {"min": round(min(load), 2), "max": round(max(load), 2)},
        "pairs": [{which: dict(per_device(record), cpu_s_run=record["cpu_s"], wall_s_run=record["wall_s"],
                               sim_cpu_s=record["sim_cpu_s"], peak_rss_mb=record["peak_rss_mb"],
                               requests_per_device=record["requests_per_device"]["all"]["total"])
                   for which, record in pair.items()} for pair in pairs],
        "status_writes_per_device": max(writes),
        "page": {"bytes": page_bytes, "rows_in_json": len(doc["devices"]), "counts": doc["counts"], **chromium},
        "files_bytes": {name: os.path.getsize(os.path.join(status_dir, name))
                        for name in ("fleet-status.html", "fleet-status.prom", "fleet-status.json")},
        "targets": {
            "status CPU per device <= idempotent site.yml's, every round": {
                "status_cpu_s_per_device": status_cpu, "site_cpu_s_per_device": site_cpu,
                "pass": all(s <= t for s, t in zip(status_cpu, site_cpu))},
            "page < 2 MB": {"bytes": page_bytes, "pass": page_bytes < PAGE_LIMIT_BYTES},
            "Chromium renders the page in < 2 s (median)": {
                "seconds": chromium["render_seconds_median"], "pass": chromium["render_seconds_median"] < RENDER_LIMIT_S},
        },
        "workdir": os.path.relpath(workdir, fleet_bench.ROOT),
    }
    wrong = failed or max(writes) > 0 or len(doc["devices"]) != args.devices or chromium["rows"] != args.devices \
        or not chromium["script_ran"] or chromium["console"]
    result["runs_ok"] = not wrong
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
    json.dump(result, sys.stdout, indent=1)
    print()
    if wrong:
        print("!!! a run failed, the status play wrote to a device, or the page is wrong: %s" % (
            failed or chromium), file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

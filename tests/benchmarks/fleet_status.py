"""Benchmark of the fleet status page and metrics (issue 46), not a timed test:
    PYTHONPATH=build/collections:simulator/src .venv/bin/python -m tests.benchmarks.fleet_status [--devices 1000]

Builds the status of DEVICES devices (two thirds analyzers with four inputs, one third FM monitors
with four tuners, one in twenty with a problem; readings shaped as device_snapshot returns them),
writes fleet-status.html, .prom and .json into build/bench-fleet-status, and prints their sizes,
the time to build them, and headless Chromium's time to load the page and run its script
(--dump-dom; minus the same for an empty page, Chromium's own start), with the filter applied
from the address as a user's link would.

With --simulated N, also the cost per device of the status run against N simulated devices,
beside an idempotent site.yml (its second run) on the same devices, with the same forks."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import yaml

from ansible_collections.broadcast.monitoring.plugins.filter.fleet_status import FilterModule

from tests.functional import fleet_page

fleet_status = FilterModule().filters()["fleet_status"]
OUT = os.path.join("build", "bench-fleet-status")


def reading(number):
    problem = number % 20 == 0
    read_at = "2026-11-28T09:00:00Z"
    if number % 3 == 2:
        tuners = [{"id": t, "name": "Tuner %d" % (t + 1), "state": "enabled", "frequency": 88000 + 100 * t,
                   "tuned": not (problem and t == 0), "signal_ok": True, "stream_enabled": True,
                   "rssi": 40 + t, "alarms": []} for t in range(4)]
        snapshot = {"device_type": "fm_monitor", "model": "FMM-8 FM Monitoring Receiver", "firmware_version": "2.4.1",
                    "reboot_needed": False, "tuners": tuners}
        return {"device_type": "fm_monitor", "groups": ["fm_monitors", "site-%02d" % (number % 40)],
                "read_at": read_at, "snapshot": snapshot, "declared": None}
    inputs = [{"id": i, "name": "Mux %d" % i, "monitoring": True, "state": "no_signal" if problem and i == 1 else "ok",
               "receiving": not (problem and i == 1), "bitrate": 24000000, "priority1": "ok",
               "priority1_errors": [], "alarms": []} for i in range(1, 5)]
    snapshot = {"device_type": "ts_analyzer", "model": "TSA-4", "firmware_version": "2.4.1" if number % 50 else "2.3.0",
                "reboot_needed": False, "inputs": inputs}
    return {"device_type": "ts_analyzer", "groups": ["ts_analyzers", "site-%02d" % (number % 40)],
            "read_at": read_at, "snapshot": snapshot, "declared": 4}


def playbook_seconds(inventory, playbook, *extra):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.abspath(os.path.join("build", "collections")),
               ANSIBLE_NOCOLOR="1", ANSIBLE_LOCALHOST_WARNING="0")
    env.pop("PYTHONPATH", None)
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", inventory,
               os.path.join("playbooks", playbook)] + list(extra)
    started = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True, env=env, check=False, cwd=os.getcwd())
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return took


def run_cost(devices):
    """Seconds per device: the status run, and site.yml's second (idempotent) run."""
    from bm_simulator.fleet import running_fleet

    with running_fleet(ts=devices - devices // 2, fm=devices // 2, time_scale=0.02) as fleet:
        inventory = os.path.join(OUT, "hosts.yml")
        fleet.write_inventory(inventory)
        with open(inventory, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
        data["all"]["vars"].update(broadcast_monitoring_password="admin",
                                   ts_analyzer_time={"timezone": "Europe/Berlin"}, fm_monitor_time={"timezone": "2"})
        with open(inventory, "w", encoding="utf-8") as handle:
            yaml.safe_dump(data, handle)
        playbook_seconds(inventory, "site.yml")
        site = playbook_seconds(inventory, "site.yml")
        status = playbook_seconds(inventory, "fleet_status.yml", "-e", "status_dir=" + os.path.abspath(OUT))
    return {"devices": devices, "site_idempotent_seconds_per_device": round(site / devices, 3),
            "status_seconds_per_device": round(status / devices, 3)}


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--simulated", type=int, default=0, help="also time the status run on this many simulated devices")
    args = parser.parse_args(argv)
    os.makedirs(OUT, exist_ok=True)
    readings = {"device-%04d" % n: reading(n) for n in range(args.devices)}
    started = time.monotonic()
    doc = fleet_status(readings, "document")
    page, metrics = fleet_status(doc, "page"), fleet_status(doc, "metrics")
    built = time.monotonic() - started
    files = {"fleet-status.html": page, "fleet-status.prom": metrics, "fleet-status.json": json.dumps(doc, indent=1)}
    for name, text in files.items():
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    empty = os.path.join(OUT, "empty.html")
    with open(empty, "w", encoding="utf-8") as handle:
        handle.write("<!DOCTYPE html><title>empty</title><p>empty</p>")
    result = {"devices": args.devices, "build_seconds": round(built, 3),
              "bytes": {name: len(text.encode("utf-8")) for name, text in files.items()}}
    if fleet_page.CHROMIUM:
        page_path = os.path.abspath(os.path.join(OUT, "fleet-status.html"))
        loads, bases = [], []
        for dummy in range(args.repeat):
            _out, _console, took = fleet_page.chromium(["--dump-dom"], "file://" + os.path.abspath(empty))
            bases.append(took)
            dom, console, took = fleet_page.chromium(["--dump-dom"], "file://" + page_path + "#state=problem")
            assert not console, console
            shown = fleet_page.Dom(dom).body.get("data-shown")
            loads.append(took)
        result["chromium"] = {"page_seconds_median": round(statistics.median(loads), 3),
                              "empty_page_seconds_median": round(statistics.median(bases), 3),
                              "render_seconds": round(statistics.median(loads) - statistics.median(bases), 3),
                              "rows_shown_filtered": shown}
    if args.simulated:
        result["run_cost"] = run_cost(args.simulated)
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

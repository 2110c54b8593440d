"""The EDA event source with a large simulated fleet: memory, threads, connections, schedule.

    python -m tests.benchmarks.eda_source [--devices 500] [--interval 10] [--seconds 60]
                                          [--threads 32] [--out build/bench/eda_source.json]

Starts ``bm-simulator fleet`` (half analyzers, half FM monitors) as a child process, then runs
the source's ``main(queue, args)`` in this process as ansible-rulebook does (an asyncio task)
for ``--seconds``, sampling this process's resident memory (VmRSS), threads and open file
descriptors twice a second, and timing each device's polls; then cancels it and times how
long the source and its threads take to end. The simulator's memory and CPU are its own
process's, never counted here. A benchmark, not a test: it prints (and writes) what it
measured and exits 0.
"""

import argparse
import asyncio
import importlib
import json
import os
import resource
import statistics
import tempfile
import threading
import time

from . import fleet_bench

SOURCE = "ansible_collections.broadcast.monitoring.extensions.eda.plugins.event_source.device_events"


def proc_status():
    """{VmRSS (MiB), VmHWM (MiB), Threads} of this process, and its open file descriptors."""
    out = {}
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            key, _sep, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024.0
            elif key == "Threads":
                out[key] = int(value)
    out["fds"] = len(os.listdir("/proc/self/fd"))
    return out


def run(devices, interval, seconds, threads):
    source = importlib.import_module(SOURCE)
    before = proc_status()
    polls = {}  # device name: [(start, duration)]
    original = source.DevicePoller.poll

    def timed_poll(self, initial_state=False):
        started = time.monotonic()
        try:
            return original(self, initial_state)
        finally:
            polls.setdefault(self.name, []).append((started, time.monotonic() - started))

    source.DevicePoller.poll = timed_poll
    args = {"password": "admin", "interval": interval, "threads": threads,
            "devices": [{"name": d.name, "host": d.base.split("//")[1].split(":")[0], "port": int(d.base.rsplit(":", 1)[1]),
                         "device_type": d.kind} for d in devices]}
    samples = []
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = [usage.ru_utime + usage.ru_stime]

    async def scenario():
        queue = asyncio.Queue()
        task = asyncio.create_task(source.main(queue, args))
        events = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            while not queue.empty():
                queue.get_nowait()
                events += 1
            samples.append(proc_status())
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu.append(usage.ru_utime + usage.ru_stime)
        started = time.monotonic()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        stopped = time.monotonic() - started
        return events, stopped, started

    try:
        events, stopped, cancelled_at = asyncio.run(scenario())
    finally:
        source.DevicePoller.poll = original
    while any(t.name.startswith("device_events") for t in threading.enumerate()):
        time.sleep(0.01)
    threads_ended = time.monotonic() - cancelled_at
    gaps = [b[0] - a[0] for runs in polls.values() for a, b in zip(runs, runs[1:])]
    durations = [duration for runs in polls.values() for _start, duration in runs]
    return {
        "devices": len(devices), "interval": interval, "seconds": seconds, "threads_option": threads,
        "rss_mib_before": round(before["VmRSS"], 1),
        "rss_mib_peak": round(max(s["VmRSS"] for s in samples), 1),
        "rss_mib_end": round(samples[-1]["VmRSS"], 1),
        "threads_before": before["Threads"], "threads_peak": max(s["Threads"] for s in samples),
        "fds_before": before["fds"], "fds_peak": max(s["fds"] for s in samples),
        "cpu_seconds_per_second": round((cpu[1] - cpu[0]) / seconds, 2),
        "devices_polled": len(polls), "polls": len(durations), "events": events,
        "poll_seconds_median": round(statistics.median(durations), 3),
        "poll_seconds_max": round(max(durations), 3),
        "gap_seconds_median": round(statistics.median(gaps), 2) if gaps else None,
        "gap_seconds_max": round(max(gaps), 2) if gaps else None,
        "stop_seconds": round(stopped, 3), "threads_ended_seconds": round(threads_ended, 3),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.eda_source", description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--devices", type=int, default=500, help="simulated devices, half of each type (default 500)")
    parser.add_argument("--interval", type=int, default=10, help="the source's interval (default 10)")
    parser.add_argument("--seconds", type=int, default=60, help="how long the source runs (default 60)")
    parser.add_argument("--threads", type=int, default=32, help="the source's threads option (default 32)")
    parser.add_argument("--out", help="also write the figures as JSON to this file")
    args = parser.parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="eda-bench-")
    simulator = fleet_bench.Simulator(workdir, ts=args.devices - args.devices // 2, fm=args.devices // 2).start()
    try:
        cpu_before = simulator.cpu_seconds()
        figures = run(simulator.devices, args.interval, args.seconds, args.threads)
        figures["simulator_cpu_seconds_per_second"] = round((simulator.cpu_seconds() - cpu_before) / args.seconds, 2)
        figures["simulator_rss_mib_peak"] = round(simulator.peak_rss_mb(), 1)
    finally:
        simulator.stop()
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()

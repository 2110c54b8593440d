"""Latency of a simple authenticated GET against a 200-device simulated fleet.

    python -m tests.benchmarks.simulator_latency [--devices 200] [--requests 2000]

Starts the fleet in this process's background thread, logs in to every device, then sends
GETs round-robin over keep-alive connections from the main thread and prints the median
and 95th percentile. A benchmark, not a test: run it by hand or from `make bench`.
"""

import argparse
import statistics
import time

import requests

from bm_simulator.fleet import running_fleet


def main():
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.simulator_latency")
    parser.add_argument("--devices", type=int, default=200)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    half = args.devices // 2
    with running_fleet(ts=args.devices - half, fm=half, time_scale=0.01) as fleet:
        sessions = []
        for device in fleet.devices:
            session = requests.Session()
            login = "/api" + device.login_path
            token = session.post(device.base_url + login, json={"role": "admin", "password": "admin"},
                                 timeout=5).json()["token"]
            session.headers["Authorization"] = "Bearer " + token
            path = "/api/system/status" if device.kind == "ts_analyzer" else "/api/status"
            sessions.append((session, device.base_url + path))
        samples = []
        for index in range(args.requests):
            session, url = sessions[index % len(sessions)]
            started = time.perf_counter()
            response = session.get(url, timeout=5)
            samples.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
        samples.sort()
        print("devices: %d, authenticated GETs: %d" % (len(fleet.devices), len(samples)))
        print("median %.2f ms, p95 %.2f ms, max %.2f ms" % (
            statistics.median(samples), samples[int(len(samples) * 0.95)], samples[-1]))


if __name__ == "__main__":
    main()

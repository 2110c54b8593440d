"""Demo helper: clear or count the simulated devices' request logs (the simulator's control path)."""

import json
import sys
import urllib.request

import yaml


def devices(hosts_file):
    with open(hosts_file, encoding="utf-8") as handle:
        inventory = yaml.safe_load(handle)
    for group in inventory["all"]["children"].values():
        for name, host in (group.get("hosts") or {}).items():
            yield name, "http://%s:%s/_sim/requests" % (host["ansible_host"], host["device_port"])


def main(action, hosts_file):
    total = 0
    for name, url in devices(hosts_file):
        if action == "clear":
            urllib.request.urlopen(urllib.request.Request(url, method="DELETE"), timeout=5).read()
            continue
        with urllib.request.urlopen(url, timeout=5) as response:
            counters = json.load(response)["counters"]
        total += counters["write"] + counters["action"]
        print("  %-8s login=%d read=%d write=%d action=%d" % (
            name, counters["login"], counters["read"], counters["write"], counters["action"]))
    if action == "count":
        print("simulator request log: %d write/action request(s) during the audit" % total)
        return 1 if total else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

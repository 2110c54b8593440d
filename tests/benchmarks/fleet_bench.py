"""The moving parts of the fleet benchmark: the simulator process, playbook runs with their
wall and CPU time, request counters, and device state snapshots.

The simulator runs as its own process so that its CPU time can be read from /proc and shown
apart from Ansible's (it is never counted as ours). Every playbook run is one
``ansible-playbook`` child process; its CPU time is that of the whole process tree (the
forks and module processes are reaped by it, so ``wait4`` reports them all).
"""

import collections
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import requests
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
#: the loopback range the benchmark may use (other suites use 127.0.61-66.x and random /24s)
FIRST_ADDRESS = "127.0.80.1"
TIME_SCALE = 0.01
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: the names of this collection's modules
OUR_MODULES = {name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules")) if name.endswith(".py")}
#: one simulated device: its inventory name, device type and base URL
Device = collections.namedtuple("Device", "name kind base")


def free_port(address):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def mitogen_strategy_dir():
    """Where the mitogen strategy plugins are, or None when mitogen is not installed."""
    try:
        import ansible_mitogen  # noqa: F401  (only its location is needed)
    except ImportError:
        return None
    return os.path.join(os.path.dirname(ansible_mitogen.__file__), "plugins", "strategy")


class Simulator:
    """``bm-simulator fleet`` for one fleet, as a child process (this tree's simulator)."""

    def __init__(self, workdir, ts, fm):
        self.workdir, self.ts, self.fm = workdir, ts, fm
        self.inventory = os.path.join(workdir, "hosts.yml")
        self.port = free_port(FIRST_ADDRESS)
        self.proc = None
        self.devices = []  # [Device]
        self.http = requests.Session()

    def start(self):
        command = [sys.executable, "-m", "bm_simulator", "fleet", "--ts", str(self.ts), "--fm", str(self.fm),
                   "--inventory", self.inventory, "--address", FIRST_ADDRESS, "--port", str(self.port),
                   "--time-scale", str(TIME_SCALE)]
        self.log = open(os.path.join(self.workdir, "simulator.log"), "w", encoding="utf-8")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [os.path.join(ROOT, "simulator", "src"), os.environ.get("PYTHONPATH")])))
        self.proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("ready:"):
            self.stop()
            raise RuntimeError("simulator did not start: %r (see %s)" % (line, self.log.name))
        with open(self.inventory, encoding="utf-8") as handle:
            inventory = yaml.safe_load(handle)
        for group in inventory["all"]["children"].values():
            for name, hostvars in (group.get("hosts") or {}).items():
                base = "http://%s:%d" % (hostvars["ansible_host"], hostvars["device_port"])
                self.devices.append(Device(name, hostvars["device_type"], base))
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def peak_rss_mb(self):
        """The simulator process's peak resident memory so far."""
        with open("/proc/%d/status" % self.proc.pid, encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
        return None

    def cpu_seconds(self):
        """User + system CPU seconds the simulator process has used so far."""
        with open("/proc/%d/stat" % self.proc.pid, encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime

    def reset(self):
        """Every device back to factory state, request log and faults cleared."""
        for device in self.devices:
            self.http.post(device.base + "/_sim/reset", timeout=10).raise_for_status()

    def clear(self):
        for device in self.devices:
            self.http.delete(device.base + "/_sim/requests", timeout=10).raise_for_status()

    def counters(self):
        """{name: {login, read, write, action, fault, total}} since the last reset or clear."""
        out = {}
        for device in self.devices:
            answer = self.http.get(device.base + "/_sim/requests", timeout=10)
            answer.raise_for_status()
            out[device.name] = answer.json()["counters"]
        return out

    def snapshot(self):
        """{name: the configuration the benchmark declares, as the device reports it}."""
        return {d.name: _snapshot(self.http, d.kind, d.base) for d in self.devices}


def _login(http, kind, base):
    path, extra = ("/api/user/login", {}) if kind == "ts_analyzer" else ("/api/login", {"keep_logged_in": True})
    answer = http.post(base + path, json=dict(extra, role="user", password="user"), timeout=10)
    answer.raise_for_status()
    return {"Authorization": "Bearer " + answer.json()["token"]}


def _snapshot(http, kind, base):
    """What both the roles and the baseline set, without live measurements and ids."""
    headers = _login(http, kind, base)

    def get(path):
        answer = http.get(base + path, headers=headers, timeout=10)
        answer.raise_for_status()
        return answer.json()

    if kind == "ts_analyzer":
        profiles = get("/api/profiles")
        names = {p["id"]: p["name"] for p in profiles}
        inputs = [{"name": i["name"], "config": i["config"], "profile": names.get(i["alerts_config"]["profile_id"]),
                   "pid_error_list": i["alerts_config"]["pid_error_list"], "monitoring": i["monitoring"],
                   "scte35": i["scte35"], "thumbnails": i["thumbnails"]} for i in get("/api/inputs")]
        return {"snmp": get("/api/snmp/settings"), "profiles": sorted(({"name": p["name"], "entries": p["entries"]}
                                                                       for p in profiles), key=lambda p: p["name"]),
                "inputs": sorted(inputs, key=lambda i: i["name"])}
    # state: the active schedule sets the operating state by the time of day
    volatile = ("tuned", "signal_ok", "quality", "rds", "station_id", "state")
    tuners = []
    for raw in get("/api/tuners/all"):
        tuner = {k: v for k, v in raw.items() if k not in volatile}
        tuner["stream"] = {k: v for k, v in raw["stream"].items() if k != "measured_bitrate"}
        tuner["thresholds"] = raw["thresholds"]
        tuners.append(tuner)
    return {"tuners": tuners}


def differences(expected, actual, path=""):
    """Paths where two snapshots differ (at most a few per device, for a loud message)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in sorted(set(expected) | set(actual), key=str):
            out += differences(expected.get(key), actual.get(key), "%s.%s" % (path, key) if path else str(key))
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        out = []
        for index, (left, right) in enumerate(zip(expected, actual)):
            out += differences(left, right, "%s[%d]" % (path, index))
        return out
    return [] if expected == actual else ["%s: %s != %s" % (path, _short(expected), _short(actual))]


def _short(value):
    text = json.dumps(value, sort_keys=True)
    return text if len(text) < 80 else text[:77] + "..."


class Ansible:
    """Runs playbooks against the simulator's inventory plus a group_vars directory."""

    def __init__(self, workdir, collections_path, forks):
        self.workdir, self.collections_path, self.forks = workdir, collections_path, forks
        self.runs = 0

    def environment(self, strategy):
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # the collection comes from the collections path only
        env.update({
            "ANSIBLE_COLLECTIONS_PATH": self.collections_path,
            "ANSIBLE_CALLBACK_PLUGINS": os.path.join(HERE, "callback_plugins"),
            "ANSIBLE_CALLBACKS_ENABLED": "bench_count",
            "ANSIBLE_FORKS": str(self.forks),
            "ANSIBLE_NOCOLOR": "1",
            "ANSIBLE_RETRY_FILES_ENABLED": "0",
            "ANSIBLE_LOCALHOST_WARNING": "0",
            "ANSIBLE_INVENTORY_UNPARSED_WARNING": "0",
            "ANSIBLE_HOST_KEY_CHECKING": "0",
        })
        if strategy == "mitogen":
            env["ANSIBLE_STRATEGY_PLUGINS"] = mitogen_strategy_dir()
            env["ANSIBLE_STRATEGY"] = "mitogen_linear"
        return env

    def counted_interpreter(self):
        """An interpreter for modules that notes each module process it starts (in the file
        $BENCH_PROCESS_LOG) and then runs this Python: direct execution starts none."""
        path = os.path.join(self.workdir, "counted-python")
        if not os.path.exists(path):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write('#!/bin/sh\necho "$@" >> "$BENCH_PROCESS_LOG"\nexec %s "$@"\n' % sys.executable)
            os.chmod(path, 0o755)
        return path

    def playbook(self, playbook, inventories, strategy, label, extra=(), env_extra=None):
        """One ansible-playbook run: wall and CPU seconds, exit code, per-host counts, module
        processes started, the largest process's peak memory."""
        self.runs += 1
        stem = os.path.join(self.workdir, "%02d-%s" % (self.runs, label))
        env = self.environment(strategy)
        env["BENCH_COUNT_FILE"] = stem + ".counts.json"
        env["BENCH_PROCESS_LOG"] = stem + ".processes"
        env.update(env_extra or {})
        command = [os.path.join(BIN, "ansible-playbook"), playbook] + [a for i in inventories for a in ("-i", i)]
        command += ["-e", "ansible_python_interpreter=%s" % self.counted_interpreter()] + list(extra)
        with open(stem + ".log", "w", encoding="utf-8") as log:
            started = time.perf_counter()
            proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
            # wait4 gives the CPU time of the whole tree the run reaped (forks, module processes)
            status, usage = os.wait4(proc.pid, 0)[1:]
            wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        counts, tasks = {}, []
        if os.path.exists(stem + ".counts.json"):
            with open(stem + ".counts.json", encoding="utf-8") as handle:
                found = json.load(handle)
            counts, tasks = found["hosts"], found["tasks"]
        with open(stem + ".log", encoding="utf-8") as handle:
            tail = handle.read()[-3000:]
        processes = {"ours": 0, "other": 0}  # of this collection's modules; of others (ping, copy of a report)
        if os.path.exists(stem + ".processes"):
            with open(stem + ".processes", encoding="utf-8") as handle:
                for line in handle:
                    if "AnsiballZ_" in line:
                        name = line.split("AnsiballZ_", 1)[1].split(".py", 1)[0]
                        processes["ours" if name in OUR_MODULES else "other"] += 1
        return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "rc": proc.returncode, "counts": counts,
                "tasks": tasks, "module_processes": processes, "peak_rss_mb": usage.ru_maxrss / 1024.0,
                "log": stem + ".log", "tail": tail}


def floor_playbook(path, invocations):
    """A playbook with the given number of ansible.builtin.ping tasks per group."""
    plays = []
    for group, count in invocations.items():
        plays.append({"name": "Floor: %d ping(s) per device of %s" % (count, group), "hosts": group,
                      "gather_facts": False,
                      "tasks": [{"name": "Ping %d" % (i + 1), "ansible.builtin.ping": None} for i in range(count)]})
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\n# Generated by tests/benchmarks: as many module invocations per device as site.yml made.\n")
        yaml.safe_dump(plays, handle, default_flow_style=False, sort_keys=False)
    return path


def recap_failures(tail):
    """Hosts the PLAY RECAP shows as failed or unreachable."""
    bad = []
    for host, counts in re.findall(r"^(\S+)\s+:\s+(ok=.*)$", tail, re.M):
        numbers = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", counts)}
        if numbers.get("failed") or numbers.get("unreachable"):
            bad.append(host)
    return bad

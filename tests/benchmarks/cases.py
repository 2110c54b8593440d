"""The cases of the benchmark, run against one simulated fleet.

- ours: playbooks/site.yml with the device roles, first from factory state (converge), then
  again (idempotent), then playbooks/audit.yml; the modules run in the controller's process
  (direct execution, the default);
- ours-module: the same with direct execution turned off: every module a process of its own;
- floor: as many ansible.builtin.ping invocations per device as ours made, same inventory;
- baseline: tests/benchmarks/baseline.yml (plain uri tasks) from factory state, then again.

Each run records wall and CPU time of ansible-playbook (its whole process tree), the
simulator's CPU time during the run (shown apart, never counted as ours), module
invocations per device (callback_plugins/bench_count.py) and HTTP requests per device by
kind (the simulator's counters).
"""

import os

from . import fleet_bench

SITE = os.path.join(fleet_bench.ROOT, "playbooks", "site.yml")
AUDIT = os.path.join(fleet_bench.ROOT, "playbooks", "audit.yml")
BASELINE = os.path.join(fleet_bench.HERE, "baseline.yml")
KINDS = ("login", "read", "write", "action", "total")
#: the environment of each way of running the modules
EXECUTION = {"ours": {}, "ours-module": {"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"}}


def _group(host):
    return "ts_analyzers" if host.startswith("ts-") else "fm_monitors" if host.startswith("fm-") else None


def _mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def per_device(counts, counters, devices):
    """Invocations and requests per device: the mean over each group and over the fleet."""
    groups = {"ts_analyzers": [], "fm_monitors": []}
    for device in devices:
        groups[_group(device.name)].append(device.name)
    groups["all"] = [device.name for device in devices]
    invocations, requests_by_kind = {}, {}
    for group, names in groups.items():
        if not names:
            continue
        invocations[group] = _mean(counts.get(name, {}).get("invocations", 0) for name in names)
        requests_by_kind[group] = {kind: _mean(counters[name].get(kind, 0) for name in names) for kind in KINDS}
    return invocations, requests_by_kind


class Fleet:
    """One running simulated fleet and the runs made against it."""

    def __init__(self, sim, ansible, inventory_dir, size_label, config_label):
        self.sim, self.ansible, self.inventory_dir = sim, ansible, inventory_dir
        self.size_label, self.config_label = size_label, config_label
        self.records = []

    def run(self, playbook, case, phase, strategy, extra=(), env_extra=None):
        label = "%s-%s-%s-%s-%s" % (self.size_label, self.config_label, strategy, case, phase)
        print("  %-44s" % label, end="", flush=True)
        load_before = os.getloadavg()[0]  # other work on the machine makes wall times noisy: record it
        sim_before = self.sim.cpu_seconds()
        result = self.ansible.playbook(playbook, [self.sim.inventory, self.inventory_dir], strategy, label, extra,
                                       env_extra)
        sim_cpu = self.sim.cpu_seconds() - sim_before
        counters = self.sim.counters()
        invocations, requests_by_kind = per_device(result["counts"], counters, self.sim.devices)
        hosts = result["counts"]
        record = {
            "devices": len(self.sim.devices), "ts": self.sim.ts, "fm": self.sim.fm, "config": self.config_label,
            "strategy": strategy, "case": case, "phase": phase, "wall_s": round(result["wall_s"], 3),
            "cpu_s": round(result["cpu_s"], 3), "sim_cpu_s": round(sim_cpu, 3), "rc": result["rc"],
            "failed_hosts": sorted(h for h, c in hosts.items() if c["failed"] or c["unreachable"]),
            "changed_hosts": sorted(h for h, c in hosts.items() if c["changed"] and _group(h)),
            "invocations_per_device": invocations, "requests_per_device": requests_by_kind,
            "module_processes_per_device": round(result["module_processes"]["ours"] / len(self.sim.devices), 3),
            "other_module_processes": result["module_processes"]["other"],
            "all_module_processes_per_device": round(sum(result["module_processes"].values()) / len(self.sim.devices), 3),
            "peak_rss_mb": round(result["peak_rss_mb"], 1), "sim_peak_rss_mb": self.sim.peak_rss_mb(),
            "logins_max": max((c.get("login", 0) for c in counters.values()), default=0),
            "logins_min": min((c.get("login", 0) for c in counters.values()), default=0),
            "load_1m_before": round(load_before, 2), "load_1m_after": round(os.getloadavg()[0], 2),
            "log": os.path.relpath(result["log"], fleet_bench.ROOT),
            "task_wall_s": task_breakdown(result["tasks"], result["wall_s"]),
            # the actions that ran a module somewhere (the others were skipped or controller-only)
            "invoked_actions": sorted({a for c in hosts.values() for a in c.get("by_action", {})}),
        }
        if result["rc"] != 0 or not hosts:
            record["failed_hosts"] = record["failed_hosts"] or ["(run failed)"]
            print("\n!!! %s failed (rc=%d); log: %s\n%s" % (label, result["rc"], result["log"], result["tail"][-1500:]))
        print("wall %7.1f s  cpu %7.1f s  sim cpu %5.1f s  inv/dev %5.1f  proc/dev %4.1f  req/dev %5.1f (writes %.1f)" % (
            record["wall_s"], record["cpu_s"], record["sim_cpu_s"], invocations.get("all", 0),
            record["all_module_processes_per_device"], requests_by_kind["all"]["total"], requests_by_kind["all"]["write"]))
        self.records.append(record)
        return record

    def ours(self, strategy, audit=True, reference=None, case="ours"):
        """Converge, idempotent run and audit; returns the devices' state after converging.
        ``case``: ours (direct execution) or ours-module (module processes)."""
        env = EXECUTION[case]
        self.sim.reset()
        converge = self.run(SITE, case, "converge", strategy, env_extra=env)
        state = self.sim.snapshot()
        if reference is not None:
            converge["state_mismatches"] = self.compare(reference, state, "%s (%s) after converge" % (case, strategy))
        self.sim.clear()
        self.run(SITE, case, "idempotent", strategy, env_extra=env)
        if audit:
            self.sim.clear()
            report = os.path.join(self.ansible.workdir, "audit-%s-%s.json" % (self.size_label, strategy))
            self.run(AUDIT, case, "audit", strategy, extra=("-e", "audit_report=%s" % report), env_extra=env)
        return state

    def floor(self, strategy, invocations):
        self.sim.clear()  # ping sends nothing; the devices keep the declared state for what follows
        path = fleet_bench.floor_playbook(os.path.join(self.ansible.workdir, "floor-%s.yml" % self.size_label),
                                          invocations)
        return self.run(path, "floor", "run", strategy)

    def baseline(self, strategy, reference, phases=("converge", "idempotent")):
        """Runs of the uri playbook, each checked against the state ours left. Without the
        converge phase, its second run is measured on devices ours already converged (the
        state is the same; converging with uri at every size would cost most of the budget)."""
        if "converge" in phases:
            self.sim.reset()
        for phase in phases:
            self.sim.clear()
            record = self.run(BASELINE, "baseline", phase, strategy)
            record["state_mismatches"] = self.compare(reference, self.sim.snapshot(),
                                                      "baseline (%s) after %s" % (strategy, phase))

    @staticmethod
    def compare(reference, state, what):
        """Differences from the reference state, printed loudly; the count goes into the JSON."""
        problems = []
        for name in sorted(reference):
            for diff in fleet_bench.differences(reference[name], state.get(name))[:5]:
                problems.append("%s %s" % (name, diff))
        if problems:
            print("\n" + "!" * 78)
            print("!!! STATE MISMATCH: %s differs from the state site.yml leaves (%d difference(s)):" % (
                what, len(problems)))
            for line in problems[:20]:
                print("!!!   " + line)
            print("!" * 78)
        return problems


def task_breakdown(tasks, wall):
    """Wall seconds by kind of task: module tasks by action, controller-only tasks, and the
    rest of the run (start-up: parsing, inventory, forks; and the end)."""
    out = {}
    for task in tasks:
        key = task["action"]
        out[key] = round(out.get(key, 0.0) + task["wall_s"], 3)
    out["(outside tasks)"] = round(wall - sum(t["wall_s"] for t in tasks), 3)
    return out


def ours_invocations(record):
    """Invocations per device of each group in a run of ours, rounded (for the floor)."""
    return {group: int(round(value)) for group, value in record["invocations_per_device"].items() if group != "all"}

"""The arithmetic of the cost benchmark (tests/benchmarks/cost.py), apart so that unit tests can
check it (tests/unit/test_bench_figures.py): the PLAY RECAP read back, whether a run counts, the
paired ratio against Ansible's set_fact floor and its verdicts, the growth with the fleet, and
the CPU the machine spent on other work during a run. Standard library only.
"""

import re

#: issue 44: an idempotent site.yml costs at most this many times one set_fact task over the same hosts (CPU)
FLOOR_RATIO_MAX = 4.5
#: issue 44: the idempotent run of the benchmark's full fleet takes at most this long on a quiet machine
WALL_MAX_S = 60.0
#: the full fleet of the issue
FULL_FLEET = 1000
#: a run counts as measured on a quiet machine when other processes used at most this share of the cores
QUIET_OTHERS_MAX = 0.10

_RECAP_LINE = re.compile(r"^(\S+)\s+:\s+((?:\w+=\d+\s*)+)$")
_COUNT = re.compile(r"(\w+)=(\d+)")
#: /proc/stat's cpu line: user nice system idle iowait irq softirq steal (guest time is inside user)
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)


def parse_recap(text):
    """{host: {ok, changed, unreachable, failed, skipped, rescued, ignored}} from the last PLAY RECAP
    of an ansible-playbook log; {} when there is none (the run ended before it)."""
    if "PLAY RECAP" not in text:
        return {}
    hosts = {}
    for line in text.rsplit("PLAY RECAP", 1)[1].splitlines()[1:]:
        match = _RECAP_LINE.match(line.strip())
        if match:
            hosts[match.group(1)] = {key: int(value) for key, value in _COUNT.findall(match.group(2))}
        elif hosts and line.strip():
            break  # the recap ends at the first line that is not a host's counts
    return hosts


def outcome(recap, devices, rc, allow_changed=False):
    """What makes a run's figures unusable, as sentences (empty: the run counts): an exit code other
    than 0, a device missing from the recap, a device failed, unreachable, changed (unless
    ``allow_changed``: a converging run) or with an ignored failure. ``devices``: the inventory
    names the run was given."""
    problems = []
    if rc != 0:
        problems.append("ansible-playbook exited %d" % rc)
    missing = sorted(set(devices) - set(recap))
    if missing:
        problems.append("%d of %d device(s) not in the PLAY RECAP (%s)" % (len(missing), len(devices), _names(missing)))
    for key, word in (("failed", "failed"), ("unreachable", "unreachable"), ("ignored", "failed (ignored)"),
                      ("changed", "changed")):
        if key == "changed" and allow_changed:
            continue
        hosts = sorted(h for h in devices if recap.get(h, {}).get(key))
        if hosts:
            problems.append("%d device(s) %s (%s)" % (len(hosts), word, _names(hosts)))
    return problems


def _names(hosts, shown=3):
    return ", ".join(hosts[:shown]) + (", ..." if len(hosts) > shown else "")


def pair_orders(rounds):
    """Which run goes first in each pair: site.yml first, then the floor first, in turn, so that
    a machine getting busier or quieter during the series weighs on both alike."""
    return [("site", "floor") if index % 2 == 0 else ("floor", "site") for index in range(rounds)]


def busy_seconds(stat_text, ticks_per_second):
    """CPU seconds the whole machine has been busy (all cores), from the text of /proc/stat."""
    for line in stat_text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(v) for v in fields[1:]]
            return sum(values[i] for i in _BUSY_FIELDS if i < len(values)) / float(ticks_per_second)
    raise ValueError("no aggregate cpu line in /proc/stat")


def others_share(busy_s, ours_cpu_s, sim_cpu_s, wall_s, cores):
    """The share of the machine's cores that other processes used during a run: the machine's busy
    CPU time less the run's own process tree and the simulator's, over wall x cores."""
    if wall_s <= 0 or cores <= 0:
        return 0.0
    return max(0.0, busy_s - ours_cpu_s - sim_cpu_s) / (wall_s * cores)


def summarize(devices, pairs, limit=FLOOR_RATIO_MAX):
    """The paired figures of one fleet size. ``pairs``: [{"site": run, "floor": run}], each run a
    dict with wall_s, cpu_s and problems (outcome()). The ratio is the sum of site.yml's CPU over
    the sum of the floor's, over every pair; each pair's own ratio shows the spread."""
    if not pairs:
        raise ValueError("no pairs measured")
    site_cpu = sum(p["site"]["cpu_s"] for p in pairs)
    floor_cpu = sum(p["floor"]["cpu_s"] for p in pairs)
    if floor_cpu <= 0:
        raise ValueError("the floor runs used no CPU: nothing to compare with")
    problems = []
    for number, pair in enumerate(pairs, start=1):
        for case in ("site", "floor"):
            problems += ["pair %d, %s: %s" % (number, "site.yml" if case == "site" else "set_fact floor", p)
                         for p in pair[case].get("problems", [])]
    ratio = site_cpu / floor_cpu
    return {
        "devices": devices, "pairs": len(pairs),
        "site_cpu_ms_per_device": 1000.0 * site_cpu / len(pairs) / devices,
        "floor_cpu_ms_per_device": 1000.0 * floor_cpu / len(pairs) / devices,
        "ratio": ratio, "pair_ratios": [p["site"]["cpu_s"] / p["floor"]["cpu_s"] for p in pairs],
        "site_wall_s": [p["site"]["wall_s"] for p in pairs], "floor_wall_s": [p["floor"]["wall_s"] for p in pairs],
        "site_cpu_s": [p["site"]["cpu_s"] for p in pairs], "floor_cpu_s": [p["floor"]["cpu_s"] for p in pairs],
        "limit": limit, "clean": not problems, "problems": problems,
        # a ratio from runs that failed or changed devices measures something else: never a pass
        "ratio_pass": ratio <= limit and not problems,
    }


def wall_verdict(wall_s, others, devices, limit_s=WALL_MAX_S, quiet_max=QUIET_OTHERS_MAX, full_fleet=FULL_FLEET):
    """PASS, FAIL or NOT JUDGED for the issue's wall-time limit (the full fleet on a quiet machine),
    with the reason. ``others``: the share of the cores other processes used during the run."""
    if devices != full_fleet:
        return "NOT JUDGED", "the limit is for %d devices, this fleet has %d" % (full_fleet, devices)
    if wall_s <= limit_s:
        return "PASS", "%.1f s <= %.0f s" % (wall_s, limit_s)
    if others > quiet_max:
        return "NOT JUDGED", ("%.1f s > %.0f s, but other processes used %.0f%% of the cores during the run"
                              " (quiet: at most %.0f%%): run it again on a quiet machine" % (
                                  wall_s, limit_s, 100 * others, 100 * quiet_max))
    return "FAIL", "%.1f s > %.0f s on a quiet machine (other processes %.0f%% of the cores)" % (
        wall_s, limit_s, 100 * others)


def linear_fit(points):
    """Least-squares line through [(devices, seconds)]: (fixed seconds, seconds per device)."""
    points = list(points)
    xs, ys = [x for x, y in points], [y for x, y in points]
    if len(set(xs)) < 2:
        raise ValueError("a line needs at least two fleet sizes")
    mean_x, mean_y = sum(xs) / float(len(xs)), sum(ys) / float(len(ys))
    slope = (sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
             / sum((x - mean_x) ** 2 for x in xs))
    return mean_y - slope * mean_x, slope


def slicing(one, sliced, cores):
    """What AWX slices gain, from runs on one machine (tests/benchmarks/distributed.py). ``one``: the
    idempotent run on one controller ({devices, wall_s, cpu_s}); ``sliced``: runs of N slices at once
    through the runner pipeline ({slices, devices, cpu_s, per_slice: [{cpu_s}]}), same fleet.

    Measured: the extra CPU per device the pipeline and each slice's start-up cost. Extrapolated
    (stated so wherever shown): the wall time with each slice on an execution node of its own, that
    node's cores as busy as the one controller kept this machine's (its CPU / wall, at most
    ``cores``): the largest slice's CPU over that."""
    parallel = min(float(cores), one["cpu_s"] / one["wall_s"])
    out = []
    for run in sorted(sliced, key=lambda r: r["slices"]):
        if run["devices"] != one["devices"]:
            continue
        largest = max(s["cpu_s"] for s in run["per_slice"])
        wall = largest / parallel
        out.append({"slices": run["slices"], "extra_cpu_ms_per_device": 1000.0 * (run["cpu_s"] - one["cpu_s"]) / one["devices"],
                    "extra_cpu_s_per_slice": (run["cpu_s"] - one["cpu_s"]) / run["slices"],
                    "largest_slice_cpu_s": largest, "cores_busy": parallel, "estimated_wall_s": wall,
                    "estimated_speedup": one["wall_s"] / wall})
    return out

"""The arithmetic of the cost benchmark (tests/benchmarks/figures.py): the PLAY RECAP read back,
which runs count, the paired ratio against the set_fact floor and its verdicts."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.tests.benchmarks import figures

RECAP = """\
TASK [broadcast.monitoring.fm_monitor : Apply the declared state of the FM monitor] ****
ok: [fm-001]
ok: [ts-001]

PLAY RECAP *********************************************************************
fm-001                     : ok=3    changed=0    unreachable=0    failed=0    skipped=6    rescued=0    ignored=0
ts-001                     : ok=2    changed=1    unreachable=0    failed=0    skipped=7    rescued=0    ignored=0
ts-002                     : ok=1    changed=0    unreachable=1    failed=0    skipped=0    rescued=0    ignored=0
ts-003                     : ok=1    changed=0    unreachable=0    failed=1    skipped=0    rescued=0    ignored=1

"""


def test_recap_counts_per_host():
    recap = figures.parse_recap(RECAP)
    assert sorted(recap) == ["fm-001", "ts-001", "ts-002", "ts-003"]
    assert recap["fm-001"] == {"ok": 3, "changed": 0, "unreachable": 0, "failed": 0, "skipped": 6, "rescued": 0,
                               "ignored": 0}
    assert recap["ts-001"]["changed"] == 1
    assert recap["ts-003"]["ignored"] == 1


def test_recap_is_the_last_one_and_ends_at_other_text():
    text = RECAP.replace("ts-001 ", "old-1 ") + "PLAY RECAP ****\nfm-009  : ok=1 changed=0 failed=0\n\nwarning: x\n" \
                                                "ts-666  : ok=1 changed=1 failed=0\n"
    assert figures.parse_recap(text) == {"fm-009": {"ok": 1, "changed": 0, "failed": 0}}


def test_no_recap_is_no_hosts():
    assert figures.parse_recap("ERROR! the playbook could not be parsed\n") == {}


def test_a_clean_run_counts():
    recap = figures.parse_recap(RECAP)
    assert figures.outcome(recap, ["fm-001"], 0) == []


def test_every_kind_of_problem_is_named():
    recap = figures.parse_recap(RECAP)
    problems = figures.outcome(recap, ["fm-001", "ts-001", "ts-002", "ts-003", "ts-004"], 2)
    assert problems == [
        "ansible-playbook exited 2",
        "1 of 5 device(s) not in the PLAY RECAP (ts-004)",
        "1 device(s) failed (ts-003)",
        "1 device(s) unreachable (ts-002)",
        "1 device(s) failed (ignored) (ts-003)",
        "1 device(s) changed (ts-001)",
    ]


def test_a_converging_run_may_change_devices_but_not_fail_them():
    recap = figures.parse_recap(RECAP)
    assert figures.outcome(recap, ["fm-001", "ts-001"], 0, allow_changed=True) == []
    assert figures.outcome(recap, ["ts-001", "ts-003"], 0, allow_changed=True) == [
        "1 device(s) failed (ts-003)", "1 device(s) failed (ignored) (ts-003)"]


def test_a_run_without_recap_counts_no_device():
    assert figures.outcome({}, ["ts-%03d" % i for i in range(1, 6)], 4) == [
        "ansible-playbook exited 4", "5 of 5 device(s) not in the PLAY RECAP (ts-001, ts-002, ts-003, ...)"]


def test_pairs_alternate_which_run_goes_first():
    assert figures.pair_orders(3) == [("site", "floor"), ("floor", "site"), ("site", "floor")]


def _run(cpu, wall=10.0, problems=()):
    return {"cpu_s": cpu, "wall_s": wall, "problems": list(problems)}


def test_ratio_is_summed_cpu_over_the_pairs():
    pairs = [{"site": _run(90.0), "floor": _run(20.0)}, {"site": _run(110.0), "floor": _run(30.0)}]
    summary = figures.summarize(1000, pairs)
    assert summary["ratio"] == pytest.approx(200.0 / 50.0)
    assert summary["pair_ratios"] == pytest.approx([4.5, 110.0 / 30.0])
    assert summary["site_cpu_ms_per_device"] == pytest.approx(100.0)
    assert summary["floor_cpu_ms_per_device"] == pytest.approx(25.0)
    assert summary["ratio_pass"] and summary["clean"]


def test_ratio_above_the_limit_fails():
    summary = figures.summarize(100, [{"site": _run(4.6), "floor": _run(1.0)}])
    assert summary["ratio"] == pytest.approx(4.6)
    assert not summary["ratio_pass"]
    assert figures.summarize(100, [{"site": _run(4.5), "floor": _run(1.0)}])["ratio_pass"]


def test_a_run_with_a_changed_device_never_passes():
    pairs = [{"site": _run(2.0, problems=["1 device(s) changed (ts-001)"]), "floor": _run(1.0)}]
    summary = figures.summarize(100, pairs)
    assert not summary["clean"] and not summary["ratio_pass"]
    assert summary["problems"] == ["pair 1, site.yml: 1 device(s) changed (ts-001)"]


def test_no_floor_cpu_is_an_error():
    with pytest.raises(ValueError):
        figures.summarize(10, [{"site": _run(1.0), "floor": _run(0.0)}])
    with pytest.raises(ValueError):
        figures.summarize(10, [])


@pytest.mark.parametrize("wall, others, devices, verdict", [
    (58.0, 0.50, 1000, "PASS"),
    (75.0, 0.02, 1000, "FAIL"),
    (75.0, 0.40, 1000, "NOT JUDGED"),  # other work took the cores: no verdict either way
    (5.0, 0.0, 100, "NOT JUDGED"),  # the limit is for the full fleet
])
def test_wall_verdict(wall, others, devices, verdict):
    assert figures.wall_verdict(wall, others, devices)[0] == verdict


def test_busy_seconds_from_proc_stat():
    text = "cpu  100 20 30 1000 40 5 5 10 0 0\ncpu0 50 10 15 500 20 2 3 5 0 0\nintr 1\n"
    # user + nice + system + irq + softirq + steal; idle and iowait are not busy
    assert figures.busy_seconds(text, 100) == pytest.approx(1.70)
    with pytest.raises(ValueError):
        figures.busy_seconds("intr 1\n", 100)


def test_others_share():
    assert figures.others_share(busy_s=30.0, ours_cpu_s=18.0, sim_cpu_s=2.0, wall_s=10.0, cores=2) == pytest.approx(0.5)
    assert figures.others_share(busy_s=19.0, ours_cpu_s=18.0, sim_cpu_s=2.0, wall_s=10.0, cores=2) == 0.0


def test_linear_fit():
    fixed, per_device = figures.linear_fit([(10, 3.0), (100, 21.0), (1000, 201.0)])
    assert fixed == pytest.approx(1.0)
    assert per_device == pytest.approx(0.2)
    with pytest.raises(ValueError):
        figures.linear_fit([(10, 1.0), (10, 2.0)])


def test_slicing_extra_cpu_and_estimated_wall():
    one = {"devices": 1000, "wall_s": 100.0, "cpu_s": 180.0}  # 1.8 cores busy
    sliced = [{"slices": 4, "devices": 1000, "cpu_s": 240.0, "per_slice": [{"cpu_s": 55.0}, {"cpu_s": 63.0},
                                                                           {"cpu_s": 61.0}, {"cpu_s": 61.0}]},
              {"slices": 2, "devices": 1000, "cpu_s": 220.0, "per_slice": [{"cpu_s": 108.0}, {"cpu_s": 112.0}]},
              {"slices": 2, "devices": 200, "cpu_s": 50.0, "per_slice": [{"cpu_s": 25.0}, {"cpu_s": 25.0}]}]
    two, four = figures.slicing(one, sliced, cores=2)  # the 200-device run is another fleet: left out
    assert two["slices"] == 2 and four["slices"] == 4
    assert two["extra_cpu_ms_per_device"] == pytest.approx(40.0)
    assert four["extra_cpu_s_per_slice"] == pytest.approx(15.0)
    assert four["largest_slice_cpu_s"] == 63.0
    assert four["estimated_wall_s"] == pytest.approx(63.0 / 1.8)
    assert four["estimated_speedup"] == pytest.approx(100.0 / (63.0 / 1.8))


def test_slicing_never_counts_more_cores_than_the_machine_has():
    one = {"devices": 10, "wall_s": 1.0, "cpu_s": 5.0}  # a tree's CPU over a short wall can exceed the cores
    (only,) = figures.slicing(one, [{"slices": 2, "devices": 10, "cpu_s": 6.0,
                                     "per_slice": [{"cpu_s": 3.0}, {"cpu_s": 3.0}]}], cores=2)
    assert only["cores_busy"] == 2.0 and only["estimated_wall_s"] == pytest.approx(1.5)

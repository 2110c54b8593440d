"""fm_actions end to end: downloads, alert log and monitor output of a simulated FM monitor."""

import os

from .tasks import ok, run_examples, task, writes

BASE = 1704103200  # 2024-01-01T10:00:00Z


def two_alerts(sim, device):
    def change():
        device.state["alerts"] = [
            {"seq": 1, "tuner_id": 0, "type": "RFL is low", "from": BASE, "till": BASE + 30},
            {"seq": 2, "tuner_id": 4, "type": "SNR is low", "from": BASE + 60, "till": BASE + 90},
        ]
        device.state["alert_seq"] = 2
        device._index_alerts()  # pylint: disable=protected-access

    sim.call(change)


def monitor(sim, device):
    return sim.call(lambda: dict(device.state["monitor"]))


def test_downloads_clearing_and_monitor_change_only_when_something_changes(play, sim, fm, tmp_path):
    two_alerts(sim, fm)
    csv, mib = str(tmp_path / "alerts.csv"), str(tmp_path / "mib.txt")
    everything = dict(alerts_csv={"dest": csv}, mib={"dest": mib}, clear_alerts=True, monitor={"tuner_id": 3})
    out = play.run([
        task("fm_actions", fm, role="user", **everything),
        task("fm_actions", fm, role="user", **everything),
        task("fm_actions", fm, role="user", **everything),
        task("fm_actions", fm, role="user", monitor={"tuner_id": 3, "muted": True}),
        task("fm_actions", fm, role="user", monitor={"tuner_id": 3}),
    ], fm.name, diff=True)
    first, second, third, muted, kept = (ok(r) for r in out.results)
    assert first["changed"] is True and first["cleared"] == 2
    assert first["downloads"]["alerts_csv"]["changed"] is True and first["downloads"]["alerts_csv"]["before"] is None
    assert first["monitor"] == {"before": {"tuner_id": 0, "muted": False}, "after": {"tuner_id": 3, "muted": False}}
    assert first["diff"]["before"]["alerts"] == 2 and first["diff"]["after"]["monitor"]["tuner_id"] == 3
    # the log is empty now: the CSV shrinks to its header, nothing else changes
    assert second["changed"] is True and second["downloads"]["alerts_csv"]["changed"] is True
    assert second["downloads"]["mib"]["changed"] is False and second["cleared"] == 0
    assert third["changed"] is False, third
    assert muted["changed"] is True and muted["monitor"]["after"] == {"tuner_id": 3, "muted": True}
    assert kept["changed"] is False
    with open(csv, encoding="utf-8") as handle:
        assert handle.read() == "tuner_id,type,from,till\n"
    with open(mib, encoding="utf-8") as handle:
        assert handle.read().startswith("FM-MONITOR-MIB DEFINITIONS ::= BEGIN")
    assert monitor(sim, fm) == {"tuner_id": 3, "mute": 16}
    assert writes(sim, fm) == [("DELETE", "/api/alerts"), ("POST", "/api/monitor"), ("POST", "/api/monitor")]


def test_csv_holds_the_alerts_in_the_order_asked(play, sim, fm, tmp_path):
    two_alerts(sim, fm)
    dest = str(tmp_path / "newest-first.csv")
    ok(play.run([task("fm_actions", fm, alerts_csv={"dest": dest, "order": "desc"})], fm.name)[0])
    with open(dest, encoding="utf-8") as handle:
        assert handle.read().splitlines() == ["tuner_id,type,from,till", "4,SNR is low,2024-01-01T10:01:00Z,2024-01-01T10:01:30Z",
                                              "0,RFL is low,2024-01-01T10:00:00Z,2024-01-01T10:00:30Z"]


def test_check_mode_writes_neither_device_nor_file(play, sim, fm, tmp_path):
    two_alerts(sim, fm)
    dest = str(tmp_path / "alerts.csv")
    options = dict(alerts_csv={"dest": dest}, clear_alerts=True, monitor={"tuner_id": 5, "muted": True})
    checked = ok(play.run([task("fm_actions", fm, **options)], fm.name, check=True, diff=True)[0])
    assert checked["changed"] is True and checked["cleared"] == 2
    assert checked["monitor"]["after"] == {"tuner_id": 5, "muted": True}
    assert not os.path.exists(dest)
    assert writes(sim, fm, status=True) == []
    assert monitor(sim, fm) == {"tuner_id": 0, "mute": 0}
    real = ok(play.run([task("fm_actions", fm, **options)], fm.name, diff=True)[0])
    assert real["diff"] == checked["diff"] and real["cleared"] == 2 and os.path.exists(dest)


def test_bad_input_fails_before_any_write(play, sim, fm, tmp_path):
    two_alerts(sim, fm)
    out = play.run([
        task("fm_actions", fm, clear_alerts=True, monitor={"tuner_id": 9}),
        task("fm_actions", fm, alerts_csv={"dest": str(tmp_path / "no" / "such" / "folder.csv")}, clear_alerts=True),
        task("fm_actions", fm, mib={"dest": str(tmp_path)}, clear_alerts=True, monitor={"tuner_id": -1}),
        task("fm_actions", fm, alerts_csv={"order": "asc"}),
    ], fm.name)
    assert "monitor.tuner_id: the device has no tuner 9 (it has 0 to 7)" in out[0]["msg"]
    assert "alerts_csv.dest: the folder %s does not exist" % (tmp_path / "no" / "such") in out[1]["msg"]
    assert "mib.dest: %s is a directory; give the file to write" % tmp_path in out[2]["msg"]
    assert "monitor.tuner_id: must be >= 0, got -1" in out[2]["msg"]
    assert "missing required arguments: dest" in out[3]["msg"]
    assert all(r["failed"] is True for r in out.results)
    assert writes(sim, fm, status=True) == []


def test_documented_examples_run_as_written(play, sim, fm):
    for leftover in ("/tmp/fm-001-alerts.csv", "/tmp/FM-MONITOR-MIB.txt"):
        if os.path.exists(leftover):
            os.remove(leftover)
    two_alerts(sim, fm)
    out = run_examples(play, "fm_actions", fm)
    assert [r["changed"] for r in out.results] == [True, True, True]
    assert out[0]["cleared"] == 2 and out[0]["downloads"]["alerts_csv"]["dest"] == "/tmp/fm-001-alerts.csv"
    assert monitor(sim, fm) == {"tuner_id": 3, "mute": 0}

"""fm_info end to end: what it reads from a simulated FM monitor, and that it never writes."""

from .tasks import ok, run_examples, task, writes

BASE = 1704103200  # 2024-01-01T10:00:00Z
ALERTS = [(0, "RFL is low", 0), (1, "SNR is low", 60), (0, "SNR is low", 120), (2, "Multipath is high", 180),
          (1, "RFL is low", 240)]


def prepare(sim, device):
    """Five closed alerts, a streaming tuner, a station and some log entries."""
    def change():
        device.state["alerts"] = [{"seq": i + 1, "tuner_id": tid, "type": kind, "from": BASE + at, "till": BASE + at + 30}
                                  for i, (tid, kind, at) in enumerate(ALERTS)]
        device.state["alert_seq"] = len(ALERTS)
        device._index_alerts()  # pylint: disable=protected-access
        device.state["tuners"][2]["stream"]["enabled"] = True
        device.state["tuners"][2]["name"] = "Streamer"
        device.state["stations"] = [{"station_id": 0, "frequency": 90100, "rssi": 40, "snr": 20,
                                     "timestamp": "2024-01-01T09:00:00Z"}]
        for number in range(5):
            device.log("info", "test entry %d" % number)
        return [entry["id"] for entry in device.state["log"]]

    return sim.call(change)


def info(device, role="user", **options):
    return task("fm_info", device, role=role, **options)


def stamp(at):
    return "2024-01-01T10:%02d:00Z" % (at // 60)


def test_subsets_filters_and_pages(play, sim, fm):
    log_ids = prepare(sim, fm)
    out = play.run([
        info(fm),
        info(fm, gather_subset=["all"]),
        info(fm, gather_subset=["alerts"], alerts={"types": ["RFL is low"], "tuner_ids": [0, 1], "order": "asc"}),
        info(fm, gather_subset=["alerts"], alerts={"since": stamp(60), "until": BASE + 180, "order": "asc"}),
        info(fm, gather_subset=["alerts"], alerts={"limit": 2, "all_pages": True, "sort_by": "tuner_id", "order": "asc"}),
        info(fm, gather_subset=["alerts"], alerts={"limit": 2, "offset": 2}),
        info(fm, gather_subset=["log"], log={"from_id": log_ids[-4], "till_id": log_ids[-1]}),
        info(fm, gather_subset=["log"], log={"limit": 2}),
        info(fm, gather_subset=["!conf", "!tuners", "!log"]),
        info(fm, gather_subset=["tuners", "colours"]),
        info(fm, gather_subset=["alerts"], alerts={"since": "yesterday", "limit": -1}),
    ], fm.name)
    minimal, everything = ok(out[0]), ok(out[1])
    assert sorted(k for k in minimal if k not in ("changed", "requests", "failed")) == ["status", "tuners"]
    assert minimal["changed"] is False and minimal["requests"] == {"login": 1, "read": 2, "write": 0}
    assert minimal["status"]["tuners"] == 8 and minimal["status"]["versions"]["package_ver"] == "1.0.0"
    two = minimal["tuners"][2]
    assert two["name"] == "Streamer" and two["stream"]["enabled"] is True and two["operating_state"] == "disabled"
    assert two["thresholds"]["rssi"] == {"min": 20, "max": 127, "margin": 2}
    assert two["schedule"]["events"]["monday"] == [] and set(two["measured"]) >= {"tuned", "quality", "rds"}
    for key in ("status", "tuners", "stations", "alerts", "log", "playlist", "valid_bitrates", "network", "datetime",
                "log_config", "conf"):
        assert key in everything, key
    assert everything["stations"][0]["frequency"] == 90100
    assert everything["valid_bitrates"] == [64, 96, 128, 192, 256, 320]
    assert everything["playlist"]["tracks"] == [{"title": "Streamer", "location": "udp://239.1.1.3:1234"}]
    assert everything["conf"]["version"] == 1 and everything["log_config"]["level"] == "info"
    assert everything["network"]["hostname"] == "fm-001" and "timezone" in everything["datetime"]
    assert everything["alerts"]["total"] == 5
    assert [a["type"] for a in everything["alerts"]["alerts"]][0] == "RFL is low"  # newest first
    assert everything["alerts"]["alerts"][0] == {"tuner_id": 1, "type": "RFL is low", "from": stamp(240),
                                                 "till": "2024-01-01T10:04:30Z"}
    assert [(a["tuner_id"], a["from"]) for a in ok(out[2])["alerts"]["alerts"]] == [(0, stamp(0)), (1, stamp(240))]
    assert [a["from"] for a in ok(out[3])["alerts"]["alerts"]] == [stamp(60), stamp(120), stamp(180)]
    paged = ok(out[4])["alerts"]
    assert paged["pages"] == 3 and paged["total"] == 5
    assert [(a["tuner_id"], a["from"]) for a in paged["alerts"]] == [
        (0, stamp(0)), (0, stamp(120)), (1, stamp(60)), (1, stamp(240)), (2, stamp(180))]
    page = ok(out[5])["alerts"]
    assert page["pages"] == 1 and page["total"] == 5 and [a["from"] for a in page["alerts"]] == [stamp(120), stamp(60)]
    assert [e["id"] for e in ok(out[6])["log"]] == log_ids[-4:-1]
    assert [e["msg"] for e in ok(out[7])["log"]] == ["test entry 3", "test entry 4"]
    assert sorted(k for k in ok(out[8]) if k not in ("changed", "requests", "failed")) == [
        "alerts", "datetime", "log_config", "network", "playlist", "stations", "status", "valid_bitrates"]
    assert out[9]["failed"] is True and "gather_subset: unknown subset(s) colours" in out[9]["msg"]
    assert out[10]["failed"] is True
    assert "alerts.since: must be Unix seconds or an ISO 8601 time, got 'yesterday'" in out[10]["msg"]
    assert "alerts.limit: must be >= 0, got -1" in out[10]["msg"]
    assert all(r.get("changed") is False for r in out.results)
    assert writes(sim, fm, status=True) == []


def test_check_mode_reads_the_same_and_writes_nothing(play, sim, fm):
    prepare(sim, fm)
    out = play.run([info(fm, role="admin", gather_subset=["all", "!status", "!tuners"])], fm.name, check=True, diff=True)
    checked = ok(out[0])
    assert checked["changed"] is False and checked["alerts"]["total"] == 5 and "conf" in checked
    assert writes(sim, fm, status=True) == []


def test_documented_examples_run_as_written(play, sim, fm):
    prepare(sim, fm)
    out = run_examples(play, "fm_info", fm)
    assert [r["changed"] for r in out.results] == [False, False, False]
    assert [a["type"] for a in out[1]["alerts"]["alerts"]] == ["RFL is low", "SNR is low", "SNR is low", "RFL is low"]
    assert "conf" not in out[2] and 5 <= len(out[2]["log"]) <= 20

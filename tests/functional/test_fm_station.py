"""fm_station end to end: band scans and station deletes against a simulated FM monitor."""

import threading

import pytest

from bm_simulator.fleet import running_fleet

from .conftest import Play
from .device_api import USER, Api
from .fm_common import seed_stations, stations, tuners
from .tasks import ok, refused_before_any_write, run_examples, task, writes


def test_scan_adds_stations_once_and_check_mode_only_says_it_would_scan(play, sim, fm):
    checked = ok(play.run([task("fm_station", fm, role="user", state="scanned", tuner_id=0)], fm.name, check=True)[0])
    assert writes(sim, fm, status=True) == []
    assert checked["changed"] is True
    assert checked["msg"].startswith("check mode: a band scan of tuner 0 would run; no scan request was sent")
    out = play.run([task("fm_station", fm, role="user", state="scanned", tuner_id=0),
                    task("fm_station", fm, role="user", state="scanned", tuner_id=3)], fm.name, diff=True)
    first, second = ok(out[0]), ok(out[1])
    band = sorted(fm.band)
    assert first["changed"] is True
    assert [s["frequency"] for s in first["found"]] == band
    assert first["added"] == first["found"] == first["stations"]
    assert first["msg"] == "tuner 0 found %d station(s), %d new" % (len(band), len(band))
    assert first["requests"] == {"login": 1, "read": 2, "write": 1}
    assert second["changed"] is False and second["added"] == [] and len(second["found"]) == len(band)
    assert [(s["station_id"], s["frequency"]) for s in stations(sim, fm)] == list(enumerate(band))
    assert writes(sim, fm) == [("POST", "/api/tuner/0/scan"), ("POST", "/api/tuner/3/scan")]
    assert tuners(sim, fm)[0]["frequency"] == 87500  # a scan leaves the tuner where it was


def test_delete_by_id_frequency_or_all_and_only_when_present(play, sim, fm):
    records = seed_stations(sim, fm)
    checked = ok(play.run([task("fm_station", fm, state="absent", station_ids=[1])], fm.name, check=True, diff=True)[0])
    assert checked["changed"] is True and checked["deleted"] == [records[1]]
    assert writes(sim, fm, status=True) == []
    out = play.run([
        task("fm_station", fm, state="absent", station_ids=[1, 7]),
        task("fm_station", fm, state="absent", station_ids=[1, 7]),
        task("fm_station", fm, role="user", state="absent", frequencies=[records[2]["frequency"], 87500]),
        task("fm_station", fm, state="absent", all_stations=True),
        task("fm_station", fm, state="absent", all_stations=True),
    ], fm.name, diff=True)
    assert [ok(r)["changed"] for r in out.results] == [True, False, True, True, False]
    assert out[0]["deleted"] == [records[1]] and out[0]["stations"] == [records[0], records[2], records[3]]
    assert out[0]["stations"] == checked["stations"]
    assert out[2]["deleted"] == [records[2]]
    assert out[3]["deleted"] == [records[0], records[3]] and out[3]["stations"] == []
    assert writes(sim, fm) == [
        ("DELETE", "/api/station/1"), ("DELETE", "/api/station/2"), ("DELETE", "/api/stations/all")]
    assert stations(sim, fm) == []


BAD = [
    (dict(state="scanned"), "state is scanned but all of the following are missing: tuner_id"),
    (dict(state="scanned", tuner_id=-1), "tuner_id: must be >= 0, got -1"),
    (dict(state="scanned", tuner_id=0, scan_timeout=0), "scan_timeout: must be >= 1, got 0"),
    (dict(state="scanned", tuner_id=9), "tuner_id: the device has no tuner 9 (it has 0 to 7)"),
    (dict(state="absent"), "state: absent needs station_ids, frequencies or all_stations=true"),
    (dict(state="absent", all_stations=True, station_ids=[1]), "all_stations: deletes every record; leave out station_ids"),
    (dict(state="absent", station_ids=[-2]), "station_ids[0]: must be >= 0, got -2"),
    (dict(state="present"), "state must be one of: scanned, absent"),
]


def test_bad_input_fails_before_any_write(play, sim, fm):
    refused_before_any_write(play, sim, fm, [(task("fm_station", fm, name="bad %d" % i, **options), message)
                                             for i, (options, message) in enumerate(BAD)])
    checked = play.run([task("fm_station", fm, state="scanned", tuner_id=9)], fm.name, check=True)[0]
    assert checked["failed"] is True and "tuner_id: the device has no tuner 9 (it has 0 to 7)" in checked["msg"]


def test_documented_examples_run_as_written(play, sim, fm):
    out = run_examples(play, "fm_station", fm)
    assert [r["changed"] for r in out.results] == [True, True, True, True]
    first = out[0]["stations"][0]
    tuner = tuners(sim, fm)[1]
    assert (tuner["frequency"], tuner["station_id"], tuner["state"]) == (first["frequency"], first["station_id"], 1)
    assert out[2]["deleted"] == [first]
    assert stations(sim, fm) == []


@pytest.fixture(scope="module")
def slow_sim():
    """One FM monitor whose band scan lasts 15 s (time scale 1.5): long enough for a playbook to
    start and reach the scanning tuner on a busy machine, within the modules' busy_timeout."""
    with running_fleet(ts=0, fm=1, time_scale=1.5) as runner:
        yield runner


def play_while_scanning(sim, collections_path, tmp_path, device):
    play = Play(sim, collections_path, tmp_path)
    return play.run([
        task("fm_tuner", device, config=[{"tuner_id": 1, "name": "Other tuner"}]),
        task("fm_thresholds", device, role="user", config=[{"tuner_id": 0, "rssi_interval": 7}]),
    ], device.name)


def test_requests_to_a_scanning_tuner_wait_for_the_scan(slow_sim, collections_path, tmp_path):
    """A scan started elsewhere (the web interface, another controller: this controller's own
    writers take turns through the device lock) makes the scanning tuner answer 503: the
    modules wait it out (busy_timeout) while the other tuners answer."""
    device = slow_sim.fleet.by_name("fm-001")
    api = Api(device, **USER)
    scan = threading.Thread(target=lambda: api.post("/tuner/0/scan", timeout=60))
    scan.start()
    try:
        out = play_while_scanning(slow_sim, collections_path, tmp_path, device)
    finally:
        scan.join(60)
    other, waited = ok(out[0]), ok(out[1])
    assert other["changed"] is True and waited["changed"] is True
    log = [r for r in slow_sim.call(lambda: list(device.requests)) if r["kind"] != "login"]
    scan_end = next(r["time"] for r in log if r["path"] == "/api/tuner/0/scan")
    to_zero = [r for r in log if r["path"] == "/api/tuner/0/thresholds"]
    assert [r["status"] for r in to_zero][0] == 503 and to_zero[-1]["status"] == 200
    assert all(r["time"] < scan_end for r in to_zero[:-1]) and to_zero[-1]["time"] >= scan_end
    # the other tuners, and GET /tuners/all, answer during the scan
    assert all(r["status"] == 200 and r["time"] < scan_end for r in log if r["path"] in ("/api/tuner/1/settings",))
    assert slow_sim.call(lambda: device.state["tuners"][0]["thresholds"]["rssi_interval"]) == 7

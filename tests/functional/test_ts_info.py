"""ts_info end to end, and the user role across the analyzer modules."""

import pytest

from tests.conftest import factory_device

from .device_api import USER, Api
from .tasks import checked, clear_log, refused_before_any_write, run_examples, task, writes

SUBSETS = ["system_status", "system_device", "inputs", "pids", "tables", "epg", "epg_parameters", "rf_metrics",
           "statistics", "statistics_archive", "cas", "alerts", "ip_alerts", "metric_ranges", "metrics", "snmp",
           "converter", "sdcard", "system_network", "system_datetime", "system_timezone", "system_warnings",
           "system_log"]
NAMES = ["Mux 1", "ASI 2", "RF", "Paused"]


@pytest.fixture
def ts(sim):
    device = factory_device(sim, "ts-002")
    api = Api(device)
    api.add_input("Mux 1")
    api.add_input("ASI 2", {"asi": {"port": 2}})
    api.add_input("RF", {"rf": {"mode": 1, "frequency": 650000000, "bandwidth": 8, "plp_id": 0}})
    paused = api.add_input("Paused")
    api.get("/inputs/%d/stop" % paused["id"])
    clear_log(sim, device)
    return device


def info(device, **args):
    return task("ts_info", device, **dict(USER, **args))


def test_subsets_selectors_and_paging_with_the_user_role(play, sim, ts):
    api = Api(ts)
    pat = next(t for t in api.get("/inputs/1/tables") if t["name"] == "PAT")
    video = next(p["pid"] for p in api.get("/inputs/1/pids") if p["pcr"])
    clear_log(sim, ts)
    known = [{"input": "Mux 1", "table_id": pat["table_id"], "table_id_extension": pat["table_id_extension"],
              "revision": pat["revision"]}]
    out = play.run([
        info(ts),
        info(ts, gather_subset=["all"]),
        info(ts, gather_subset=["pids", "tables", "alerts", "ip_alerts", "metrics", "epg", "epg_parameters"],
             inputs=["Mux 1"], known_tables=known, alerts={"page": 1, "per_page": 2}, epg={"eit_type": "eit_sched"}),
        info(ts, gather_subset=["!system_log", "!alerts", "!ip_alerts", "!min"]),
        info(ts, gather_subset=["statistics_archive", "metrics", "system_log"], archive={"period": "hour"},
             metrics={"range_id": 2, "pid": video}, inputs=["Mux 1"], system_log={"limit": 3}),
        checked(info(ts, gather_subset=["all"])),
    ], ts.name)
    assert not any(r.get("failed") for r in out.results), out.results
    assert not any(r["changed"] for r in out.results)
    assert writes(sim, ts) == []
    minimal, everything, one, excluded, options, in_check = out.results
    assert minimal["gathered_subsets"] == ["system_status", "system_device", "inputs"]
    assert minimal["requests"] == {"login": 1, "read": 4, "write": 0}
    assert minimal["system_device"]["model"] == "TSA-4" and "reboot_needed" in minimal["system_status"]
    assert [i["name"] for i in minimal["inputs"]] == NAMES
    assert minimal["inputs"][0]["source"] == {"multicast": {"address": "239.1.1.1", "port": 5000}}
    assert [(i["state"], i["status"]) for i in minimal["inputs"]][3] == ("paused", "ok")
    assert minimal["inputs"][0]["scte35"] is False and minimal["inputs"][0]["alert_profile"] == "Default"

    assert everything["gathered_subsets"] == SUBSETS and in_check["gathered_subsets"] == SUBSETS
    assert sorted(everything["pids"]) == sorted(NAMES) and everything["pids"]["Paused"] == []
    assert any(t["name"] == "PAT" for t in everything["tables"]["Mux 1"])
    assert everything["rf_metrics"]["input"] == "RF" and everything["rf_metrics"]["locked"] is True
    assert sorted(everything["statistics"]) == sorted(NAMES)
    assert everything["statistics"]["Mux 1"]["errors"]["ts_sync_loss"]["status"] in ("ok", "warning", "critical")
    assert everything["statistics_archive"]["period"] == "total"
    assert "Paused" not in everything["cas"]
    assert all(a["total"] == len(a["items"]) for a in everything["alerts"].values())
    assert len(everything["metric_ranges"]) == 4 and sorted(everything["metrics"]["inputs"]) == sorted(NAMES)
    assert everything["snmp"] == {"enabled": False, "listen_addresses": [], "trap_addresses": []}
    assert everything["converter"] == [{"asi_port": 1, "running": False}, {"asi_port": 2, "running": False}]
    assert everything["sdcard"]["status"] == "ok" and everything["sdcard"]["files"] == []
    assert everything["system_timezone"] == "UTC" and "limits" in everything["system_warnings"]
    assert everything["system_network"]["hostname"] == "ts-002" and everything["system_datetime"]["enable_ntp"]

    assert list(one["pids"]) == ["Mux 1"]
    assert "PAT" not in [t["name"] for t in one["tables"]["Mux 1"]] and one["tables"]["Mux 1"]  # only changed
    assert one["alerts"]["Mux 1"]["page"] == 1 and one["alerts"]["Mux 1"]["per_page"] == 2
    assert len(one["alerts"]["Mux 1"]["items"]) <= 2
    assert list(one["metrics"]["inputs"]) == ["Mux 1"] and list(one["epg_parameters"]) == ["Mux 1"]
    assert len(one["epg"]["Mux 1"]) > len(everything["epg"]["Mux 1"])  # a schedule, not now/next

    assert excluded["gathered_subsets"] == [s for s in SUBSETS if s not in (
        "system_log", "alerts", "ip_alerts", "system_status", "system_device", "inputs")]
    assert options["statistics_archive"]["period"] == "hour" and options["statistics_archive"]["start"]
    assert options["metrics"]["pid"] == video and options["metrics"]["range_id"] == 2
    assert all(s["payload_bitrate"] is not None and s["df"] is None for s in options["metrics"]["inputs"]["Mux 1"])
    assert len(options["system_log"]) == 3


def test_bad_options_fail_clearly(play, sim, ts):
    bad = [
        (dict(gather_subset=["inputs", "colours"]), "gather_subset: unknown subset(s) colours; choose from all, min"),
        (dict(inputs=["Nope"], gather_subset=["pids"]),
         "inputs[0]: the analyzer has no input 'Nope'; inputs: the analyzer has 'ASI 2', 'Mux 1', 'Paused', 'RF'"),
        (dict(gather_subset=["alerts"], alerts={"error_names": ["foo"]}),
         "alerts.error_names[0]: unknown error name 'foo'; the analyzer knows ts_sync_loss"),
        (dict(gather_subset=["alerts"], alerts={"page": 1, "per_page": 5000}),
         "alerts.per_page: must be between 1 and 1000, got 5000"),
        (dict(gather_subset=["statistics_archive"], archive={"time": "yesterday"}),
         "archive.time: must be an ISO 8601 time such as 2026-11-21T10:15:00Z, got 'yesterday'"),
        (dict(gather_subset=["metrics"], metrics={"from_time": 20, "to_time": 10}),
         "metrics.from_time: must not be after metrics.to_time"),
        (dict(gather_subset=["tables"], known_tables=[{"input": "Nope", "table_id": 0, "table_id_extension": 1,
                                                       "revision": 0}]),
         "known_tables[0].input: the analyzer has no input 'Nope'"),
        (dict(gather_subset=["epg"], epg={"eit_type": "now"}), "value of eit_type must be one of"),
    ]
    refused_before_any_write(play, sim, ts, [(info(ts, **args), message) for args, message in bad])


@pytest.fixture(params=[403, 401], ids=["role-denied-403", "role-denied-401"])
def role_denied(request, sim, ts):
    """The analyzer's document gives no status for a user token on an admin route; the
    simulator offers both plausible ones (simulator/README.md)."""
    sim.call(setattr, ts, "role_denied_status", request.param)
    yield request.param
    sim.call(setattr, ts, "role_denied_status", 403)


def test_user_role_reads_and_gets_a_clear_error_from_writing_modules(play, sim, ts, tmp_path, role_denied):
    reads = [
        task("ts_info", ts, gather_subset=["all"], **USER),
        task("ts_alert_profile", ts, state="gathered", **USER),
        task("ts_converter", ts, state="gathered", **USER),
        task("ts_recording", ts, operation="list", **USER),
        task("ts_statistics", ts, operation="download_mib", dest=str(tmp_path), **USER),
    ]
    writing = [
        task("ts_alert_profile", ts, config=[{"name": "New"}], **USER),
        task("ts_snmp", ts, enabled=True, **USER),
        task("ts_converter", ts, config=[{"asi_port": 1, "running": True, "multicast_address": "239.1.1.9",
                                          "multicast_port": 5000, "interface": "eth0", "ttl": 8}], **USER),
        task("ts_recording", ts, operation="start", input="Mux 1", **USER),
        task("ts_statistics", ts, operation="reset_current", **USER),
        task("ts_input", ts, config=[{"name": "Mux 1", "scte35": True}], **USER),
    ]
    out = play.run(reads + writing, ts.name)
    for result in out.results[:len(reads)]:
        assert result.get("failed") is not True and result["changed"] in (False, True), result
    for one, result in zip(writing, out.results[len(reads):]):
        assert result.get("failed") is True, (one, result)
        assert "This operation needs the admin role" in result["msg"], result["msg"]
        assert "set role=admin with its password" in result["msg"], result["msg"]
    assert {r["status"] for r in sim.call(ts.writes)} == {role_denied}


def test_documented_examples_run_as_written(play, sim, ts):
    out = run_examples(play, "ts_info", ts)
    assert [r["changed"] for r in out.results] == [False, False, False]
    assert out[0]["gathered_subsets"] == ["system_status", "system_device", "inputs"]
    assert "system_log" not in out[1]["gathered_subsets"] and "snmp" in out[1]["gathered_subsets"]
    assert list(out[2]["alerts"]) == ["Mux 1"] and out[2]["alerts"]["Mux 1"]["per_page"] == 50

"""Unknown fields in accepted bodies: both variants the documents leave open (README, "Unknown
fields"). Neither document says what a device does with a field it does not know; the
simulator refuses it (``unknown_fields="refuse"``) or keeps it (``"keep"``), storing it and
returning it in the reads as a device that stores what it is given would.
"""

import pytest

from bm_simulator.fleet import running_fleet

MCAST = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}

from sim_api import Api, fresh_api, ok


@pytest.fixture(scope="module")
def keeping():
    with running_fleet(ts=1, fm=1, time_scale=0.01, unknown_fields="keep") as runner:
        yield runner


def test_policy_is_reported_and_checked(keeping, fleet):
    assert Api(keeping.fleet.devices[0]).sim("GET", "/info").json()["unknown_fields"] == "keep"
    assert Api(fleet.fleet.devices[0]).sim("GET", "/info").json()["unknown_fields"] == "refuse"
    with pytest.raises(ValueError, match="unknown_fields"):
        running_fleet(ts=1, fm=0, unknown_fields="ignore").__enter__()


def test_analyzer_refuses_by_default(ts):
    # ts-analyzer-api.md lists the fields of each body and says nothing of others: refused here.
    body = {"name": "A", "config": MCAST, "alerts_config": {"profile_id": 1, "colour": "red"}}
    response = ts.post("/inputs", body)
    assert response.status_code == 400 and response.json()["message"] == "alerts_config.colour: unknown field"


def test_analyzer_keeps_unknown_fields_of_inputs(keeping):
    # "POST /inputs/{id}: same body as add" -- the whole input, unknown fields with it, is stored.
    ts = fresh_api(keeping, "ts_analyzer")
    config = {"eth": {"stream_protocol": 0, "vendor_eth": 1,
                      "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000, "igmp": 3}}}
    body = {"name": "A", "config": config, "note": {"x": [1]},
            "alerts_config": {"profile_id": 1, "pid_error_list": [256], "colour": "red"}}
    created = ok(ts.post("/inputs", body))
    assert created["note"] == {"x": [1]} and created["alerts_config"]["colour"] == "red"
    assert created["config"] == config
    (read,) = ok(ts.get("/inputs"))
    assert read["note"] == {"x": [1]} and read["config"] == config
    assert read["alerts_config"] == {"profile_id": 1, "pid_error_list": [256], "colour": "red"}
    # posting a read back does not turn the device's own fields into stored ones
    posted_back = dict(read, input_id=read["id"], note="n2")
    updated = ok(ts.post("/inputs/%d" % read["id"], posted_back))
    assert updated["note"] == "n2"
    assert "input_id" not in updated
    # the update replaces the input as a whole: an unknown field left out is gone
    whole = {"input_id": read["id"], "name": "A", "config": MCAST, "alerts_config": {"profile_id": 1}}
    ok(ts.post("/inputs/%d" % read["id"], whole))
    (read,) = ok(ts.get("/inputs"))
    assert "note" not in read and "colour" not in read["alerts_config"]


def test_analyzer_keeps_unknown_fields_of_profiles_snmp_and_logging(keeping):
    ts = fresh_api(keeping, "ts_analyzer")
    created = ok(ts.post("/profiles", {"name": "P", "owner": "noc",
                                       "entries": [{"error_name": "pts_error", "hysteresis": 2}]}))
    assert created["owner"] == "noc"
    ok(ts.post("/profiles/%d" % created["id"], {"entries": [{"error_name": "crc_error", "colour": "red"}]}))
    profile = next(p for p in ok(ts.get("/profiles")) if p["id"] == created["id"])
    entries = {e["error_name"]: e for e in profile["entries"]}
    assert profile["owner"] == "noc"
    assert entries["pts_error"]["hysteresis"] == 2 and entries["crc_error"]["colour"] == "red"
    snmp = {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["10.0.0.1:162"], "community": "x"}
    ok(ts.post("/snmp/settings", snmp))
    assert ok(ts.get("/snmp/settings")) == snmp
    log = {"level": "debug", "facility": "local3",
           "remote_syslog": {"enabled": True, "server": "10.0.0.2", "port": 514, "protocol": "tcp"}}
    ok(ts.post("/system/log/settings", log))
    assert ok(ts.get("/system/log/settings")) == log


def test_monitor_refuses_by_default(fm):
    conf = ok(fm.get("/conf"))
    response = fm.post("/conf", dict(conf, site="north"))
    assert response.status_code == 400 and "site is not a known field" in response.json()["message"]


def test_monitor_keeps_unknown_fields_of_its_configuration(keeping):
    # fm-monitor-api.md: POST /conf takes the "configuration object obtained from GET /conf"
    # and "overwrites all settings": what it was given, it returns.
    fm = fresh_api(keeping, "fm_monitor")
    conf = ok(fm.get("/conf"))
    conf["site"] = {"name": "north"}
    conf["tuners"][3]["label_colour"] = "blue"
    conf["tuners"][3]["quality"] = {"rssi": 99}  # a field the tuner reports itself: not configuration
    ok(fm.post("/conf", conf))
    read = ok(fm.get("/conf"))
    assert read["site"] == {"name": "north"} and read["tuners"][3]["label_colour"] == "blue"
    assert "quality" not in read["tuners"][3]
    del conf["site"]
    ok(fm.post("/conf", conf))
    assert "site" not in ok(fm.get("/conf"))


def test_monitor_with_a_partial_conf_leaves_the_rest_to_its_own_endpoints():
    """fm-monitor-api.md: GET /conf "complete configuration"; "Internal structure of the configuration
    file of GET /conf: not shown". The partial variant leaves log settings and per-tuner hw_settings,
    thresholds and schedule out of it; they keep their values through a POST /conf."""
    with running_fleet(ts=0, fm=1, time_scale=0.01, fm_conf="partial") as runner:
        fm = fresh_api(runner, "fm_monitor")
        ok(fm.post("/conf/log", {"level": "error", "enable_rsyslog": False, "rsyslog_server": ""}))
        ok(fm.post("/tuner/2/thresholds", {"rssi_threshold": 9, "rssi_interval": 30, "thresholds": {"tuner_id": 2}}))
        conf = ok(fm.get("/conf"))
        assert "log" not in conf
        assert not {"hw_settings", "thresholds", "schedule"} & set(conf["tuners"][2])
        conf["tuners"][2]["name"] = "Partial"
        ok(fm.post("/conf", conf))
        tuner = ok(fm.get("/tuner/2"))
        assert tuner["name"] == "Partial" and tuner["thresholds"]["rssi_threshold"] == 9
        assert ok(fm.get("/conf/log"))["level"] == "error"
        full = dict(conf, log={"level": "info", "enable_rsyslog": False, "rsyslog_server": ""})
        refused = fm.post("/conf", full)
        assert refused.status_code == 400 and "log" in refused.json()["message"], refused.text

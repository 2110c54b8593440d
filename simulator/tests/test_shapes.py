"""Answer shapes the documents leave open (README, "Answer shapes"): the ``extra`` and
``reordered`` variants serve the same device as another firmware might.

- "The name of the entries array and any other profile fields are not shown." (analyzer
  document, alert profiles): a firmware may report fields no document names; ``extra`` adds
  one to every object of every answer and takes it back in writes.
- Neither document fixes the order of a list answer (inputs, profiles, tuners, stations,
  converters, SNMP address lists): ``reordered`` serves every array reversed, except the
  lists whose order is the user's configuration (DNS and NTP servers, schedule events).
"""

import pytest

from bm_simulator.core import EXTRA_FIELD
from bm_simulator.fleet import running_fleet

MCAST = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.%d", "multicast_port": 5000}}}

from sim_api import fresh_api, ok


@pytest.fixture(scope="module")
def shaped():
    with running_fleet(ts=1, fm=1, time_scale=0.01) as runner:
        yield runner


def add_inputs(api, count):
    for number in range(1, count + 1):
        config = {"eth": dict(MCAST["eth"], multicast=dict(MCAST["eth"]["multicast"],
                                                           multicast_address="239.1.1.%d" % number))}
        ok(api.post("/inputs", {"name": "In %d" % number, "config": config, "alerts_config": {"profile_id": 1}}))


def test_extra_puts_a_field_in_every_object_and_takes_it_back(shaped):
    api = fresh_api(shaped, "ts_analyzer", "extra")
    add_inputs(api, 1)
    inputs = ok(api.get("/inputs"))
    assert inputs[0][EXTRA_FIELD] and inputs[0]["config"][EXTRA_FIELD] and inputs[0]["alerts_config"][EXTRA_FIELD]
    profile = ok(api.get("/profiles"))[0]
    assert profile[EXTRA_FIELD] and all(EXTRA_FIELD in entry for entry in profile["entries"])
    # written back as read: accepted, and the field is not stored as configuration
    echo = {key: inputs[0][key] for key in ("name", "config", "alerts_config", EXTRA_FIELD)}
    ok(api.post("/inputs/%d" % inputs[0]["id"], dict(echo, input_id=inputs[0]["id"])))
    api.device.shape = "documented"
    assert EXTRA_FIELD not in ok(api.get("/inputs"))[0]


def test_reordered_reverses_lists_but_not_configured_orders(shaped):
    api = fresh_api(shaped, "ts_analyzer", "documented")
    add_inputs(api, 3)
    documented = [i["name"] for i in ok(api.get("/inputs"))]
    ok(api.post("/system/datetime", {"enable_ntp": True, "ntp_servers": ["10.0.0.1", "10.0.0.2"]}))
    api.device.shape = "reordered"
    assert [i["name"] for i in ok(api.get("/inputs"))] == documented[::-1]
    assert ok(api.get("/system/datetime"))["ntp_servers"] == ["10.0.0.1", "10.0.0.2"]
    fm = fresh_api(shaped, "fm_monitor", "documented")
    tuners = [t["tuner_id"] for t in ok(fm.get("/tuners/all"))]
    fm.device.shape = "reordered"
    assert [t["tuner_id"] for t in ok(fm.get("/tuners/all"))] == tuners[::-1]


def test_sparse_leaves_out_null_fields(shaped):
    fm = fresh_api(shaped, "fm_monitor", "documented")
    assert ok(fm.get("/tuners/all"))[0]["station_id"] is None
    fm.device.shape = "sparse"
    tuner = ok(fm.get("/tuners/all"))[0]
    assert "station_id" not in tuner and tuner["name"] and tuner["schedule"]  # only the nulls go
    ts = fresh_api(shaped, "ts_analyzer", "sparse")
    assert "pending_hostname" not in ok(ts.get("/system/network"))


def test_aliases_use_the_names_of_the_notes(shaped):
    """NOTES.md: "Some firmware releases name `streamer_uptime` `xcast_uptime` and
    `fpga_ver`/`streamer_ver` `altera_ver`/`xcast_ver`." """
    fm = fresh_api(shaped, "fm_monitor", "documented")
    documented = ok(fm.get("/status"))
    fm.device.shape = "aliases"
    status = ok(fm.get("/status"))
    assert "streamer_uptime" not in status and status["xcast_uptime"] >= documented["streamer_uptime"]
    assert status["versions"]["altera_ver"] == documented["versions"]["fpga_ver"]
    assert status["versions"]["xcast_ver"] == documented["versions"]["streamer_ver"]
    assert not {"fpga_ver", "streamer_ver"} & set(status["versions"])


def test_unsorted_reverses_the_events_of_each_day(shaped):
    """fm-monitor-api.md, Schedule: "`events` maps a lower-case day name to an array of `{minute, state}`";
    the state table: an event is reached when "day and minute match" (their order carries no meaning)."""
    fm = fresh_api(shaped, "fm_monitor", "documented")
    events = {"monday": [{"minute": 360, "state": 1}, {"minute": 1320, "state": 2}]}
    ok(fm.post("/tuner/0/schedule", {"active": False, "events": events}))
    fm.device.shape = "unsorted"
    assert ok(fm.get("/tuners/all"))[0]["schedule"]["events"]["monday"] == events["monday"][::-1]
    assert [t["tuner_id"] for t in ok(fm.get("/tuners/all"))] == list(range(8))  # other lists as documented


def test_renamed_names_the_analyzers_dns_servers_otherwise_both_ways(shaped):
    """ts-analyzer-api.md: "Field names of responses of ... the system endpoints: not shown"."""
    ts = fresh_api(shaped, "ts_analyzer", "renamed")
    network = ok(ts.get("/system/network"))
    assert "dns" not in network and network["dns_servers"] == []
    body = {key: network[key] for key in ("dhcp", "address", "netmask", "gateway")}
    ok(ts.post("/system/network", dict(body, dns_servers=["192.0.2.53"])))
    assert ok(ts.get("/system/network"))["dns_servers"] == ["192.0.2.53"]
    ts.device.shape = "documented"
    assert ok(ts.get("/system/network"))["dns"] == ["192.0.2.53"]
    fm = fresh_api(shaped, "fm_monitor", "renamed")
    assert "dns" in ok(fm.get("/conf/network"))  # the FM document names it


def test_an_unknown_shape_is_refused():
    with pytest.raises(ValueError, match="shape"):
        running_fleet(ts=1, fm=0, shape="sideways").__enter__()

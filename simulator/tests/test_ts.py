"""The transport-stream analyzer model over real HTTP (fixtures ``ts`` and ``fleet``).

Time-scale is 0.01 in the fixture: one simulated second lasts 10 ms, an error event comes
every ~0.2 s per monitored input, a reboot takes 0.6 s.
"""

import base64
import calendar
import collections
import csv
import io
import json
import re
import time

import pytest
import requests

from bm_simulator import swu
from bm_simulator.fleet import running_fleet
from bm_simulator.ts import (
    ERROR_NAMES, ERROR_PID, IP_ERRORS, MAX_CATCHUP, PRIORITY_1, PRIORITY_2, PRIORITY_3, RANGES, TsAnalyzer, build_layout,
)

from sim_api import Api, ok

MCAST = {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "239.1.1.1", "multicast_port": 5000}}}
UNICAST = {"eth": {"stream_protocol": 0, "unicast": {"listen_address": "0.0.0.0", "listen_port": 6000}}}
ASI = {"asi": {"port": 2}}
T2MI = {"t2mi": {"stream_id": 1, "service_id": 2, "elementary_stream_pid": 4096, "plp_id": 0, "manual": True}}
RF = {"rf": {"mode": 1, "frequency": 650000000, "bandwidth": 8, "plp_id": 0}}

# Every route of the analyzer: (method, path, kind, least role). Checked against the model.
ROUTES = [
    ("POST", "/user/login", "login", None),
    ("POST", "/user/password", "write", "admin"),
    ("GET", "/inputs", "read", "user"),
    ("POST", "/inputs", "write", "admin"),
    ("POST", "/inputs/{id}", "write", "admin"),
    ("DELETE", "/inputs/{id}", "write", "admin"),
    ("GET", "/inputs/{id}/start", "write", "admin"),
    ("GET", "/inputs/{id}/stop", "write", "admin"),
    ("GET", "/inputs/{id}/pids", "read", "user"),
    ("GET", "/inputs/{id}/tables", "read", "user"),
    ("POST", "/inputs/{id}/tables", "read", "user"),
    ("POST", "/inputs/{id}/epg", "read", "user"),
    ("GET", "/inputs/{id}/epg/parameters", "read", "user"),
    ("GET", "/inputs/rf_metrics", "read", "user"),
    ("GET", "/statistics/current", "read", "user"),
    ("DELETE", "/statistics/current", "action", "admin"),
    ("GET", "/statistics/archive", "read", "user"),
    ("DELETE", "/statistics/archive", "action", "admin"),
    ("GET", "/statistics/cas", "read", "user"),
    ("POST", "/inputs/{id}/alerts", "read", "user"),
    ("GET", "/inputs/{id}/alerts/download", "read", "user"),
    ("POST", "/inputs/{id}/input_alerts", "read", "user"),
    ("GET", "/inputs/{id}/reset_stats_alerts", "action", "admin"),
    ("GET", "/inputs/metrics/ranges", "read", "user"),
    ("GET", "/inputs/metrics", "read", "user"),
    ("GET", "/inputs/{id}/metrics", "read", "user"),
    ("GET", "/profiles", "read", "user"),
    ("POST", "/profiles", "write", "admin"),
    ("POST", "/profiles/{id}", "write", "admin"),
    ("DELETE", "/profiles/{id}", "write", "admin"),
    ("GET", "/snmp/settings", "read", "user"),
    ("POST", "/snmp/settings", "write", "admin"),
    ("GET", "/snmp/mib", "read", "user"),
    ("GET", "/converter", "read", "user"),
    ("GET", "/converter/{input_port}", "read", "user"),
    ("POST", "/converter/{input_port}/start", "write", "admin"),
    ("GET", "/converter/{input_port}/stop", "write", "admin"),
    ("POST", "/inputs/{id}/scte/toggle", "write", "admin"),
    ("POST", "/inputs/{id}/scte", "read", "user"),
    ("GET", "/inputs/{id}/thumbnails/status", "read", "user"),
    ("POST", "/inputs/{id}/thumbnails/enable", "write", "admin"),
    ("GET", "/inputs/{id}/thumbnails/disable", "write", "admin"),
    ("POST", "/sdcard/status", "read", "user"),
    ("POST", "/sdcard/files", "read", "user"),
    ("POST", "/sdcard/prepare/init", "action", "admin"),
    ("POST", "/sdcard/prepare/format", "action", "admin"),
    ("GET", "/sdcard/download_token", "read", "user"),
    ("GET", "/sdcard/download", "read", "user"),
    ("POST", "/sdcard/delete", "action", "admin"),
    ("POST", "/sdcard/delete/all", "action", "admin"),
    ("POST", "/record/start/{id}", "action", "admin"),
    ("GET", "/record/stop/{id}", "action", "admin"),
    ("GET", "/system/alive", "read", None),
    ("GET", "/system/status", "read", "user"),
    ("GET", "/system/device", "read", "user"),
    ("GET", "/system/network", "read", "user"),
    ("POST", "/system/network", "write", "admin"),
    ("POST", "/system/hostname", "write", "admin"),
    ("GET", "/system/datetime", "read", "user"),
    ("POST", "/system/datetime", "write", "admin"),
    ("GET", "/system/timezone", "read", "user"),
    ("POST", "/system/timezone", "write", "admin"),
    ("GET", "/system/timezone/list", "read", "user"),
    ("GET", "/system/warnings", "read", "user"),
    ("GET", "/system/log", "read", "user"),
    ("GET", "/system/log/settings", "read", "user"),
    ("POST", "/system/log/settings", "write", "admin"),
    ("POST", "/system/upgrade", "action", "admin"),
    ("POST", "/system/reboot", "action", "admin"),
    ("POST", "/system/factory_reset", "action", "admin"),
]


# -- helpers -------------------------------------------------------------------------------
def input_body(name="Mux 1", config=None, profile_id=1, **extra):
    body = {"name": name, "config": json.loads(json.dumps(config or MCAST)), "alerts_config": {"profile_id": profile_id}}
    body.update(extra)
    return body


def add_input(api, name="Mux 1", config=None, profile_id=1):
    response = api.post("/inputs", input_body(name, config, profile_id))
    assert response.status_code == 200, response.text
    return response.json()


def refused(response, status, text=None):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == status
    if text is not None:
        assert text in body["message"], body["message"]
    return body["message"]


def wait_for(predicate, timeout=5.0, interval=0.03):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met within %.1f s" % timeout)
        time.sleep(interval)


def user_api(ts):
    api = Api(ts.device)
    assert api.login("user").status_code == 200
    return api


def get_input(api, input_id):
    return next(i for i in api.get("/inputs").json() if i["id"] == input_id)


def total_errors(item):
    return sum(item["errors"].values())


def wait_reboot(api, timeout=10.0):
    """Wait until the unit has gone down and answers /system/alive again."""

    def alive():
        try:
            return api.get("/system/alive", token=False, timeout=0.5).status_code == 200 and not api.device.down
        except requests.RequestException:
            return False

    wait_for(lambda: api.device.down or not alive(), timeout=3, interval=0.01)
    wait_for(alive, timeout=timeout, interval=0.05)


def concrete(path):
    return path.replace("{id}", "1").replace("{input_port}", "1")


# -- routes, authentication, roles -------------------------------------------------------------
def test_route_table_matches_model(ts):
    """ts-analyzer-api.md, Endpoints: every path of the tables, relative to `{base_url}` ("The path has
    no version segment"), with its least role (admin where the document or Authentication 4 says so)."""
    registered = sorted(spec for spec, _handler in ts.device._routes())
    assert registered == sorted(ROUTES)


def test_every_route_needs_a_token(ts):
    """ts-analyzer-api.md, Authentication 2: "`POST /user/login` and `GET /system/alive` need no token;
    every other endpoint needs a valid one"; 7: "A missing or invalid token gives 401"."""
    for method, path, _kind, role in ROUTES:
        if role is None:
            continue
        response = ts.request(method, concrete(path), token=False)
        refused(response, 401, "token")
        refused(ts.request(method, concrete(path), token="not-a-token"), 401)


@pytest.fixture(params=TsAnalyzer.ROLE_DENIED_VARIANTS)
def role_denied(request, ts, fleet):
    """Each answer an analyzer may give a user token on an admin route (an open choice)."""
    device = ts.device
    fleet.call(setattr, device, "role_denied_status", request.param)
    yield request.param
    fleet.call(setattr, device, "role_denied_status", 403)


def test_user_role_is_read_only(ts, role_denied):
    """ts-analyzer-api.md, Authentication 4: "`user` has read-only access to monitoring data";
    5: "`/system/reboot` and `/system/factory_reset` require the admin role". The status of the
    refusal is not given (README: 403, or 401 as for a missing token)."""
    add_input(ts)
    user = user_api(ts)
    for method, path, _kind, role in ROUTES:
        if role is None or path in ("/system/reboot", "/system/factory_reset"):
            continue
        response = user.request(method, concrete(path), json={} if method == "POST" else None)
        if role == "admin":
            refused(response, role_denied, "admin")
        elif path == "/sdcard/download":
            refused(response, 401, "download token")  # the one-time token, not the bearer token
        else:
            assert response.status_code not in (401, 403), (method, path, response.status_code)
    refused(user.post("/system/reboot"), role_denied)
    refused(user.post("/system/factory_reset"), role_denied)
    assert get_input(ts, 1)["name"] == "Mux 1"
    assert [r["status"] for r in ts.device.writes()] == [200] + [role_denied] * (len(ts.device.writes()) - 1)
    assert not ts.device.down


def test_bodies_are_json_unless_stated_otherwise(ts):
    """ts-analyzer-api.md: "All request and response bodies are JSON unless stated otherwise"; stated:
    `/inputs/{id}/alerts/download` "alert log as CSV", `/sdcard/download` "returns a `.ts` capture
    file", `/snmp/mib` "download the MIB file" (its type not given: README, `text/plain`)."""
    add_input(ts)
    stated = {"/inputs/{id}/alerts/download": "text/csv", "/snmp/mib": "text/plain"}
    for method, path, _kind, role in ROUTES:
        if method != "GET" or role == "admin" or path == "/sdcard/download":
            continue
        response = ts.get(concrete(path), params={"rangeId": 1} if "metrics" in path else None)
        assert response.status_code == 200, (path, response.text)
        wanted = stated.get(path, "application/json")
        assert response.headers["Content-Type"].split(";")[0] == wanted, (path, response.headers["Content-Type"])
        if wanted == "application/json":
            response.json()


def test_login(ts):
    """ts-analyzer-api.md, Authentication 3: "Success returns `role` and `token`"; 7: "wrong credentials on login give
    405"; 2: `GET /system/alive` needs no token; 1: "bearer token (JWT)"; 6: "Tokens do not expire
    automatically" (no `exp` claim)."""
    response = ts.login("admin")
    assert response.status_code == 200
    assert response.json()["role"] == "admin" and len(response.json()["token"]) > 20
    assert ts.login("user").json()["role"] == "user"
    refused(ts.login("admin", "wrong"), 405)
    refused(ts.login("root", "admin"), 405)
    assert ts.get("/system/alive", token=False).json()["alive"] is True
    token = ts.token  # from the last successful login, as role user
    header, claims, signature = token.split(".")
    assert json.loads(base64.urlsafe_b64decode(header + "==")) == {"alg": "HS256", "typ": "JWT"}
    claims = json.loads(base64.urlsafe_b64decode(claims + "=="))
    assert claims["role"] == "user" and "exp" not in claims and signature  # tokens do not expire


def test_password_change(ts):
    """ts-analyzer-api.md, Authentication 6: "After a password change, previously issued tokens stay valid"
    (`POST /user/password`, body `role`, `password`)."""
    old_user = user_api(ts)
    assert ts.post("/user/password", {"role": "user", "password": "s3cret"}).json() == {}
    assert old_user.get("/inputs").status_code == 200  # issued tokens stay valid
    refused(Api(ts.device).login("user", "user"), 405)
    assert Api(ts.device).login("user", "s3cret").status_code == 200
    admin_token = ts.token
    assert ts.post("/user/password", {"role": "admin", "password": "n3w"}).status_code == 200
    assert ts.get("/inputs", token=admin_token).status_code == 200
    refused(Api(ts.device).login("admin", "admin"), 405)
    assert Api(ts.device).login("admin", "n3w").status_code == 200
    refused(ts.post("/user/password", {"role": "root", "password": "x"}), 400, "role")
    refused(ts.post("/user/password", {"role": "user", "password": ""}), 400, "password")
    refused(ts.post("/user/password", {"role": "user", "password": 5}), 400, "password")
    refused(ts.post("/user/password", {"role": "user"}), 400, "password: is required")


def test_factory_reset_restores_credentials_and_wipes_inputs(ts):
    """ts-analyzer-api.md, Authentication 8: "Factory reset returns the device to its
    static default address and default credentials"; System: `/system/factory_reset` "restore factory
    defaults and reboot"."""
    add_input(ts)
    ts.post("/snmp/settings", {"enabled": True, "listen_addresses": [], "trap_addresses": []})
    assert ts.post("/user/password", {"role": "admin", "password": "other"}).status_code == 200
    old = ts.token
    assert ts.post("/system/factory_reset").json() == {}
    wait_reboot(ts)
    refused(ts.get("/inputs", token=old), 401)
    assert ts.login("admin", "admin").status_code == 200
    assert ts.get("/inputs").json() == []
    assert [p["name"] for p in ts.get("/profiles").json()] == ["Default"]
    assert ts.get("/snmp/settings").json()["enabled"] is False
    assert ts.device.address == ts.device.home_address


# -- inputs --------------------------------------------------------------------------------
def test_add_input_returns_the_input(ts):
    """ts-analyzer-api.md, Input: "The list of inputs returns, for each input, its current stream state,
    error indicators and the metrics bitrate, IPAT, DF, MLR, DPC and CCE" (names: README)."""
    created = add_input(ts)
    assert created["metrics"]["bitrate"] > 1_000_000
    assert set(created["metrics"]) == {"bitrate", "ipat", "df", "mlr", "dpc", "cce"}
    del created["metrics"]
    assert created == {
        "id": 1, "name": "Mux 1", "config": MCAST,
        "alerts_config": {"profile_id": 1, "pid_error_list": []}, "monitoring": True, "state": "ok", "status": 0,
        "errors": {"priority1": 0, "priority2": 0, "priority3": 0},
        "scte35": {"enabled": False}, "thumbnails": {"enabled": False, "pid": None},
    }
    assert add_input(ts, "Mux 1")["id"] == 2  # duplicate names are allowed
    assert ts.delete("/inputs/2").json() == {}
    assert add_input(ts, "Mux 3")["id"] == 3  # ids are never reused
    assert [i["id"] for i in ts.get("/inputs").json()] == [1, 3]


@pytest.mark.parametrize("config", [
    MCAST,
    {"eth": {"stream_protocol": 0, "multicast": {"multicast_address": "232.1.2.3", "multicast_port": 1,
                                                 "source_address": "10.0.0.7"}}},
    UNICAST, ASI, {"asi": {"port": 1}}, T2MI, RF,
])
def test_input_variants_round_trip(ts, config):
    """ts-analyzer-api.md, Input: `config` holds "Exactly one source variant" (eth multicast/unicast, asi,
    t2mi, rf, with their fields)."""
    created = add_input(ts, config=config)
    assert created["config"] == config
    assert get_input(ts, created["id"])["config"] == config
    assert get_input(ts, created["id"])["state"] == "ok"


def mcast(**fields):
    value = dict(MCAST["eth"]["multicast"], **fields)
    return {"eth": {"stream_protocol": 0, "multicast": {k: v for k, v in value.items() if v is not None}}}


INVALID_INPUTS = [
    ({"name": ""}, "name: must be a non-empty string"),
    ({"name": 5}, "name: must be a non-empty string"),
    ({"name": None}, "name: must be a non-empty string"),
    ({"config": {}}, "config: must be an object holding exactly one of eth, asi, t2mi, rf"),
    ({"config": {"asi": {"port": 1}, "rf": RF["rf"]}}, "config: must be an object holding exactly one"),
    ({"config": {"sdi": {}}}, "config.sdi: unknown source variant"),
    ({"config": mcast(multicast_port=70000)}, "config.eth.multicast.multicast_port: must be an integer 1-65535"),
    ({"config": mcast(multicast_port="5000")}, "config.eth.multicast.multicast_port: must be an integer 1-65535"),
    ({"config": mcast(multicast_port=True)}, "config.eth.multicast.multicast_port: must be an integer 1-65535"),
    ({"config": mcast(multicast_address="10.1.1.1")}, "config.eth.multicast.multicast_address: must be a multicast"),
    ({"config": mcast(multicast_address="239.1.1")}, "config.eth.multicast.multicast_address: must be an IPv4"),
    ({"config": mcast(source_address="bad")}, "config.eth.multicast.source_address: must be an IPv4 address"),
    ({"config": mcast(extra=1)}, "config.eth.multicast.extra: unknown field"),
    ({"config": {"eth": {"stream_protocol": 1, "multicast": MCAST["eth"]["multicast"]}}},
     "config.eth.stream_protocol: must be 0"),
    ({"config": {"eth": {"stream_protocol": 0}}}, "config.eth: must hold exactly one of multicast or unicast"),
    ({"config": {"eth": {"stream_protocol": 0, "multicast": MCAST["eth"]["multicast"],
                         "unicast": UNICAST["eth"]["unicast"]}}}, "config.eth: must hold exactly one"),
    ({"config": {"eth": {"multicast": MCAST["eth"]["multicast"]}}}, "config.eth.stream_protocol: is required"),
    ({"config": {"eth": {"stream_protocol": 0, "unicast": {"listen_address": "0.0.0.0", "listen_port": 0}}}},
     "config.eth.unicast.listen_port: must be an integer 1-65535"),
    ({"config": {"eth": {"stream_protocol": 0, "unicast": {"listen_port": 5}}}},
     "config.eth.unicast.listen_address: is required"),
    ({"config": {"asi": {"port": 3}}}, "config.asi.port: must be 1 or 2"),
    ({"config": {"t2mi": dict(T2MI["t2mi"], plp_id=-1)}}, "config.t2mi.plp_id: must be an integer 0-255"),
    ({"config": {"t2mi": dict(T2MI["t2mi"], elementary_stream_pid=8192)}},
     "config.t2mi.elementary_stream_pid: must be an integer 0-8191"),
    ({"config": {"t2mi": dict(T2MI["t2mi"], manual=1)}}, "config.t2mi.manual: must be a boolean"),
    ({"config": {"rf": dict(RF["rf"], frequency=-5)}}, "config.rf.frequency: must be an integer"),
    ({"config": {"rf": {"mode": 1}}}, "config.rf.frequency: is required"),
    ({"alerts_config": {"profile_id": 9}}, "alerts_config.profile_id: no profile 9"),
    ({"alerts_config": {}}, "alerts_config.profile_id: is required"),
    ({"alerts_config": {"profile_id": "1"}}, "alerts_config.profile_id: must be an integer"),
    ({"alerts_config": {"profile_id": 1, "pid_error_list": [8192]}},
     "alerts_config.pid_error_list[0]: must be an integer 0-8191"),
    ({"alerts_config": {"profile_id": 1, "pid_error_list": 5}}, "alerts_config.pid_error_list: must be an array"),
    ({"input_id": 1}, "input_id: unknown field"),
]


@pytest.mark.parametrize("change,message", INVALID_INPUTS)
def test_input_validation(ts, change, message):
    """ts-analyzer-api.md, Input: "Exactly one source variant"; `alerts_config` "`profile_id` (integer, id of the
    assigned alert profile)"; `stream_protocol` "the only value used in every variant is 0"."""
    body = input_body()
    body.update(change)
    refused(ts.post("/inputs", body), 400, message)
    assert ts.get("/inputs").json() == []


def test_input_body_must_be_an_object(ts):
    """ts-analyzer-api.md: "All request and response bodies are JSON unless stated otherwise"; a body
    that is not a JSON object is refused (status: README, 400)."""
    refused(ts.post("/inputs", [1]), 400, "request body: must be a JSON object")
    refused(ts.post("/inputs", data="{", headers={"Content-Type": "application/json"}), 400, "not valid JSON")
    refused(ts.post("/inputs", {"config": MCAST, "alerts_config": {"profile_id": 1}}), 400, "name: is required")


def test_update_input_is_a_full_replace(ts):
    """ts-analyzer-api.md, Inputs: `POST /inputs/{id}` "same body as add; body `input_id` must equal
    `{id}`"."""
    add_input(ts, config=MCAST)
    ts.post("/inputs/1/scte/toggle", {"enabled": True})
    ts.post("/inputs/1/thumbnails/enable", {"pid": 257})
    ts.get("/inputs/1/stop")
    profile = ts.post("/profiles", {"name": "Quiet"}).json()
    body = input_body("Renamed", ASI, profile["id"], input_id=1)
    body["alerts_config"]["pid_error_list"] = [256, 257]
    updated = ts.post("/inputs/1", body).json()
    assert updated["name"] == "Renamed" and updated["config"] == ASI
    assert updated["alerts_config"] == {"profile_id": profile["id"], "pid_error_list": [256, 257]}
    assert updated["monitoring"] is False and updated["state"] == "paused"
    assert updated["scte35"] == {"enabled": True} and updated["thumbnails"] == {"enabled": True, "pid": 257}
    body = input_body("Again", MCAST, 1, input_id=1)
    assert ts.post("/inputs/1", body).json()["alerts_config"] == {"profile_id": 1, "pid_error_list": []}
    refused(ts.post("/inputs/1", input_body(input_id=2)), 400, "input_id must equal the id in the path")
    refused(ts.post("/inputs/1", input_body()), 400, "input_id: is required")
    refused(ts.post("/inputs/1", input_body(input_id=1, config={"asi": {"port": 0}})), 400, "config.asi.port")
    assert get_input(ts, 1)["name"] == "Again"
    refused(ts.post("/inputs/abc", input_body(input_id=1)), 400, "id: must be an integer")


def test_missing_input_is_404_on_every_input_route(ts):
    """ts-analyzer-api.md, Errors: "For a missing input the code equals the HTTP status 404"."""
    for method, path, _kind, _role in ROUTES:
        if "{id}" not in path or "profiles" in path:
            continue
        response = ts.request(method, path.replace("{id}", "42"), json={} if method == "POST" else None)
        assert response.status_code == 404, (method, path)
        assert response.json() == {"code": 404, "message": "Input not found"}, (method, path)


def test_start_stop_and_statistics(ts):
    """ts-analyzer-api.md, States: `GET /inputs/{id}/stop` "Input monitoring paused", "Input stays
    configured"; `GET /inputs/{id}/start` "Input monitoring active"."""
    add_input(ts)
    wait_for(lambda: total_errors(get_input(ts, 1)) > 0)
    assert ts.get("/inputs/1/stop").json() == {}
    assert ts.get("/inputs/1/stop").json() == {}  # idempotent
    paused = get_input(ts, 1)
    assert paused["monitoring"] is False and paused["state"] == "paused" and paused["status"] == 0
    assert paused["metrics"] == {"bitrate": 0, "ipat": 0, "df": 0, "mlr": 0, "dpc": 0, "cce": 0}
    frozen = ts.get("/statistics/current").json()["transport_streams"][0]["data"]
    time.sleep(0.4)
    assert get_input(ts, 1)["errors"] == paused["errors"]
    assert ts.get("/statistics/current").json()["transport_streams"][0]["data"] == frozen
    assert ts.get("/inputs/1/start").json() == {}
    running = get_input(ts, 1)
    assert running["monitoring"] is True and running["state"] == "ok"
    wait_for(lambda: total_errors(get_input(ts, 1)) > total_errors(paused))


def test_statistics_current_and_resets(ts):
    """ts-analyzer-api.md, Statistics: "organised as a `transport_streams` array; each element has a
    `data` object keyed by error name"; "`GET /inputs/{id}/reset_stats_alerts` clears statistics and the alert
    log of that input; `DELETE /statistics/current` resets the current counters"."""
    add_input(ts)
    wait_for(lambda: total_errors(get_input(ts, 1)) >= 5)
    ts.get("/inputs/1/stop")
    item = get_input(ts, 1)
    stats = ts.get("/statistics/current").json()
    stream = stats["transport_streams"][0]
    assert list(stream["data"]) == list(ERROR_NAMES)
    assert stream["input_id"] == 1 and stream["name"] == "Mux 1"
    data = stream["data"]
    for n, names in ((1, PRIORITY_1), (2, PRIORITY_2), (3, PRIORITY_3)):
        assert item["errors"]["priority%d" % n] == sum(data[e]["count"] for e in names)
    assert all(v["count"] == v["sum"] for v in data.values())
    assert any(p["pid"] == 0 for p in stream["pids"])
    per_pid = sum(n for p in stream["pids"] for n in p["data"].values())
    assert per_pid == sum(data[e]["count"] for e in ERROR_PID)  # TS-level errors name no PID
    assert all(data[e]["count"] == 0 for e in ("t2mi_sync_error", "t2mi_crc_error"))  # eth input: no T2-MI errors
    before = sum(v["sum"] for v in data.values())
    assert ts.delete("/statistics/current").json() == {}
    data = ts.get("/statistics/current").json()["transport_streams"][0]["data"]
    assert all(v["count"] == 0 for v in data.values())
    assert sum(v["sum"] for v in data.values()) == before  # sums survive a counter reset
    assert get_input(ts, 1)["errors"] == {"priority1": 0, "priority2": 0, "priority3": 0}
    assert ts.post("/inputs/1/alerts").json()["total"] > 0
    assert ts.get("/inputs/1/reset_stats_alerts").json() == {}
    data = ts.get("/statistics/current").json()["transport_streams"][0]["data"]
    assert all(v["sum"] == 0 for v in data.values())
    assert ts.post("/inputs/1/alerts").json()["total"] == 0
    assert ts.post("/inputs/1/input_alerts").json()["total"] == 0


def test_no_signal_inputs(ts):
    """ts-analyzer-api.md, Statistics: "Status values: 0 = OK, 1 = warning, 2 = critical" (an input without
    signal is critical, a paused one 0: README)."""
    foreign = {"eth": {"stream_protocol": 0, "unicast": {"listen_address": "10.9.9.9", "listen_port": 5000}}}
    created = add_input(ts, "Elsewhere", foreign)
    assert created["state"] == "no_signal" and created["status"] == 2 and created["metrics"]["bitrate"] == 0
    assert add_input(ts, "Off air", {"rf": dict(RF["rf"], frequency=0)})["state"] == "no_signal"
    time.sleep(0.3)
    assert all(total_errors(i) == 0 for i in ts.get("/inputs").json())
    assert ts.get("/inputs/1/pids").json() == []
    ts.get("/inputs/1/stop")
    assert get_input(ts, 1)["state"] == "paused"


def test_profile_entries_drive_counting_and_alerts(ts):
    """ts-analyzer-api.md, Alert profile: entry `enabled` "Entry active", `threshold`
    "Threshold value"."""
    off = ts.post("/profiles", {"name": "Off", "entries": [
        {"error_name": n, "enabled": False} for n in ERROR_NAMES]}).json()
    high = ts.post("/profiles", {"name": "High", "entries": [
        {"error_name": n, "threshold": 1000} for n in ERROR_NAMES]}).json()
    add_input(ts, "Off", profile_id=off["id"])
    add_input(ts, "High", profile_id=high["id"])
    wait_for(lambda: total_errors(get_input(ts, 2)) > 3)
    assert total_errors(get_input(ts, 1)) == 0  # disabled entries are not evaluated
    assert ts.post("/inputs/2/alerts").json()["total"] == 0  # counts never exceed the threshold
    assert get_input(ts, 2)["status"] == 0


# -- stream data ------------------------------------------------------------------------------
def test_pids_tables_and_changes(ts):
    """ts-analyzer-api.md, Stream data: `/pids` "all PIDs with type, associated service name, whether PCR
    is carried"; `GET /tables` "all decoded PSI/SI tables ... as XML strings"; `POST /tables` "only tables
    changed since the given revisions"."""
    add_input(ts)
    pids = ts.get("/inputs/1/pids").json()
    by_pid = {p["pid"]: p for p in pids}
    assert by_pid[0]["type"] == "PAT" and by_pid[0]["service_name"] is None and by_pid[0]["pcr"] is False
    assert by_pid[8191]["type"] == "null"
    pmts = [p for p in pids if p["type"] == "PMT"]
    assert pmts and all(isinstance(p["service_name"], str) and p["service_name"] for p in pmts)
    assert len([p for p in pids if p["pcr"]]) == len(pmts)  # one PCR PID per service
    assert [p["pid"] for p in pids] == sorted(p["pid"] for p in pids)
    assert all(set(p) == {"pid", "type", "service_name", "pcr", "bitrate"} for p in pids)
    tables = ts.get("/inputs/1/tables").json()
    names = [t["name"] for t in tables]
    assert names.count("PMT") == len(pmts) and {"PAT", "NIT", "SDT", "EIT", "TDT", "TOT"} <= set(names)
    pat = tables[0]
    assert pat["table_id"] == 0 and pat["pid"] == 0 and pat["xml"].startswith("<PAT version=")
    known = [{"table_id": t["table_id"], "table_id_extension": t["table_id_extension"], "revision": t["revision"]}
             for t in tables]
    changed = ts.post("/inputs/1/tables", {"tables": known}).json()
    assert {t["name"] for t in changed} <= {"TDT", "TOT", "EIT"}
    assert len(ts.post("/inputs/1/tables", {"tables": []}).json()) == len(tables)
    assert len(ts.post("/inputs/1/tables").json()) == len(tables)
    stale = dict(known[0], revision=(known[0]["revision"] + 1) % 32)
    assert "PAT" in [t["name"] for t in ts.post("/inputs/1/tables", {"tables": [stale] + known[1:]}).json()]
    refused(ts.post("/inputs/1/tables", {"tables": [{"table_id": 0}]}), 400, "tables[0].table_id_extension")
    ts.get("/inputs/1/stop")
    assert ts.get("/inputs/1/tables").json() == [] and ts.get("/inputs/1/pids").json() == []


def test_epg(ts):
    """ts-analyzer-api.md, Stream data: `POST /inputs/{id}/epg` body `eit_type` (`eit`, `eit_other`, `eit_sched`,
    `eit_sched_other`), `service_ids`, ids, `start_time`/`end_time` "ISO 8601"; `/epg/parameters`."""
    add_input(ts)
    params = ts.get("/inputs/1/epg/parameters").json()
    services = params["service_ids"]
    assert services and len(params["transport_stream_ids"]) == 1 and len(params["original_network_ids"]) == 1
    now_next = ts.post("/inputs/1/epg", {"eit_type": "eit"}).json()
    assert len(now_next) == 2 * len(services)
    assert set(now_next[0]) == {"service_id", "event_id", "start_time", "duration", "name", "description"}
    window = {"eit_type": "eit_sched", "service_ids": services[:1],
              "start_time": "2030-01-01T00:00:00Z", "end_time": "2030-01-01T02:00:00Z"}
    sched = ts.post("/inputs/1/epg", window).json()
    assert [e["start_time"] for e in sched] == [
        "2030-01-01T00:00:00Z", "2030-01-01T00:30:00Z", "2030-01-01T01:00:00Z", "2030-01-01T01:30:00Z"]
    assert all(e["service_id"] == services[0] and e["duration"] == 1800 for e in sched)
    assert ts.post("/inputs/1/epg", window).json() == sched  # deterministic
    assert ts.post("/inputs/1/epg", dict(window, eit_type="eit_sched_other")).json() == []
    assert ts.post("/inputs/1/epg", dict(window, transport_stream_id=(params["transport_stream_ids"][0] + 1) % 65536)).json() == []
    refused(ts.post("/inputs/1/epg", {"eit_type": "now"}), 400, "eit_type: must be one of")
    refused(ts.post("/inputs/1/epg", {}), 400, "eit_type: is required")
    refused(ts.post("/inputs/1/epg", dict(window, end_time="2029-12-31T00:00:00Z")), 400, "end_time")
    refused(ts.post("/inputs/1/epg", dict(window, start_time="yesterday")), 400, "start_time: must be an ISO 8601")
    refused(ts.post("/inputs/1/epg", dict(window, service_ids=["x"])), 400, "service_ids[0]")


def test_rf_metrics(ts):
    """ts-analyzer-api.md, Statistics: "A top-level `rssi`, `ber` and `mode_metrics.cnr` exist" (`GET
    /inputs/rf_metrics`)."""
    empty = ts.get("/inputs/rf_metrics").json()
    assert empty["input_id"] is None and empty["locked"] is False and empty["rssi"] is None
    assert empty["mode_metrics"] == {"cnr": None}
    add_input(ts, "Mux", MCAST)
    add_input(ts, "Tuner", RF)
    metrics = ts.get("/inputs/rf_metrics").json()
    assert metrics["input_id"] == 2 and metrics["locked"] is True
    assert -60 <= metrics["rssi"] <= -35 and 0 < metrics["ber"] < 1e-3
    assert 24 <= metrics["mode_metrics"]["cnr"] <= 30 and metrics["mode_metrics"]["plp"] == {"id": 0, "count": 1}


def test_cas_statistics(ts):
    """ts-analyzer-api.md, Statistics: "CAS statistics, per active input: CA system id, CA system name, ECM PID, EMM
    PIDs, service association, PID status"."""
    # Find a multicast port whose simulated stream carries scrambled services.
    port = next(p for p in range(5000, 5100)
                if any(s["ca"] for s in build_layout(ts.device.seed, 1, mcast(multicast_port=p))["services"]))
    layout = build_layout(ts.device.seed, 1, mcast(multicast_port=port))
    add_input(ts, config=mcast(multicast_port=port))
    add_input(ts, "Paused")
    ts.get("/inputs/2/stop")
    cas = ts.get("/statistics/cas").json()
    assert [c["input_id"] for c in cas] == [1]  # only active inputs
    scrambled = [s for s in layout["services"] if s["ca"]]
    systems = cas[0]["systems"]
    assert sorted(sid for s in systems for sid in s["service_ids"]) == sorted(s["service_id"] for s in scrambled)
    assert all(s["emm_pids"] == layout["emm_pids"] and s["pid_status"] == "ok" for s in systems)
    assert {s["ca_system_name"] for s in systems} == {s["ca"]["ca_system_name"] for s in scrambled}
    assert "CAT" in [t["name"] for t in ts.get("/inputs/1/tables").json()]


def test_archive(ts):
    """ts-analyzer-api.md, Statistics: `GET /statistics/archive` "query `period` (`min`, `10min`, `hour`, `day`,
    `total`), `time` (ISO 8601)"; `DELETE /statistics/archive` "clears the archive"."""
    add_input(ts)
    wait_for(lambda: total_errors(get_input(ts, 1)) > 3)
    ts.get("/inputs/1/stop")
    sums = {k: v["sum"] for k, v in ts.get("/statistics/current").json()["transport_streams"][0]["data"].items()}
    total = ts.get("/statistics/archive").json()
    assert total["period"] == "total" and total["start"] is None
    assert total["transport_streams"][0]["data"] == sums
    day = ts.get("/statistics/archive", params={"period": "day"}).json()
    assert day["transport_streams"][0]["data"] == sums and day["start"].endswith("T00:00:00Z")
    old = ts.get("/statistics/archive", params={"period": "hour", "time": "2001-01-01T10:20:00Z"}).json()
    assert old["start"] == "2001-01-01T10:00:00Z" and old["end"] == "2001-01-01T11:00:00Z"
    assert sum(old["transport_streams"][0]["data"].values()) == 0
    ts.delete("/statistics/current")
    assert ts.get("/statistics/archive").json()["transport_streams"][0]["data"] == sums  # archive unaffected
    assert ts.delete("/statistics/archive").json() == {}
    assert sum(ts.get("/statistics/archive").json()["transport_streams"][0]["data"].values()) == 0
    refused(ts.get("/statistics/archive", params={"period": "week"}), 400, "period: must be one of")
    refused(ts.get("/statistics/archive", params={"time": "soon"}), 400, "time: must be an ISO 8601")


# -- alert log ----------------------------------------------------------------------------------
def test_alert_paging_and_filters(ts):
    """ts-analyzer-api.md, Alerts log: `POST /inputs/{id}/alerts` "query `page`, `perPage`; body `period`,
    `time`, `error_code` ...; a PID filter also exists"; `input_alerts` "IP-layer alert records"; Limits:
    "Alert queries are paginated with `page` and `perPage`"; record fields and severity."""
    add_input(ts)
    wait_for(lambda: ts.post("/inputs/1/alerts").json()["total"] >= 5)
    wait_for(lambda: ts.post("/inputs/1/input_alerts").json()["total"] >= 1)
    ts.get("/inputs/1/stop")
    everything = ts.post("/inputs/1/alerts", params={"perPage": 1000}).json()
    records = everything["items"]
    assert everything["page"] == 1 and everything["perPage"] == 1000 and everything["total"] == len(records)
    assert set(records[0]) == {"service_name", "error_name", "start_time", "end_time", "count", "severity", "pid"}
    assert all(r["error_name"] not in IP_ERRORS and r["severity"] in ("warning", "critical") for r in records)
    assert [r["start_time"] for r in records] == sorted((r["start_time"] for r in records), reverse=True)
    page2 = ts.post("/inputs/1/alerts", params={"page": 2, "perPage": 2}).json()
    assert page2 == {"page": 2, "perPage": 2, "total": len(records), "items": records[2:4]}
    assert ts.post("/inputs/1/alerts", {"page": 2, "perPage": 2}).json() == page2  # body works too
    assert ts.post("/inputs/1/alerts", params={"page": 999}).json()["items"] == []
    name = records[0]["error_name"]
    only = ts.post("/inputs/1/alerts", {"error_code": [name]}, params={"perPage": 1000}).json()
    assert only["total"] == sum(1 for r in records if r["error_name"] == name)
    with_pid = next(r for r in records if r["pid"] is not None) if any(r["pid"] is not None for r in records) else None
    if with_pid:
        by_pid = ts.post("/inputs/1/alerts", {"pid": with_pid["pid"]}, params={"perPage": 1000}).json()
        assert by_pid["total"] == sum(1 for r in records if r["pid"] == with_pid["pid"])
    past = ts.post("/inputs/1/alerts", {"period": "hour", "time": "2001-01-01T00:00:00Z"}).json()
    assert past["total"] == 0
    assert ts.post("/inputs/1/alerts", {"period": "day"}).json()["total"] == len(records)
    ip = ts.post("/inputs/1/input_alerts", params={"perPage": 1000}).json()
    assert ip["total"] >= 1 and all(r["error_name"] in IP_ERRORS for r in ip["items"])
    refused(ts.post("/inputs/1/alerts", {"error_code": ["bogus_error"]}), 400, "error_code[0]: unknown error name \"bogus_error\"")
    refused(ts.post("/inputs/1/alerts", {"pid": 9000}), 400, "pid: must be an integer 0-8191")
    refused(ts.post("/inputs/1/alerts", {"period": "year"}), 400, "period")
    refused(ts.post("/inputs/1/alerts", {"colour": 1}), 400, "colour: unknown field")
    refused(ts.post("/inputs/1/alerts", params={"perPage": 0}), 400, "perPage: must be an integer 1-1000")
    refused(ts.post("/inputs/1/alerts", params={"page": "x"}), 400, "page: must be an integer")


def test_alert_csv(ts):
    """ts-analyzer-api.md, Alerts log: `GET /inputs/{id}/alerts/download` "alert log as CSV"."""
    add_input(ts)
    wait_for(lambda: ts.post("/inputs/1/alerts").json()["total"] >= 2)
    ts.get("/inputs/1/stop")
    response = ts.get("/inputs/1/alerts/download")
    assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    total = ts.post("/inputs/1/alerts").json()["total"] + ts.post("/inputs/1/input_alerts").json()["total"]
    assert len(rows) == total
    assert list(rows[0]) == ["service_name", "error_name", "start_time", "end_time", "count", "severity", "pid"]
    assert [r["start_time"] for r in rows] == sorted(r["start_time"] for r in rows)  # oldest first
    newest = ts.post("/inputs/1/alerts").json()["items"][0]
    assert any(r["error_name"] == newest["error_name"] and int(r["count"]) == newest["count"] for r in rows)


# -- metric series -----------------------------------------------------------------------------
def test_metric_series(ts):
    """ts-analyzer-api.md, Metric time series: range fields `id`, `sample_duration`, `max_samples`; `GET
    /inputs/metrics` "query `rangeId`, `fromTime`, `toTime` (integers)"; `/inputs/{id}/metrics` "optional
    `pid`"; Limits: "Each metric range has `max_samples` and `sample_duration`"."""
    assert ts.get("/inputs/metrics/ranges").json() == list(RANGES)
    add_input(ts)
    add_input(ts, "Tuner", RF)
    now = int(time.time())
    result = ts.get("/inputs/metrics", params={"rangeId": 1, "fromTime": now - 600, "toTime": now + 5}).json()
    assert result["range_id"] == 1 and result["sample_duration"] == 1
    assert [i["input_id"] for i in result["inputs"]] == [1, 2]
    samples = result["inputs"][0]["samples"]
    assert 1 <= len(samples) <= 300
    assert set(samples[0]) == {"time", "bitrate", "payload_bitrate", "jitter", "ipat", "df", "mlr", "cce", "cnr"}
    assert samples[0]["cnr"] is None and samples[0]["ipat"] > 0
    assert result["inputs"][1]["samples"][0]["cnr"] > 0 and result["inputs"][1]["samples"][0]["ipat"] is None
    old = ts.get("/inputs/metrics", params={"rangeId": 2, "fromTime": 1000, "toTime": 2000}).json()
    assert old["inputs"][0]["samples"] == []  # before the input existed
    one = ts.get("/inputs/1/metrics", params={"rangeId": 1}).json()
    assert one["input_id"] == 1 and one["pid"] is None and one["samples"]
    pid = ts.get("/inputs/1/pids").json()[-2]["pid"]
    per_pid = ts.get("/inputs/1/metrics", params={"rangeId": 1, "pid": pid}).json()
    assert per_pid["pid"] == pid and per_pid["samples"][0]["ipat"] is None
    refused(ts.get("/inputs/1/metrics", params={"rangeId": 1, "pid": 7000}), 404, "PID 7000")
    refused(ts.get("/inputs/metrics"), 400, "rangeId: is required")
    refused(ts.get("/inputs/metrics", params={"rangeId": 9}), 400, "rangeId: no range 9")
    refused(ts.get("/inputs/metrics", params={"rangeId": 1, "fromTime": 10, "toTime": 5}), 400, "fromTime")
    refused(ts.get("/inputs/metrics", params={"rangeId": "one"}), 400, "rangeId: must be an integer")


# -- profiles ------------------------------------------------------------------------------------
def test_factory_profile(ts):
    """ts-analyzer-api.md, Alert profile: entry fields (`enabled`, `error_name`, `snmp_trap`, `alert_type`
    `none`/`warning`/`critical`, `threshold`, `min_value`, `max_value`) and the error names."""
    profiles = ts.get("/profiles").json()
    assert [(p["id"], p["name"]) for p in profiles] == [(1, "Default")]
    entries = profiles[0]["entries"]
    assert [e["error_name"] for e in entries] == list(ERROR_NAMES)
    for entry in entries:
        assert entry == {"error_name": entry["error_name"], "enabled": True, "snmp_trap": False,
                         "alert_type": "critical" if entry["error_name"] in PRIORITY_1 else "warning",
                         "threshold": 0, "min_value": 0, "max_value": 0}


def test_profile_create_update_delete(ts):
    """ts-analyzer-api.md, Alert profiles: `POST /profiles` "create", `POST /profiles/{id}` "update",
    `DELETE /profiles/{id}` "delete"."""
    created = ts.post("/profiles", {"name": "Strict", "entries": [
        {"error_name": "pts_error", "alert_type": "critical", "snmp_trap": True},
        {"error_name": "input_df_error", "threshold": 50, "max_value": 12.5}]}).json()
    assert created["id"] == 2 and created["name"] == "Strict"
    entries = {e["error_name"]: e for e in created["entries"]}
    assert [e["error_name"] for e in created["entries"]] == list(ERROR_NAMES)
    assert entries["pts_error"] == {"error_name": "pts_error", "enabled": True, "snmp_trap": True,
                                    "alert_type": "critical", "threshold": 0, "min_value": 0, "max_value": 0}
    assert entries["input_df_error"]["threshold"] == 50 and entries["input_df_error"]["max_value"] == 12.5
    assert entries["ts_sync_loss"]["alert_type"] == "critical"
    updated = ts.post("/profiles/2", {"entries": [{"error_name": "pts_error", "enabled": False}]}).json()
    entries = {e["error_name"]: e for e in updated["entries"]}
    assert entries["pts_error"]["enabled"] is False and entries["pts_error"]["snmp_trap"] is True  # merged
    assert entries["input_df_error"]["threshold"] == 50 and updated["name"] == "Strict"
    assert ts.post("/profiles/2", {"name": "Stricter"}).json()["name"] == "Stricter"
    assert ts.post("/profiles/2", {"name": "Stricter"}).status_code == 200  # own name is no clash
    assert ts.get("/profiles").json()[1] == dict(updated, name="Stricter")
    refused(ts.post("/profiles", {"name": "Stricter"}), 409, "already exists")
    refused(ts.post("/profiles/2", {"name": "Default"}), 409, "already exists")
    refused(ts.post("/profiles/9", {"name": "x"}), 404, "Profile not found")
    add_input(ts, "A", profile_id=2)
    add_input(ts, "B", profile_id=1)
    add_input(ts, "C", profile_id=2)
    assert refused(ts.delete("/profiles/2"), 409) == "Profile 2 is used by inputs 1, 3"
    refused(ts.delete("/profiles/1"), 409, "Default")
    refused(ts.delete("/profiles/7"), 404, "Profile not found")
    ts.delete("/inputs/1")
    ts.delete("/inputs/3")
    assert ts.delete("/profiles/2").json() == {}
    assert [p["id"] for p in ts.get("/profiles").json()] == [1]
    assert ts.post("/profiles", {"name": "Next"}).json()["id"] == 3  # ids are not reused


@pytest.mark.parametrize("body,message", [
    ({}, "name: is required"),
    ({"name": ""}, "name: must be a non-empty string"),
    ({"name": "P", "entries": {}}, "entries: must be an array"),
    ({"name": "P", "entries": [{"error_name": "nope"}]}, "entries[0].error_name: unknown error name \"nope\""),
    ({"name": "P", "entries": [{"enabled": True}]}, "entries[0].error_name: is required"),
    ({"name": "P", "entries": [{"error_name": "pts_error", "alert_type": "major"}]},
     "entries[0].alert_type: must be one of none, warning, critical"),
    ({"name": "P", "entries": [{"error_name": "pts_error", "enabled": "yes"}]}, "entries[0].enabled: must be a boolean"),
    ({"name": "P", "entries": [{"error_name": "pts_error", "snmp_trap": 1}]}, "entries[0].snmp_trap: must be a boolean"),
    ({"name": "P", "entries": [{"error_name": "pts_error", "threshold": "5"}]}, "entries[0].threshold: must be a number"),
    ({"name": "P", "entries": [{"error_name": "pts_error", "min_value": -1}]}, "entries[0].min_value: must be a number >= 0"),
    ({"name": "P", "entries": [{"error_name": "pts_error", "max_value": True}]}, "entries[0].max_value: must be a number"),
    ({"name": "P", "entries": [{"error_name": "pts_error", "colour": 1}]}, "entries[0].colour: unknown field"),
    ({"name": "P", "entries": [{"error_name": "pts_error"}, {"error_name": "pts_error"}]},
     "entries[1].error_name: duplicate entry for pts_error"),
    ({"name": "P", "owner": "me"}, "owner: unknown field"),
])
def test_profile_validation(ts, body, message):
    """ts-analyzer-api.md, Alert profile: `error_name` "One of the error names below"; `alert_type` "`none`,
    `warning`, `critical`"."""
    refused(ts.post("/profiles", body), 400, message)
    if "entries" in body:
        refused(ts.post("/profiles/1", {"entries": body["entries"]}), 400, message)
    assert len(ts.get("/profiles").json()) == 1
    assert ts.get("/profiles").json()[0]["entries"][ERROR_NAMES.index("pts_error")]["alert_type"] == "warning"


# -- SNMP, converter --------------------------------------------------------------------------
def test_snmp(ts):
    """ts-analyzer-api.md, SNMP: `GET`/`POST /snmp/settings` "(enabled flag, listen addresses, trap
    destination addresses)", `GET /snmp/mib` "download the MIB file"; NOTES.md: the field names and
    `DVB-MGTR101290-MIB`."""
    assert ts.get("/snmp/settings").json() == {"enabled": False, "listen_addresses": [], "trap_addresses": []}
    wanted = {"enabled": True, "listen_addresses": ["0.0.0.0", "10.0.0.5"], "trap_addresses": ["10.0.0.100:162", "10.0.0.101:1162"]}
    assert ts.post("/snmp/settings", wanted).json() == wanted
    assert ts.get("/snmp/settings").json() == wanted
    assert user_api(ts).get("/snmp/settings").json() == wanted
    for body, message in [
        (dict(wanted, enabled="yes"), "enabled: must be a boolean"),
        (dict(wanted, listen_addresses=["10.0.0"]), "listen_addresses[0]: must be an IPv4 address"),
        (dict(wanted, trap_addresses=["10.0.0.100"]), "trap_addresses[0]: must be IP:port with port 1-65535"),
        (dict(wanted, trap_addresses=["10.0.0.100:162", "10.0.0.1:70000"]), "trap_addresses[1]: must be IP:port"),
        (dict(wanted, trap_addresses=["host:162"]), "trap_addresses[0]: must be an IPv4 address"),
        ({"enabled": True, "listen_addresses": []}, "trap_addresses: is required"),
        (dict(wanted, community="public"), "community: unknown field"),
    ]:
        refused(ts.post("/snmp/settings", body), 400, message)
    assert ts.get("/snmp/settings").json() == wanted
    mib = ts.get("/snmp/mib")
    assert mib.status_code == 200 and mib.headers["Content-Type"].startswith("text/plain")
    assert mib.text.startswith("DVB-MGTR101290-MIB DEFINITIONS ::= BEGIN")
    assert "::= { enterprises 2696 3 2 }" in mib.text and "pass(1), fail(2), unknown(3)" in mib.text
    assert mib.text.rstrip().endswith("END")


def test_converter(ts):
    """ts-analyzer-api.md, Converter: `POST /converter/{input_port}/start` "needs multicast address, port, interface
    and TTL"; `GET /converter/{input_port}/stop` "stop"."""
    idle = {"running": False, "multicast_address": None, "multicast_port": None, "interface": None, "ttl": None}
    assert ts.get("/converter").json() == [dict(idle, port=1), dict(idle, port=2)]
    settings = {"multicast_address": "239.2.2.2", "multicast_port": 5000, "interface": "eth0", "ttl": 16}
    started = ts.post("/converter/1/start", settings).json()
    assert started == dict(settings, port=1, running=True)
    assert ts.get("/converter/1").json() == started
    assert ts.get("/converter/2").json() == dict(idle, port=2)
    assert ts.get("/converter/1/stop").json() == dict(settings, port=1, running=False)
    assert ts.get("/converter/1").json() == dict(settings, port=1, running=False)  # keeps the last settings
    assert ts.get("/converter/1/stop").status_code == 200
    refused(ts.get("/converter/3"), 404, "Converter port not found")
    refused(ts.post("/converter/3/start", settings), 404)
    for change, message in [
        ({"multicast_address": "10.0.0.1"}, "multicast_address: must be a multicast IPv4 address"),
        ({"multicast_port": 0}, "multicast_port: must be an integer 1-65535"),
        ({"interface": "eth2"}, "interface: must be eth0 or eth1"),
        ({"ttl": 0}, "ttl: must be an integer 1-255"),
        ({"ttl": 256}, "ttl: must be an integer 1-255"),
    ]:
        refused(ts.post("/converter/2/start", dict(settings, **change)), 400, message)
    refused(ts.post("/converter/2/start", {"ttl": 3}), 400, "is required")
    assert ts.get("/converter/2").json()["running"] is False


# -- SCTE-35 and thumbnails --------------------------------------------------------------------
def test_scte35(ts):
    """ts-analyzer-api.md, Events: "SCTE-35 markers are logged per input when monitoring is enabled"; `POST
    /inputs/{id}/scte` "(command type, timestamp, duration, splice event id)"."""
    add_input(ts)
    empty = ts.post("/inputs/1/scte").json()
    assert empty == {"page": 1, "perPage": 20, "total": 0, "items": []}
    refused(ts.post("/inputs/1/scte/toggle", {}), 400, "enabled: is required")
    refused(ts.post("/inputs/1/scte/toggle", {"enabled": "on"}), 400, "enabled: must be a boolean")
    assert ts.post("/inputs/1/scte/toggle", {"enabled": True}).json() == {"enabled": True}
    assert get_input(ts, 1)["scte35"] == {"enabled": True}
    wait_for(lambda: ts.post("/inputs/1/scte").json()["total"] >= 3, timeout=8)
    assert ts.post("/inputs/1/scte/toggle", {"enabled": False}).json() == {"enabled": False}
    markers = ts.post("/inputs/1/scte", {"perPage": 100}).json()
    items = markers["items"]
    assert markers["total"] == len(items) >= 3
    for m in items:
        assert set(m) == {"command_type", "timestamp", "duration", "splice_event_id"}
        assert m["command_type"] in ("splice_insert", "time_signal")
        assert (m["duration"] in (15, 30, 60, 120)) if m["command_type"] == "splice_insert" else m["duration"] is None
    ids = [m["splice_event_id"] for m in items]
    assert ids == sorted(ids, reverse=True)  # newest first
    time.sleep(0.6)
    assert ts.post("/inputs/1/scte").json()["total"] == markers["total"]  # disabled: no new markers
    assert ts.post("/inputs/1/scte", {"page": 2, "perPage": 1}).json()["items"] == items[1:2]
    refused(ts.post("/inputs/1/scte", {"perPage": 5000}), 400, "perPage: must be an integer 1-1000")


def test_thumbnails(ts):
    """ts-analyzer-api.md, Thumbnails: `/thumbnails/status` "current status and relative image path", `enable`
    "start hardware video decoding for thumbnails on a PID", `disable` "stop thumbnails"."""
    add_input(ts)
    assert ts.get("/inputs/1/thumbnails/status").json() == {"enabled": False, "pid": None, "image": None}
    enabled = ts.post("/inputs/1/thumbnails/enable", {"pid": 257}).json()
    assert enabled == {"enabled": True, "pid": 257, "image": "/thumbnails/1.jpg"}
    assert ts.get("/inputs/1/thumbnails/status").json() == enabled
    assert get_input(ts, 1)["thumbnails"] == {"enabled": True, "pid": 257}
    image = ts.session.get(ts.base + enabled["image"], timeout=5)
    assert image.status_code == 200 and image.headers["Content-Type"] == "image/jpeg"
    assert image.content[:2] == b"\xff\xd8" and image.content[-2:] == b"\xff\xd9"
    refused(ts.post("/inputs/1/thumbnails/enable", {"pid": 8192}), 400, "pid: must be an integer 0-8191")
    refused(ts.post("/inputs/1/thumbnails/enable", {}), 400, "pid: is required")
    assert ts.get("/inputs/1/thumbnails/disable").json() == {"enabled": False, "pid": None, "image": None}
    assert ts.session.get(ts.base + "/thumbnails/1.jpg", timeout=5).status_code == 404


# -- SD card and recording ----------------------------------------------------------------------
def files(api):
    return api.post("/sdcard/files").json()["files"]


def download(api, filename):
    token = api.get("/sdcard/download_token").json()["token"]
    return api.get("/sdcard/download", params={"filename": filename, "token": token}), token


def test_recording_and_download(ts):
    """ts-analyzer-api.md, Authentication 9 and Limits: "SD card download needs a one-time token from `GET
    /sdcard/download_token`", "An SD card download token is one-time"; `/sdcard/download` "returns a `.ts`
    capture file"; SD card status values."""
    assert ts.post("/sdcard/status").json() == {"status": "ok", "total_mb": 31914, "used_mb": 0, "recording": None}
    assert files(ts) == []
    add_input(ts)
    rec = ts.post("/record/start/1", {}).json()
    assert rec["input_id"] == 1 and rec["filename"].startswith("input1_") and rec["filename"].endswith(".ts")
    assert rec["duration"] is None and rec["size"] is None
    status = ts.post("/sdcard/status").json()
    assert status["status"] == "recording" and status["recording"]["filename"] == rec["filename"]
    refused(ts.post("/record/start/1", {}), 409, "busy")
    token = ts.get("/sdcard/download_token").json()["token"]
    refused(ts.get("/sdcard/download", params={"filename": rec["filename"], "token": token}), 409, "being recorded")
    time.sleep(0.05)
    assert files(ts)[0]["recording"] is True
    stopped = ts.get("/record/stop/1").json()
    assert stopped["filename"] == rec["filename"] and stopped["size"] > 0 and stopped["size"] % 188 == 0
    assert files(ts) == [dict(stopped, recording=False)]
    refused(ts.get("/record/stop/1"), 409, "not recording")
    response, token = download(ts, stopped["filename"])
    assert response.status_code == 200 and response.headers["Content-Type"] == "video/mp2t"
    data = response.content
    assert len(data) == stopped["size"] == int(response.headers["Content-Length"])
    assert all(data[i] == 0x47 for i in range(0, len(data), 188))
    refused(ts.get("/sdcard/download", params={"filename": stopped["filename"], "token": token}), 401)
    refused(ts.get("/sdcard/download", params={"filename": stopped["filename"], "token": "made-up"}), 401)
    assert download(ts, stopped["filename"])[0].content == data  # deterministic bytes
    refused(download(ts, "nothing.ts")[0], 404, "File not found")
    user = user_api(ts)
    assert download(user, stopped["filename"])[0].status_code == 200  # reading captures is a read
    refused(user.post("/record/start/1", {}), 403)


def test_recording_limits(ts):
    """ts-analyzer-api.md, SD card: `POST /record/start/{id}` "body `duration` (integer, seconds) and `size`
    (integer, MB), both optional; omitting one or both means unlimited"; Limits: "A recording may be bounded"."""
    add_input(ts)
    add_input(ts, "Paused")
    ts.get("/inputs/2/stop")
    refused(ts.post("/record/start/2", {}), 409, "paused")
    refused(ts.post("/record/start/1", {"size": 0}), 400, "size: must be an integer >= 1")
    refused(ts.post("/record/start/1", {"duration": "10"}), 400, "duration: must be an integer >= 1")
    refused(ts.post("/record/start/1", {"bitrate": 5}), 400, "bitrate: unknown field")
    refused(ts.post("/record/start/9", {}), 404, "Input not found")
    ts.post("/record/start/1", {"size": 1})
    entry = wait_for(lambda: [f for f in files(ts) if not f["recording"]])[0]
    assert entry["size"] == 1_000_000 // 188 * 188
    assert ts.post("/sdcard/status").json()["used_mb"] == 1
    ts.post("/record/start/1", {"duration": 30})
    assert ts.post("/sdcard/status").json()["status"] == "recording"
    wait_for(lambda: ts.post("/sdcard/status").json()["status"] == "ok", timeout=3)
    rate = get_input(ts, 1)["metrics"]["bitrate"] / 8
    second = files(ts)[1]["size"]
    assert abs(second - 30 * rate) < 0.05 * 30 * rate


def test_sdcard_prepare_and_delete(ts):
    """ts-analyzer-api.md, SD card: `/sdcard/prepare/init` "initialise the card", `/prepare/format` "format
    the card", `/sdcard/delete` "deletes one file", `/sdcard/delete/all` "deletes all capture files"."""
    add_input(ts)
    for attempt in range(3):  # pylint: disable=unused-variable
        ts.post("/record/start/1", {"size": 1})
        wait_for(lambda: ts.post("/sdcard/status").json()["status"] == "ok", timeout=3)
    names = [f["filename"] for f in files(ts)]
    assert len(set(names)) == 3
    assert ts.post("/sdcard/delete", params={"filename": names[0]}).json() == {}
    assert [f["filename"] for f in files(ts)] == names[1:]
    refused(ts.post("/sdcard/delete", params={"filename": names[0]}), 404, "File not found")
    refused(ts.post("/sdcard/delete"), 400, "filename: is required")
    assert ts.post("/sdcard/prepare/init").json()["status"] == "preparing"
    refused(ts.post("/record/start/1", {}), 409, "preparing")
    refused(ts.post("/sdcard/prepare/format"), 409, "preparing")
    refused(ts.post("/sdcard/delete", params={"filename": names[1]}), 409, "preparing")
    refused(ts.post("/sdcard/delete/all"), 409, "preparing")
    wait_for(lambda: ts.post("/sdcard/status").json()["status"] == "ok", timeout=3)
    assert len(files(ts)) == 2  # init keeps the files
    assert ts.post("/sdcard/prepare/format").json()["status"] == "preparing"
    assert files(ts) == []
    wait_for(lambda: ts.post("/sdcard/status").json()["status"] == "ok", timeout=3)
    ts.post("/record/start/1", {"size": 1})
    wait_for(lambda: files(ts) and not files(ts)[0]["recording"])
    assert ts.post("/sdcard/delete/all").json() == {}
    assert files(ts) == [] and ts.post("/sdcard/status").json()["used_mb"] == 0


# -- system ------------------------------------------------------------------------------------
def test_system_status_and_device(ts, fleet):
    """ts-analyzer-api.md, System: `GET /system/status` "CPU, RAM, storage, uptime, `reboot_needed` flag";
    `GET /system/device` "serial number, firmware version, model"."""
    status = ts.get("/system/status").json()
    assert set(status) == {"cpu_load", "memory", "storage", "uptime", "reboot_needed"}
    assert isinstance(status["cpu_load"], float) and 0 <= status["cpu_load"] <= 100
    assert status["memory"]["total"] == 4 * 2 ** 30 and 0 < status["memory"]["used"] < status["memory"]["total"]
    assert 0 < status["storage"]["used"] < status["storage"]["total"]
    assert isinstance(status["uptime"], int) and status["reboot_needed"] is False
    device = ts.get("/system/device").json()
    assert device["firmware_version"] == "1.0.0" and device["model"] == "TSA-4"
    assert device["serial_number"].startswith("TSA") and len(device["serial_number"]) == 12
    assert ts.get("/system/device").json() == device
    other = Api(fleet.fleet.of_kind("ts_analyzer")[1])
    other.reset()
    other.login()
    assert other.get("/system/device").json()["serial_number"] != device["serial_number"]
    add_input(ts)
    assert other.get("/inputs").json() == []  # units share nothing


def page_field(page, field):
    match = re.search(r'<dd id="%s">([^<]*)</dd>' % field, page)
    assert match, page
    return match.group(1)


def test_reference_page_outside_the_api(ts):
    """ts-analyzer-api.md, service description: "An interactive reference page is served at
    `http://<device-ip>/api.html`, outside `{base_url}`." (No token: see the README's open choice.)"""
    page = requests.get(ts.base + "/api.html", timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert page.text.startswith("<!DOCTYPE html>") and "API reference" in page.text
    for method, path, kind, role in ROUTES:
        row = "<tr><td>%s</td><td><code>/api%s</code></td><td>%s</td><td>%s</td>" % (method, path, role or "none", kind)
        assert row in page.text, row
    assert "POST /api/user/login" in page.text and "Content-Type: application/json" in page.text
    assert requests.get(ts.base + "/api/api.html", timeout=10).status_code == 404  # not under {base_url}
    assert ts.sim("GET", "/requests").json()["requests"][-1]["path"] == "/api.html"


def test_device_page_shows_firmware_version_and_serial_number(ts, fleet):
    """ts-analyzer-api.md, service description: "The web interface page `/settings/device` shows
    firmware version and serial number" (the values `GET /system/device` reports)."""
    for device in fleet.fleet.of_kind("ts_analyzer"):
        api = Api(device)
        api.login()
        page = requests.get(api.base + "/settings/device", timeout=10)
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        identity = api.get("/system/device").json()
        assert page_field(page.text, "serial_number") == identity["serial_number"]
        assert page_field(page.text, "firmware_version") == identity["firmware_version"]
        assert page_field(page.text, "model") == identity["model"]
    device = ts.device
    fleet.call(lambda: device.state.update(firmware_version="3.1.4"))  # as after an installed upgrade
    page = requests.get(ts.base + "/settings/device", timeout=10).text
    assert page_field(page, "firmware_version") == ts.get("/system/device").json()["firmware_version"] == "3.1.4"
    with_token = ts.session.get(ts.base + "/settings/device", headers={"Authorization": "Bearer " + ts.token},
                                timeout=10)
    assert with_token.text == page


def test_network_settings(ts):
    """ts-analyzer-api.md, System: `GET, POST /system/network` "read or write network interface settings"."""
    net = ts.get("/system/network").json()
    assert net["hostname"] == ts.device.name and net["pending_hostname"] is None
    assert net["address"] == ts.device.address and net["dhcp"] is False
    assert net["mac"].startswith("02:") and len(net["mac"]) == 17
    wanted = {"dhcp": False, "address": net["address"], "netmask": "255.255.0.0",
              "gateway": net["address"].rsplit(".", 2)[0] + ".0.254", "dns": ["10.0.0.53"]}
    saved = ts.post("/system/network", wanted).json()
    assert {k: saved[k] for k in wanted} == wanted
    assert ts.get("/system/status").json()["reboot_needed"] is True
    for change, message in [
        ({"address": "300.1.1.1"}, "address: must be an IPv4 address"),
        ({"netmask": "255.0.255.0"}, "netmask: must be a contiguous IPv4 netmask"),
        ({"gateway": "192.168.1.1"}, "gateway: must be inside"),
        ({"dns": ["8.8.8.8", "x"]}, "dns[1]: must be an IPv4 address"),
        ({"dhcp": "no"}, "dhcp: must be a boolean"),
        ({"hostname": "x"}, "hostname: unknown field"),
    ]:
        refused(ts.post("/system/network", dict(wanted, **change)), 400, message)
    refused(ts.post("/system/network", {"dhcp": False, "address": net["address"]}), 400, "netmask: is required")
    dhcp = ts.post("/system/network", {"dhcp": True}).json()
    assert dhcp["dhcp"] is True and dhcp["netmask"] == "255.255.0.0"  # static values kept for later


def test_pending_settings_apply_at_reboot(ts):
    """ts-analyzer-api.md, System: `POST /system/hostname` "set hostname; effective after reboot";
    `/system/status` `reboot_needed` flag; Authentication 6: "Tokens do not expire automatically" (they
    outlive the reboot)."""
    add_input(ts)
    ts.post("/record/start/1", {})
    assert ts.post("/system/hostname", {"hostname": "analyzer-7"}).json() == {
        "hostname": ts.device.name, "pending_hostname": "analyzer-7"}
    log_settings = {"level": "debug", "remote_syslog": {"enabled": True, "server": "10.0.0.9", "port": 514}}
    assert ts.post("/system/log/settings", log_settings).json() == log_settings
    assert ts.get("/system/log/settings").json() == log_settings  # GET shows the saved settings
    net = ts.get("/system/network").json()
    assert net["hostname"] == ts.device.name and net["pending_hostname"] == "analyzer-7"
    assert ts.get("/system/status").json()["reboot_needed"] is True
    refused(ts.post("/system/hostname", {"hostname": "-bad"}), 400, "hostname: must be a hostname label")
    refused(ts.post("/system/hostname", {"hostname": "a" * 64}), 400, "hostname")
    refused(ts.post("/system/hostname", {"hostname": "a.b"}), 400, "hostname")
    assert ts.post("/system/reboot").json() == {}
    wait_reboot(ts)
    net = ts.get("/system/network").json()
    assert net["hostname"] == "analyzer-7" and net["pending_hostname"] is None
    status = ts.get("/system/status").json()
    assert status["reboot_needed"] is False and status["uptime"] < 5
    assert ts.get("/system/log/settings").json() == log_settings
    assert ts.device.state["log_settings_active"] == log_settings
    card = ts.post("/sdcard/status").json()
    assert card["status"] == "ok" and card["recording"] is None  # a reboot ends the recording
    assert len(files(ts)) == 1 and files(ts)[0]["recording"] is False
    assert get_input(ts, 1)["monitoring"] is True  # configuration survives
    messages = [e["msg"] for e in ts.get("/system/log").json()]
    assert "input 1 (Mux 1) added" in messages and "reboot requested" in messages


def test_network_address_moves_at_reboot(ts):
    """ts-analyzer-api.md, Authentication 8: "Factory reset returns the device to its static default
    address"."""
    home = ts.device.home_address
    moved = home.rsplit(".", 1)[0] + ".77"
    net = ts.get("/system/network").json()
    ts.post("/system/network", {"dhcp": False, "address": moved, "netmask": net["netmask"],
                                "gateway": net["gateway"], "dns": []})
    assert ts.device.address == home  # not before the reboot
    ts.post("/system/reboot")
    wait_reboot(ts)
    assert ts.device.address == moved and ts.get("/system/network").json()["address"] == moved
    ts.post("/system/factory_reset")
    wait_reboot(ts)
    assert ts.device.address == home


def test_log_settings_validation(ts):
    """ts-analyzer-api.md, System: `GET, POST /system/log/settings` "log level and remote syslog forwarding"."""
    factory = {"level": "info", "remote_syslog": {"enabled": False, "server": "", "port": 514}}
    assert ts.get("/system/log/settings").json() == factory
    for body, message in [
        (dict(factory, level="verbose"), "level: must be one of trace, debug, info, warning, error, critical"),
        (dict(factory, remote_syslog={"enabled": True, "server": "", "port": 514}), "remote_syslog.server"),
        (dict(factory, remote_syslog={"enabled": False, "server": "", "port": 0}), "remote_syslog.port: must be an integer 1-65535"),
        (dict(factory, remote_syslog={"enabled": 1, "server": "", "port": 514}), "remote_syslog.enabled: must be a boolean"),
        ({"level": "info"}, "remote_syslog: is required"),
    ]:
        refused(ts.post("/system/log/settings", body), 400, message)
    assert ts.post("/system/log/settings", dict(factory, remote_syslog={
        "enabled": True, "server": "syslog.example.net", "port": 6514})).status_code == 200
    assert ts.post("/system/log/settings", factory).json() == factory  # back to the running settings
    assert ts.device.state["pending"].get("log_settings") is None


def test_datetime_and_timezone(ts):
    """ts-analyzer-api.md, System: `/system/datetime` "NTP settings and NTP server list", `/system/timezone`
    "read or set timezone", `/system/timezone/list` "all supported timezone strings"."""
    current = ts.get("/system/datetime").json()
    assert current["enable_ntp"] is True and current["ntp_servers"] == ["pool.ntp.org"]
    assert abs(time.time() - _epoch(current["datetime"])) < 5
    manual = ts.post("/system/datetime", {"enable_ntp": False, "ntp_servers": [], "datetime": "2030-06-01T12:00:00Z"}).json()
    assert manual["enable_ntp"] is False and manual["datetime"].startswith("2030-06-01T12:00")
    assert ts.get("/system/datetime").json()["datetime"].startswith("2030-06-01T12:00")
    synced = ts.post("/system/datetime", {"enable_ntp": True, "ntp_servers": ["10.0.0.1", "ntp.example.org"]}).json()
    assert synced["ntp_servers"] == ["10.0.0.1", "ntp.example.org"] and abs(time.time() - _epoch(synced["datetime"])) < 5
    for body, message in [
        ({"enable_ntp": True, "ntp_servers": []}, "ntp_servers: needs at least one server"),
        ({"enable_ntp": "yes", "ntp_servers": []}, "enable_ntp: must be a boolean"),
        ({"enable_ntp": False, "ntp_servers": ["bad host"]}, "ntp_servers[0]: must be an IPv4 address or a DNS name"),
        ({"enable_ntp": False, "ntp_servers": [], "datetime": "tomorrow"}, "datetime: must be an ISO 8601"),
    ]:
        refused(ts.post("/system/datetime", body), 400, message)
    assert ts.get("/system/timezone").json() == {"timezone": "UTC"}
    zones = ts.get("/system/timezone/list").json()["timezones"]
    assert "Europe/Berlin" in zones and zones == sorted(zones)
    assert ts.post("/system/timezone", {"timezone": "Europe/Berlin"}).json() == {"timezone": "Europe/Berlin"}
    assert ts.get("/system/timezone").json() == {"timezone": "Europe/Berlin"}
    refused(ts.post("/system/timezone", {"timezone": "Mars/Olympus"}), 400, "timezone: unknown timezone")
    refused(ts.post("/system/timezone", {"timezone": 5}), 400, "timezone")


def _epoch(text):
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def test_warnings(ts):
    """ts-analyzer-api.md, Limits: "`GET /system/warnings` reports whether input, bitrate and service limits are
    exceeded" (the values: README)."""
    warnings = ts.get("/system/warnings").json()
    assert warnings == {"inputs_exceeded": False, "bitrate_exceeded": False, "services_exceeded": False,
                        "limits": {"inputs": 16, "bitrate": 500000000, "services": 64}}
    for n in range(17):
        add_input(ts, "In %d" % n, mcast(multicast_port=5000 + n))
    warnings = ts.get("/system/warnings").json()
    assert warnings["inputs_exceeded"] is True
    services = sum(len(ts.get("/inputs/%d/epg/parameters" % i).json()["service_ids"]) for i in range(1, 18))
    assert warnings["services_exceeded"] is (services > 64)


@pytest.mark.parametrize("behaviour", ["reboots", "pending"])
def test_ts_upgrade_variants(behaviour):
    """ts-analyzer-api.md: "POST /system/upgrade: upload a .swu firmware package"; "The firmware version is
    reported by GET /system/device". Whether the upgrade reboots is not said: both variants are offered."""
    with running_fleet(ts=1, fm=0, time_scale=0.01, ts_upgrade=behaviour) as runner:
        ts = Api(runner.devices[0])
        ts.login()
        response = ts.post("/system/upgrade", files={"file": ("fw.swu", swu.build("2.4.1"))})
        assert response.json() == {"version": "2.4.1"}
        if behaviour == "pending":
            time.sleep(0.3)  # longer than the simulator's delay before a reboot of its own
            assert not ts.device.down
            assert ts.get("/system/device").json()["firmware_version"] == "1.0.0"
            assert ts.get("/system/status").json()["reboot_needed"] is True
            assert ts.post("/system/reboot").status_code == 200
        wait_reboot(ts)
        assert ts.get("/system/device").json()["firmware_version"] == "2.4.1"
        assert ts.get("/system/status").json()["reboot_needed"] is False
        refused(ts.post("/system/upgrade", files={"file": ("fw.swu", swu.build("2.5.0", unsigned=True))}), 400,
                "not signed")


# -- the model itself -----------------------------------------------------------------------
def test_state_is_json_and_survives_a_restart(tmp_path):
    """No document sentence: the simulator's own `--state-dir` (README, Running a fleet),
    standing in for what a unit keeps across power cycles."""
    state_dir = str(tmp_path)
    with running_fleet(ts=1, fm=0, time_scale=0.01, state_dir=state_dir) as runner:
        api = Api(runner.fleet.devices[0])
        api.login()
        add_input(api, config=T2MI)
        api.post("/inputs/1/scte/toggle", {"enabled": True})
        api.post("/record/start/1", {"size": 1})
        wait_for(lambda: api.post("/inputs/1/scte").json()["total"] > 0)
        api.post("/profiles", {"name": "Kept"})  # simulated data is saved with the next change
        before = api.get("/inputs").json()[0]
        json.dumps(runner.call(lambda: api.device.state))
    with running_fleet(ts=1, fm=0, time_scale=0.01, state_dir=state_dir) as runner:
        api = Api(runner.fleet.devices[0])
        assert api.login().status_code == 200
        after = api.get("/inputs").json()[0]
        assert {k: after[k] for k in ("id", "name", "config", "scte35")} == {k: before[k] for k in ("id", "name", "config", "scte35")}
        assert [p["name"] for p in api.get("/profiles").json()] == ["Default", "Kept"]
        assert len(files(api)) == 1
        assert api.post("/inputs/1/scte").json()["total"] > 0


def test_advance_after_a_long_silence_simulates_a_bounded_stretch(fleet):
    """No document sentence: the model's lazy simulation stays cheap (README, Simulated
    behaviour): after a simulated week nobody asked about, one advance simulates at most
    MAX_CATCHUP error events and SCTE-35 markers per input, and so does the next one. Counted, not timed: the cost is the number of events."""
    device = fleet.fleet.of_kind("ts_analyzer")[1]
    api = Api(device)
    api.reset()
    api.login()
    for n in range(16):
        add_input(api, "In %d" % n, mcast(multicast_port=6000 + n))
        api.post("/inputs/%d/scte/toggle" % (n + 1), {"enabled": True})

    def rewind_and_count():
        for st in device.state["stats"].values():  # as if nobody asked for a simulated week
            st["cursor"] -= 7 * 86400
            st["next_event"] -= 7 * 86400
            st["next_scte"] -= 7 * 86400
        device._last_tick = None
        counts = collections.Counter()
        real = device._error_event, device._scte_marker
        device._error_event = lambda inp, *rest: (counts.update([("event", inp["id"])]), real[0](inp, *rest))
        device._scte_marker = lambda inp, *rest: (counts.update([("scte", inp["id"])]), real[1](inp, *rest))
        try:
            device.advance()
            first = dict(counts)
            counts.clear()
            device.advance()  # what the first left beyond its bound, bounded again
            return first, dict(counts)
        finally:
            del device._error_event, device._scte_marker

    first, again = fleet.call(rewind_and_count)
    assert {ident for kind, ident in first} == set(range(1, 17))  # every input caught up
    assert max(first.values()) <= MAX_CATCHUP and max(list(again.values()) or [0]) <= MAX_CATCHUP, (first, again)
    # the week was simulated in its latest stretch: about MAX_CATCHUP events of each kind per input
    assert sum(n for (kind, ident), n in first.items() if kind == "event") >= 16 * MAX_CATCHUP // 2, first


def test_same_seed_same_stream():
    """No document sentence: simulated streams are repeatable per seed (README, `--seed`)."""
    a = build_layout(3, 1, MCAST)
    assert a == build_layout(3, 1, MCAST)
    assert a != build_layout(4, 1, MCAST)
    assert TsAnalyzer._error_table("eth")[0][-6:] == IP_ERRORS


def test_alert_records_merge_while_an_error_persists():
    """No document sentence: the model's merging of repeated errors into one
    record (README, Simulated behaviour, Errors)."""
    device = TsAnalyzer("unit", "127.0.0.1", 0, time_scale=0.01)
    st = device._new_stats(1, 0)
    device._alert(st, "pts_error", 257, "Alpha TV", 100.0, 2, "warning")
    device._alert(st, "pts_error", 257, "Alpha TV", 100.05, 3, "warning")  # within 10 simulated seconds
    device._alert(st, "pts_error", 258, "Alpha TV", 100.06, 1, "warning")  # other PID: own record
    device._alert(st, "pts_error", 257, "Alpha TV", 101.0, 1, "warning")  # after a quiet stretch: new record
    assert [(r[1], r[3], r[4], r[5]) for r in st["alerts"]] == [  # pid, start, end, count
        (257, 100.0, 100.05, 5), (258, 100.06, 100.06, 1), (257, 101.0, 101.0, 1)]


# -- lost signals (the world outside the unit; README, "Signals") --------------------------
def stream(api, input_id):
    return next(s for s in api.get("/statistics/current").json()["transport_streams"] if s["input_id"] == input_id)


def test_a_lost_signal_stops_the_input_and_raises_sync_loss(ts, fleet):
    """ts-analyzer-api.md, Input: "The list of inputs returns, for each input, its current stream state, error
    indicators and the metrics bitrate, ..."; Statistics: "per error a current count and a sum, a status",
    "Status values: 0 = OK, 1 = warning, 2 = critical"; error names: `ts_sync_loss` (TR 101 290 priority 1);
    Events: "Alert events are recorded in an alert log per input". A stream that stops arriving: state
    `no_signal`, bitrate 0, `ts_sync_loss` counting with the profile entry's status, one alert record."""
    add_input(ts, "Lost")
    add_input(ts, "Fine", UNICAST)
    assert ts.sim("POST", "/signals", json={"lost": [1]}).json() == {"lost": [1], "lost_after_upgrade": [], "lost_at_boot": []}
    assert ts.sim("GET", "/signals").json() == {"lost": [1], "lost_after_upgrade": [], "lost_at_boot": []}
    ts.get("/inputs/1/reset_stats_alerts")  # what the stream showed before it stopped
    lost = get_input(ts, 1)
    assert (lost["state"], lost["status"], lost["metrics"]["bitrate"]) == ("no_signal", 2, 0)
    first = wait_for(lambda: stream(ts, 1)["data"]["ts_sync_loss"]["count"] > 0 and stream(ts, 1))
    assert first["data"]["ts_sync_loss"]["status"] == 2 and first["bitrate"] == 0
    wait_for(lambda: stream(ts, 1)["data"]["ts_sync_loss"]["count"] > first["data"]["ts_sync_loss"]["count"])
    assert get_input(ts, 1)["errors"]["priority1"] >= first["data"]["ts_sync_loss"]["count"]
    assert ts.get("/inputs/1/pids").json() == []
    records = ts.post("/inputs/1/alerts", {"error_code": ["ts_sync_loss"]}).json()["items"]
    assert [(r["error_name"], r["severity"], r["pid"]) for r in records] == [("ts_sync_loss", "critical", None)]
    fine = get_input(ts, 2)
    assert fine["state"] == "ok" and fine["metrics"]["bitrate"] > 0
    # back: receiving again, the loss's record ends where the loss ended
    fleet.call(ts.device.restore_signal, 1)
    back = get_input(ts, 1)
    assert back["state"] == "ok" and back["metrics"]["bitrate"] > 0
    ended = ts.post("/inputs/1/alerts", {"error_code": ["ts_sync_loss"]}).json()["items"][-1]
    time.sleep(0.2)
    assert ts.post("/inputs/1/alerts", {"error_code": ["ts_sync_loss"]}).json()["items"][-1] == ended  # oldest
    # a paused input counts nothing, lost or not; a disabled entry is not evaluated at all
    fleet.call(ts.device.lose_signal, 2)
    ts.get("/inputs/2/stop")
    ts.get("/inputs/2/reset_stats_alerts")
    assert get_input(ts, 2)["state"] == "paused"
    ts.post("/profiles/1", {"entries": [{"error_name": "ts_sync_loss", "enabled": False}]})
    ts.get("/inputs/2/start")
    time.sleep(0.2)
    assert stream(ts, 2)["data"]["ts_sync_loss"]["count"] == 0 and get_input(ts, 2)["state"] == "no_signal"


def test_signal_control_refuses_bad_ids(ts):
    """No document sentence: the simulator's own control path (README, "Signals")."""
    for body in ({"lost": ["1"]}, {"lost": [-1]}, {"lost": 1}, {"gone": [1]}, [1]):
        answer = ts.sim("POST", "/signals", json=body)
        assert answer.status_code == 400, body
    assert ts.sim("GET", "/signals").json() == {"lost": [], "lost_after_upgrade": [], "lost_at_boot": []}
    with pytest.raises(ValueError, match="input id"):
        ts.device.lose_signal(True)


def test_a_signal_lost_at_the_next_boot(ts, fleet):
    """ts-analyzer-api.md: "POST /system/reboot: reboot the device". An armed loss at boot (README,
    "Signals") happens at the next boot, whatever the reboot, and not before."""
    add_input(ts, "Armed")
    assert ok(ts.sim("POST", "/signals", json={"lost_at_boot": [1]}))["lost_at_boot"] == [1]
    assert get_input(ts, 1)["state"] == "ok"
    ts.post("/system/reboot")
    wait_reboot(ts)
    assert get_input(ts, 1)["state"] == "no_signal"
    assert ts.sim("GET", "/signals").json() == {"lost": [1], "lost_after_upgrade": [], "lost_at_boot": []}


def test_a_signal_lost_after_an_upgrade(ts, fleet):
    """ts-analyzer-api.md: "POST /system/upgrade: upload a .swu firmware package"; "The firmware version is
    reported by GET /system/device". An armed loss (README, "Signals") happens when the unit boots into the
    firmware it installed, not at a plain reboot; the inputs keep their configuration."""
    add_input(ts, "Armed")
    assert ts.sim("POST", "/signals", json={"lost_after_upgrade": [1], "lost_at_boot": []}).status_code == 200
    assert get_input(ts, 1)["state"] == "ok"
    ts.post("/system/reboot")
    wait_reboot(ts)
    assert get_input(ts, 1)["state"] == "ok"
    assert ts.post("/system/upgrade", files={"file": ("fw.swu", swu.build("2.4.1"))}).status_code == 200
    wait_reboot(ts)
    assert ts.get("/system/device").json()["firmware_version"] == "2.4.1"
    broken = get_input(ts, 1)
    assert (broken["state"], broken["metrics"]["bitrate"], broken["name"]) == ("no_signal", 0, "Armed")
    assert ts.sim("GET", "/signals").json() == {"lost": [1], "lost_after_upgrade": [], "lost_at_boot": []}
    ts.reset()  # a fresh test world: every signal back
    assert ts.sim("GET", "/signals").json() == {"lost": [], "lost_after_upgrade": [], "lost_at_boot": []}

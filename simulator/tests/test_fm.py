"""The FM monitor model over real HTTP: every endpoint, its roles, its refusals, its timing."""

import asyncio
import json
import threading
import time

import requests

from bm_simulator import swu
from bm_simulator.fleet import running_fleet
from bm_simulator.fm import ALERT_TYPES, DAYS

# -- helpers ----------------------------------------------------------------------------

from sim_api import Api, ok


def wait_for(predicate, timeout=5.0, step=0.01):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("condition not met within %.1f s" % timeout)


def settled(call):
    """Repeat a request while the tuner answers 503 (switching after a frequency change)."""
    for attempt in range(200):
        response = call()
        if response.status_code != 503:
            return response
        time.sleep(0.01)
    raise AssertionError("tuner stayed busy")


def tuner(api, tid):
    response = settled(lambda: api.get("/tuner/%d" % tid))
    assert response.status_code == 200, response.text
    return response.json()


def refused(response, status, *words):
    assert response.status_code == status, response.text
    body = response.json()
    assert body["code"] == status
    for word in words:
        assert word in body["message"], body["message"]
    return body["message"]


def reboot(api):
    ok(api.post("/system/reboot"))
    wait_for(lambda: api.device.down, timeout=5)
    wait_for(lambda: not api.device.down, timeout=10)
    assert api.get("/system/alive", token=False).json()["alive"] is True


def stations_on_air(api, minimum_rssi=0):
    return sorted(f for f, s in api.device.band.items() if s["rssi"] >= minimum_rssi)


def empty_frequency(api):
    return next(f for f in range(87500, 108001, 100) if f not in api.device.band)


def user_api(api):
    other = Api(api.device)
    ok(other.login("user"))
    return other


def alerts(api, **kwargs):
    body = {"order": "asc", "by": "from", "type": [], "id": [], "limit": 0, "offset": 0}
    body.update(kwargs)
    return ok(api.post("/alerts", body))


# -- auth and roles -----------------------------------------------------------------------


# Every route of fm-monitor-api.md with its Roles column: (method, path, least role); None = no token.
ROUTES = [
    ("POST", "/login", None),
    ("GET", "/tuners/all", "user"),
    ("GET", "/tuner/{tuner_id}", "user"),
    ("POST", "/tuner/{tuner_id}/settings", "user"),
    ("POST", "/tuners/all/settings", "user"),
    ("POST", "/tuner/{tuner_id}/state", "admin"),
    ("POST", "/tuner/{tuner_id}/station", "admin"),
    ("POST", "/tuner/{tuner_id}/scan", "user"),
    ("POST", "/tuner/{tuner_id}/stream", "user"),
    ("POST", "/tuner/{tuner_id}/muted", "user"),
    ("POST", "/tuner/{tuner_id}/thresholds", "user"),
    ("POST", "/tuners/all/thresholds", "user"),
    ("POST", "/tuner/{tuner_id}/schedule", "user"),
    ("POST", "/tuners/all/schedule", "user"),
    ("GET", "/tuner/{tuner_id}/live.m3u8", None),
    ("GET", "/tuner/{tuner_id}/live.mp4", None),
    ("GET", "/stations/all", "user"),
    ("GET", "/station/{station_id}", "user"),
    ("DELETE", "/station/{station_id}", "user"),
    ("DELETE", "/stations/all", "user"),
    ("POST", "/alerts", "user"),
    ("POST", "/alerts/csv", "user"),
    ("DELETE", "/alerts", "user"),
    ("GET", "/system/alive", None),
    ("GET", "/status", "user"),
    ("GET", "/system/log", "user"),
    ("POST", "/system/reboot", "admin"),
    ("POST", "/system/factory_reset", "admin"),
    ("POST", "/system/upgrade", "admin"),
    ("GET", "/playlist", "user"),
    ("GET", "/mib", "user"),
    ("GET", "/valid_bitrates", "user"),
    ("GET", "/conf", "user"),
    ("POST", "/conf", "admin"),
    ("GET", "/conf/network", "user"),
    ("POST", "/conf/network", "admin"),
    ("POST", "/conf/hostname", "admin"),
    ("GET", "/conf/datetime", "user"),
    ("POST", "/conf/datetime", "admin"),
    ("GET", "/conf/log", "user"),
    ("POST", "/conf/log", "admin"),
    ("POST", "/conf/password", "admin"),
    ("POST", "/monitor", "user"),
]


def concrete(path):
    return path.replace("{tuner_id}", "0").replace("{station_id}", "0")


def test_route_table_is_the_documents(fm):
    """fm-monitor-api.md, Endpoints: every path with its "Roles" column is served, and nothing
    else under /api ("All paths relative to `{base_url}`")."""
    served = sorted((method, path, role) for (method, path, _kind, role), _handler in fm.device._routes())
    assert served == sorted(ROUTES)


def test_reference_page_lists_every_route(fm):
    """The document names no reference page (the analyzer's serves one at /api.html); the simulator
    serves its own there, generated from its routes, without a token."""
    page = requests.get(fm.base + "/api.html", timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    for method, path, role in ROUTES:
        assert "<tr><td>%s</td><td><code>/api%s</code></td><td>%s</td>" % (method, path, role or "none") in page.text
    assert "POST /api/login" in page.text


def test_a_body_that_is_not_json_is_refused_saying_so(fm):
    """fm-monitor-api.md: "Bodies are JSON unless stated otherwise"; Errors: "any other status uses
    the error body" (`code`, `message`). A body sent without Content-Type: application/json (curl -d
    sends a form) is refused with that said, and nothing changes."""
    for headers in ({}, {"Content-Type": "application/x-www-form-urlencoded"}, {"Content-Type": "text/plain"}):
        answer = fm.request("POST", "/conf/hostname", data=json.dumps({"hostname": "other"}), headers=headers)
        assert answer.status_code == 400, answer.text
        message = answer.json()["message"]
        assert answer.json()["code"] == 400 and "Content-Type: application/json" in message, message
    assert ok(fm.get("/status"))["hostname"] != "other"
    assert fm.request("POST", "/conf/hostname", data="{}", headers={"Content-Type": "text/plain"},
                      token=False).status_code == 401  # the token is checked first


def test_every_route_but_four_needs_a_token(fm):
    """fm-monitor-api.md, Authentication 3: "No token is needed for `POST /login`, `GET /system/alive`,
    `GET /tuner/{tuner_id}/live.m3u8` and `GET /tuner/{tuner_id}/live.mp4`"; 6: "A missing or invalid
    token ... returns 401"."""
    for method, path, role in ROUTES:
        if role is None:
            continue
        refused(fm.request(method, concrete(path), token=False, json={}), 401)
        refused(fm.request(method, concrete(path), token="not-a-token", json={}), 401)
    assert ok(fm.get("/system/alive", token=False))["alive"] is True
    assert fm.get("/tuner/0/live.m3u8", token=False).status_code == 200
    assert ok(fm.post("/login", {"role": "user", "password": "user"}, token=False))["role"] == "user"
    assert {r["status"] for r in fm.device.writes()} == {401}  # nothing done without a valid token


def test_admin_routes_refuse_the_user_role_with_401(fm):
    """fm-monitor-api.md, Endpoints: "an admin-only endpoint called with a user token returns 401";
    Authentication 4: `user` has "read access and basic control", `admin` also "state, station tuning,
    configuration changes, password management, reboot, firmware upgrade, factory reset and
    configuration upload"."""
    user = user_api(fm)
    before = ok(fm.get("/conf"))
    for method, path, role in ROUTES:
        if role != "admin":
            continue
        refused(user.request(method, concrete(path), json={}), 401, "admin")
    assert [r["status"] for r in fm.device.writes()] == [401] * len([r for r in ROUTES if r[2] == "admin"])
    assert ok(fm.get("/conf")) == before and not fm.device.down
    for method, path, role in ROUTES:
        if role != "user":
            continue
        response = user.request(method, concrete(path), json={})
        assert response.status_code not in (401, 403), (method, path, response.text)


def test_login_tokens_and_roles(fm):
    """fm-monitor-api.md, Authentication 2: "`POST /login` (body `role`, `password`, `keep_logged_in`
    boolean) returns `role` and `token`"; 6: "A missing or invalid token, or insufficient role, returns 401"
    (a failed login too); 8: lifetime with `keep_logged_in` false "not shown" (README: no expiry)."""
    refused(fm.login("admin", "wrong"), 401)
    refused(fm.post("/login", {"role": "root", "password": "x"}, token=False), 401)
    refused(fm.post("/login", {"role": "admin", "password": "admin", "keep_logged_in": "yes"}, token=False),
            400, "keep_logged_in")
    short = ok(fm.post("/login", {"role": "admin", "password": "admin", "keep_logged_in": False}, token=False))
    assert short["role"] == "admin" and short["token"]
    user = user_api(fm)
    assert len(ok(user.get("/tuners/all"))) == 8
    refused(user.post("/tuner/0/state", {"state": 1}), 401)
    refused(fm.get("/tuners/all", token=False), 401)
    refused(fm.get("/tuners/all", token="not-a-token"), 401)
    # tokens do not expire in the simulator, keep_logged_in or not
    assert ok(fm.get("/status", token=short["token"]))["tuners"] == 8
    for path in ("/conf", "/conf/network", "/conf/hostname", "/conf/datetime", "/conf/log", "/conf/password",
                 "/tuner/0/station", "/system/reboot", "/system/factory_reset"):
        assert user.post(path, {}).status_code == 401, path
    for path in ("/tuner/0/settings", "/tuners/all/settings", "/tuner/0/stream", "/tuner/0/muted",
                 "/tuner/0/thresholds", "/tuners/all/thresholds", "/tuner/0/schedule",
                 "/tuners/all/schedule", "/monitor"):
        assert user.post(path, {}).status_code == 400, path  # allowed, but the empty body is refused


# -- tuners ---------------------------------------------------------------------------------


def test_factory_tuners(fm):
    """fm-monitor-api.md, Resources, Tuner: the fields `tuner_id` ... `hw_settings`; "Tuner ids are zero-based
    integers"; `GET /tuners/all` "array of Tuner", `GET /tuner/{tuner_id}` "Tuner" (404 past the last)."""
    tuners = ok(fm.get("/tuners/all"))
    assert [t["tuner_id"] for t in tuners] == list(range(8))
    four = tuners[3]
    assert set(four) == {"tuner_id", "name", "frequency", "tuned", "state", "signal_ok", "muted", "stream_enabled",
                         "quality", "rds", "stream", "thresholds", "schedule", "hw_settings", "station_id"}
    assert four["name"] == "Tuner 4" and four["frequency"] == 87500 and four["state"] == 0
    assert four["tuned"] is False and four["signal_ok"] is False and four["station_id"] is None
    assert four["stream"] == {"url": "udp://239.1.1.4:1234", "codec": "mp3", "requested_bitrate": 128,
                              "measured_bitrate": 0}
    assert four["hw_settings"] == {"agc_state": 1, "channel_filter": 0, "deemphasis": 2, "lna_gain": 0,
                                   "rssi_threshold": 20}
    assert four["schedule"] == {"active": False, "events": {day: [] for day in DAYS}}
    assert four["thresholds"]["thresholds"]["tuner_id"] == 3
    assert four["thresholds"]["thresholds"]["rssi"] == {"min": 20, "max": 127, "margin": 2}
    assert four["quality"] == {"rssi": 0, "snr": 0, "multipath": 0, "stereo": False, "stereo_blend": 0,
                               "rds": False, "level": False, "alarms": ""}
    assert set(four["rds"]) == {"pi", "ps", "prog_type", "radiotext", "pty", "country", "language"}
    assert ok(fm.get("/tuner/3")) == four
    refused(fm.get("/tuner/8"), 404, "Tuner 8")
    refused(fm.get("/tuner/abc"), 400)
    refused(fm.post("/tuner/8/settings", {"name": "x"}), 404)


def test_settings_validation_and_merge(fm):
    """fm-monitor-api.md, Tuners: `POST /tuner/{tuner_id}/settings` (`name`, `frequency`, `hw_settings`),
    `POST /tuners/all/settings` "applies to all tuners"; Hardware settings: `channel_filter` "0 to 4",
    `deemphasis` "1 = 75 microseconds, 2 = 50 microseconds", `lna_gain` ">= 0", `rssi_threshold` ">= 0";
    "Frequencies are integers in kHz"."""
    ok(fm.post("/tuner/2/settings", {"name": "Studio feed", "hw_settings": {"channel_filter": 3}}))
    two = tuner(fm, 2)
    assert two["name"] == "Studio feed" and two["frequency"] == 87500
    assert two["hw_settings"] == {"agc_state": 1, "channel_filter": 3, "deemphasis": 2, "lna_gain": 0,
                                  "rssi_threshold": 20}
    ok(fm.post("/tuner/2/settings", {"frequency": 99100}))
    assert tuner(fm, 2)["frequency"] == 99100
    cases = [
        ({"frequency": 87400}, "frequency"), ({"frequency": 108100}, "frequency"),
        ({"frequency": "98000"}, "frequency"), ({"frequency": 98000.5}, "frequency"),
        ({"hw_settings": {"channel_filter": 5}}, "hw_settings.channel_filter"),
        ({"hw_settings": {"deemphasis": 3}}, "hw_settings.deemphasis"),
        ({"hw_settings": {"agc_state": True}}, "hw_settings.agc_state"),
        ({"hw_settings": {"lna_gain": 16}}, "hw_settings.lna_gain"),
        ({"hw_settings": {"rssi_threshold": 128}}, "hw_settings.rssi_threshold"),
        ({"hw_settings": {"rssi_threshold": -1}}, "hw_settings.rssi_threshold"),
        ({"hw_settings": {"bandwidth": 1}}, "hw_settings.bandwidth"),
        ({"name": ""}, "name"), ({"name": "x" * 33}, "name"),
        ({"colour": "red"}, "colour"), ({}, "at least one"),
        ({"name": "never stored", "frequency": 50000}, "frequency"),
    ]
    for body, word in cases:
        refused(settled(lambda: fm.post("/tuner/2/settings", body)), 400, word)
    refused(fm.post("/tuner/2/settings", data="not json", headers={"Content-Type": "application/json"}), 400)
    two = tuner(fm, 2)
    assert two["name"] == "Studio feed" and two["frequency"] == 99100 and two["hw_settings"]["channel_filter"] == 3
    # all tuners: hw_settings only, merged into each
    ok(settled(lambda: fm.post("/tuners/all/settings", {"hw_settings": {"lna_gain": 7, "deemphasis": 1}})))
    for item in ok(fm.get("/tuners/all")):
        assert item["hw_settings"]["lna_gain"] == 7 and item["hw_settings"]["deemphasis"] == 1
    assert tuner(fm, 2)["hw_settings"]["channel_filter"] == 3
    refused(fm.post("/tuners/all/settings", {"hw_settings": {"lna_gain": 7}, "name": "x"}), 400, "name")
    refused(fm.post("/tuners/all/settings", {"hw_settings": {"channel_filter": 9}}), 400, "hw_settings.channel_filter")


def test_state_and_measurements(fm):
    """fm-monitor-api.md, States: `POST /tuner/{tuner_id}/state` with `state`, "admin role": "0: off, no
    measurements; 1: actively monitoring; 2: paused, configuration kept"; Tuner `tuned` "Locked onto the
    frequency", `signal_ok` "Signal above the RSSI threshold"; a user token gets 401."""
    user = user_api(fm)
    on_air = stations_on_air(fm)
    freq = on_air[0]
    station = fm.device.band[freq]
    ok(fm.post("/tuner/0/settings", {"frequency": freq}))
    assert tuner(fm, 0)["tuned"] is False  # disabled tuners measure nothing
    ok(fm.post("/tuner/0/state", {"state": 1}))
    zero = tuner(fm, 0)
    assert zero["state"] == 1 and zero["tuned"] is True and zero["signal_ok"] is True
    assert abs(zero["quality"]["rssi"] - station["rssi"]) <= 3
    assert abs(zero["quality"]["snr"] - station["snr"]) <= 3
    assert zero["quality"]["rds"] is station["rds"]
    assert zero["rds"]["ps"] == station["info"]["ps"]
    ok(fm.post("/tuner/0/settings", {"frequency": empty_frequency(fm)}))
    empty = tuner(fm, 0)
    assert empty["tuned"] is False and empty["quality"]["rssi"] == 0 and empty["rds"]["ps"] == ""
    ok(settled(lambda: fm.post("/tuner/0/settings", {"frequency": freq})))
    ok(settled(lambda: fm.post("/tuner/0/state", {"state": 2})))
    asleep = tuner(fm, 0)
    assert asleep["state"] == 2 and asleep["tuned"] is False and asleep["quality"]["rssi"] == 0
    # a lock threshold above the station's strength: no lock
    ok(fm.post("/tuner/0/state", {"state": 1}))
    ok(fm.post("/tuner/0/settings", {"hw_settings": {"rssi_threshold": 127}}))
    assert tuner(fm, 0)["tuned"] is False
    for bad_state in (3, -1, "1", True, None):
        refused(fm.post("/tuner/0/state", {"state": bad_state}), 400, "state")
    refused(fm.post("/tuner/0/state", {}), 400, "state")
    refused(user.post("/tuner/0/state", {"state": 0}), 401)
    assert tuner(fm, 0)["state"] == 1


def test_switching_answers_503_briefly(fm):
    """fm-monitor-api.md, Errors: "503 temporarily unavailable, retry after a short delay (during a
    band scan and tuner switching)"."""
    ok(fm.post("/tuner/5/settings", {"frequency": 100000}))
    # the switch lasts 0.3 s x time-scale; afterwards the tuner answers again
    wait_for(lambda: fm.get("/tuner/5").status_code == 200, timeout=2)
    assert tuner(fm, 5)["frequency"] == 100000
    ok(fm.post("/tuner/5/settings", {"frequency": 100000}))  # same frequency: no switch
    assert fm.get("/tuner/5").status_code == 200


def test_stream_and_playlist(fm):
    """fm-monitor-api.md, States: `POST /tuner/{tuner_id}/stream` with `enabled` true: "Streaming to the given
    url", false: "Streaming stops"; Limits: "Stream bitrates (kbps) | 64, 96, 128, 192, 256, 320";
    System: `GET /playlist` "`application/xspf+xml` with stream URLs of active channels"."""
    user = user_api(fm)
    freq = stations_on_air(fm)[1]
    ok(fm.post("/tuner/1/settings", {"frequency": freq}))
    ok(settled(lambda: fm.post("/tuner/1/state", {"state": 1})))
    ok(user.post("/tuner/1/stream", {"enabled": True, "stream": {"url": "udp://10.1.2.3:5004", "codec": "aac",
                                                                 "bitrate": 192}}))
    one = tuner(fm, 1)
    assert one["stream_enabled"] is True
    assert one["stream"]["url"] == "udp://10.1.2.3:5004" and one["stream"]["codec"] == "aac"
    assert one["stream"]["requested_bitrate"] == 192 and abs(one["stream"]["measured_bitrate"] - 192) <= 2
    cases = [
        ({"enabled": True, "stream": {"bitrate": 100}}, "stream.bitrate"),
        ({"enabled": True, "stream": {"codec": "flac"}}, "stream.codec"),
        ({"enabled": True, "stream": {"url": "http://10.1.2.3:5004"}}, "stream.url"),
        ({"enabled": True, "stream": {"url": "udp://239.1.1.300:1234"}}, "stream.url"),
        ({"enabled": True, "stream": {"url": "udp://239.1.1.3:70000"}}, "stream.url"),
        ({"enabled": True, "stream": {"port": 1}}, "stream.port"),
        ({"enabled": "yes"}, "enabled"),
        ({"stream": {"bitrate": 64}}, "enabled"),
    ]
    for body, word in cases:
        refused(fm.post("/tuner/1/stream", body), 400, word)
    assert tuner(fm, 1)["stream"]["requested_bitrate"] == 192
    ok(fm.post("/tuner/6/stream", {"enabled": True}))  # toggling keeps the factory url
    playlist = fm.get("/playlist")
    assert playlist.status_code == 200 and playlist.headers["Content-Type"].startswith("application/xspf+xml")
    assert "<location>udp://10.1.2.3:5004</location>" in playlist.text
    assert "<location>udp://239.1.1.7:1234</location>" in playlist.text
    assert "239.1.1.1:1234" not in playlist.text and playlist.text.count("<track>") == 2
    assert tuner(fm, 6)["stream"]["measured_bitrate"] == 0  # tuner 6 is disabled: nothing flows
    ok(fm.post("/tuner/1/stream", {"enabled": False}))
    one = tuner(fm, 1)
    assert one["stream_enabled"] is False and one["stream"]["measured_bitrate"] == 0
    assert one["stream"]["url"] == "udp://10.1.2.3:5004"


def test_muted_and_monitor(fm):
    """fm-monitor-api.md, States: `POST /tuner/{tuner_id}/muted` "as `muted` sent"; Configuration: `POST /monitor`
    "`tuner_id` (integer), `mute` (integer: 0 = unmuted, 16 = muted)", roles "user, admin"."""
    user = user_api(fm)
    ok(user.post("/tuner/4/muted", {"muted": True}))
    assert tuner(fm, 4)["muted"] is True
    refused(fm.post("/tuner/4/muted", {"muted": 1}), 400, "muted")
    refused(fm.post("/tuner/4/muted", {}), 400, "muted")
    ok(user.post("/monitor", {"tuner_id": 4, "mute": 16}))
    assert ok(fm.get("/status"))["monitor_tuner"] == 4
    assert ok(fm.get("/conf"))["monitor"] == {"tuner_id": 4, "mute": 16}
    refused(fm.post("/monitor", {"tuner_id": 8, "mute": 0}), 400, "tuner_id")
    refused(fm.post("/monitor", {"tuner_id": 1, "mute": 1}), 400, "mute")
    refused(fm.post("/monitor", {"tuner_id": 1}), 400, "mute")


def test_thresholds(fm):
    """fm-monitor-api.md, Resources, Thresholds (request shape) and the table "Metric | Min | Max": rssi 0-127,
    multipath 0-100 ...; `POST /tuners/all/thresholds` "same shape", "applies to all tuners"."""
    ok(fm.post("/tuner/3/thresholds", {"rssi_interval": 5, "thresholds": {"tuner_id": 3, "snr": {"min": 15},
                                                                          "rds": {"sync_lost": True}}}))
    three = tuner(fm, 3)["thresholds"]
    assert three["rssi_interval"] == 5 and three["rssi_threshold"] == 20
    assert three["thresholds"]["snr"] == {"min": 15, "max": 127, "margin": 2}
    assert three["thresholds"]["rds"]["sync_lost"] is True and three["thresholds"]["rds"]["blocka"] is False
    cases = [
        ({"thresholds": {"rssi": {"min": 128}}}, "thresholds.rssi.min"),
        ({"thresholds": {"multipath": {"max": 101}}}, "thresholds.multipath.max"),
        ({"thresholds": {"audiol": {"margin": -1}}}, "thresholds.audiol.margin"),
        ({"thresholds": {"rds": {"blocka": 1}}}, "thresholds.rds.blocka"),
        ({"thresholds": {"rds": {"blocke": True}}}, "thresholds.rds.blocke"),
        ({"thresholds": {"tuner_id": 2}}, "thresholds.tuner_id"),
        ({"thresholds": {"snr": {"min": 50, "max": 40}}}, "thresholds.snr.min"),
        ({"rssi_threshold": 128}, "rssi_threshold"),
        ({"rssi_interval": 0}, "rssi_interval"),
        ({"noise": 1}, "noise"), ({}, "at least one"),
    ]
    for body, word in cases:
        refused(fm.post("/tuner/3/thresholds", body), 400, word)
    assert tuner(fm, 3)["thresholds"] == three
    # the all-tuners route ignores thresholds.tuner_id and keeps each tuner's own
    ok(fm.post("/tuners/all/thresholds", {"rssi_threshold": 30, "thresholds": {"tuner_id": 0, "rssi": {"margin": 4}}}))
    for item in ok(fm.get("/tuners/all")):
        assert item["thresholds"]["rssi_threshold"] == 30
        assert item["thresholds"]["thresholds"]["rssi"] == {"min": 20, "max": 127, "margin": 4}
        assert item["thresholds"]["thresholds"]["tuner_id"] == item["tuner_id"]
    assert tuner(fm, 3)["thresholds"]["thresholds"]["snr"]["min"] == 15
    refused(fm.post("/tuners/all/thresholds", {"thresholds": {"snr": {"max": 200}}}), 400, "thresholds.snr.max")


def test_threshold_values_that_disable_the_alert(fm):
    """fm-monitor-api.md, Thresholds: "Value that disables the alert": rssi 0, snr 0, multipath 100,
    stereoblend 0, audiol/audior 0."""
    quiet = empty_frequency(fm)
    disabled = {name: {"min": 0, "max": 0} for name in ("rssi", "snr", "stereoblend", "audiol", "audior")}
    disabled["multipath"] = {"max": 100}
    ok(fm.post("/tuner/0/thresholds", {"rssi_interval": 1, "thresholds": disabled}))
    ok(fm.post("/tuner/1/thresholds", {"rssi_interval": 1}))
    for tid in (0, 1):
        ok(fm.post("/tuner/%d/settings" % tid, {"frequency": quiet}))
        ok(settled(lambda: fm.post("/tuner/%d/state" % tid, {"state": 1})))
    # both tuners measure the same empty frequency over the same intervals: only the one with
    # the factory bounds (rssi min 20, snr min 10) raises alerts
    wait_for(lambda: alerts(fm, id=[1])["total"] == 2, timeout=3)
    assert alerts(fm, id=[0]) == {"total": 0, "alerts": []}
    assert tuner(fm, 0)["quality"]["alarms"] == "" and tuner(fm, 1)["quality"]["alarms"] == "rfl_low snr_low"


def test_schedule_shape_and_validation(fm):
    """fm-monitor-api.md, Resources, Schedule: "`events` maps a lower-case day name to an array of
    `{minute, state}` where `minute` is integer 0 to 1439 ... and `state` is 0, 1 or 2"; Limits:
    "Schedule `minute` | 0 to 1439"; `POST /tuners/all/schedule` "applies to all tuners"."""
    events = {"monday": [{"minute": 600, "state": 1}, {"minute": 30, "state": 0}],
              "sunday": [{"minute": 1439, "state": 2}]}
    ok(fm.post("/tuner/5/schedule", {"active": True, "events": events}))
    five = tuner(fm, 5)["schedule"]
    assert five["active"] is True
    assert five["events"]["monday"] == [{"minute": 30, "state": 0}, {"minute": 600, "state": 1}]  # sorted
    assert five["events"]["sunday"] == [{"minute": 1439, "state": 2}] and five["events"]["friday"] == []
    ok(fm.post("/tuner/5/schedule", {"active": False, "events": {"friday": [{"minute": 0, "state": 1}]}}))
    five = tuner(fm, 5)["schedule"]
    assert five["active"] is False and len(five["events"]["monday"]) == 2 and five["events"]["friday"][0]["minute"] == 0
    ok(fm.post("/tuner/5/schedule", {"active": True, "events": {"monday": []}}))
    assert tuner(fm, 5)["schedule"]["events"]["monday"] == []
    cases = [
        ({"active": True, "events": {"monday": [{"minute": 1440, "state": 1}]}}, "events.monday[0].minute"),
        ({"active": True, "events": {"monday": [{"minute": -1, "state": 1}]}}, "events.monday[0].minute"),
        ({"active": True, "events": {"tuesday": [{"minute": 5, "state": 3}]}}, "events.tuesday[0].state"),
        ({"active": True, "events": {"Monday": []}}, "events.Monday"),
        ({"active": True, "events": {"holiday": []}}, "events.holiday"),
        ({"active": True, "events": {"monday": [{"minute": 5}]}}, "events.monday[0].state"),
        ({"active": True, "events": {"monday": [{"minute": 5, "state": 1}, {"minute": 5, "state": 2}]}},
         "events.monday[1].minute"),
        ({"active": True, "events": {"monday": {"minute": 5, "state": 1}}}, "events.monday"),
        ({"events": {}}, "active"), ({"active": "yes"}, "active"),
    ]
    for body, word in cases:
        refused(fm.post("/tuner/5/schedule", body), 400, word)
    ok(fm.post("/tuners/all/schedule", {"active": True, "events": {"saturday": [{"minute": 720, "state": 2}]}}))
    for item in ok(fm.get("/tuners/all")):
        assert item["schedule"]["active"] is True
        assert item["schedule"]["events"]["saturday"] == [{"minute": 720, "state": 2}]
    assert tuner(fm, 5)["schedule"]["events"]["friday"] == [{"minute": 0, "state": 1}]
    refused(fm.post("/tuners/all/schedule", {"active": True, "events": {"someday": []}}), 400, "events.someday")


def test_schedule_event_changes_state_when_reached(fm):
    """fm-monitor-api.md, States: "a schedule event is reached | schedule `active` is true
    and day and minute match | state of the event"."""
    # Monday 2024-01-01, 10:00:59.5 local time at UTC+2; the event is at 10:01 (minute 601)
    ok(fm.post("/conf/datetime", {"enable_ntp": False, "datetime": "2024-01-01T10:00:59.500+02:00", "timezone": 2}))
    ok(fm.post("/tuner/2/schedule", {"active": True, "events": {"monday": [{"minute": 601, "state": 1}]}}))
    ok(fm.post("/tuner/3/schedule", {"active": False, "events": {"monday": [{"minute": 601, "state": 1}]}}))
    ok(fm.post("/tuner/4/schedule", {"active": True, "events": {"tuesday": [{"minute": 601, "state": 1}]}}))
    assert tuner(fm, 2)["state"] == 0
    wait_for(lambda: tuner(fm, 2)["state"] == 1, timeout=3)
    assert tuner(fm, 3)["state"] == 0 and tuner(fm, 4)["state"] == 0
    shown = ok(fm.get("/conf/datetime"))
    assert shown["datetime"].startswith("2024-01-01T10:01:") and shown["datetime"].endswith("+02:00")
    assert any("tuner 2 state 1 (schedule)" in e["msg"] for e in ok(fm.get("/system/log")))


def test_datetime(fm):
    """fm-monitor-api.md, Configuration: `POST /conf/datetime` "`enable_ntp` (boolean, required), `datetime` (string,
    required, used when NTP is off), `timezone` (integer, required), `ntp_servers` (array, optional);
    effective immediately"; Date and time object: `timezone` "integer UTC offset in hours"."""
    factory = ok(fm.get("/conf/datetime"))
    assert factory["enable_ntp"] is True and factory["timezone"] == 0 and factory["ntp_servers"] == ["pool.ntp.org"]
    shown = time.mktime(time.strptime(factory["datetime"][:19], "%Y-%m-%dT%H:%M:%S"))
    assert abs(shown - time.mktime(time.gmtime())) < 5 and factory["datetime"].endswith("+00:00")
    ok(fm.post("/conf/datetime", {"enable_ntp": False, "datetime": "2030-06-15T08:30:00", "timezone": -5,
                                  "ntp_servers": ["10.0.0.1", "ntp.example.org"]}))
    manual = ok(fm.get("/conf/datetime"))
    assert manual["datetime"].startswith("2030-06-15T08:3") and manual["datetime"].endswith("-05:00")
    assert manual["ntp_servers"] == ["10.0.0.1", "ntp.example.org"] and manual["enable_ntp"] is False
    assert ok(fm.get("/status"))["reboot_needed"] is False  # effective immediately
    cases = [
        ({"enable_ntp": False, "datetime": "2030-06-15T08:30:00", "timezone": 15}, "timezone"),
        ({"enable_ntp": False, "datetime": "2030-06-15T08:30:00", "timezone": -13}, "timezone"),
        ({"enable_ntp": False, "datetime": "tomorrow", "timezone": 0}, "datetime"),
        ({"enable_ntp": False, "datetime": "1970-01-01T00:00:00Z", "timezone": 0}, "datetime"),
        ({"datetime": "2030-06-15T08:30:00", "timezone": 0}, "enable_ntp"),
        ({"enable_ntp": True, "timezone": 0}, "datetime"),
        ({"enable_ntp": True, "datetime": "2030-06-15T08:30:00", "timezone": 0, "ntp_servers": "pool"}, "ntp_servers"),
        ({"enable_ntp": True, "datetime": "2030-06-15T08:30:00", "timezone": 0, "ntp_servers": ["bad host!"]},
         "ntp_servers[0]"),
    ]
    for body, word in cases:
        refused(fm.post("/conf/datetime", body), 400, word)
    ok(fm.post("/conf/datetime", {"enable_ntp": True, "datetime": "2030-06-15T08:30:00", "timezone": 1}))
    synced = ok(fm.get("/conf/datetime"))
    assert synced["datetime"].startswith(time.strftime("%Y-", time.gmtime())) and synced["datetime"].endswith("+01:00")
    assert synced["ntp_servers"] == ["10.0.0.1", "ntp.example.org"]  # left out: kept


# -- scans and stations ------------------------------------------------------------------


def test_scan_fills_station_list(fm):
    """fm-monitor-api.md, States: scan "found stations are added to the global station list"; Station:
    "`station_id` ... Assigned sequentially at scan time"; Tuners: scan query `async` "0 or 1, default 0"."""
    found = ok(fm.post("/tuner/0/scan"))
    expected = stations_on_air(fm, 20)  # factory lock threshold 20
    assert [s["frequency"] for s in found] == expected
    assert [s["station_id"] for s in found] == list(range(len(expected)))
    assert set(found[0]) == {"station_id", "frequency", "rssi", "snr", "timestamp"}
    assert ok(fm.get("/stations/all")) == found
    # a second scan refreshes the records of known frequencies instead of adding new ones
    ok(fm.post("/tuner/1/settings", {"hw_settings": {"rssi_threshold": 50}}))
    again = ok(fm.post("/tuner/1/scan?async=0"))
    strong = stations_on_air(fm, 50)
    assert [s["frequency"] for s in again] == strong
    assert {s["station_id"] for s in again} <= set(range(len(expected)))
    assert len(ok(fm.get("/stations/all"))) == len(expected)
    refused(fm.post("/tuner/0/scan?async=2"), 400, "async")
    refused(fm.post("/tuner/9/scan"), 404)


def test_stations_and_tuning(fm):
    """fm-monitor-api.md, Stations: `DELETE /station/{station_id}` "removes one record; tuners unaffected",
    `DELETE /stations/all` "removes all records; tuners unaffected"; Tuners: `POST /tuner/{tuner_id}/station`
    role "admin" (user: 401)."""
    found = ok(fm.post("/tuner/7/scan"))
    user = user_api(fm)
    first = ok(fm.get("/station/1"))
    assert first == found[1]
    refused(user.post("/tuner/2/station", {"station_id": 1}), 401)
    ok(fm.post("/tuner/2/station", {"station_id": 1}))
    two = tuner(fm, 2)
    assert two["frequency"] == first["frequency"] and two["station_id"] == 1
    refused(fm.post("/tuner/2/station", {"station_id": 99}), 404, "Station 99")
    refused(fm.post("/tuner/2/station", {"station_id": "1"}), 400, "station_id")
    ok(settled(lambda: fm.post("/tuner/3/settings", {"frequency": found[2]["frequency"]})))
    assert tuner(fm, 3)["station_id"] == 2  # frequency of a known station
    ok(user.delete("/station/1"))
    refused(fm.get("/station/1"), 404)
    refused(fm.delete("/station/1"), 404)
    two = tuner(fm, 2)
    assert two["frequency"] == first["frequency"] and two["station_id"] == 1  # tuners unaffected
    assert [s["station_id"] for s in ok(fm.get("/stations/all"))] == [i for i in range(len(found)) if i != 1]
    ok(user.delete("/stations/all"))
    assert ok(fm.get("/stations/all")) == []
    assert tuner(fm, 3)["frequency"] == found[2]["frequency"]
    assert [s["station_id"] for s in ok(fm.post("/tuner/7/scan"))][:2] == [0, 1]  # ids start over


def test_scan_timing_busy_and_async():
    """fm-monitor-api.md, States: scan "Up to 10 seconds; other requests to the same tuner return 503
    ... then idle"; Tuners: station "503 if the tuner is busy", `async` "1 uses chunked transfer for
    streaming results"; Errors: 503 "during a band scan and tuner switching"."""
    with running_fleet(ts=0, fm=1, time_scale=0.2) as runner:
        api = Api(runner.devices[0])
        ok(api.login())
        result = {}

        def scan():
            started = time.monotonic()
            result["response"] = api.post("/tuner/3/scan", timeout=30)
            result["seconds"] = time.monotonic() - started

        worker = threading.Thread(target=scan)
        worker.start()
        other = Api(api.device)
        other.token = api.token
        wait_for(lambda: other.get("/tuner/3").status_code == 503, timeout=1)
        refused(other.get("/tuner/3"), 503, "Tuner 3 is busy")
        refused(other.post("/tuner/3/settings", {"name": "x"}), 503)
        refused(other.post("/tuner/3/scan"), 503)
        refused(other.post("/tuner/3/station", {"station_id": 0}), 503, "Tuner 3 is busy")
        refused(other.get("/tuner/3/live.m3u8", token=False), 503)
        refused(other.post("/tuners/all/settings", {"hw_settings": {"lna_gain": 1}}), 503, "Tuner 3")
        assert ok(other.get("/tuner/4"))["tuner_id"] == 4
        assert len(ok(other.get("/tuners/all"))) == 8
        worker.join(30)
        assert result["response"].status_code == 200
        assert 1.8 <= result["seconds"] < 6  # 10 s x 0.2
        assert [s["frequency"] for s in result["response"].json()] == stations_on_air(api, 20)
        assert ok(api.get("/tuner/3"))["tuner_id"] == 3

        # async=1: chunked, one Station per line, as they are found
        ok(api.delete("/stations/all"))
        arrivals = []
        with api.post("/tuner/4/scan?async=1", stream=True, timeout=30) as response:
            assert response.status_code == 200
            assert response.headers["Transfer-Encoding"] == "chunked"
            assert response.headers["Content-Type"].startswith("application/x-ndjson")
            for line in response.iter_lines():
                if line:
                    arrivals.append((time.monotonic(), json.loads(line)))
        assert [s["station_id"] for when, s in arrivals] == list(range(len(arrivals)))
        assert [s["frequency"] for when, s in arrivals] == stations_on_air(api, 20)
        assert arrivals[-1][0] - arrivals[0][0] > 0.5  # streamed over the scan, not at once

        # a frequency change switches the tuner: 503 for 0.3 s x 0.2, then it answers
        ok(api.post("/tuner/1/settings", {"frequency": 99000}))
        refused(api.get("/tuner/1"), 503, "Tuner 1 is switching")
        wait_for(lambda: api.get("/tuner/1").status_code == 200, timeout=2)

        # a reboot ends a running scan
        api.sim("POST", "/faults", json=[{"kind": "reboot_gap", "seconds": 0.3}])
        worker = threading.Thread(target=lambda: result.update(lost=_swallow(lambda: api.post("/tuner/5/scan"))))
        worker.start()
        wait_for(lambda: other.get("/tuner/5").status_code == 503, timeout=1)
        reboot(api)
        assert ok(api.get("/tuner/5"))["tuner_id"] == 5
        worker.join(30)


def _swallow(call):
    try:
        return call().status_code
    except requests.RequestException as err:
        return type(err).__name__


# -- alerts ----------------------------------------------------------------------------


def test_alerts_accrue_close_filter_and_page(fm):
    """fm-monitor-api.md, Alerts: `POST /alerts` (required `order`, `by`, `type` "empty = all", `id`
    "empty = all tuners", `limit`, `offset`; optional `from`, `till` "Unix seconds") answers "`total` (integer,
    matches before pagination), `alerts`"; `POST /alerts/csv` "`text/csv`, all alerts without pagination";
    Events: "`quality.alarms` lists the alarms active on a tuner at present"; the 17 exact alert types."""
    quiet = empty_frequency(fm)
    for tid in (0, 1):
        ok(fm.post("/tuner/%d/settings" % tid, {"frequency": quiet}))
        ok(settled(lambda: fm.post("/tuner/%d/state" % tid, {"state": 1})))
    wait_for(lambda: alerts(fm)["total"] == 4, timeout=3)
    zero = tuner(fm, 0)
    assert zero["quality"]["alarms"] == "rfl_low snr_low"
    assert ok(fm.get("/status"))["health"] == "warning"
    listed = alerts(fm)["alerts"]
    assert {(a["tuner_id"], a["type"]) for a in listed} == {(0, "RFL is low"), (0, "SNR is low"),
                                                            (1, "RFL is low"), (1, "SNR is low")}
    assert all(a["till"] is None and a["from"].endswith("Z") for a in listed)
    # tune tuner 0 to a station: its alerts end
    ok(fm.post("/tuner/0/settings", {"frequency": stations_on_air(fm, 40)[0]}))
    wait_for(lambda: all(a["till"] for a in alerts(fm, id=[0])["alerts"]), timeout=3)
    assert tuner(fm, 0)["quality"]["alarms"] == ""
    # filters, order and paging
    assert alerts(fm, id=[1])["total"] == 2
    only_snr = alerts(fm, type=["SNR is low"])
    assert only_snr["total"] == 2 and {a["type"] for a in only_snr["alerts"]} == {"SNR is low"}
    by_tuner = alerts(fm, by="tuner_id", order="desc")["alerts"]
    assert [a["tuner_id"] for a in by_tuner] == [1, 1, 0, 0]
    page = alerts(fm, by="tuner_id", order="asc", limit=2, offset=1)
    assert page["total"] == 4 and [a["tuner_id"] for a in page["alerts"]] == [0, 1]
    assert alerts(fm, offset=10)["alerts"] == [] and alerts(fm, offset=10)["total"] == 4
    assert alerts(fm, **{"from": int(time.time()) + 3600})["total"] == 0
    assert alerts(fm, **{"from": int(time.time()) - 3600, "till": int(time.time()) + 3600})["total"] == 4
    assert alerts(fm, till=int(time.time()) - 3600)["total"] == 0
    # CSV: every alert, no paging
    csv = fm.post("/alerts/csv", {"order": "desc"})
    assert csv.status_code == 200 and csv.headers["Content-Type"].startswith("text/csv")
    lines = csv.text.strip().split("\n")
    assert lines[0] == "tuner_id,type,from,till" and len(lines) == 5
    assert lines[-1].split(",")[:2] in (["0", "RFL is low"], ["0", "SNR is low"])  # desc: oldest last
    assert sum(1 for line in lines[1:] if line.endswith(",")) == 2  # tuner 1's are still active
    refused(fm.post("/alerts/csv", {}), 400, "order")
    # refusals
    body = {"order": "asc", "by": "from", "type": [], "id": [], "limit": 10, "offset": 0}
    for key in body:
        partial = {k: v for k, v in body.items() if k != key}
        refused(fm.post("/alerts", partial), 400, key)
    for change, word in (({"order": "up"}, "order"), ({"by": "type"}, "by"), ({"type": ["RFL is weak"]}, "type[0]"),
                         ({"type": "RFL is low"}, "type"), ({"id": [-1]}, "id[0]"), ({"limit": -1}, "limit"),
                         ({"offset": "0"}, "offset"), ({"from": "today"}, "from"), ({"extra": 1}, "extra")):
        refused(fm.post("/alerts", dict(body, **change)), 400, word)
    assert len(ALERT_TYPES) == 17
    # disabling ends the rest; DELETE clears the log; nothing left active to re-raise
    ok(fm.post("/tuner/1/state", {"state": 0}))
    assert all(a["till"] for a in alerts(fm)["alerts"])
    ok(user_api(fm).delete("/alerts"))
    assert alerts(fm) == {"total": 0, "alerts": []}
    assert ok(fm.get("/status"))["health"] == "ok"


def test_alerts_flap_with_tight_thresholds_and_survive_reboot(fm):
    """fm-monitor-api.md, Events: "Threshold breaches are recorded as alert records
    (type, tuner, start, end) and persist across reboots"."""
    freq = stations_on_air(fm, 40)[0]
    base = fm.device.band[freq]["rssi"]
    ok(fm.post("/tuner/6/thresholds", {"rssi_interval": 1, "thresholds": {"rssi": {"min": base, "margin": 0}}}))
    ok(fm.post("/tuner/6/settings", {"frequency": freq}))
    ok(settled(lambda: fm.post("/tuner/6/state", {"state": 1})))
    end = time.monotonic() + 0.8
    while time.monotonic() < end:  # requests drive the lazy evaluation
        fm.get("/status")
        time.sleep(0.02)
    got = alerts(fm, id=[6], type=["RFL is low"])
    closed = [a for a in got["alerts"] if a["till"]]
    assert got["total"] >= 3 and len(closed) >= 2
    assert {a["type"] for a in alerts(fm)["alerts"]} == {"RFL is low"}
    before = alerts(fm)["total"]
    reboot(fm)
    assert alerts(fm)["total"] >= before


def test_alert_delete_reopens_active_conditions(fm):
    """fm-monitor-api.md, Alerts: `DELETE /alerts` "clears the whole log, no confirmation"."""
    ok(fm.post("/tuner/0/state", {"state": 1}))  # 87500 carries no station here
    wait_for(lambda: alerts(fm)["total"] == 2, timeout=3)
    ok(fm.delete("/alerts"))
    wait_for(lambda: alerts(fm)["total"] == 2, timeout=3)
    assert all(a["till"] is None for a in alerts(fm)["alerts"])


# -- system ----------------------------------------------------------------------------


def test_status_and_alive(fm):
    """fm-monitor-api.md, Resources, Device status (its fields, `versions` and `resources`); System: `GET
    /system/alive` | none | "`alive` (boolean), `system_uptime`, `streamer_uptime`"."""
    status = ok(fm.get("/status"))
    assert set(status) == {"hostname", "health", "tuners", "system_uptime", "streamer_uptime", "reboot_needed",
                           "monitor_tuner", "versions", "resources"}
    assert status["hostname"] == fm.device.name and status["health"] == "ok" and status["tuners"] == 8
    assert status["reboot_needed"] is False and status["monitor_tuner"] == 0
    assert status["versions"]["package_ver"] == "1.0.0"
    assert set(status["versions"]) == {"producer", "model_name", "part_number", "serial_number", "package_ver",
                                       "fpga_ver", "streamer_ver", "kernel_ver"}
    assert all(isinstance(v, str) for v in status["versions"].values())
    assert set(status["resources"]) == {"load_average_1min", "load_average_5min", "load_average_15min", "cpu_load",
                                        "memory_total", "memory_free", "memory_shared", "memory_buffer"}
    assert isinstance(status["resources"]["memory_total"], int)
    assert status["resources"]["memory_free"] < status["resources"]["memory_total"]
    alive = ok(fm.get("/system/alive", token=False))
    assert alive["alive"] is True and isinstance(alive["system_uptime"], int)


def test_files_bitrates_and_live(fm):
    """fm-monitor-api.md, System: `GET /valid_bitrates` "values 64, 96, 128, 192, 256, 320", `GET /mib`
    "`application/octet-stream` SNMP MIB"; Tuners: `GET /tuner/{tuner_id}/live.m3u8` | none (no token) |
    "HLS playlist, `application/vnd.apple.mpegurl`"."""
    assert ok(fm.get("/valid_bitrates")) == {"bitrates": [64, 96, 128, 192, 256, 320]}
    mib = fm.get("/mib")
    assert mib.status_code == 200 and mib.headers["Content-Type"] == "application/octet-stream"
    assert mib.content.startswith(b"FM-MONITOR-MIB DEFINITIONS ::= BEGIN") and mib.content.rstrip().endswith(b"END")
    empty = fm.get("/playlist")
    assert empty.status_code == 200 and "<trackList>" in empty.text and "<track>" not in empty.text
    hls = fm.get("/tuner/2/live.m3u8", token=False)
    assert hls.status_code == 200 and hls.headers["Content-Type"].startswith("application/vnd.apple.mpegurl")
    assert hls.text.startswith("#EXTM3U\n") and "live.mp4" in hls.text
    refused(fm.get("/tuner/8/live.m3u8", token=False), 404)
    refused(fm.get("/tuner/8/live.mp4", token=False), 404)
    refused(fm.get("/mib", token=False), 401)


# -- live stream ------------------------------------------------------------------------


class LiveClient:
    """A client of one live.mp4 stream, reading whole MP4 boxes ``(type, payload)`` as they come."""

    def __init__(self, api, tuner_id):
        self.video = requests.get(api.base + "/api/tuner/%d/live.mp4" % tuner_id, stream=True, timeout=10)
        self._chunks = self.video.iter_content(None)  # one iterator: a second one would start empty
        self._buffer = b""
        self.boxes = []

    def read(self, fragments):
        """Read on until ``fragments`` mdat boxes came in all; the boxes read so far."""
        while sum(1 for kind, _payload in self.boxes if kind == b"mdat") < fragments:
            chunk = next(self._chunks, None)
            if chunk is None:
                raise AssertionError("the stream ended after %d boxes" % len(self.boxes))
            self._buffer += chunk
            while len(self._buffer) >= 8 and len(self._buffer) >= int.from_bytes(self._buffer[:4], "big"):
                size = int.from_bytes(self._buffer[:4], "big")
                self.boxes.append((self._buffer[4:8], self._buffer[8:size]))
                self._buffer = self._buffer[size:]
        return self.boxes

    def close(self):
        self.video.close()


def loop_tasks(fleet):
    """Tasks alive on the fleet's event loop (aiohttp's connection handlers included)."""
    return fleet.call(lambda: len(asyncio.all_tasks()))


def test_live_mp4_streams_until_the_client_closes_and_leaks_nothing(fm, fleet):
    """fm-monitor-api.md, Tuners: `GET /tuner/{tuner_id}/live.mp4` | none (no token) |
    "endless chunked `video/mp4` until the client closes"."""
    device = fm.device
    wait_for(lambda: fleet.call(lambda: device.live_streams) == 0)
    tasks_before = loop_tasks(fleet)
    client = LiveClient(fm, 2)
    video = client.video
    assert video.status_code == 200 and video.headers["Content-Type"] == "video/mp4"
    assert video.headers["Transfer-Encoding"] == "chunked"
    boxes = client.read(10)
    assert fleet.call(lambda: device.live_streams) == 1
    client.close()
    assert boxes[0][0] == b"ftyp"
    fragments = [payload for kind, payload in boxes if kind == b"moof"]
    assert [int.from_bytes(number, "big") for number in fragments[:10]] == list(range(10))
    # the client closed: its stream ends and takes its connection task with it
    wait_for(lambda: fleet.call(lambda: device.live_streams) == 0)
    wait_for(lambda: loop_tasks(fleet) <= tasks_before)
    assert ok(fm.get("/tuner/2"))["tuner_id"] == 2  # the device serves on as before


def test_live_mp4_several_clients_open_and_close(fm, fleet):
    """fm-monitor-api.md, Tuners: live.mp4 is "endless chunked `video/mp4` until the client
    closes", for each client on its own; a closed client leaves nothing behind."""
    device = fm.device
    wait_for(lambda: fleet.call(lambda: device.live_streams) == 0)
    tasks_before = loop_tasks(fleet)
    for round_number in range(3):
        clients = [LiveClient(fm, tid) for tid in (0, 3, 3, 7)]
        assert [client.video.status_code for client in clients] == [200] * 4
        assert fleet.call(lambda: device.live_streams) == 4
        for number, client in enumerate(clients):
            client.read(2 + number + round_number)
        for client in reversed(clients):  # closed in another order than opened, one by one
            client.close()
        wait_for(lambda: fleet.call(lambda: device.live_streams) == 0)
        wait_for(lambda: loop_tasks(fleet) <= tasks_before)


def test_live_mp4_ends_when_the_device_reboots(fm, fleet):
    """fm-monitor-api.md, Limits: "Restart after reboot | device unreachable": a stream open
    at the reboot does not go on from a unit that is away."""
    client = LiveClient(fm, 1)
    client.read(1)
    ok(fm.post("/system/reboot"))
    try:
        client.read(10 ** 6)
    except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
        pass  # dropped mid-body, as by a unit that went away
    else:
        raise AssertionError("the stream went on through the reboot")
    assert fm.device.down
    client.close()
    wait_for(lambda: fleet.call(lambda: fm.device.live_streams) == 0)
    wait_for(lambda: not fm.device.down, timeout=10)


def test_system_log_filters(fm):
    """fm-monitor-api.md, System: `GET /system/log` "query `from_id` (entries with id >= value), `till_id`
    (entries with id < value), `limit`", "array of Log entry, chronological"; Log entry fields."""
    for name in ("a", "b", "c", "d", "e"):
        ok(fm.post("/tuner/0/muted", {"muted": name in "ace"}))
        ok(fm.post("/tuner/0/state", {"state": 1 if name in "ace" else 2}))
    entries = ok(fm.get("/system/log"))
    ids = [e["id"] for e in entries]
    assert len(ids) >= 5 and ids == list(range(ids[0], ids[0] + len(ids)))
    assert set(entries[0]) == {"id", "ts", "pid", "level", "msg"} and entries[-1]["pid"] == "tuner"
    assert [e["id"] for e in ok(fm.get("/system/log", params={"from_id": ids[2]}))] == ids[2:]
    assert [e["id"] for e in ok(fm.get("/system/log", params={"till_id": ids[2]}))] == ids[:2]
    assert [e["id"] for e in ok(fm.get("/system/log", params={"limit": 2}))] == ids[-2:]
    window = ok(fm.get("/system/log", params={"from_id": ids[1], "till_id": ids[4], "limit": 2}))
    assert [e["id"] for e in window] == ids[2:4]
    refused(fm.get("/system/log", params={"limit": "many"}), 400)


def test_system_log_returns_the_last_100_by_default(fm, fleet):
    """fm-monitor-api.md, System: `GET /system/log` "array of Log entry, chronological, last 100 by
    default"; Limits: "Log entries by default | last 100"."""
    device = fm.device
    fleet.call(lambda: [device.log("info", "entry %d" % n, pid="test") for n in range(150)])
    entries = ok(fm.get("/system/log"))
    assert len(entries) == 100 and entries[-1]["msg"] == "entry 149"
    assert [e["id"] for e in entries] == sorted(e["id"] for e in entries)  # chronological
    assert len(ok(fm.get("/system/log", params={"limit": 120}))) == 120
    assert ok(fm.get("/system/log", params={"from_id": entries[0]["id"], "limit": 3}))[-1] == entries[-1]


def test_bodies_are_json_unless_stated_otherwise(fm):
    """fm-monitor-api.md: "Bodies are JSON unless stated otherwise"; the stated ones: live.m3u8
    `application/vnd.apple.mpegurl`, `/playlist` `application/xspf+xml`, `/mib`
    `application/octet-stream`, `/alerts/csv` `text/csv`, `GET /conf` "as `application/json`"."""
    stated = {"/tuner/{tuner_id}/live.m3u8": "application/vnd.apple.mpegurl", "/playlist": "application/xspf+xml",
              "/mib": "application/octet-stream", "/tuner/{tuner_id}/live.mp4": "video/mp4"}
    ok(fm.post("/tuner/0/scan"))
    for method, path, _role in ROUTES:
        if method != "GET" or path.endswith("live.mp4"):
            continue
        response = settled(lambda: fm.get(concrete(path)))
        assert response.status_code == 200, (path, response.text)
        wanted = stated.get(path, "application/json")
        assert response.headers["Content-Type"].split(";")[0] == wanted, (path, response.headers["Content-Type"])
        if wanted == "application/json":
            response.json()
    assert fm.post("/alerts/csv", {"order": "asc"}).headers["Content-Type"].startswith("text/csv")


def test_password_change_keeps_tokens(fm):
    """fm-monitor-api.md, Configuration: `POST /conf/password` "admin", "effective immediately";
    Authentication 5: "Changing a password does not invalidate tokens already issued for that role"."""
    user = user_api(fm)
    old_user_token = user.token
    refused(user.post("/conf/password", {"role": "user", "password": "x"}), 401)
    ok(fm.post("/conf/password", {"role": "user", "password": "n3w-secret"}))
    assert ok(user.get("/status"))["tuners"] == 8  # tokens already issued keep working
    refused(Api(fm.device).login("user", "user"), 401)
    fresh = Api(fm.device)
    assert ok(fresh.login("user", "n3w-secret"))["role"] == "user"
    for body, word in (({"role": "root", "password": "x"}, "role"), ({"role": "user", "password": ""}, "password"),
                       ({"role": "user", "password": "p" * 65}, "password"), ({"role": "user"}, "password"),
                       ({"role": "user", "password": 1234}, "password")):
        refused(fm.post("/conf/password", body), 400, word)
    log = json.dumps(ok(fm.get("/system/log")))
    assert "n3w-secret" not in log and "password changed for role user" in log
    assert "n3w-secret" not in json.dumps(ok(fm.get("/conf")))
    assert old_user_token in fm.device.state["tokens"]


# -- configuration -----------------------------------------------------------------------


def test_conf_round_trip_changes_nothing(fm):
    """fm-monitor-api.md, System: `GET /conf` "complete configuration as `application/json`", `POST /conf`
    "configuration object obtained from `GET /conf`", role admin (user: 401)."""
    ok(fm.post("/tuner/0/scan"))
    ok(fm.post("/tuner/4/thresholds", {"thresholds": {"snr": {"min": 12}}}))
    ok(fm.post("/tuner/4/schedule", {"active": True, "events": {"monday": [{"minute": 5, "state": 2}]}}))
    conf = ok(fm.get("/conf"))
    assert set(conf) == {"version", "hostname", "network", "datetime", "log", "tuners", "stations", "monitor"}
    assert conf["version"] == 1 and len(conf["tuners"]) == 8 and len(conf["stations"]) > 5
    assert set(conf["tuners"][0]) == {"tuner_id", "name", "frequency", "state", "muted", "hw_settings",
                                      "thresholds", "schedule", "stream"}
    assert conf["tuners"][0]["stream"] == {"enabled": False, "url": "udp://239.1.1.1:1234", "codec": "mp3",
                                           "bitrate": 128}
    assert set(conf["network"]) == {"dhcp", "address", "netmask", "gateway", "dns"}
    assert set(conf["datetime"]) == {"enable_ntp", "timezone", "ntp_servers"}
    text = json.dumps(conf)
    assert "admin" not in text and all(token not in text for token in fm.device.state["tokens"])
    tuners = ok(fm.get("/tuners/all"))
    log_before = len(ok(fm.get("/system/log", params={"limit": 1000})))
    ok(fm.post("/conf", conf))
    assert ok(fm.get("/conf")) == conf
    assert ok(fm.get("/status"))["reboot_needed"] is False
    after = ok(fm.get("/tuners/all"))
    for item in (tuners + after):
        item.pop("stream")  # measured bitrate jitters
    assert after == tuners
    assert len(ok(fm.get("/system/log", params={"limit": 1000}))) == log_before
    refused(user_api(fm).post("/conf", conf), 401)


def test_conf_validation_names_paths(fm):
    """fm-monitor-api.md, Errors: "any other status uses the error body" (`code`, `message`); a refused
    `POST /conf` changes nothing (README: validation completes first)."""
    conf = ok(fm.get("/conf"))

    def variant(edit):
        copy = json.loads(json.dumps(conf))
        edit(copy)
        return copy

    cases = [
        (lambda c: c["tuners"][2]["hw_settings"].update(channel_filter=5), "tuners[2].hw_settings.channel_filter"),
        (lambda c: c["tuners"][1]["thresholds"]["thresholds"]["rssi"].update(min=128),
         "tuners[1].thresholds.thresholds.rssi.min"),
        (lambda c: c["tuners"][7]["schedule"]["events"].update(funday=[]), "tuners[7].schedule.events.funday"),
        (lambda c: c["tuners"][0]["stream"].update(bitrate=100), "tuners[0].stream.bitrate"),
        (lambda c: c["tuners"][3].update(frequency=120000), "tuners[3].frequency"),
        (lambda c: c["tuners"][3].pop("muted"), "tuners[3].muted"),
        (lambda c: c["tuners"].pop(), "missing tuner_id 7"),
        (lambda c: c["tuners"][1].update(tuner_id=0), "tuners[1].tuner_id"),
        (lambda c: c["network"].update(netmask="255.0.255.0"), "network.netmask"),
        (lambda c: c.update(hostname="bad_host"), "hostname"),
        (lambda c: c["datetime"].update(timezone=20), "datetime.timezone"),
        (lambda c: c["log"].update(level="loud"), "log.level"),
        (lambda c: c["monitor"].update(mute=3), "monitor.mute"),
        (lambda c: c.update(stations=[{"station_id": 0, "frequency": 90000, "rssi": 1, "snr": 1}]),
         "stations[0].timestamp"),
        (lambda c: c.update(version=2), "version"),
        (lambda c: c.pop("monitor"), "monitor"),
        (lambda c: c.update(passwords={}), "passwords"),
    ]
    for edit, word in cases:
        refused(fm.post("/conf", variant(edit)), 400, word)
    assert ok(fm.get("/conf")) == conf  # nothing half-applied


def test_conf_changes_are_applied(fm):
    """fm-monitor-api.md, System: `POST /conf` "overwrites all settings, including network"; States:
    "network or hostname or log configuration change ... `reboot_needed` ... true"."""
    conf = ok(fm.get("/conf"))
    freq = stations_on_air(fm, 30)[0]
    conf["tuners"][2].update(name="Relay", frequency=freq, state=1, muted=True)
    conf["tuners"][2]["stream"].update(enabled=True, codec="aac", bitrate=256)
    conf["tuners"][2]["hw_settings"]["channel_filter"] = 4
    conf["monitor"] = {"tuner_id": 2, "mute": 0}
    conf["stations"] = [{"station_id": 5, "frequency": freq, "rssi": 40, "snr": 30,
                         "timestamp": "2024-02-01T12:00:00+01:00"}]
    conf["datetime"]["timezone"] = 3
    conf["hostname"] = "relay-site"
    conf["log"]["level"] = "warning"
    ok(fm.post("/conf", conf))
    two = tuner(fm, 2)
    assert two["name"] == "Relay" and two["frequency"] == freq and two["state"] == 1 and two["tuned"] is True
    assert two["muted"] is True and two["stream_enabled"] is True and two["stream"]["codec"] == "aac"
    assert two["hw_settings"]["channel_filter"] == 4 and two["station_id"] == 5
    assert ok(fm.get("/stations/all")) == [{"station_id": 5, "frequency": freq, "rssi": 40, "snr": 30,
                                            "timestamp": "2024-02-01T11:00:00Z"}]
    assert ok(fm.get("/conf/datetime"))["timezone"] == 3  # immediate
    status = ok(fm.get("/status"))
    assert status["monitor_tuner"] == 2 and status["reboot_needed"] is True
    assert status["hostname"] == fm.device.name  # running name until the reboot
    saved = ok(fm.get("/conf"))
    assert saved["hostname"] == "relay-site" and saved["log"]["level"] == "warning"
    assert ok(fm.get("/conf/log"))["level"] == "warning"
    # scanning continues the station ids after the highest uploaded one
    found = ok(settled(lambda: fm.post("/tuner/0/scan")))
    assert {s["station_id"] for s in found if s["frequency"] != freq} == set(range(6, 6 + len(found) - 1))


def test_network_hostname_log_pending_until_reboot(fm):
    """fm-monitor-api.md, Configuration: `POST /conf/network`, `/conf/hostname`, `/conf/log`
    "effective after reboot"; States: `reboot_needed` false to true on "network or hostname or log
    configuration change", "Change takes effect after reboot"."""
    device = fm.device
    network = ok(fm.get("/conf/network"))
    assert set(network) == {"hostname", "dhcp", "mac", "address", "netmask", "gateway", "dns"}
    assert network["address"] == device.address and network["dhcp"] is False
    assert network["mac"].count(":") == 5
    prefix = device.home_address.rsplit(".", 1)[0]
    moved = prefix + ".201" if device.address != prefix + ".201" else prefix + ".202"
    cases = [
        ({"address": moved, "netmask": "255.0.0.0"}, "dhcp"),
        ({"dhcp": False, "netmask": "255.0.0.0"}, "address"),
        ({"dhcp": False, "address": moved}, "netmask"),
        ({"dhcp": False, "address": "300.1.1.1", "netmask": "255.0.0.0"}, "address"),
        ({"dhcp": False, "address": moved, "netmask": "255.0.255.0"}, "netmask"),
        ({"dhcp": False, "address": moved, "netmask": "24"}, "netmask"),
        ({"dhcp": "no", "address": moved, "netmask": "255.0.0.0"}, "dhcp"),
        ({"dhcp": False, "address": moved, "netmask": "255.0.0.0", "gateway": "gw"}, "gateway"),
        ({"dhcp": False, "address": moved, "netmask": "255.0.0.0", "dns": "1.1.1.1"}, "dns"),
        ({"dhcp": False, "address": moved, "netmask": "255.0.0.0", "dns": ["1.1.1.1", "x"]}, "dns[1]"),
        ({"dhcp": False, "address": moved, "netmask": "255.0.0.0", "mtu": 1500}, "mtu"),
    ]
    for body, word in cases:
        refused(fm.post("/conf/network", body), 400, word)
    for body, word in (({"hostname": "-bad"}, "hostname"), ({"hostname": "a" * 64}, "hostname"), ({}, "hostname")):
        refused(fm.post("/conf/hostname", body), 400, word)
    for body, word in (({"level": "loud"}, "level"), ({"enable_rsyslog": True}, "rsyslog_server"),
                       ({"rsyslog_server": "bad host"}, "rsyslog_server"), ({}, "at least one")):
        refused(fm.post("/conf/log", body), 400, word)
    assert ok(fm.get("/status"))["reboot_needed"] is False
    # the same values again change nothing
    ok(fm.post("/conf/network", {k: network[k] for k in ("dhcp", "address", "netmask", "gateway", "dns")}))
    ok(fm.post("/conf/hostname", {"hostname": device.name}))
    assert ok(fm.get("/status"))["reboot_needed"] is False
    ok(fm.post("/conf/network", {"dhcp": False, "address": moved, "netmask": "255.255.255.0", "dns": ["10.0.0.53"]}))
    ok(fm.post("/conf/hostname", {"hostname": "fm-studio.example.org"}))
    ok(fm.post("/conf/log", {"level": "warning", "enable_rsyslog": True, "rsyslog_server": "10.0.0.9:514"}))
    status = ok(fm.get("/status"))
    assert status["reboot_needed"] is True and status["hostname"] == device.name
    saved = ok(fm.get("/conf/network"))
    assert saved["address"] == moved and saved["gateway"] == network["gateway"] and saved["dns"] == ["10.0.0.53"]
    assert saved["hostname"] == "fm-studio.example.org"
    assert ok(fm.get("/conf/log")) == {"level": "warning", "enable_rsyslog": True, "rsyslog_server": "10.0.0.9:514"}
    assert device.address != moved  # still on the old address until the reboot
    reboot(fm)
    assert device.address == moved
    status = ok(fm.get("/status"))
    assert status["reboot_needed"] is False and status["hostname"] == "fm-studio.example.org"
    # log level warning is now in force: info messages are no longer recorded
    ok(fm.post("/tuner/0/state", {"state": 1}))
    assert not any("tuner 0 state 1" in e["msg"] for e in ok(fm.get("/system/log")))


def test_factory_reset(fm):
    """fm-monitor-api.md, System: `POST /system/factory_reset` | admin | "wipes all configuration and reboots";
    Authentication 7: "Factory reset restores default credentials"."""
    ok(fm.post("/tuner/0/scan"))
    ok(fm.post("/tuner/1/settings", {"name": "Changed"}))
    ok(fm.post("/conf/password", {"role": "admin", "password": "other"}))
    ok(fm.post("/conf/password", {"role": "user", "password": "another"}))
    old = fm.token
    ok(fm.post("/system/factory_reset"))
    wait_for(lambda: fm.device.down, timeout=5)
    wait_for(lambda: not fm.device.down, timeout=10)
    refused(fm.get("/status", token=old), 401)
    ok(fm.login("admin", "admin"))
    assert ok(Api(fm.device).login("user", "user"))["role"] == "user"  # both roles' default credentials
    assert tuner(fm, 1)["name"] == "Tuner 2"
    assert ok(fm.get("/stations/all")) == [] and alerts(fm)["total"] == 0
    assert ok(fm.get("/status"))["reboot_needed"] is False


# -- lost signals (the world outside the unit; README, "Signals") --------------------------
def alarmed(answer, wanted=True):
    """The tuner ``answer`` when it has quality alarms (or, ``wanted`` false, none), else None."""
    return answer if bool(answer["quality"]["alarms"]) is wanted else None


def test_a_lost_signal_unlocks_the_tuner(fm, fleet):
    """fm-monitor-api.md, Tuner: `tuned` "Locked onto the frequency", `signal_ok` "Signal above the RSSI
    threshold", `stream_enabled` "IP streaming active"; Quality `alarms` "Space-separated active alarm types";
    Events: "`quality.alarms` lists the alarms active on a tuner at present"; alert types `RFL is low`,
    `SNR is low`. A tuner whose signal is lost (an antenna or transmitter outage) is not locked, measures
    nothing, and, with the factory thresholds, raises `RFL is low` and `SNR is low`; the others go on."""
    freq = stations_on_air(fm, minimum_rssi=30)[0]
    for tid in (0, 1):
        ok(settled(lambda: fm.post("/tuner/%d/settings" % tid, {"frequency": freq})))
        ok(settled(lambda: fm.post("/tuner/%d/state" % tid, {"state": 1})))
    ok(fm.post("/tuner/0/stream", {"enabled": True}))
    assert tuner(fm, 0)["tuned"] is True and tuner(fm, 0)["quality"]["alarms"] == ""
    assert ok(fm.sim("POST", "/signals", json={"lost": [0]})) == {"lost": [0], "lost_after_upgrade": [], "lost_at_boot": []}
    lost = wait_for(lambda: alarmed(tuner(fm, 0)))
    assert (lost["tuned"], lost["signal_ok"], lost["stream_enabled"]) == (False, False, True)
    assert lost["quality"]["rssi"] == 0 and lost["quality"]["alarms"].split() == ["rfl_low", "snr_low"]
    assert {a["type"] for a in ok(fm.post("/alerts", {"order": "asc", "by": "from", "type": [], "id": [0],
                                                      "limit": 10, "offset": 0}))["alerts"]
            if a["till"] is None} == {"RFL is low", "SNR is low"}
    other = tuner(fm, 1)
    assert other["tuned"] is True and other["signal_ok"] is True and other["quality"]["alarms"] == ""
    assert ok(fm.get("/status"))["health"] == "warning"
    fleet.call(fm.device.restore_signal, 0)
    back = wait_for(lambda: alarmed(tuner(fm, 0), False))
    assert back["tuned"] is True and back["signal_ok"] is True
    refused(fm.sim("POST", "/signals", json={"lost": [8]}), 400, "tuner id must be below 8")


def test_a_signal_lost_after_an_upgrade_unlocks_at_the_reboot(fm):
    """fm-monitor-api.md: POST /system/upgrade "installs at once"; "reboot_needed false -> firmware upgrade ->
    true", "Change takes effect after reboot". An armed loss (README, "Signals") happens at the boot into the
    new firmware, not at the upload."""
    freq = stations_on_air(fm, minimum_rssi=30)[0]
    ok(settled(lambda: fm.post("/tuner/3/settings", {"frequency": freq})))
    ok(settled(lambda: fm.post("/tuner/3/state", {"state": 1})))
    ok(fm.sim("POST", "/signals", json={"lost_after_upgrade": [3], "lost_at_boot": []}))
    ok(fm.post("/system/upgrade", files={"file": ("fw.swu", swu.build("2.4.1"))}))
    assert tuner(fm, 3)["tuned"] is True  # installed, still running the old firmware
    reboot(fm)
    assert ok(fm.get("/status"))["versions"]["package_ver"] == "2.4.1"
    assert tuner(fm, 3)["tuned"] is False and tuner(fm, 3)["signal_ok"] is False
    assert ok(fm.sim("GET", "/signals")) == {"lost": [3], "lost_after_upgrade": [], "lost_at_boot": []}

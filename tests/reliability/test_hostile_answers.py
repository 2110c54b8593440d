"""Answers no device should give, refused instead of misread (issue 29, items 3, 4, 7, 9):
a body without end, paging without end, a redirect, a body that is not JSON, JSON nested
without end, a charset nobody knows; and a file name of the user's that leads out of the
card, refused before any request.

Each fake device here is a small aiohttp application on a random loopback address
(fake_devices.serving), reached by the modules over real HTTP; the modules run in this
process (inprocess.run_module).
"""

import asyncio
import hashlib
import threading

import pytest
from aiohttp import web

from tests.reliability import fake_devices
from tests.reliability.inprocess import run_module

MIB = 1024 * 1024
TS_LOGIN = ("POST", "/api/user/login")
FM_LOGIN = ("POST", "/api/login")
DEVICE_INFO = ("GET", "/api/system/device")
SNMP = "/api/snmp/settings"
INPUT = {"id": 1, "name": "Mux 1", "state": "ok", "config": {"asi": {"port": 1}}, "alerts_config": {"profile_id": 1}}


def conn(served, **more):
    return dict({"host": served.address, "port": served.port, "password": "admin"}, **more)


def device(routes):
    """A device answering ``routes`` ({(method, path): handler}) and both logins; every request
    is logged in ``served.requests``."""

    def make_app(served):
        @web.middleware
        async def log(request, handler):
            served.requests.append((request.method, request.path))
            return await handler(request)

        async def login(request):
            return web.json_response({"role": "admin", "token": fake_devices.TOKEN})

        app = web.Application(middlewares=[log])
        for method, path in (TS_LOGIN, FM_LOGIN):
            app.router.add_route(method, path, login)
        for (method, path), handler in routes.items():
            app.router.add_route(method, path, handler)
        return app

    return fake_devices.serving(fake_devices.app_server(make_app))


def answer(payload):
    """A handler answering ``payload`` as JSON."""
    async def handler(request):
        return web.json_response(payload)
    return handler


class Endless:
    """A handler that streams ``total`` bytes of a JSON string (never a whole one in memory),
    chunked or with its Content-Length announced; ``sent`` counts what left, ``done`` is set when
    the client stopped reading or all was sent."""

    def __init__(self, total, announce=False):
        self.total, self.announce = total, announce
        self.sent = 0
        self.done = threading.Event()

    async def handle(self, request):
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        if self.announce:
            response.content_length = self.total
        else:
            response.enable_chunked_encoding()
        await response.prepare(request)
        piece = b'"' + b"x" * (64 * 1024 - 1)
        try:
            while self.sent < self.total:
                await response.write(piece)
                self.sent += len(piece)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.done.set()
        return response


def refused_before_the_end(endless, result, limit_text):
    assert endless.done.wait(60), "the fake device still sends: the client did not stop reading"
    assert result.get("failed") is True, result
    assert "unexpected" not in result["msg"]
    assert "GET /api/system/device: the answer is larger than the %s the client reads (max_answer_mb)" % limit_text \
        in result["msg"], result["msg"]
    assert "raise max_answer_mb" in result["msg"]
    # the client stopped reading near the limit: what left the device is what the sockets'
    # buffers held on top (a few MiB on loopback), far from the whole body
    assert endless.sent < endless.total // 4, (endless.sent, endless.total)


# -- item 3: answers without end -----------------------------------------------------------------
def test_an_endless_json_answer_is_refused_once_it_passes_max_answer_mb():
    endless = Endless(64 * MIB)
    with device({DEVICE_INFO: endless.handle}) as served:
        result = run_module("ts_info", conn(served, gather_subset=["system_device"], max_answer_mb=1))
        refused_before_the_end(endless, result, "1 MiB")
        assert "more than 1048576 bytes came before reading stopped" in result["msg"]
        assert served.requests.count(DEVICE_INFO) == 1, "a refused answer is never asked for again"


def test_the_default_bound_is_32_mib():
    endless = Endless(256 * MIB)
    with device({DEVICE_INFO: endless.handle}) as served:
        result = run_module("ts_info", conn(served, gather_subset=["system_device"]))
    refused_before_the_end(endless, result, "32 MiB")
    assert "more than 33554432 bytes came" in result["msg"]
    assert endless.sent >= 32 * MIB, "answers up to the default bound are read"


def test_an_announced_content_length_above_the_bound_is_refused_before_the_body_is_read():
    endless = Endless(100 * MIB, announce=True)
    with device({DEVICE_INFO: endless.handle}) as served:
        result = run_module("ts_info", conn(served, gather_subset=["system_device"], max_answer_mb=8))
    refused_before_the_end(endless, result, "8 MiB")
    assert "its Content-Length announces %d bytes" % (100 * MIB) in result["msg"]


def test_the_bound_is_raised_through_the_environment(monkeypatch):
    big = {"model": "analyzer", "padding": "p" * (3 * MIB)}
    with device({DEVICE_INFO: answer(big)}) as served:
        refused = run_module("ts_info", conn(served, gather_subset=["system_device"], max_answer_mb=2))
        assert refused.get("failed") is True and "2 MiB" in refused["msg"], refused
        monkeypatch.setenv("BROADCAST_MONITORING_MAX_ANSWER_MB", "4")
        read = run_module("ts_info", conn(served, gather_subset=["system_device"]))
    assert read.get("failed") is not True, read["msg"]
    assert read["system_device"]["padding"] == big["padding"]


def test_a_streamed_download_is_not_bounded_by_max_answer_mb(tmp_path):
    capture = bytes(range(256)) * (12 * 1024)  # 3 MiB

    async def download(request):
        return web.Response(body=capture, content_type="application/octet-stream")

    routes = {
        ("POST", "/api/sdcard/status"): answer({"status": "ok", "total_mb": 1000, "used_mb": 3, "recording": None}),
        ("POST", "/api/sdcard/files"): answer({"files": [{"filename": "capture.ts", "size": len(capture),
                                                          "timestamp": "2026-11-21T10:00:00Z", "recording": False}]}),
        ("GET", "/api/sdcard/download_token"): answer({"token": "one-time"}),
        ("GET", "/api/sdcard/download"): download,
    }
    with device(routes) as served:
        result = run_module("ts_recording", conn(served, operation="download", filename="capture.ts",
                                                 dest=str(tmp_path), max_answer_mb=1))
    assert result.get("failed") is not True, result["msg"]
    assert (tmp_path / "capture.ts").read_bytes() == capture
    assert result["file"]["sha256"] == hashlib.sha256(capture).hexdigest()


# -- item 4: paging without end ------------------------------------------------------------------
#: requests after which a fake device's paging gives up (HTTP 500), so that a client without a
#: bound fails instead of asking for ever
GIVE_UP = 3000


def counted(handler):
    """``handler``, answering HTTP 500 from its GIVE_UP-th call on."""
    calls = []

    async def wrapper(request):
        calls.append(1)
        if len(calls) >= GIVE_UP:
            return web.json_response({"code": 500, "message": "the fake device gave up"}, status=500)
        return await handler(request)
    return wrapper


def fm_alerts(total, per_page=1, empty_after=None):
    """POST /api/alerts claiming ``total`` matches, giving ``per_page`` alerts a page (none from
    offset ``empty_after`` on)."""
    @counted
    async def handler(request):
        body = await request.json()
        count = 0 if empty_after is not None and body["offset"] >= empty_after else per_page
        return web.json_response({"total": total, "alerts": [
            {"tuner_id": 0, "type": "RFL is low", "from": body["offset"] + n, "till": None} for n in range(count)]})
    return handler


def ts_alerts(total, per_page=1, empty_after=None):
    @counted
    async def handler(request):
        body = await request.json()
        count = 0 if empty_after is not None and body["page"] > empty_after else per_page
        return web.json_response({"page": body["page"], "perPage": body["perPage"], "total": total, "items": [
            {"error_name": "pid_error", "pid": 100, "start": "2026-11-21T10:00:00Z"} for unused in range(count)]})
    return handler


TS_ALERTS = ("POST", "/api/inputs/1/alerts")
FM_ALERTS = ("POST", "/api/alerts")


def ts_alerts_device(handler):
    return device({("GET", "/api/inputs"): answer([INPUT]), TS_ALERTS: handler})


@pytest.mark.parametrize("max_pages", [None, 40], ids=["default-1000", "raised-or-lowered"])
def test_fm_alerts_paging_stops_at_max_pages(max_pages):
    alerts = {"all_pages": True, "limit": 1}
    if max_pages:
        alerts["max_pages"] = max_pages
    bound = max_pages or 1000
    with device({FM_ALERTS: fm_alerts(10 ** 9)}) as served:
        result = run_module("fm_info", conn(served, gather_subset=["alerts"], alerts=alerts))
        asked = served.requests.count(FM_ALERTS)
    assert result.get("failed") is True, result
    assert asked == bound
    assert "POST /api/alerts: stopped after %d pages, the bound alerts.max_pages=%d, while the device still claims" \
           " %d more (total 1000000000, %d read)" % (bound, bound, 10 ** 9 - bound, bound) in result["msg"], \
        result["msg"]
    assert "unexpected" not in result["msg"]


def test_fm_alerts_reads_every_page_below_the_bound():
    with device({FM_ALERTS: fm_alerts(30, per_page=7)}) as served:
        result = run_module("fm_info", conn(served, gather_subset=["alerts"],
                                            alerts={"all_pages": True, "limit": 7, "max_pages": 5}))
    assert result.get("failed") is not True, result["msg"]
    assert result["alerts"]["pages"] == 5 and len(result["alerts"]["alerts"]) == 35


def test_fm_alerts_an_empty_page_that_claims_more_is_reported():
    with device({FM_ALERTS: fm_alerts(10, per_page=3, empty_after=3)}) as served:
        result = run_module("fm_info", conn(served, gather_subset=["alerts"], alerts={"all_pages": True, "limit": 3}))
        asked = served.requests.count(FM_ALERTS)
    assert result.get("failed") is True, result
    assert asked == 2
    assert "POST /api/alerts: page 2 came back empty while the device still claims 7 more (total 10, 3 read);" \
           " its pages do not shrink what remains" in result["msg"], result["msg"]


@pytest.mark.parametrize("max_pages", [None, 25], ids=["default-1000", "raised-or-lowered"])
def test_ts_alerts_paging_stops_at_max_pages(max_pages):
    options = {"max_pages": max_pages} if max_pages else {}
    bound = max_pages or 1000
    with ts_alerts_device(ts_alerts(10 ** 9)) as served:
        result = run_module("ts_info", conn(served, gather_subset=["alerts"], alerts=options))
        asked = served.requests.count(TS_ALERTS)
    assert result.get("failed") is True, result
    assert asked == bound
    assert "POST /api/inputs/1/alerts: stopped after %d pages, the bound alerts.max_pages=%d" % (bound, bound) \
        in result["msg"], result["msg"]
    assert "unexpected" not in result["msg"]


def test_ts_alerts_an_empty_page_that_claims_more_is_reported():
    with ts_alerts_device(ts_alerts(5000, per_page=1000, empty_after=2)) as served:
        result = run_module("ts_info", conn(served, gather_subset=["alerts"]))
    assert result.get("failed") is True, result
    assert "POST /api/inputs/1/alerts: page 3 came back empty while the device still claims 3000 more" \
        in result["msg"], result["msg"]


def test_ts_alerts_reads_every_page_of_a_device_that_ends():
    with ts_alerts_device(ts_alerts(2500, per_page=1000, empty_after=2)) as served:
        stops = run_module("ts_info", conn(served, gather_subset=["alerts"]))
    assert stops.get("failed") is True, "page 3 is empty while 500 more are claimed"
    with ts_alerts_device(ts_alerts(2000, per_page=1000, empty_after=2)) as served:
        result = run_module("ts_info", conn(served, gather_subset=["alerts"], alerts={"max_pages": 2}))
    assert result.get("failed") is not True, result["msg"]
    assert result["alerts"]["Mux 1"]["total"] == 2000 and len(result["alerts"]["Mux 1"]["items"]) == 2000


# -- item 7: answers misreported instead of refused ----------------------------------------------
def redirect(status=302, location="http://portal.example/login"):
    async def handler(request):
        return web.Response(status=status, headers={"Location": location} if location else {})
    return handler


def test_a_write_answered_with_a_redirect_fails_naming_its_location_and_is_not_sent_again():
    settings = {"enabled": False, "listen_addresses": [], "trap_addresses": []}
    routes = {("GET", SNMP): answer(settings), ("POST", SNMP): redirect()}
    with device(routes) as served:
        result = run_module("ts_snmp", conn(served, enabled=True))
        posts = served.requests.count(("POST", SNMP))
    assert result.get("failed") is True, result
    assert posts == 1, "a write answered with a redirect was sent again"
    assert "POST %s: the device answered HTTP 302, a redirect to 'http://portal.example/login', which the" \
           " collection does not follow; the request was not sent again" % SNMP in result["msg"], result["msg"]
    assert "concurrent" not in result["msg"]


@pytest.mark.parametrize("status,location", [(301, "https://elsewhere/api/system/device"), (307, None)])
def test_a_read_answered_with_a_redirect_fails_without_a_retry(status, location):
    with device({DEVICE_INFO: redirect(status, location)}) as served:
        result = run_module("ts_info", conn(served, gather_subset=["system_device"]))
        asked = served.requests.count(DEVICE_INFO)
    assert result.get("failed") is True, result
    assert asked == 1
    where = "a redirect to %r" % location if location else "a redirect without a Location"
    assert "GET /api/system/device: the device answered HTTP %d, %s" % (status, where) in result["msg"], result["msg"]


def text_answer(body, content_type="text/html", charset=None):
    async def handler(request):
        return web.Response(body=body, content_type=content_type, charset=charset)
    return handler


@pytest.mark.parametrize("body,reason", [
    (b"<html><body>Welcome</body></html>", "it is not JSON (Expecting value at byte 0)"),
    (b'{"model": "\xff"}', "it is not JSON (not UTF-8 at byte 11)"),
    (b"[" * 100000 + b"]" * 100000, "its JSON is nested deeper than 100 levels"),
    (b"[" * 101 + b"]" * 101, "its JSON is nested deeper than 100 levels"),
], ids=["html", "not-utf8", "deep-100000", "deep-101"])
def test_an_answer_that_is_not_readable_json_is_a_shape_error_naming_the_request(body, reason):
    with device({DEVICE_INFO: text_answer(body)}) as served:
        alone = run_module("ts_info", conn(served, gather_subset=["system_device"]))
    assert alone.get("failed") is True, alone
    assert "GET /api/system/device: the answer cannot be read: %s" % reason in alone["msg"], alone["msg"]
    assert "unexpected" not in alone["msg"]


def test_with_other_subsets_an_unreadable_answer_is_named_in_failed_subsets():
    routes = {DEVICE_INFO: text_answer(b"not json"), ("GET", "/api/system/status"): answer({"status": "ok"})}
    with device(routes) as served:
        result = run_module("ts_info", conn(served, gather_subset=["system_status", "system_device"]))
    assert result.get("failed") is not True, result["msg"]
    assert "system_device" not in result
    assert "GET /api/system/device: the answer cannot be read: it is not JSON" in result["failed_subsets"]["system_device"]


def test_json_nested_100_levels_is_still_read():
    nested = b'{"a": ' * 99 + b"1" + b"}" * 99
    with device({DEVICE_INFO: text_answer(b'{"model": "x", "deep": ' + nested + b"}", "application/json")}) as served:
        result = run_module("ts_info", conn(served, gather_subset=["system_device"]))
    assert result.get("failed") is not True, result["msg"]
    assert result["system_device"]["model"] == "x"


def test_a_text_answer_in_an_unknown_charset_is_a_shape_error_naming_the_request():
    playlist = b'<?xml version="1.0"?><playlist xmlns="http://xspf.org/ns/0/"><trackList/></playlist>'
    with device({("GET", "/api/playlist"): text_answer(playlist, "application/xspf+xml", "x-no-such-7")}) as served:
        result = run_module("fm_info", conn(served, gather_subset=["playlist"]))
    assert result.get("failed") is True, result
    assert "GET /api/playlist: its charset 'x-no-such-7' is not one Python knows" in result["msg"], result["msg"]
    assert "unexpected" not in result["msg"]


# -- item 9: a file name of the user's that leads out of the card ---------------------------------
@pytest.mark.parametrize("name", ["../etc/passwd", "/etc/passwd", "..", "a\\b.ts", "nul\x00.ts"])
def test_a_file_name_to_delete_that_is_not_plain_is_refused_before_any_request(name):
    with device({}) as served:
        result = run_module("ts_recording", conn(served, operation="delete", filename=name))
        assert served.requests == [], "requests reached the device for a refused file name"
    assert result.get("failed") is True, result
    assert result["msg"].startswith("invalid parameters: filename: must be a plain file name"), result["msg"]
    assert repr(name) in result["msg"]

"""The event source broadcast.monitoring.device_events, without ansible-rulebook or Java: its
``main(queue, args)`` and its pollers run against a simulated fleet over real HTTP."""

import asyncio
import importlib
import json
import os
import time

import pytest

from bm_simulator.fleet import running_fleet

SOURCE = "ansible_collections.broadcast.monitoring.extensions.eda.plugins.event_source.device_events"
PASSWORD = "Eda-S3cret-pw"  # not a factory password, so a leak of it is seen
WAIT = 30  # seconds: the bound of every wait for an event


@pytest.fixture(scope="module")
def source():
    return importlib.import_module(SOURCE)


@pytest.fixture(scope="module")
def sim(source):
    with running_fleet(ts=1, fm=1, time_scale=0.02) as fleet:
        yield fleet


def admin_client(source, device, password="admin"):
    kind = "ts_analyzer" if device.kind == "ts_analyzer" else "fm_monitor"
    params = source.connection_params({"password": password, "port": device.port}, {}, [])
    params["host"] = device.address
    return source.CONNECTION.client_from_params(params, source.DEVICES.api(kind))


@pytest.fixture
def ts(sim, source):
    """ts-001 in factory state with the password PASSWORD and one input, Mux 1, whose profile
    raises no priority-1 alert by itself (so only a lost signal does)."""
    device = sim.fleet.by_name("ts-001")
    sim.call(device.reset)
    client = admin_client(source, device)
    entries = [{"error_name": name, "threshold": 1000} for name in source.DEVICES.api("ts_analyzer").PRIORITY_1]
    profile = client.post("/api/profiles", {"name": "Quiet", "entries": entries})
    client.post("/api/inputs", {"name": "Mux 1", "alerts_config": {"profile_id": profile["id"]},
                                "config": {"eth": {"stream_protocol": 0,
                                                   "multicast": {"multicast_address": "239.1.1.1",
                                                                 "multicast_port": 5000}}}})
    client.post("/api/user/password", {"role": "admin", "password": PASSWORD})
    return device


@pytest.fixture
def fm(sim, source):
    """fm-001 in factory state with the password PASSWORD, tuner 0 enabled on a station."""
    device = sim.fleet.by_name("fm-001")
    sim.call(device.reset)
    client = admin_client(source, device)
    frequency = sorted(device.band)[0]
    client.post("/api/tuner/0/settings", {"name": "Radio One", "frequency": frequency})
    client.post("/api/tuner/0/state", {"state": 1})
    client.post("/api/conf/password", {"role": "admin", "password": PASSWORD})
    deadline = time.monotonic() + WAIT
    while not client.get("/api/tuner/0").get("tuned"):  # the switch takes a moment
        assert time.monotonic() < deadline, "tuner 0 did not lock on %d kHz" % frequency
        time.sleep(0.1)
    return device


def device_args(*devices, **extra):
    args = {"password": PASSWORD, "interval": 1,
            "devices": [{"name": d.name, "host": d.address, "port": d.port, "device_type": d.kind} for d in devices]}
    args.update(extra)
    return args


def poller(source, device, args=None, **options):
    settings = source.parse_args(device_args(device, **(args or {})))
    entry = settings["devices"][0]
    return source.DevicePoller(entry["name"], entry["device_type"], entry["params"], **options)


def poll_until(poller_, predicate, what, already=()):
    """Poll (a poll every 0.1 s) until an event ``predicate`` accepts comes, unless one of
    ``already`` is one; the events seen meanwhile."""
    if any(predicate(event) for event in already):
        return []
    seen = []
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        seen.extend(poller_.poll())
        if any(predicate(event) for event in seen):
            return seen
        time.sleep(0.1)
    raise AssertionError("no event %s within %d s; seen: %s" % (what, WAIT, [e["kind"] for e in seen]))


def kind_of(kind, object_id=None):
    return lambda event: event["kind"] == kind and (object_id is None or event["object"]["id"] == object_id)


def no_secret(sim, events):
    text = json.dumps(events)
    secrets = {PASSWORD}
    for device in sim.fleet.devices:
        secrets.update(s for s in sim.call(device.issued_secrets) if s and s not in ("admin", "user"))
    leaked = sorted(s[:4] + "..." for s in secrets if s in text)
    assert not leaked, "secrets in events: %s" % leaked


# -- arguments --------------------------------------------------------------------------------
def test_bad_arguments_are_named_before_any_request(source, monkeypatch):
    monkeypatch.delenv("BROADCAST_MONITORING_PASSWORD", raising=False)
    monkeypatch.delenv("BROADCAST_MONITORING_TOKEN", raising=False)
    with pytest.raises(source.ArgumentError) as err:
        source.parse_args({"interval": 0, "colour": 1, "timeout": "soon", "initial_state": "maybe",
                           "devices": [{"host": "127.190.0.1", "device_type": "router"}, {"device_type": "fm_monitor"}]})
    text = str(err.value)
    for named in ("interval: must be a number from 1 to 3600", "unknown argument(s): colour", "timeout: must be an integer",
                  "devices[0].device_type: must be one of ts_analyzer, fm_monitor", "devices[1].host: required",
                  "devices[0].password: no password", "initial_state: must be a boolean"):
        assert named in text
    with pytest.raises(source.ArgumentError, match="devices: required"):
        source.parse_args({"password": PASSWORD})


def test_connection_settings_fall_back_to_the_modules_environment_variables(source, monkeypatch):
    monkeypatch.setenv("BROADCAST_MONITORING_PASSWORD", PASSWORD)
    monkeypatch.setenv("BROADCAST_MONITORING_PORT", "8123")
    monkeypatch.setenv("BROADCAST_MONITORING_TIMEOUT", "7")
    monkeypatch.setenv("BROADCAST_MONITORING_ROLE", "")  # empty: unset, as for the modules
    settings = source.parse_args({"devices": [{"host": "127.190.0.1", "device_type": "ts_analyzer"},
                                              {"host": "127.190.0.2", "device_type": "fm_monitor", "port": 81}]})
    first, second = (d["params"] for d in settings["devices"])
    assert (first["password"], first["port"], first["timeout"], first["role"]) == (PASSWORD, 8123, 7, "admin")
    assert second["port"] == 81  # a device's own setting wins
    assert settings["interval"] == source.DEFAULT_INTERVAL and settings["initial_state"] is False


# -- events -----------------------------------------------------------------------------------
def test_the_first_poll_is_a_baseline_without_events(source, ts, sim):
    sim.call(ts.lose_signal, 1)  # already wrong before the source starts
    quiet = poller(source, ts)
    assert quiet.poll() == []
    told = poller(source, ts)
    events = told.poll(initial_state=True)
    assert ("receiving_stopped", "Mux 1") in {(e["kind"], e["object"]["name"]) for e in events}
    assert not any(e["kind"] == "alert_record" for e in events)  # the log before the source is history


def test_an_input_that_loses_its_signal_and_gets_it_back(source, ts, sim):
    poller_ = poller(source, ts)
    assert poller_.poll() == []
    sim.call(ts.lose_signal, 1)
    events = poll_until(poller_, kind_of("errors_raised", 1), "errors_raised")
    stopped = next(e for e in events if e["kind"] == "receiving_stopped")
    assert stopped["device"] == "ts-001" and stopped["device_type"] == "ts_analyzer"
    assert stopped["object"] == {"type": "input", "id": 1, "name": "Mux 1"}
    assert stopped["severity"] == "critical" and stopped["detail"]["state"] == "no_signal"
    assert stopped["time"].endswith("Z")
    raised = next(e for e in events if e["kind"] == "errors_raised")
    assert "ts_sync_loss" in raised["detail"]["priority1_errors"] and raised["detail"]["receiving"] is False
    events += poll_until(poller_, lambda e: e["kind"] == "alert_record" and
                         e["detail"]["record"]["error_name"] == "ts_sync_loss", "alert_record ts_sync_loss", events)
    sim.call(ts.restore_signal, 1)
    events += poll_until(poller_, kind_of("receiving_started", 1), "receiving_started")
    events += poll_until(poller_, kind_of("errors_cleared", 1), "errors_cleared", events)
    kinds = [e["kind"] for e in events if e["kind"] != "alert_record"]
    assert kinds.count("receiving_stopped") == 1 and kinds.count("receiving_started") == 1  # one per change
    no_secret(sim, events)


def test_a_tuner_that_loses_lock_and_regains_it(source, fm, sim):
    poller_ = poller(source, fm)
    poller_.poll()
    sim.call(fm.lose_signal, 0)
    events = poll_until(poller_, kind_of("lock_lost", 0), "lock_lost")
    lost = next(e for e in events if e["kind"] == "lock_lost")
    assert lost["object"] == {"type": "tuner", "id": 0, "name": "Radio One"}
    assert lost["severity"] == "critical" and lost["detail"]["tuned"] is False
    events += poll_until(poller_, lambda e: e["kind"] == "alarms_changed" and "rfl_low" in e["detail"]["raised"],
                         "alarms_changed with rfl_low", events)
    events += poll_until(poller_, lambda e: e["kind"] == "alert_record" and e["detail"]["record"]["type"] == "RFL is low"
                         and e["object"]["id"] == 0, "alert_record RFL is low", events)
    sim.call(fm.restore_signal, 0)
    events += poll_until(poller_, kind_of("lock_regained", 0), "lock_regained")
    no_secret(sim, events)


def test_a_restart_and_an_unreachable_device(source, ts, sim):
    poller_ = poller(source, ts, {"busy_timeout": 0})  # a 503 is at once "unreachable"
    poller_.poll()
    deadline = time.monotonic() + WAIT
    while poller_.state["uptime"] < 3:  # seconds: more than the device has just after its boot
        assert time.monotonic() < deadline
        poller_.poll()
        time.sleep(0.1)
    sim.call(ts.faults.replace, [{"kind": "reboot_gap", "seconds": 0.1}])
    admin_client(source, ts, PASSWORD).post("/api/system/reboot")
    events = poll_until(poller_, kind_of("restarted"), "restarted")
    restarted = next(e for e in events if e["kind"] == "restarted")
    assert restarted["object"] is None and restarted["detail"]["uptime"] < restarted["detail"]["uptime_before"]
    # 503 to every request for a while: the device is away, then back
    sim.call(ts.faults.replace, [{"kind": "unavailable", "seconds": 3}])
    events = poll_until(poller_, kind_of("unreachable"), "unreachable")
    events += poll_until(poller_, kind_of("reachable"), "reachable")
    assert [e["kind"] for e in events].count("unreachable") == 1
    no_secret(sim, events)


def test_main_puts_events_on_the_queue_without_blocking_the_loop(source, ts, fm, sim):
    """main() polls both devices in threads: while a slow poll is under way, the loop runs."""
    sim.call(ts.faults.replace, [{"kind": "latency", "seconds": 0.3, "path": "/api/inputs"}])
    sim.call(ts.requests.clear)

    async def scenario():
        queue = asyncio.Queue()
        task = asyncio.create_task(source.main(queue, device_args(ts, fm)))
        ticks = 0
        events = []
        try:
            deadline = time.monotonic() + WAIT
            lost = False
            while time.monotonic() < deadline:
                try:
                    events.append(await asyncio.wait_for(queue.get(), 0.05))
                except asyncio.TimeoutError:
                    ticks += 1
                # after the baseline (its last request is the alert query) and some ticks
                if not lost and ticks >= 5 and sim.call(lambda: any(
                        r["path"] == "/api/inputs/1/alerts" and r["status"] == 200 for r in ts.requests)):
                    sim.call(ts.lose_signal, 1)
                    sim.call(fm.lose_signal, 0)
                    lost = True
                if {("ts-001", "receiving_stopped"), ("fm-001", "lock_lost")} <= {(e["device"], e["kind"]) for e in events}:
                    break
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        return ticks, events

    ticks, events = asyncio.run(scenario())
    kinds = {(e["device"], e["kind"]) for e in events}
    assert {("ts-001", "receiving_stopped"), ("fm-001", "lock_lost")} <= kinds, kinds
    assert ticks >= 5  # the loop kept running while polls waited on the slow device
    no_secret(sim, events)
    sim.call(ts.faults.replace, [])


def test_a_restart_is_an_uptime_that_went_back_or_grew_less_than_the_time_between_polls(source):
    assert source.restarted({"uptime": 500, "at": 0.0}, {"uptime": 3, "at": 10.0})
    assert source.restarted({"uptime": 2, "at": 0.0}, {"uptime": 4, "at": 70.0})  # away for longer than it was up
    assert not source.restarted({"uptime": 500, "at": 0.0}, {"uptime": 509, "at": 10.0})
    assert not source.restarted({"uptime": 2, "at": 0.0}, {"uptime": 70, "at": 70.0})  # unreachable, not rebooted
    assert not source.restarted({"uptime": None, "at": 0.0}, {"uptime": 3, "at": 10.0})


def test_alert_page_bounds_the_records_read_per_poll(source, ts, sim):
    poller_ = poller(source, ts, alert_page=1)
    poller_.poll()
    per_poll = []  # Mux 1's random priority-2 and -3 errors write records (a threshold of 0)
    deadline = time.monotonic() + WAIT
    while sum(per_poll) < 3:
        assert time.monotonic() < deadline, "fewer than 3 alert records in %d s" % WAIT
        per_poll.append(sum(1 for e in poller_.poll() if e["kind"] == "alert_record"))
        time.sleep(1)  # about 2 records a second: more than one per poll, were the page not bounded
    assert max(per_poll) == 1  # the newest one of each poll; the device's query asked for one (perPage=1)


def test_a_wrong_password_is_one_event_and_never_shown(source, ts, sim):
    settings = source.parse_args(dict(device_args(ts), password="Wrong-" + PASSWORD))
    entry = settings["devices"][0]
    poller_ = source.DevicePoller(entry["name"], entry["device_type"], entry["params"])
    events = poller_.poll() + poller_.poll()
    assert [e["kind"] for e in events] == ["poll_failed"]
    assert events[0]["severity"] == "critical" and "login" in events[0]["detail"]["error"]
    assert "Wrong-" not in json.dumps(events)
    no_secret(sim, events)


def test_the_documentation_lists_every_argument(source):
    import yaml

    path = os.path.join(os.path.dirname(source.__file__), "device_events.yml")
    with open(path, encoding="utf-8") as handle:
        doc = yaml.safe_load(handle)
    documentation = yaml.safe_load(doc["DOCUMENTATION"])
    options = documentation["options"]
    texts = documentation["description"] + documentation["notes"] + [
        text for spec in options.values() for text in spec["description"]]
    assert all(isinstance(text, str) for text in texts)  # no sentence read as a mapping
    expected = set(source.SOURCE_KEYS) | set(source.CONNECTION.CONNECTION_SPEC) - {"host", "device_type"}
    assert set(options) == expected
    for name, spec in source.CONNECTION.CONNECTION_SPEC.items():
        if name in options and "default" in spec:
            assert options[name].get("default") == spec["default"], name
        if name in options:
            assert "BROADCAST_MONITORING_%s" % name.upper() in str(options[name].get("env")), name
    assert yaml.safe_load(doc["EXAMPLES"])


# -- one device never holds back another -------------------------------------------------------
#: the password of the hostile device that echoes it: quote, backslash, % and non-ASCII
ODD_PASSWORD = 'pä"ss\\wörd%s-€'


class HostileDevice:
    """A fake analyzer on loopback (http.server in a thread) that answers the source's poll
    as ``behaviour`` says: ``mixed_ids`` (/api/inputs with ids 1 and "x"), ``odd_metrics`` (an
    input's metrics a list, which the reader does not expect), ``busy`` (503 to
    every request after the login), ``slow`` (its alive check answers after a minute),
    ``echo_token`` (a 400 that repeats the request's Authorization header),
    ``echo_password`` (a login refused with a message that repeats the password)."""

    def __init__(self, behaviour):
        import http.server
        import threading
        import uuid

        device = self
        self.behaviour = behaviour
        self.issued = []  # the session tokens it gave out
        self.requests = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self.route()

            def do_POST(self):
                self.route()

            def route(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                body = json.loads(raw or b"null")
                device.requests.append((self.command, self.path))
                if self.path == "/api/system/alive":
                    if device.behaviour == "slow":
                        time.sleep(60)
                    return self.answer(200, {"system_uptime": 1000})
                if self.path == "/api/user/login":
                    if device.behaviour == "echo_password":
                        return self.answer(400, {"code": 400, "message": "no such password: %s (in %s)" % (
                            body["password"], raw.decode())})  # as given, and as sent (JSON-escaped)
                    token = "tok-%s" % uuid.uuid4()
                    device.issued.append(token)
                    return self.answer(200, {"role": "admin", "token": token})
                if device.behaviour == "busy":
                    return self.answer(503, {"code": 503, "message": "busy"})
                if device.behaviour == "echo_token":
                    return self.answer(400, {"code": 400, "message": "bad request: %s %s Authorization: %s" % (
                        self.command, self.path, self.headers.get("Authorization"))})
                if self.path == "/api/statistics/current":
                    return self.answer(200, {"transport_streams": []})
                if self.path == "/api/inputs" and device.behaviour == "odd_metrics":
                    return self.answer(200, [{"id": 1, "name": "A", "state": "ok", "metrics": [1]}])
                if self.path == "/api/inputs":
                    return self.answer(200, [{"id": 1, "name": "A", "state": "ok"}, {"id": "x", "name": "B", "state": "ok"}])
                return self.answer(404, {"code": 404, "message": "not found"})

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):  # a client that left: the point of "slow"
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def entry(self):
        entry = {"name": "hostile-" + self.behaviour, "host": "127.0.0.1", "port": self.port, "device_type": "ts_analyzer"}
        if self.behaviour == "echo_password":
            entry["password"] = ODD_PASSWORD
        return entry

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hostile():
    behaviours = ("mixed_ids", "odd_metrics", "busy", "slow", "echo_token", "echo_password")
    devices = {behaviour: HostileDevice(behaviour) for behaviour in behaviours}
    yield devices
    for device in devices.values():
        device.close()


def strings(value):
    """Every string in ``value`` (keys too), however nested."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in strings(key) + strings(item)]
    if isinstance(value, (list, tuple)):
        return [text for item in value for text in strings(item)]
    return []


def test_one_device_never_holds_back_another_and_stopping_ends_the_source_at_once(source, ts, sim, hostile, caplog):
    """main() as ansible-rulebook runs it (a task, cancelled to stop) beside hostile devices:
    the healthy analyzer's signal loss comes within its own interval, each hostile device gets
    its own events, no secret is in any event or log record, and cancelling ends the source
    (and its threads) within 2 s while requests are in flight."""
    import logging
    import threading

    caplog.set_level(logging.DEBUG)
    interval, poll_timeout, threads = 1, 3, 4
    args = device_args(ts, poll_timeout=poll_timeout, interval=interval, threads=threads)
    args["devices"] += [device.entry() for device in hostile.values()]
    sim.call(ts.requests.clear)

    async def scenario():
        queue = asyncio.Queue()
        task = asyncio.create_task(source.main(queue, args))
        events, lost_at, stopped_after = [], None, None
        most_threads = 0
        try:
            deadline = time.monotonic() + WAIT
            while time.monotonic() < deadline:
                try:
                    event = await asyncio.wait_for(queue.get(), 0.05)
                    events.append((time.monotonic(), event))
                except asyncio.TimeoutError:
                    pass
                most_threads = max(most_threads, sum(t.name.startswith("device_events") for t in threading.enumerate()))
                # the healthy device's baseline is done (its last request is the alert query)
                if lost_at is None and sim.call(lambda: any(
                        r["path"] == "/api/inputs/1/alerts" and r["status"] == 200 for r in ts.requests)):
                    sim.call(ts.lose_signal, 1)
                    lost_at = time.monotonic()
                kinds = {(e["device"], e["kind"]) for _at, e in events}
                if {("ts-001", "receiving_stopped"), ("hostile-busy", "unreachable"),
                        ("hostile-slow", "unreachable")} <= kinds:
                    break
            # now the slow device's alive check and the busy device's retries are in flight
            assert hostile["slow"].requests[-1] == ("GET", "/api/system/alive")
            started = time.monotonic()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            stopped_after = time.monotonic() - started
        finally:
            task.cancel()
        return lost_at, events, stopped_after, most_threads

    lost_at, timed_events, stopped_after, most_threads = asyncio.run(scenario())
    assert 1 <= most_threads <= threads  # six devices, at most `threads` polls at once
    events = [event for _at, event in timed_events]
    by_device = {}
    for event in events:
        by_device.setdefault(event["device"], []).append(event)
    # the healthy device: its signal loss within its own interval (and a poll) of the change
    assert lost_at is not None, "the healthy device's baseline poll never ended"
    stopped = [at for at, e in timed_events if e["device"] == "ts-001" and e["kind"] == "receiving_stopped"]
    assert stopped, [e["kind"] for e in by_device.get("ts-001", [])]
    assert stopped[0] - lost_at < interval + 2, "signal loss seen %.1f s after it happened" % (stopped[0] - lost_at)
    # each hostile device: an event of its own, once
    failed = {name: [e for e in found if e["kind"] == "poll_failed"] for name, found in by_device.items()}
    assert failed["hostile-mixed_ids"][0]["detail"]["error_kind"] == "shape"
    assert "GET /api/inputs: an item's field 'id' is not an integer: 'x'" in failed["hostile-mixed_ids"][0]["detail"]["error"]
    assert failed["hostile-odd_metrics"][0]["detail"]["error_kind"] == "unexpected"  # any exception: this device's event
    assert "AttributeError" in failed["hostile-odd_metrics"][0]["detail"]["error"]
    assert failed["hostile-echo_token"][0]["detail"]["error_kind"] == "refused"
    assert "Authorization: Bearer ********" in failed["hostile-echo_token"][0]["detail"]["error"]
    assert "no such password: ******** (in " in failed["hostile-echo_password"][0]["detail"]["error"]
    for name in ("hostile-busy", "hostile-slow"):
        unreachable = [e for e in by_device[name] if e["kind"] == "unreachable"]
        assert len(unreachable) == 1 and "poll_timeout" in unreachable[0]["detail"]["error"], by_device[name]
    for name in ("hostile-mixed_ids", "hostile-odd_metrics", "hostile-echo_token", "hostile-echo_password"):
        assert len(failed[name]) == 1, by_device[name]  # said once per distinct error
    # cancelled with requests in flight: the source ended at once, its threads right after
    assert stopped_after < 2, "the source took %.1f s to stop" % stopped_after
    deadline = time.monotonic() + 2
    while any(thread.name.startswith("device_events") for thread in threading.enumerate()):
        assert time.monotonic() < deadline, "threads of the source still running 2 s after it stopped"
        time.sleep(0.05)
    # no secret in any event or log record, in any encoding of it
    secrets = {PASSWORD, ODD_PASSWORD, json.dumps(ODD_PASSWORD)[1:-1]} | {token for device in hostile.values() for token in device.issued}
    secrets.update(s for s in sim.call(ts.issued_secrets) if s and s not in ("admin", "user"))
    assert hostile["echo_token"].issued, "the echoing device issued no token"
    texts = strings(events) + [record.getMessage() for record in caplog.records]
    leaked = sorted({secret[:5] + "..." for secret in secrets for text in texts if secret in text})
    assert not leaked, "secrets in events or logs: %s" % leaked

"""What both simulated devices share: HTTP plumbing, auth, faults, request log, reboot, persistence.

A device model subclasses :class:`Device`, declares its factory state and its routes with
:func:`endpoint`, and keeps its handlers beside the model (see ``ts.py`` and ``fm.py``).
Handlers receive a :class:`Call` and return a JSON-serialisable value or an aiohttp
response; they raise :class:`ApiError` for any refusal, which becomes the documented error
body ``{"code", "message"}``.
"""

import asyncio
import contextvars
import copy
import html
import inspect
import ipaddress
import json
import logging
import os
import secrets
import time

from aiohttp import web

from . import swu
from .faults import FaultSet

LOG = logging.getLogger("simulator")

# Seconds a device is away while rebooting, before --time-scale (both documents: ~60 s).
REBOOT_GAP = 60.0
# Kinds of request, for the counters that tests and benchmarks read.
KINDS = ("login", "read", "write", "action", "control")


#: What a device does with a field it does not know in a body it otherwise accepts (the
#: documents do not say): "refuse" it (400 naming the field) or "keep" it, store it and
#: return it in the reads, as a device that stores what it is given would. Set per request
#: from the device's ``unknown_fields`` so the models' validators can read it.
UNKNOWN_FIELD_POLICIES = ("refuse", "keep")
UNKNOWN_FIELDS = contextvars.ContextVar("unknown_fields", default="refuse")


def keeps_unknown_fields():
    return UNKNOWN_FIELDS.get() == "keep"


def unknown_keys(value, known):
    """The keys of ``value`` (an object) not in ``known``, when the device keeps them."""
    if not keeps_unknown_fields() or not isinstance(value, dict):
        return {}
    return {key: copy.deepcopy(item) for key, item in value.items() if key not in known}


#: How a device shapes its answers where the documents leave it open: "documented" (the
#: shapes the documents show, and our choices where they show none), "extra" (every object
#: of every answer carries a field no document names, EXTRA_FIELD, which the device also
#: accepts back in a write: a firmware that reports more than the documents), "reordered"
#: (every array in an answer in the reverse of the documented order: no document fixes the
#: order of a list, except where it says so, and those lists are the user's own data, which
#: a device keeps as written: ORDERED_FIELDS), "sparse" (a field whose value is null left out
#: of the answer, as serializers set to omit nulls do: no document says whether an unset value
#: is sent as null or not at all), "aliases" (the other names NOTES.md gives for "not shown"
#: fields: "Some firmware releases name `streamer_uptime` `xcast_uptime` and
#: `fpga_ver`/`streamer_ver` `altera_ver`/`xcast_ver`.": ALIASES).
#: "unsorted" (a schedule's events of each day in the reverse of the order they were given: the
#: FM document gives a day's events as "an array of `{minute, state}`" and an event is reached
#: when "day and minute match", so their order carries no meaning), "renamed" (the analyzer's
#: network settings name their DNS servers `dns_servers`, not `dns`: ts-analyzer-api.md, "Field
#: names of responses of ... the system endpoints: not shown"; RENAMED).
SHAPES = ("documented", "extra", "reordered", "sparse", "aliases", "unsorted", "renamed")
EXTRA_FIELD = "vendor_extension"
#: arrays whose order is configuration (servers tried in order; schedule events by time),
#: never reordered
ORDERED_FIELDS = ("dns", "ntp_servers", "events", "schedule")


#: the document's name -> the name some firmware releases use (NOTES.md, FM monitor)
ALIASES = {"streamer_uptime": "xcast_uptime", "fpga_ver": "altera_ver", "streamer_ver": "xcast_ver"}


def without_nulls(value):
    """``value`` (an answer) without the fields whose value is null, at any depth."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def aliased(value):
    """``value`` (an answer) with the fields of ALIASES under their other names, at any depth."""
    if isinstance(value, dict):
        return {ALIASES.get(key, key): aliased(item) for key, item in value.items()}
    if isinstance(value, list):
        return [aliased(item) for item in value]
    return value


def extra_fields(value):
    """``value`` (an answer) with EXTRA_FIELD in every object."""
    if isinstance(value, dict):
        out = {key: extra_fields(item) for key, item in value.items()}
        out[EXTRA_FIELD] = {"build": 7}
        return out
    if isinstance(value, list):
        return [extra_fields(item) for item in value]
    return value


def without_extra_fields(value):
    """A write's body without EXTRA_FIELD: the device takes back the field it reports."""
    if isinstance(value, dict):
        return {key: without_extra_fields(item) for key, item in value.items() if key != EXTRA_FIELD}
    if isinstance(value, list):
        return [without_extra_fields(item) for item in value]
    return value


def reordered(value, field=None):
    """``value`` (an answer) with every array reversed, except in ORDERED_FIELDS (at any
    depth below them: a schedule's events are lists per day)."""
    if field in ORDERED_FIELDS:
        return value
    if isinstance(value, dict):
        return {key: reordered(item, key) for key, item in value.items()}
    if isinstance(value, list):
        return [reordered(item) for item in value][::-1]
    return value


def events_unsorted(value, field=None):
    """``value`` (an answer) with each day's schedule events (``events``: {day: [event...]}) in
    reverse order, at any depth."""
    if field == "events" and isinstance(value, dict):
        return {day: listed[::-1] if isinstance(listed, list) else listed for day, listed in value.items()}
    if isinstance(value, dict):
        return {key: events_unsorted(item, key) for key, item in value.items()}
    if isinstance(value, list):
        return [events_unsorted(item) for item in value]
    return value


#: per device kind, the document's name -> the name a "renamed" device answers with (and takes in
#: a write); only where the document leaves the field names open
RENAMED = {"ts_analyzer": {"dns": "dns_servers"}}


def renamed(value, names):
    """``value`` (an answer) with the fields of ``names`` under their other names, at any depth."""
    if isinstance(value, dict):
        return {names.get(key, key): renamed(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [renamed(item, names) for item in value]
    return value


#: how each shape other than "documented" changes a GET answer of a device of a kind
RESHAPED = {"extra": lambda value, kind: extra_fields(value), "reordered": lambda value, kind: reordered(value),
            "sparse": lambda value, kind: without_nulls(value), "aliases": lambda value, kind: aliased(value),
            "unsorted": lambda value, kind: events_unsorted(value),
            "renamed": lambda value, kind: renamed(value, RENAMED.get(kind, {}))}


#: the web pages a device serves outside /api (title, body)
PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title></head>
<body>
%s
</body></html>
"""


#: the lists of /_sim/signals: lost now, at the next boot into installed firmware, at the next boot
SIGNAL_LISTS = ("lost", "lost_after_upgrade", "lost_at_boot")


class ApiError(Exception):
    """A refusal the device answers with its documented error body."""

    def __init__(self, status, message, code=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = status if code is None else code


def endpoint(method, path, kind="read", role="user"):
    """Declare a device route.

    ``kind`` is what the request counts as (login, read, write, action); ``role`` is the
    least role that may call it: ``None`` (no token), ``"user"`` or ``"admin"``.
    """

    def mark(func):
        func.endpoint = (method, path, kind, role)
        return func

    return mark


class Call:
    """One request as a handler sees it: path parameters, query, JSON body, caller's role."""

    def __init__(self, request, body, role):
        self.request = request
        self.params = request.match_info
        self.query = request.query
        self.body = body
        self.role = role

    def int_param(self, name):
        try:
            value = int(self.params[name])
        except ValueError:
            raise ApiError(400, "%s: must be an integer" % name) from None
        if value < 0:
            raise ApiError(400, "%s: must be >= 0" % name)
        return value

    def json_body(self):
        """The body as a JSON object, or a 400 naming what is wrong with it."""
        if not isinstance(self.body, dict):
            raise ApiError(400, "body: must be a JSON object")
        return self.body


def is_loopback(address):
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class Device:
    """One simulated device: its own aiohttp site on its own loopback address."""

    kind = None          # "ts_analyzer" or "fm_monitor"
    login_path = None    # path of the login endpoint, under /api
    role_denied_status = 401  # status for a valid token whose role may not call the route
    bad_credentials_status = 401  # status for a failed login
    FACTORY_FIRMWARE = "1.0.0"
    #: What an accepted firmware upload does: "pending" (installed, ``reboot_needed`` set,
    #: the new version runs after the next reboot) or "reboots" (the device reboots into it
    #: by itself). The first entry is the model's default; a model whose document decides it
    #: offers only that one.
    UPGRADE_BEHAVIOURS = ("pending",)
    #: The model the device reports (models set it).
    MODEL = None
    #: Whether an upload is checked against the bundle's target (its ``hardware-compatibility``
    #: list): neither document nor NOTES.md says that a device checks it, so both are offered.
    #: "ignored" (default): any signed bundle is installed; "checked": a bundle naming other
    #: models than this device's is refused, one naming none is installed.
    BUNDLE_TARGET_CHECKS = ("ignored", "checked")
    #: The firmware a factory reset leaves. The documents say what a reset restores: "Factory
    #: reset returns the device to its static default address and default credentials"
    #: (ts-analyzer-api.md), "wipes all configuration and reboots" and "Factory reset restores
    #: default credentials" (fm-monitor-api.md); none says the installed firmware changes.
    #: "kept" (default): the unit boots the firmware it had installed; "factory": it goes back
    #: to FACTORY_FIRMWARE, as a unit whose reset also restores its factory image would.
    FACTORY_RESET_FIRMWARE = ("kept", "factory")

    def __init__(self, name, address, port, time_scale=1.0, state_dir=None, seed=0, upgrade=None,
                 unknown_fields="refuse", shape="documented", bundle_target="ignored", factory_reset_firmware="kept"):
        if factory_reset_firmware not in self.FACTORY_RESET_FIRMWARE:
            raise ValueError("%s: factory_reset_firmware %r is not one of %s"
                             % (name, factory_reset_firmware, ", ".join(self.FACTORY_RESET_FIRMWARE)))
        #: "kept" or "factory" (FACTORY_RESET_FIRMWARE); may be changed while it runs
        self.factory_reset_firmware = factory_reset_firmware
        if bundle_target not in self.BUNDLE_TARGET_CHECKS:
            raise ValueError("%s: bundle_target %r is not one of %s"
                             % (name, bundle_target, ", ".join(self.BUNDLE_TARGET_CHECKS)))
        #: "ignored" or "checked" (BUNDLE_TARGET_CHECKS); may be changed while it runs
        self.bundle_target = bundle_target
        if shape not in SHAPES:
            raise ValueError("%s: shape %r is not one of %s" % (name, shape, ", ".join(SHAPES)))
        #: how this device shapes its answers (SHAPES); may be changed while it runs
        self.shape = shape
        if unknown_fields not in UNKNOWN_FIELD_POLICIES:
            raise ValueError("%s: unknown_fields %r is not one of %s"
                             % (name, unknown_fields, ", ".join(UNKNOWN_FIELD_POLICIES)))
        self.unknown_fields = unknown_fields
        if upgrade is None:
            upgrade = self.UPGRADE_BEHAVIOURS[0]
        if upgrade not in self.UPGRADE_BEHAVIOURS:
            raise ValueError("%s: upgrade behaviour %r is not one of %s"
                             % (name, upgrade, ", ".join(self.UPGRADE_BEHAVIOURS)))
        self.upgrade = upgrade
        #: the model and serial number the device reports: its hardware, which a factory reset
        #: keeps (a twin reports the unit's, twin.py); serial None: derived from the name or seed
        self.model = self.MODEL
        self.serial_number = None
        #: a twin's unit's address (twin.py): the twin answers for it at its own address
        self.stands_for = None
        self.name = name
        self.home_address = address  # stands in for the document's factory address
        self.address = address
        self.port = port
        self.time_scale = time_scale
        self.state_dir = state_dir
        self.seed = seed
        self.faults = FaultSet(seed)
        self.requests = []
        #: every password set and token handed out since start, factory resets included (leak scans)
        self.issued = set()
        self.down = False
        self.booted_at = time.time()
        self._runner = None
        self._site = None
        self._tasks = set()
        self._rebooting = self._reset_at_boot = False  # a reboot is under way; it ends in factory state
        #: signals lost outside the device (a source that stopped sending, an antenna that
        #: failed): analyzer input ids or FM tuner ids. Not device state: a reboot or a factory
        #: reset does not bring a signal back; ``/_sim/reset`` does (a fresh test world).
        self.lost_signals = set()
        #: ids whose signal is lost when the device next boots into a firmware it installed
        #: ("the upgrade broke it"), for tests of rollouts that must stop there
        self.lost_after_upgrade = set()
        #: ids whose signal is lost when the device next boots, whatever the reboot ("the reboot
        #: broke it"), for tests of changes that reboot a device
        self.lost_at_boot = set()
        self.state = self._load_state() or self._fresh_state()

    # -- state ------------------------------------------------------------------------
    def factory_state(self):
        """The configuration a new (or factory-reset) unit has; models override."""
        raise NotImplementedError

    def _fresh_state(self):
        state = self.factory_state()
        state.setdefault("passwords", {"admin": "admin", "user": "user"})
        state.setdefault("tokens", {})
        state.setdefault("pending", {})
        state.setdefault("reboot_needed", False)
        state.setdefault("network", self.factory_network())
        state.setdefault("firmware_version", self.FACTORY_FIRMWARE)
        state.setdefault("log", [])
        return state

    def factory_network(self):
        """Factory network settings. The simulator stands its home loopback address in for
        the factory address of the documents, which must never be contacted."""
        return {
            "dhcp": False,
            "address": self.home_address,
            "netmask": "255.0.0.0",
            "gateway": "127.0.0.254" if self.home_address.startswith("127.0.0.") else "127.0.0.1",
            "dns": [],
        }

    def _state_path(self):
        if not self.state_dir:
            return None
        return os.path.join(self.state_dir, "%s.json" % self.name)

    def _load_state(self):
        """The state save() kept, read as untrusted input: a file in --state-dir is refused
        (ValueError naming it and the field) unless it reads as a state file, and its address
        must be loopback."""
        path = self._state_path()
        if not path or not os.path.exists(path):
            return None
        try:
            with open(path, encoding="utf-8") as handle:
                saved = json.load(handle)
        except (OSError, ValueError) as err:
            raise ValueError("%s: not readable as a state file of the simulator: %s" % (path, err)) from None
        if not isinstance(saved, dict) or "format" in saved:
            raise ValueError("%s: not a state file of the simulator (a device_backup document is not one): give"
                             " --state-dir a folder of its own" % path)
        if not isinstance(saved.get("state"), dict):
            raise ValueError("%s: field state must be an object (not a state file of the simulator)" % path)
        address = saved.get("active_address", self.address)
        if not is_loopback(address):
            raise ValueError("%s: field active_address: refusing non-loopback address %r: the simulator serves"
                             " loopback only" % (path, address))
        self.address = address
        return saved["state"]

    def save(self):
        """Persist what a device keeps across power cycles (configuration, logs, passwords)."""
        path = self._state_path()
        if not path:
            return
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump({"active_address": self.address, "state": self.state}, handle)
        os.replace(tmp, path)

    # -- scaled time --------------------------------------------------------------------
    def delay(self, seconds):
        """A device delay from the documents, scaled by --time-scale."""
        return seconds * self.time_scale

    def uptime(self):
        return int(time.time() - self.booted_at)

    def advance(self):
        """Bring the simulated world up to now before a request is handled (counters,
        schedules, scans). Models override; it must be cheap and deterministic per seed."""

    # -- auth -------------------------------------------------------------------------
    def login(self, body):
        """Check credentials and issue a token; returns (role, token) or raises ApiError."""
        if not isinstance(body, dict):
            raise ApiError(400, "body: must be a JSON object")
        role, password = body.get("role"), body.get("password")
        if role not in ("admin", "user") or not isinstance(password, str):
            raise ApiError(self.bad_credentials_status, "role must be admin or user and password a string")
        if not secrets.compare_digest(self.state["passwords"][role], password):
            raise ApiError(self.bad_credentials_status, "Wrong credentials")
        token = self.new_token(role)
        self.state["tokens"][token] = role
        self.issued.add(token)
        self.save()
        return role, token

    def new_token(self, role):
        """A fresh bearer token; its shape is the model's (opaque unless a document says more)."""
        return secrets.token_urlsafe(24)

    def role_of(self, request):
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            return None
        return self.state["tokens"].get(header[len("Bearer "):].strip())

    def issued_secrets(self):
        """Every password and token this device knows or ever issued (download tokens too),
        for tests that scan logs for leaks."""
        known = list(self.state["passwords"].values()) + list(self.state["tokens"])
        return known + sorted(self.issued.difference(known))

    # -- HTTP -------------------------------------------------------------------------
    @property
    def base_url(self):
        return "http://%s:%d" % (self.address, self.port)

    def _routes(self):
        for attr in dir(type(self)):
            func = getattr(type(self), attr)
            spec = getattr(func, "endpoint", None)
            if spec:
                yield spec, getattr(self, attr)

    def build_app(self):
        app = web.Application(middlewares=[self._middleware], client_max_size=256 * 1024 * 1024)
        for (method, path, kind, role), handler in self._routes():
            app.router.add_route(method, "/api" + path, self._wrap(handler, kind, role))
        app.router.add_get("/api.html", self._reference_page)
        app.router.add_get("/_sim/requests", self._sim_requests)
        app.router.add_delete("/_sim/requests", self._sim_clear_requests)
        app.router.add_get("/_sim/faults", self._sim_get_faults)
        app.router.add_post("/_sim/faults", self._sim_set_faults)
        app.router.add_post("/_sim/reset", self._sim_reset)
        app.router.add_get("/_sim/info", self._sim_info)
        app.router.add_get("/_sim/signals", self._sim_get_signals)
        app.router.add_post("/_sim/signals", self._sim_set_signals)
        return app

    async def _reference_page(self, request):
        """``GET /api.html`` (no token): a reference of the API this simulated device implements,
        generated from its routes. ts-analyzer-api.md: "An interactive reference page is served at
        `http://<device-ip>/api.html`, outside `{base_url}`"; the FM monitor's document names no
        such page: the simulator serves its own there, so that both have one."""
        rows = "".join(
            "<tr><td>%s</td><td><code>/api%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>\n"
            % (method, html.escape(path), "none" if role is None else role, kind,
               html.escape((inspect.getdoc(handler) or "").split("\n\n", maxsplit=1)[0].replace("\n", " ")))
            for (method, path, kind, role), handler in sorted(self._routes(), key=lambda r: (r[0][1], r[0][0])))
        intro = (
            "<h1>API reference: %s (simulated)</h1>\n"
            "<p>What this simulated device implements, generated from its routes. Base URL <code>/api</code>. "
            "Log in with <code>POST /api%s</code> and a JSON body <code>{\"role\": \"admin\", \"password\": "
            "\"...\"}</code>; send the token it returns as <code>Authorization: Bearer TOKEN</code>. Bodies are JSON: "
            "send them with <code>Content-Type: application/json</code> (the firmware upload takes "
            "<code>multipart/form-data</code>, field <code>file</code>). An error answers "
            "<code>{\"code\": INTEGER, \"message\": TEXT}</code>.</p>\n"
            "<p>Least role: the role a token needs (none: no token). Counts as: a read, a write (it changes the "
            "configuration), an action (reboot, upgrade, recording...) or the login.</p>\n"
            % (html.escape(self.MODEL or self.kind), html.escape(self.login_path)))
        self._record(request, "read", 200)
        return web.Response(text=PAGE % ("API reference", intro + (
            "<table>\n<tr><th>Method</th><th>Path</th><th>Least role</th><th>Counts as</th><th>Notes</th></tr>\n"
            "%s</table>" % rows)), content_type="text/html")

    def _record(self, request, kind, status):
        # Path only: query strings may carry one-time download tokens.
        self.requests.append(
            {"time": time.time(), "method": request.method, "path": request.path, "kind": kind, "status": status}
        )

    @web.middleware
    async def _middleware(self, request, handler):
        if request.path.startswith("/_sim/"):
            return await handler(request)
        if self.down:
            # A rebooting unit answers nothing, even on a connection opened before.
            return _drop(request)
        hit = self.faults.match(request.method, request.path)
        if hit is None:
            return await handler(request)
        if hit.latency():
            await asyncio.sleep(hit.latency())
        if hit.kind == "drop":
            self._record(request, "fault", 0)
            return _drop(request)
        if hit.kind in ("unavailable", "error"):
            status = 503 if hit.kind == "unavailable" else 500
            self._record(request, "fault", status)
            message = "Device busy, retry later" if status == 503 else "Internal error"
            return _json({"code": status, "message": message}, status)
        if hit.kind == "drop_response":
            # The device acts; the answer is lost on the way back.
            try:
                await handler(request)
            except web.HTTPException:
                pass
            return _drop(request)
        return await handler(request)

    def _wrap(self, handler, kind, role):
        async def serve(request):
            body = None
            if request.can_read_body and request.content_type == "application/json":
                try:
                    body = await request.json()
                except ValueError:
                    self._record(request, kind, 400)
                    return _json({"code": 400, "message": "body: not valid JSON"}, 400)
                if self.shape == "extra":
                    body = without_extra_fields(body)
                if self.shape == "renamed":  # the device takes its own names back
                    body = renamed(body, {other: name for name, other in RENAMED.get(self.kind, {}).items()})
            caller = None
            if role is not None:
                caller = self.role_of(request)
                if caller is None:
                    self._record(request, kind, 401)
                    return _json({"code": 401, "message": "Missing or invalid token"}, 401)
                if role == "admin" and caller != "admin":
                    status = self.role_denied_status
                    self._record(request, kind, status)
                    return _json({"code": status, "message": "This operation needs the admin role"}, status)
            if request.can_read_body and request.content_type not in ("application/json", "multipart/form-data"):
                # "All request and response bodies are JSON unless stated otherwise" (ts-analyzer-api.md;
                # fm-monitor-api.md: "Bodies are JSON unless stated otherwise"); the firmware upload's
                # multipart/form-data is the one stated otherwise
                self._record(request, kind, 400)
                return _json({"code": 400, "message": "body: send it as JSON, with the header Content-Type:"
                              " application/json (this request's Content-Type is %s)"
                              % (request.headers.get("Content-Type") or "missing")}, 400)
            UNKNOWN_FIELDS.set(self.unknown_fields)  # this request's task only
            try:
                self.advance()
                result = await handler(Call(request, body, caller))
            except ApiError as err:
                self._record(request, kind, err.status)
                return _json({"code": err.code, "message": err.message}, err.status)
            if kind in ("write", "action"):
                self.save()  # what a device was told, it keeps across power cycles
            if isinstance(result, web.StreamResponse):
                self._record(request, kind, result.status)
                return result
            self._record(request, kind, 200)
            if request.method == "GET" and self.shape in RESHAPED:
                result = RESHAPED[self.shape](result, self.kind)
            return _json({} if result is None else result, 200)

        return serve

    # -- control path (outside /api) ----------------------------------------------------
    def counters(self):
        counts = {k: 0 for k in KINDS}
        counts["fault"] = 0
        for entry in self.requests:
            counts[entry["kind"]] = counts.get(entry["kind"], 0) + 1
        counts["total"] = len(self.requests)
        return counts

    async def _sim_requests(self, request):
        return _json({"requests": self.requests, "counters": self.counters()})

    async def _sim_clear_requests(self, request):
        self.requests = []
        return _json({})

    async def _sim_get_faults(self, request):
        return _json({"faults": self.faults.describe()})

    async def _sim_set_faults(self, request):
        try:
            self.faults.replace(await request.json())
        except (ValueError, TypeError) as err:
            return _json({"code": 400, "message": str(err)}, 400)
        return _json({"faults": self.faults.describe()})

    async def _sim_reset(self, request):
        await self.reset()
        return _json({})

    # -- signals (the world outside the device) ------------------------------------------
    SIGNAL_ITEM = "id"  # what a signal id names on this model (models override)

    def check_signal_item(self, item):
        """``item`` as a signal id of this model, or ValueError naming what is wrong."""
        if isinstance(item, bool) or not isinstance(item, int) or item < 0:
            raise ValueError("%s: %s must be an integer >= 0, got %r" % (self.name, self.SIGNAL_ITEM, item))
        return item

    def lose_signal(self, item, after_upgrade=False, at_boot=False):
        """The signal of ``item`` (an analyzer input id, an FM tuner id) stops arriving: now,
        or, with ``after_upgrade``, when the device next boots into a firmware it installed,
        or, with ``at_boot``, when it next boots."""
        item = self.check_signal_item(item)
        if after_upgrade or at_boot:
            (self.lost_after_upgrade if after_upgrade else self.lost_at_boot).add(item)
            return
        if item not in self.lost_signals:
            self.advance()  # what happened up to now happened with the signal
            self.lost_signals.add(item)
            self.signal_changed(item)

    def restore_signal(self, item):
        """The signal of ``item`` arrives again (and an armed loss of it is disarmed)."""
        item = self.check_signal_item(item)
        self.lost_after_upgrade.discard(item)
        self.lost_at_boot.discard(item)
        if item in self.lost_signals:
            self.advance()
            self.lost_signals.discard(item)
            self.signal_changed(item)

    def signal_changed(self, item):
        """Hook for models: the signal of ``item`` was lost or came back just now."""

    def signals(self):
        return {"lost": sorted(self.lost_signals), "lost_after_upgrade": sorted(self.lost_after_upgrade),
                "lost_at_boot": sorted(self.lost_at_boot)}

    def set_signals(self, spec):
        """Replace the lost signals with ``spec`` (``{"lost": [...], "lost_after_upgrade": [...],
        "lost_at_boot": [...]}``, each optional, absent meaning none); ValueError naming a bad
        entry, nothing changed."""
        if not isinstance(spec, dict) or set(spec) - set(SIGNAL_LISTS):
            raise ValueError("signals: an object with the lists %s" % ", ".join(SIGNAL_LISTS))
        wanted = {}
        for key in SIGNAL_LISTS:
            items = spec.get(key, [])
            if not isinstance(items, list):
                raise ValueError("%s: must be a list" % key)
            wanted[key] = {self.check_signal_item(item) for item in items}
        for item in sorted(self.lost_signals - wanted["lost"]):
            self.restore_signal(item)
        for item in sorted(wanted["lost"]):
            self.lose_signal(item)
        self.lost_after_upgrade = wanted["lost_after_upgrade"]
        self.lost_at_boot = wanted["lost_at_boot"]
        return self.signals()

    async def _sim_get_signals(self, request):
        return _json(self.signals())

    async def _sim_set_signals(self, request):
        try:
            return _json(self.set_signals(await request.json()))
        except (ValueError, TypeError) as err:
            return _json({"code": 400, "message": str(err)}, 400)

    async def reset(self):
        """Back to factory state at once (no reboot gap): at its home address, request log
        and faults cleared."""
        self.state = self._fresh_state()
        self.requests = []
        self.faults.replace([])
        self.lost_signals, self.lost_after_upgrade, self.lost_at_boot = set(), set(), set()
        self.save()
        if self.address != self.home_address and not self.down:
            await self._site.stop()
            self.address = self.home_address
            await self._listen()

    def writes(self):
        """Requests that changed or could have changed something (write and action kinds)."""
        return [r for r in self.requests if r["kind"] in ("write", "action")]

    async def _sim_info(self, request):
        return _json(self.info())

    def info(self):
        return {"name": self.name, "kind": self.kind, "address": self.address, "port": self.port, "down": self.down,
                "upgrade": self.upgrade, "bundle_target": self.bundle_target, "unknown_fields": self.unknown_fields,
                "factory_reset_firmware": self.factory_reset_firmware}

    # -- lifecycle --------------------------------------------------------------------
    async def start(self):
        self._runner = web.AppRunner(self.build_app(), access_log=None, handle_signals=False)
        await self._runner.setup()
        await self._listen()

    async def _listen(self):
        # every address a device binds, whatever it came from (arguments, a state file, a reboot)
        if not is_loopback(self.address):
            raise ValueError("%s: refusing non-loopback address %r: the simulator serves loopback only"
                             % (self.name, self.address))
        self._site = web.TCPSite(self._runner, self.address, self.port, reuse_address=True)
        await self._site.start()
        if self.port == 0:
            self.port = self._site._server.sockets[0].getsockname()[1]

    async def stop(self):
        self.save()  # an orderly shutdown keeps everything, logs included
        for task in list(self._tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    def spawn(self, coro):
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def schedule_reboot(self, factory_reset=False, after=None):
        """Reboot shortly after the current answer has gone out. A unit already on its way
        down does not reboot a second time; a factory reset asked for meanwhile still happens."""
        if self._rebooting:
            self._reset_at_boot = self._reset_at_boot or factory_reset
            return
        self._rebooting, self._reset_at_boot = True, factory_reset
        self.spawn(self._reboot(after))

    def apply_pending(self):
        """Make the changes that wait for a reboot take effect; models extend."""
        pending = self.state.get("pending", {})
        if "firmware_version" in pending:
            self.state["firmware_version"] = pending["firmware_version"]
        self.state["pending"] = {}
        self.state["reboot_needed"] = False
        return pending

    def next_address(self):
        """The address the device answers at after this reboot."""
        network = self.state["network"]
        if network.get("dhcp"):
            return self.home_address
        wanted = network.get("address", self.address)
        if wanted == self.stands_for:
            return self.address
        if is_loopback(wanted):
            return wanted
        LOG.warning("%s: configured address %s is not loopback; staying on %s", self.name, wanted, self.address)
        return self.address

    async def _reboot(self, after):
        await asyncio.sleep(0.05 if after is None else after)
        self.down = True
        await self._site.stop()
        self.lost_signals |= self.lost_at_boot  # an armed loss at any boot happens now
        self.lost_at_boot = set()
        if self._reset_at_boot:
            # an installed firmware waiting for the reboot is the one the unit boots
            installed = self.state.get("pending", {}).get("firmware_version", self.state["firmware_version"])
            self.state = self._fresh_state()
            if self.factory_reset_firmware == "kept":
                self.state["firmware_version"] = installed
        elif "firmware_version" in (self.apply_pending() or {}):
            # booting into a firmware it installed: an armed signal loss happens now
            self.lost_signals |= self.lost_after_upgrade
            self.lost_after_upgrade = set()
        self.save()
        gap = self.faults.reboot_gap()
        await asyncio.sleep(self.delay(REBOOT_GAP) if gap is None else gap)
        if self.faults.never_returns():
            LOG.warning("%s: fault 'never_return': staying down", self.name)
            return
        self.address = self.next_address()
        self.booted_at = time.time()
        self.on_boot()
        self.save()
        await self._listen()
        self.down = False
        self._rebooting = self._reset_at_boot = False

    def on_boot(self):
        """Hook for models: what a fresh boot resets (busy tuners, running captures...)."""

    async def power_cycle(self):
        """An operator power-cycles a unit that never came back: faults cleared, it boots."""
        self.faults.replace([])
        if self.down:
            self.address = self.next_address()
            self.booted_at = time.time()
            self.on_boot()
            await self._listen()
            self.down = False
        self._rebooting = self._reset_at_boot = False

    # -- system log (same shape on both devices) ----------------------------------------
    LOG_KEEP = 1000

    def log(self, level, msg, pid="system"):
        entries = self.state.setdefault("log", [])
        next_id = entries[-1]["id"] + 1 if entries else 1
        entries.append({"id": next_id, "ts": _now_iso(), "pid": pid, "level": level, "msg": msg})
        del entries[:-self.LOG_KEEP]

    # -- endpoints both documents share (same paths on both devices) ---------------------
    @endpoint("GET", "/system/alive", kind="read", role=None)
    async def system_alive(self, call):
        return {"alive": True, "system_uptime": self.uptime(), "streamer_uptime": self.uptime()}

    @endpoint("GET", "/system/log", kind="read")
    async def system_log(self, call):
        entries = self.state.get("log", [])
        try:
            from_id = int(call.query["from_id"]) if "from_id" in call.query else None
            till_id = int(call.query["till_id"]) if "till_id" in call.query else None
            limit = int(call.query.get("limit", 100))
        except ValueError:
            raise ApiError(400, "from_id, till_id and limit must be integers") from None
        if limit < 0:
            raise ApiError(400, "limit must be >= 0")
        if from_id is not None:
            entries = [e for e in entries if e["id"] >= from_id]
        if till_id is not None:
            entries = [e for e in entries if e["id"] < till_id]
        return entries[-limit:] if limit else []

    @endpoint("POST", "/system/reboot", kind="action", role="admin")
    async def system_reboot(self, call):
        self.log("info", "reboot requested")
        self.schedule_reboot()
        return {}

    @endpoint("POST", "/system/factory_reset", kind="action", role="admin")
    async def system_factory_reset(self, call):
        self.schedule_reboot(factory_reset=True)
        return {}

    @endpoint("POST", "/system/upgrade", kind="action", role="admin")
    async def system_upgrade(self, call):
        if not call.request.content_type.startswith("multipart/"):
            raise ApiError(400, "upload the bundle as multipart/form-data, field file")
        reader = await call.request.multipart()
        blob = None
        async for part in reader:
            if part.name == "file":
                blob = await part.read(decode=False)
        if blob is None:
            raise ApiError(400, "multipart field file is missing")
        try:
            version = swu.verify(bytes(blob), self.model if self.bundle_target == "checked" else None)
        except swu.BundleError as err:
            self.log("error", "firmware refused: %s" % err, pid="swupdate")
            raise ApiError(400, "Firmware package rejected: %s" % err) from None
        # Installed at once; the new version runs from the next boot (reboot_needed until then).
        self.state["pending"]["firmware_version"] = version
        self.state["reboot_needed"] = True
        if self.upgrade == "reboots":
            self.log("info", "firmware %s installed, rebooting" % version, pid="swupdate")
            self.save()
            self.schedule_reboot()
        else:
            self.log("info", "firmware %s installed, effective after reboot" % version, pid="swupdate")
            self.save()
        return {"version": version}


def _json(data, status=200):
    return web.json_response(data, status=status, dumps=json.dumps)


def _drop(request):
    """Close the connection without an answer, as a device that vanished does. The
    response returned is never sent: the transport is gone."""
    if request.transport is not None:
        request.transport.abort()
    return web.Response(status=499)


def deep(value):
    return copy.deepcopy(value)


def _now_iso():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

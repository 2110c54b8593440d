# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""device_events: an ansible-rulebook event source that polls TS analyzers and FM monitors
and puts one event on the queue per change of state.

Arguments (device_events.yml next to this file documents each one):
  - devices: list of {host, device_type (ts_analyzer or fm_monitor), name, port}
  - interval: seconds between polls (1-3600, default 10)
  - initial_state: emit what is already wrong at the first poll (default false)
  - alert_records: emit new alert-log records (default true); alert_page: records read per poll
  - poll_timeout: seconds one poll of a device may take as a whole (default 30)
  - threads: devices polled at once, at most (default 32)
  - port, protocol, validate_certs, ca_path, timeout, busy_timeout, max_answer_mb, role,
    password, token: the modules' connection options, with the same BROADCAST_MONITORING_*
    environment fallbacks

Examples:
  sources:
    - broadcast.monitoring.device_events:
        interval: 10
        devices:
          - {name: ts-001, host: 192.0.2.21, device_type: ts_analyzer}
          - {name: fm-001, host: 192.0.2.31, device_type: fm_monitor}
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import json
import logging
import os
import sys
import time

DOCUMENTATION = r"""
short_description: Events from TS analyzers and FM monitors, one per change of state
description: See device_events.yml next to this file.
"""

EXAMPLES = r"""
- name: React to device events
  hosts: localhost
  sources:
    - broadcast.monitoring.device_events:
        devices:
          - {name: ts-001, host: 192.0.2.21, device_type: ts_analyzer}
  rules:
    - name: Show every event
      condition: event.kind is defined
      action:
        debug:
"""

LOGGER = logging.getLogger(__name__)


def _collection_code():
    """The collection's device code: its errors, login, connection options, snapshot reading and the registry of
    device types (_devices.py), which loads each device type's files. The one place that names them. ansible-rulebook runs
    this file with runpy and does not put the collections path on sys.path: when the import
    fails, the root this file lies under (<root>/ansible_collections/broadcast/monitoring/...)
    is added."""
    try:
        from ansible_collections.broadcast.monitoring.plugins.module_utils import _connection as connection, _errors as errors
        from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices, _snapshot as snapshot
    except ImportError:
        here = os.path.abspath(__file__)
        root = here
        for _level in range(8):  # event_source, plugins, eda, extensions, monitoring, broadcast, ansible_collections, root
            root = os.path.dirname(root)
        if os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(here)))) != "eda" or root in sys.path:
            raise
        sys.path.insert(0, root)
        from ansible_collections.broadcast.monitoring.plugins.module_utils import _connection as connection, _errors as errors
        from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices, _snapshot as snapshot
    return errors, connection, snapshot, devices


ERRORS, CONNECTION, SNAPSHOT, DEVICES = _collection_code()

#: bounds of the polling interval (seconds)
INTERVAL_RANGE = (1, 3600)
DEFAULT_INTERVAL = 10
#: alert records read per object and poll: a busier log between two polls shows its newest ones
ALERT_PAGE_RANGE = (1, 1000)
DEFAULT_ALERT_PAGE = 50
#: seconds one poll of a device may take as a whole: every request of it, the login and the
#: waits between retries (a request alone is bounded by timeout)
POLL_TIMEOUT_RANGE = (1, 3600)
DEFAULT_POLL_TIMEOUT = 30
#: polls that run at once, each in a thread of the source's own pool (and with at most one
#: open connection): the bound of the source's threads and connections, whatever the fleet
THREADS_RANGE = (1, 512)
DEFAULT_THREADS = 32
#: per device: every connection option but host (the same names, defaults and environment
#: variables as the modules)
DEVICE_KEYS = ("name", "host", "device_type", "port")
SOURCE_KEYS = ("devices", "interval", "initial_state", "alert_records", "alert_page", "poll_timeout", "threads")
#: what ansible-rulebook itself adds to the arguments (when a rule gives feedback to the source)
RULEBOOK_KEYS = ("eda_feedback_queue",)
SECRET_KEYS = ("password", "token")

INFO, WARNING, CRITICAL = "info", "warning", "critical"
#: error_kind of a poll_failed event for a failure that is not a DeviceError: an answer the
#: device code could not handle (ids of mixed types...) or a fault of the collection
UNEXPECTED = "unexpected"
#: seconds an uptime may lag behind the controller's clock (whole seconds, request times)
UPTIME_SLACK = 5


class ArgumentError(ValueError):
    """Arguments the source cannot run with; the message names each one."""


# -- arguments ------------------------------------------------------------------------------
def _env_value(spec):
    """The value of the option's BROADCAST_MONITORING_* variable, or None (unset or empty, as
    the modules read it)."""
    function, names = spec.get("fallback", (None, []))
    try:
        return function(*names) if function else None
    except Exception:  # AnsibleFallbackNotFound: the variable is unset
        return None


def _typed(name, spec, value, problems):
    kind = spec.get("type", "str")
    try:
        if kind == "int":
            if isinstance(value, bool):
                raise ValueError
            value = int(value)
        elif kind == "bool":
            if not isinstance(value, bool):
                text = str(value).strip().lower()
                if text not in ("1", "0", "true", "false", "yes", "no", "on", "off", "y", "n"):
                    raise ValueError
                value = text in ("1", "true", "yes", "on", "y")
        elif kind in ("str", "path"):
            if not isinstance(value, str):
                raise ValueError
            if kind == "path":
                value = os.path.expanduser(value)
    except (TypeError, ValueError):
        problems.append("%s: must be %s, got %r" % (name, {"int": "an integer", "bool": "a boolean"}.get(kind, "a string"),
                                                    value if name.rsplit(".", 1)[-1] not in SECRET_KEYS else ERRORS.SECRET_SHOWN))
        return None
    if spec.get("choices") and value not in spec["choices"]:
        problems.append("%s: must be one of %s, got %r" % (name, ", ".join(spec["choices"]), value))
        return None
    return value


def connection_params(args, overrides, problems, where=""):
    """The connection options of one device: its own value, else the source's, else the
    environment variable, else the module default."""
    params = {}
    for name, spec in CONNECTION.CONNECTION_SPEC.items():
        if overrides.get(name) is not None:
            value = overrides[name]
        elif args.get(name) is not None:
            value = args[name]
        else:
            value = _env_value(spec)
        if value is None:
            params[name] = spec.get("default")
            continue
        typed = _typed(where + name, spec, value, problems)
        params[name] = spec.get("default") if typed is None else typed  # the problem is named already
    return params


def _bounded(args, name, default, bounds, problems):
    value = args.get(name, default)
    if isinstance(value, str) and value.strip().isdigit():  # a templated rulebook argument
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not bounds[0] <= value <= bounds[1]:
        problems.append("%s: must be a number from %s to %s, got %r" % (name, bounds[0], bounds[1], value))
        return default
    return value


def parse_args(args):
    """The source's settings from ``args``; ArgumentError names every problem, before any
    request."""
    args = dict(args or {})
    problems = []
    known = set(SOURCE_KEYS) | set(CONNECTION.CONNECTION_SPEC)
    unknown = sorted(set(args) - known - {"host"} - set(RULEBOOK_KEYS))
    if unknown:
        problems.append("unknown argument(s): %s (known: %s)" % (", ".join(unknown), ", ".join(sorted(known))))
    if "host" in args:
        problems.append("host: give each device's host in devices")
    devices = args.get("devices")
    if not isinstance(devices, list) or not devices:
        problems.append("devices: required: a list of {host, device_type, name, port}")
        devices = []
    settings = {
        "interval": _bounded(args, "interval", DEFAULT_INTERVAL, INTERVAL_RANGE, problems),
        "alert_page": int(_bounded(args, "alert_page", DEFAULT_ALERT_PAGE, ALERT_PAGE_RANGE, problems)),
        "initial_state": _typed("initial_state", {"type": "bool"}, args.get("initial_state", False), problems),
        "alert_records": _typed("alert_records", {"type": "bool"}, args.get("alert_records", True), problems),
        "poll_timeout": _bounded(args, "poll_timeout", DEFAULT_POLL_TIMEOUT, POLL_TIMEOUT_RANGE, problems),
        "threads": int(_bounded(args, "threads", DEFAULT_THREADS, THREADS_RANGE, problems)),
        "devices": [],
    }
    names = set()
    for index, entry in enumerate(devices):
        where = "devices[%d]." % index
        if not isinstance(entry, dict):
            problems.append("devices[%d]: must be a dictionary with host and device_type" % index)
            continue
        unknown = sorted(set(entry) - set(DEVICE_KEYS) - set(CONNECTION.CONNECTION_SPEC))
        if unknown:
            problems.append("%sunknown key(s): %s" % (where, ", ".join(unknown)))
        if not DEVICES.known(entry.get("device_type")):
            problems.append("%sdevice_type: must be one of %s, got %r" % (
                where, ", ".join(DEVICES.NAMES), entry.get("device_type")))
        params = connection_params(args, entry, problems, where)
        params["host"] = entry.get("host") if isinstance(entry.get("host"), str) else None
        for problem in CONNECTION.check_connection(params):
            problems.append(where + problem)
        name = entry.get("name") or params["host"]
        if name in names:
            problems.append("%sname: %r is given twice" % (where, name))
        names.add(name)
        settings["devices"].append({"name": name, "device_type": entry.get("device_type"), "params": params})
    if problems:
        raise ArgumentError("broadcast.monitoring.device_events: invalid arguments: %s" % "; ".join(problems))
    return settings


# -- one device -----------------------------------------------------------------------------
def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _plain(value):
    """The device's answer as plain JSON types (events cross into the rule engine)."""
    return json.loads(json.dumps(value, default=str))


class DevicePoller:
    """The state of one device between polls, and the events its changes make. ``poll`` does
    blocking HTTP through the collection's client: the source runs it in a thread of its pool,
    and ``abort`` (from the event loop) ends a poll that outlived its deadline."""

    def __init__(self, name, device_type, params, alert_records=True, alert_page=DEFAULT_ALERT_PAGE):
        self.name = name
        self.device_type = device_type
        self.kind = DEVICES.device_type(device_type)
        self.api = self.kind.api()
        self.events = self.kind.events()
        self.params = params
        self.client = CONNECTION.client_from_params(params, self.api)
        self.alert_records = alert_records
        self.alert_page = alert_page
        self.state = None  # the last poll that reached the device: {uptime, items, alerts, at}
        self.reachable = None  # unknown before the first poll
        self.failure = None
        self.abandoned = None  # why the poll in progress was aborted (abort), or None
        self.stopped = False  # the source ended: no poll any more (stop)

    # What the device is doing now -------------------------------------------------------
    def read(self):
        """{uptime, items: {id: item}, alerts: {object id: [record keys and records]}}."""
        answer = self.client.try_get(self.api.ALIVE, timeout=self.client.timeout)
        if answer is None:
            raise ERRORS.DeviceError(ERRORS.UNREACHABLE, "GET %s: no answer" % self.api.ALIVE)
        items = {item["id"]: item for item in _plain(self.kind.api_snapshot().snapshot_items(self.client))}
        return {"uptime": self.api.alive_uptime(answer), "items": items, "at": time.monotonic(),
                "alerts": self.read_alerts(items) if self.alert_records else {}}

    def read_alerts(self, items):
        """The newest alert records, as {object id: [(key, record)]}, newest first."""
        raw = self.events.alert_records(self.api, self.client, items, self.alert_page)
        return {ident: [(_alert_key(r, self.events.ALERT_KEY), _plain(r)) for r in records]
                for ident, records in raw.items()}

    def poll(self, initial_state=False):
        """Read the device and return the events since the previous poll (none at the first,
        unless ``initial_state``: then what is already wrong). Never raises: whatever fails
        is an event of this device (unreachable or poll_failed), never the end of the source."""
        if self.stopped:
            return []
        self.abandoned = None
        self.client.session.resume()
        try:
            events = self._poll(initial_state)
        except Exception as err:  # pylint: disable=broad-exception-caught  # any of them: one device's failure
            events = [] if self.stopped else self._failed(self._poll_error(err))
        finally:
            self.client.session.close()  # between polls a device holds no connection
        return [ERRORS.masked(event) for event in events]  # every secret given or issued (the client registers them)

    def abort(self, reason):
        """End the poll in progress now (from another thread): its request fails at once, and
        the poll is an ``unreachable`` event saying ``reason``."""
        self.abandoned = reason
        self.client.session.abort()

    def stop(self):
        """The source ended: abort the poll in progress, and start none any more."""
        self.stopped = True
        self.abort("the event source was stopped")

    def _poll(self, initial_state):
        now = self.read()
        events = []
        if self.reachable is False:
            events.append(self.event("reachable", INFO, detail={"uptime": now["uptime"]}))
        if self.state is None:
            if initial_state:
                events.extend(self.changes({"items": {}, "alerts": None}, now))
        else:
            before = self.state
            if restarted(before, now):
                events.append(self.event("restarted", WARNING,
                                         detail={"uptime": now["uptime"], "uptime_before": before["uptime"]}))
            events.extend(self.changes(before, now))
        # the state moves on only once every event of the change was made
        self.state, self.reachable, self.failure = now, True, None
        return events

    def _poll_error(self, err):
        """The DeviceError a poll that raised ``err`` is reported as."""
        if self.abandoned:
            return ERRORS.DeviceError(ERRORS.UNREACHABLE, self.abandoned)
        if isinstance(err, ERRORS.DeviceError):
            return err
        return ERRORS.DeviceError(UNEXPECTED, "the poll failed: %s: %s" % (type(err).__name__, err), hint=(
            "an answer the collection cannot handle, or a fault of the collection; run broadcast.monitoring."
            "%s on the device and report the error with its model and firmware version" % (
                self.kind.INFO_MODULE)))

    def _failed(self, err):
        unreachable = err.kind in (ERRORS.UNREACHABLE, ERRORS.BUSY)
        events = []
        if unreachable and self.reachable is not False:
            events.append(self.event("unreachable", CRITICAL, detail={"error": err.describe()}))
            self.reachable = False
        elif not unreachable and self.failure != err.describe():
            # credentials, a refused request or an answer the collection cannot read: said once
            self.failure = err.describe()
            events.append(self.event("poll_failed", CRITICAL, detail={"error": err.describe(), "error_kind": err.kind}))
        # said once, like the event; the same failure again only at debug level
        LOGGER.log(logging.WARNING if events else logging.DEBUG, "%s: %s", self.name, ERRORS.masked(err.describe()))
        return events

    # Events -----------------------------------------------------------------------------
    def event(self, kind, severity, item=None, detail=None):
        obj = None
        if item is not None:
            obj = {"type": self.kind.ITEM, "id": item.get("id"),
                   "name": item.get("name")}
        return {"device": self.name, "device_type": self.device_type, "host": self.params["host"], "object": obj,
                "kind": kind, "severity": severity, "time": now_iso(), "detail": detail or {},
                # ansible-rulebook limits run_playbook to meta.hosts: the device's inventory name
                "meta": {"hosts": self.name}}

    def changes(self, before, now):
        events = []
        for ident, item in sorted(now["items"].items()):
            events.extend(self.event(kind, severity, item, detail)
                          for kind, severity, detail in self.events.item_events(before["items"].get(ident), item))
        if before.get("alerts") is not None:
            for ident, records in sorted(now["alerts"].items(), key=lambda pair: str(pair[0])):
                seen = {key for key, _record in before["alerts"].get(ident, [])}
                if ident not in before["alerts"] and ident not in before["items"] and self.events.NEW_ITEM_LOG_IS_NEW:
                    seen = set()  # an item added since with a log of its own: its whole log is new
                item = now["items"].get(ident) or {"id": ident, "name": None}
                for key, record in reversed(records):  # oldest first
                    if key not in seen:
                        events.append(self.event("alert_record", _severity(record), item, detail={"record": record}))
        return events


def restarted(before, now):
    """Whether the device booted between two polls: its uptime went back, or grew by clearly less
    than the time between the polls (a reboot while the device was away for longer than the
    uptime it had)."""
    if before["uptime"] is None or now["uptime"] is None:
        return False
    return now["uptime"] < before["uptime"] or now["uptime"] + UPTIME_SLACK < before["uptime"] + (now["at"] - before["at"])


def _alert_key(record, fields):
    return json.dumps([record.get(field) for field in fields], default=str)


def _severity(record):
    value = record.get("severity")
    return value if value in (WARNING, CRITICAL) else WARNING if "type" in record else INFO


# -- the source -----------------------------------------------------------------------------
async def poll_within(poller, executor, initial_state, poll_timeout):
    """One poll of one device in a thread of ``executor``; past ``poll_timeout`` seconds it
    is aborted, and is an ``unreachable`` event."""
    running = asyncio.get_running_loop().run_in_executor(executor, poller.poll, initial_state)
    try:
        return await asyncio.wait_for(asyncio.shield(running), poll_timeout)
    except asyncio.TimeoutError:
        poller.abort("no complete poll within %s s (poll_timeout bounds every request of a poll, retries"
                     " included)" % poll_timeout)
        return await running  # at once: its connection is shut (a connection being opened: its timeout)


async def watch(poller, queue, settings, executor, slots):
    """Poll one device every ``interval`` seconds, on its own schedule, and put its events
    on the queue: a device that is slow or away delays only its own events."""
    loop = asyncio.get_running_loop()
    initial_state = settings["initial_state"]
    while True:
        started = loop.time()
        async with slots:  # a free thread of the pool: the deadline counts the poll alone
            events = await poll_within(poller, executor, initial_state, settings["poll_timeout"])
        initial_state = False
        for event in events:
            await queue.put(event)
        await asyncio.sleep(max(0.0, started + settings["interval"] - loop.time()))


async def main(queue, args):
    """ansible-rulebook's entry point: poll every device until cancelled.

    Each device is a task of its own; its HTTP is blocking and runs in a thread of a pool of
    ``threads``. Cancelled (ansible-rulebook stopping), the source returns at once: it waits
    for no thread, and aborts every poll in progress (their sockets are shut, so the threads
    end within milliseconds; one still opening a connection, at that request's timeout)."""
    settings = parse_args(args)
    pollers = [DevicePoller(d["name"], d["device_type"], d["params"], settings["alert_records"], settings["alert_page"])
               for d in settings["devices"]]
    size = min(settings["threads"], len(pollers))
    executor = concurrent.futures.ThreadPoolExecutor(max_workers=size, thread_name_prefix="device_events")
    slots = asyncio.Semaphore(size)
    tasks = [asyncio.create_task(watch(poller, queue, settings, executor, slots), name="device_events " + poller.name)
             for poller in pollers]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        for poller in pollers:
            poller.stop()
        executor.shutdown(wait=False, cancel_futures=True)


if __name__ == "__main__":
    # Try it against a device: python device_events.py HOST ts_analyzer|fm_monitor (password from
    # BROADCAST_MONITORING_PASSWORD); prints each event.
    class PrintQueue:
        async def put(self, event):
            print(json.dumps(event))

    asyncio.run(main(PrintQueue(), {"devices": [{"host": sys.argv[1], "device_type": sys.argv[2]}], "interval": 5}))

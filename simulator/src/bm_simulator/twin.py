"""Twins: simulated devices that start in the state a ``device_backup`` file recorded.

A twin is a simulated unit of the backup's device type, configured through its own documented
endpoints with the backup's values (the writes a unit takes, the bodies its reads give back),
then booted, so that saved-until-reboot settings (network, hostname, log settings) are in effect
as on the unit, and the request log, tokens and busy tuners of that setup are forgotten. It
reports the backup's model, serial number and firmware version. What the backup's ``snapshot``
saw in operation is reproduced with the simulator's signals (README, "Twins").

Backup formats (the collection's Disaster recovery guide, "What a backup holds"):
``broadcast.monitoring.backup/2`` (``device``, ``system``, ``raw``, optional ``snapshot``) and
``broadcast.monitoring.backup/1`` (``firmware_version``, ``system`` with ``logging``, and
``config``: the FM monitor's ``GET /conf``, or the analyzer's managed settings in the shapes of
the collection's module options).
"""

import json
import os

import aiohttp

from . import fm as fm_model
from .core import deep

FORMAT_2 = "broadcast.monitoring.backup/2"
FORMAT_1 = "broadcast.monitoring.backup/1"
FORMATS = (FORMAT_2, FORMAT_1)
KINDS = ("ts_analyzer", "fm_monitor")


class BackupError(ValueError):
    """A file that is not a device_backup document this simulator can start a twin from."""


def read_backup(path):
    """(host name, document) of one backup file: the host is the file's name without ``.json``
    (device_backup names a file in a directory ``<host>.json``)."""
    name = os.path.basename(path)
    host = name[:-len(".json")] if name.endswith(".json") else name
    if not host:
        raise BackupError("%s: no host name in the file name" % path)
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError) as err:
        raise BackupError("%s: not readable as JSON: %s" % (path, err)) from None
    if not isinstance(doc, dict) or doc.get("format") not in FORMATS:
        raise BackupError("%s: not a device_backup document (format %s expected)" % (path, " or ".join(FORMATS)))
    if doc.get("device_type") not in KINDS:
        raise BackupError("%s: device_type must be one of %s" % (path, ", ".join(KINDS)))
    check_fields(path, doc)
    return host, doc


#: What a twin reads of a backup, by format and device type: (field, type, required). ``[]``
#: stands for each element of a list, ``*`` for each value of an object. An optional field may
#: be absent or null; a required one must be there, of its type. The device then checks the
#: values (a body it refuses stops the command, naming the request).
_OBJECT, _LIST, _TEXT, _FLAG = dict, list, str, bool
_COMMON = [("device", _OBJECT, False), ("snapshot", _OBJECT, False), ("snapshot.inputs", _LIST, False),
           ("snapshot.inputs[]", _OBJECT, True), ("snapshot.tuners", _LIST, False), ("snapshot.tuners[]", _OBJECT, True)]
_TS_SYSTEM = [("system", _OBJECT, True), ("system.network", _OBJECT, True), ("system.time", _OBJECT, True),
              ("system.time.ntp", _FLAG, True), ("system.time.ntp_servers", _LIST, True),
              ("system.time.timezone", _TEXT, True)]
_TS_OBJECTS = [("%s", _OBJECT, True), ("%s.profiles", _LIST, False), ("%s.profiles[]", _OBJECT, True),
               ("%s.profiles[].name", _TEXT, True), ("%s.inputs", _LIST, False), ("%s.inputs[]", _OBJECT, True),
               ("%s.inputs[].name", _TEXT, True), ("%s.inputs[].thumbnails", _OBJECT, False),
               ("%s.snmp", _OBJECT, False), ("%s.converters", _LIST, False), ("%s.converters[]", _OBJECT, True)]
FIELDS = {
    (FORMAT_2, "ts_analyzer"): _COMMON + _TS_SYSTEM + [
        (field % "raw", kind, required) for field, kind, required in _TS_OBJECTS] + [
        ("raw.inputs[].alerts_config", _OBJECT, False), ("raw.inputs[].scte35", _OBJECT, False),
        ("raw.converters[].port", int, True), ("raw.log_settings", _OBJECT, False)],
    (FORMAT_1, "ts_analyzer"): _COMMON + _TS_SYSTEM + [("system.logging", _OBJECT, False)] + [
        (field.replace("%s.profiles", "%s.alert_profiles") % "config", kind, required)
        for field, kind, required in _TS_OBJECTS] + [
        ("config.alert_profiles[].errors", _OBJECT, False), ("config.alert_profiles[].errors.*", _OBJECT, True),
        ("config.inputs[].source", _OBJECT, True), ("config.converters[].asi_port", int, True)],
    (FORMAT_2, "fm_monitor"): _COMMON + [
        ("raw", _OBJECT, True), ("raw.conf", _OBJECT, True), ("raw.conf.network", _OBJECT, False),
        ("raw.tuners", _LIST, False), ("raw.tuners[]", _OBJECT, True), ("raw.tuners[].tuner_id", int, True),
        ("raw.log_settings", _OBJECT, False)],
    (FORMAT_1, "fm_monitor"): _COMMON + [
        ("config", _OBJECT, True), ("config.conf", _OBJECT, True), ("config.conf.network", _OBJECT, False)],
}
_TYPE_NAMES = {_OBJECT: "an object", _LIST: "a list", _TEXT: "a string", _FLAG: "true or false", int: "an integer"}


def check_fields(path, doc):
    """Refuse, naming the file and the field, a backup a twin could not read: every field of
    FIELDS for its format and type, and each format-1 input's ``source`` (one kind of _SOURCE_1)."""
    for field, kind, required in FIELDS[(doc["format"], doc["device_type"])]:
        for where, value in _values(doc, field.split(".")):
            if value is None:
                if required:
                    raise BackupError("%s: field %s is missing" % (path, where))
            elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise BackupError("%s: field %s must be %s, not %s" % (path, where, _TYPE_NAMES[kind],
                                                                       json.dumps(value)[:80]))
    inputs = doc["config"].get("inputs") or [] if doc["format"] == FORMAT_1 and doc["device_type"] == "ts_analyzer" \
        else []
    for index, inp in enumerate(inputs):
        (kind, value), = inp["source"].items() if len(inp["source"]) == 1 else ((None, None),)
        if kind not in _SOURCE_1 or not isinstance(value, dict):
            raise BackupError("%s: field config.inputs[%d].source must be one of %s, holding an object"
                              % (path, index, ", ".join(sorted(_SOURCE_1))))


def _values(value, steps, where=""):
    """(path, value) of each value a field's steps reach; None where the last one is absent.
    A parent that is absent or null reaches nothing (its own entry reports it when required)."""
    if not steps:
        yield where, value
        return
    step, rest = steps[0], steps[1:]
    key, each = (step[:-2], True) if step.endswith("[]") else (step, False)
    if key == "*":
        for name, item in value.items():
            yield from _values(item, rest, "%s.%s" % (where, name))
        return
    found = value.get(key)
    here = "%s.%s" % (where, key) if where else key
    if found is None:
        if not rest and not each:
            yield here, None
        return
    if not each:
        yield from _values(found, rest, here)
        return
    for index, item in enumerate(found):
        yield from _values(item, rest, "%s[%d]" % (here, index))


def identity(doc):
    """Model, serial number and firmware version the backup records (format 1: the firmware only)."""
    if doc["format"] == FORMAT_1:
        return {"model": None, "serial_number": None, "firmware_version": doc.get("firmware_version")}
    device = doc.get("device") or {}
    return {key: device.get(key) for key in ("model", "serial_number", "firmware_version")}


def fm_conf_scope(doc):
    """``partial`` when the backed-up ``GET /conf`` had no log settings (the simulator's partial
    variant: they, and each tuner's hw_settings, thresholds and schedule, have their own endpoints)."""
    conf = doc["config"]["conf"] if doc["format"] == FORMAT_1 else doc["raw"]["conf"]
    return "complete" if "log" in conf else "partial"


def adopt_hardware(device, doc):
    """The backed-up unit's model and serial number: hardware, kept by a factory reset."""
    found = identity(doc)
    device.model = found["model"] or device.model
    device.serial_number = found["serial_number"] or device.serial_number


class _Session:
    """The admin session a twin is configured through: its own HTTP interface, as a client would."""

    def __init__(self, http, device):
        self.http, self.device, self.token = http, device, None

    async def login(self):
        body = {"role": "admin", "password": self.device.state["passwords"]["admin"]}
        if self.device.kind == "fm_monitor":
            body["keep_logged_in"] = True
        self.token = (await self.call("POST", self.device.login_path, body))["token"]

    async def call(self, method, path, body=None):
        headers = {"Authorization": "Bearer " + self.token} if self.token else {}
        async with self.http.request(method, self.device.base_url + "/api" + path, json=body,
                                     headers=headers) as answer:
            text = await answer.text()
            if answer.status != 200:
                raise BackupError("%s: the backup's %s %s was refused: %s %s"
                                  % (self.device.name, method, path, answer.status, text))
            return json.loads(text) if text else {}


async def configure(device, doc):
    """Bring a started ``device`` to the backup's state, then boot it."""
    policy, shape = device.unknown_fields, device.shape
    # the backup keeps every field the unit gave, known or not: a twin keeps them too
    device.unknown_fields, device.shape = "keep", "documented"
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
            session = _Session(http, device)
            await session.login()
            if device.kind == "ts_analyzer":
                await _configure_ts(session, doc)
            else:
                await _configure_fm(session, doc)
    finally:
        device.unknown_fields, device.shape = policy, shape
    found = identity(doc)
    if found["firmware_version"]:
        device.state["firmware_version"] = found["firmware_version"]
    device.apply_pending()  # the unit runs what it saved: a twin starts as booted with it
    device.on_boot()
    device.state["tokens"] = {}
    device.requests.clear()
    device.save()


def unit_address(doc):
    """The unit's address as the backup saved it."""
    if doc["device_type"] == "fm_monitor":
        conf = doc["config"]["conf"] if doc["format"] == FORMAT_1 else doc["raw"]["conf"]
        return (conf.get("network") or {}).get("address")
    return (doc["system"].get("network") or {}).get("address")


def set_world(device, doc):
    """What reaches the twin from outside as it reached the unit (signals, stations on the
    air); and the unit's address, which the twin does not move to at a reboot (the unit of a
    simulated site has a loopback address, which would move it)."""
    device.stands_for = unit_address(doc)
    if device.kind == "ts_analyzer":
        _ts_signals(device, doc)
    else:
        _fm_signals(device, doc)


# -- the analyzer ------------------------------------------------------------------------------
async def _configure_ts(session, doc):
    system = doc["system"]
    if doc["format"] == FORMAT_1:
        config = doc["config"]
        profiles = [_profile_1(p) for p in (config.get("alert_profiles") or [])]
        inputs = [_input_1(i) for i in (config.get("inputs") or [])]
        snmp = {k: v for k, v in (config.get("snmp") or {}).items() if k != "lists"}
        converters = [_converter_1(c) for c in (config.get("converters") or [])]
        log_settings = system.get("logging")
    else:
        raw = doc["raw"]
        profiles, inputs, snmp = raw.get("profiles") or [], raw.get("inputs") or [], raw.get("snmp")
        converters, log_settings = raw.get("converters") or [], raw.get("log_settings")
    # "The name of the entries array and any other profile fields are not shown": the backup's
    # profiles are the device's answers, in id order, the factory profile (id 1) first.
    ids = {}
    for index, profile in enumerate(profiles):
        body = {k: v for k, v in profile.items() if k != "id"}
        made = await session.call("POST", "/profiles/1" if index == 0 else "/profiles", body)
        ids[profile["name"]] = made["id"]
    for inp in inputs:
        await _ts_input(session, inp, ids)
    if snmp:
        await session.call("POST", "/snmp/settings", snmp)
    for converter in converters:
        if converter.get("multicast_address") is None:
            continue  # never started: nothing to set
        settings = {k: converter.get(k) for k in ("multicast_address", "multicast_port", "interface", "ttl")}
        await session.call("POST", "/converter/%d/start" % converter["port"], settings)
        if not converter.get("running"):
            await session.call("GET", "/converter/%d/stop" % converter["port"])
    network = dict(system["network"])
    hostname = network.pop("hostname", None)
    await session.call("POST", "/system/network", network)
    if hostname:
        await session.call("POST", "/system/hostname", {"hostname": hostname})
    clock = system["time"]
    await session.call("POST", "/system/datetime", {"enable_ntp": clock["ntp"], "ntp_servers": clock["ntp_servers"]})
    await session.call("POST", "/system/timezone", {"timezone": clock["timezone"]})
    if log_settings:
        await session.call("POST", "/system/log/settings", log_settings)


async def _ts_input(session, inp, profile_ids):
    """One input: ``POST /inputs`` with its body (the profile by id), then the monitoring state,
    SCTE-35 and thumbnails through their own endpoints (``GET /inputs/{id}/start|stop``,
    ``POST /inputs/{id}/scte/toggle``, ``POST /inputs/{id}/thumbnails/enable``)."""
    alerts = dict(inp.get("alerts_config") or {})
    if alerts.get("profile_id") in profile_ids:
        alerts["profile_id"] = profile_ids[alerts["profile_id"]]
    own = ("id", "monitoring", "scte35", "thumbnails", "state", "status", "errors", "metrics")
    body = dict({k: v for k, v in inp.items() if k not in own}, alerts_config=alerts)
    made = await session.call("POST", "/inputs", body)
    path = "/inputs/%d" % made["id"]
    if not inp.get("monitoring", True):
        await session.call("GET", path + "/stop")
    if (inp.get("scte35") or {}).get("enabled"):
        await session.call("POST", path + "/scte/toggle", {"enabled": True})
    thumbnails = inp.get("thumbnails") or {}
    if thumbnails.get("enabled"):
        await session.call("POST", path + "/thumbnails/enable", {"pid": thumbnails.get("pid")})


def _profile_1(profile):
    """A format-1 profile (``name``, ``errors`` by error name) as the document's profile object."""
    return {"name": profile["name"],
            "entries": [dict(fields, error_name=name) for name, fields in sorted((profile.get("errors") or {}).items())]}


#: format 1 keeps an input's source as the ts_input option ``source``; each variant names the
#: fields of the document's ``config`` object it stands for
_SOURCE_1 = {
    "multicast": ("eth", "multicast", {"address": "multicast_address", "port": "multicast_port",
                                       "source_address": "source_address"}),
    "unicast": ("eth", "unicast", {"address": "listen_address", "port": "listen_port"}),
    "asi": ("asi", None, {"port": "port"}),
    "t2mi": ("t2mi", None, {"stream_id": "stream_id", "service_id": "service_id", "pid": "elementary_stream_pid",
                            "plp_id": "plp_id", "manual": "manual"}),
    "rf": ("rf", None, {"mode": "mode", "frequency": "frequency", "bandwidth": "bandwidth", "plp_id": "plp_id"}),
}


def _input_1(inp):
    """A format-1 input (the ts_input options) as the document's input object."""
    (kind, value), = inp["source"].items()
    variant, inner, names = _SOURCE_1[kind]
    fields = {names[k]: v for k, v in value.items() if k in names and v is not None}
    config = {variant: {"stream_protocol": 0, inner: fields}} if inner else {variant: fields}
    thumbnails = inp.get("thumbnails") or {}
    return {
        "name": inp["name"], "config": config,
        "alerts_config": {"profile_id": inp.get("alert_profile"), "pid_error_list": inp.get("pid_error_list", [])},
        "monitoring": inp.get("monitoring", "started") != "paused",
        "scte35": {"enabled": bool(inp.get("scte35"))},
        "thumbnails": {"enabled": bool(thumbnails.get("enabled")), "pid": thumbnails.get("pid")},
    }


def _converter_1(converter):
    """A format-1 converter (``asi_port``, ``running``, its settings while running)."""
    return dict({k: v for k, v in converter.items() if k != "asi_port"}, port=converter["asi_port"])


def _ts_signals(device, doc):
    """A backup whose snapshot saw an input not receiving: that input's stream does not arrive
    at the twin either (a lost signal); every other input receives its stream."""
    seen = {item.get("name"): item.get("receiving") for item in (doc.get("snapshot") or {}).get("inputs") or []}
    for inp in device.state["inputs"].values():
        if seen.get(inp["name"]) is False and inp["monitoring"]:
            device.lose_signal(inp["id"])


# -- the FM monitor ------------------------------------------------------------------------------
async def _configure_fm(session, doc):
    if doc["format"] == FORMAT_1:
        conf, tuners, log_settings = doc["config"]["conf"], [], None
    else:
        conf, tuners, log_settings = doc["raw"]["conf"], doc["raw"].get("tuners") or [], doc["raw"].get("log_settings")
    # What a partial /conf leaves out has its own endpoints; written first, since POST /conf
    # tunes the tuners, which then answer 503 while they switch.
    for tuner in tuners:
        path = "/tuner/%d" % tuner["tuner_id"]
        for key, suffix in (("hw_settings", "/settings"), ("thresholds", "/thresholds"), ("schedule", "/schedule")):
            if key in tuner:
                await session.call("POST", path + suffix, {"hw_settings": tuner[key]} if key == "hw_settings"
                                   else tuner[key])
    if log_settings is not None:
        await session.call("POST", "/conf/log", log_settings)
    # "POST /conf: configuration object obtained from GET /conf"
    await session.call("POST", "/conf", conf)


def _fm_signals(device, doc):
    """The stations of the site: every frequency of the station list is on the air (an enabled
    tuner on one locks); a backup whose snapshot saw a tuner enabled and not tuned: its signal
    is lost; one tuned on a frequency off the list: that station is on the air too."""
    device.band = {}
    threshold = max(t["hw_settings"]["rssi_threshold"] for t in device.state["tuners"])
    template = next(iter(fm_model.make_band(device.seed).values()))
    frequencies = {s["frequency"]: s for s in device.state["stations"]}
    snapshot = {t.get("id"): t for t in (doc.get("snapshot") or {}).get("tuners") or []}
    for tuner in device.state["tuners"]:
        seen = snapshot.get(tuner["tuner_id"])
        if seen and seen.get("tuned") and tuner["frequency"] not in frequencies:
            frequencies[tuner["frequency"]] = {}
    for frequency, record in sorted(frequencies.items()):
        station = deep(template)
        station.update(frequency=frequency, rssi=max(record.get("rssi") or 0, threshold + 10),
                       snr=record.get("snr") or template["snr"])
        if station["rds"]:
            station["info"]["radiotext"] = "%s on %.1f MHz" % (station["info"]["ps"], frequency / 1000.0)
        device.band[frequency] = station
    for tuner in device.state["tuners"]:
        seen = snapshot.get(tuner["tuner_id"])
        if seen and tuner["state"] == 1 and seen.get("tuned") is False:
            device.lose_signal(tuner["tuner_id"])

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every path and response shape of the transport-stream analyzer that modules use.

Where the interface document says "not shown", the shapes here are the ones chosen and
documented in simulator/README.md; meeting a real device means changing this file.
"""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_api
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import Request
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import Declared, list_or_empty, not_renamed, where_of
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import ShapeError

LOGIN = Request("/api/user/login", {})

INPUTS = "/api/inputs"
INPUT = "/api/inputs/%d"
INPUT_START = "/api/inputs/%d/start"
INPUT_STOP = "/api/inputs/%d/stop"
PROFILES = "/api/profiles"
PROFILE = "/api/profiles/%d"

ASI_PORTS = (1, 2)
INT32 = 2 ** 31 - 1
#: upper bounds the document leaves open (chosen shapes: simulator/README.md)
NAME_MAX = 64
T2MI_MAX = {"stream_id": INT32, "service_id": 65535, "pid": 8191, "plp_id": 255}
RF_MAX = {"mode": INT32, "frequency": INT32, "bandwidth": INT32, "plp_id": 255}

MONITORING = {True: "started", False: "stopped"}


def source_from_device(config):
    """The device's one-variant ``config`` object as the module's ``source``."""
    if "eth" in config:
        eth = config["eth"]
        if "multicast" in eth:
            m = eth["multicast"]
            out = {"address": m["multicast_address"], "port": m["multicast_port"]}
            if m.get("source_address"):
                out["source_address"] = m["source_address"]
            return {"multicast": out}
        u = eth["unicast"]
        return {"unicast": {"address": u["listen_address"], "port": u["listen_port"]}}
    if "asi" in config:
        return {"asi": {"port": config["asi"]["port"]}}
    if "t2mi" in config:
        t = config["t2mi"]
        return {"t2mi": {"stream_id": t["stream_id"], "service_id": t["service_id"],
                         "pid": t["elementary_stream_pid"], "plp_id": t["plp_id"], "manual": t["manual"]}}
    if "rf" in config:
        # known fields only: a field a firmware adds is not the user's to declare
        return {"rf": {key: config["rf"][key] for key in RF_FIELDS}}
    raise ShapeError(where_of(config), "config", sorted(config),
                     expected="one of the source variants %s" % ", ".join(SOURCE_VARIANTS))


def source_to_device(source):
    """The module's ``source`` as the device's ``config`` object."""
    kind, value = next(iter(source.items()))
    if kind == "multicast":
        multicast = {"multicast_address": value["address"], "multicast_port": value["port"]}
        if value.get("source_address"):
            multicast["source_address"] = value["source_address"]
        return {"eth": {"stream_protocol": 0, "multicast": multicast}}
    if kind == "unicast":
        return {"eth": {"stream_protocol": 0, "unicast": {"listen_address": value["address"],
                                                          "listen_port": value["port"]}}}
    if kind == "asi":
        return {"asi": {"port": value["port"]}}
    if kind == "t2mi":
        return {"t2mi": {"stream_id": value["stream_id"], "service_id": value["service_id"],
                         "elementary_stream_pid": value["pid"], "plp_id": value["plp_id"],
                         "manual": value["manual"]}}
    return {"rf": {k: value[k] for k in RF_FIELDS}}


RF_FIELDS = ("mode", "frequency", "bandwidth", "plp_id")
SOURCE_VARIANTS = ("eth", "asi", "t2mi", "rf")
#: every field of an input's ``config`` the collection knows, at any depth: in an update,
#: what the device holds beyond these is sent back as read (the update replaces the input)
CONFIG_FIELDS = frozenset(SOURCE_VARIANTS + RF_FIELDS + (
    "stream_protocol", "multicast", "unicast", "multicast_address", "multicast_port", "source_address",
    "listen_address", "listen_port", "port", "stream_id", "service_id", "elementary_stream_pid", "manual"))


def with_unknown_fields(new, old):
    """``new`` (a body the collection built) plus the fields of ``old`` (what the device
    answered for the same object) that the collection does not know, at any depth. A known
    field left out of ``new`` stays out: leaving it out is what the collection means."""
    if not isinstance(old, dict):
        return new
    out = dict(new)
    for key, value in old.items():
        if key in out:
            if isinstance(out[key], dict) and isinstance(value, dict):
                out[key] = with_unknown_fields(out[key], value)
        elif key not in CONFIG_FIELDS:
            out[key] = value
    return out


# -- what identifies an element of GET /inputs, GET /profiles and GET /converters: the rest of
# the collection reads ids, names and live states through these, not by the device's field
# names (``<kind>_id_of``, ``<kind>_name_of``: the same scheme as the monitor's)
def input_id_of(raw):
    """The id the analyzer assigned an input (an element of ``GET /inputs``)."""
    return raw["id"]


def input_name_of(raw):
    """The name of an input (an element of ``GET /inputs``)."""
    return raw["name"]


def profile_id_of(raw):
    """The id the analyzer assigned an alert profile (an element of ``GET /profiles``)."""
    return raw["id"]


def profile_name_of(raw):
    """The name of an alert profile (an element of ``GET /profiles``)."""
    return raw["name"]


def input_state(raw):
    """The live state of a ``GET /inputs`` element (``ok``, ``paused``, ``no_signal``...);
    None when the analyzer does not give it."""
    return raw.get("state")


def created_monitoring(created):
    """``started`` or ``stopped``: what an input the analyzer just created does (the answer to
    ``POST /inputs``; without ``monitoring`` in it, started)."""
    return MONITORING[bool(created.get("monitoring", True))]


def converter_port(raw):
    """The ASI port of a ``GET /converters`` element."""
    return raw["port"]


def input_profile_id(raw):
    """The alert profile id of one element of ``GET /inputs``."""
    return raw["alerts_config"]["profile_id"]


#: fields of a ``GET /inputs`` element that are not part of the update body: the device's
#: own (id, live state) and those with their own endpoints (monitoring, SCTE-35, thumbnails)
INPUT_READ_ONLY = ("id", "state", "status", "errors", "metrics")
INPUT_OWN_ENDPOINTS = ("monitoring", "scte35", "thumbnails")
INPUT_BODY_KEYS = ("name", "config", "alerts_config")


def pid_error_list(raw):
    """``alerts_config.pid_error_list`` of one ``GET /inputs`` element, elements as the
    device gives them (the document does not show their shape)."""
    return list((raw.get("alerts_config") or {}).get("pid_error_list") or [])


def input_from_device(raw, profile_names):
    """One element of ``GET /inputs`` in the module's shape (``profile_names``: id -> name)."""
    return {
        "name": raw["name"],
        "source": source_from_device(raw["config"]),
        "alert_profile": profile_names.get(input_profile_id(raw), "#%d" % input_profile_id(raw)),
        "pid_error_list": pid_error_list(raw),
        # required: read as absent, every input would look paused and be started on every run
        "monitoring": MONITORING[bool(raw["monitoring"])],
        **features_from_device(raw),
    }


def input_body(obj, profile_id, raw=None):
    """Body of ``POST /inputs`` (and, with ``raw``, the device's element, of an update). An
    update replaces the input whole, so fields the module does not know that the device
    holds (in the input or its ``alerts_config``) are sent back as they are."""
    raw = raw or {}
    skip = INPUT_READ_ONLY + INPUT_OWN_ENDPOINTS + INPUT_BODY_KEYS + ("input_id",)
    body = {key: value for key, value in raw.items() if key not in skip}
    body.update({
        "name": obj["name"],
        "config": with_unknown_fields(source_to_device(obj["source"]), raw.get("config")),
        "alerts_config": dict(raw.get("alerts_config") or {}, profile_id=profile_id,
                              pid_error_list=list(obj.get("pid_error_list", []))),
    })
    if "id" in raw:
        body["input_id"] = raw["id"]
    return body


def profile_ids(profiles):
    """name -> id of ``GET /profiles``."""
    return {p["name"]: p["id"] for p in profiles}


#: ids the analyzer assigns itself (a backup does not keep them): the list a create is posted
#: to, with the kind of object, and the body fields holding such an id. A rendered request
#: (state=rendered, _offline.py) names the object there instead: ``{input:NAME}``.
ASSIGNED_IDS = {INPUTS: "input", PROFILES: "profile"}
ID_FIELDS = {"input_id": "input", "profile_id": "profile"}


def created_answer(body, ident):
    """What the analyzer answers to a create posted to an ASSIGNED_IDS list, as this file reads
    it (input_id_of, profile_id_of, created_monitoring): the object with the id it assigned. _offline.py answers
    a recorded create with it."""
    return dict(body, id=ident)


# -- analyzer side: inputs' SCTE-35 and thumbnails, alert profiles, SNMP, converter, SD
# card, statistics and what ts_info reads (owned by the analyzer modules) ----------------

INPUT_SCTE_TOGGLE = "/api/inputs/%d/scte/toggle"
INPUT_THUMBNAILS_ENABLE = "/api/inputs/%d/thumbnails/enable"
INPUT_THUMBNAILS_DISABLE = "/api/inputs/%d/thumbnails/disable"
PID_MAX = 8191

#: The error names of profiles and alert filters, in the analyzer's profile order: the one
#: list in the collection (the document leaves the T2-MI names open; these are the device's).
PRIORITY_1 = ("ts_sync_loss", "sync_byte_error", "pat_error2", "continuity_count_error", "pmt_error2", "pid_error")
PRIORITY_2 = ("transport_error", "crc_error", "pcr_repetition_error", "pcr_discontinuity_indicator_error",
              "pcr_accuracy_error", "pts_error", "cat_error")
PRIORITY_3 = ("nit_actual_error", "nit_other_error", "si_repetition_error", "unreferenced_pid", "sdt_actual_error",
              "sdt_other_error", "eit_actual_error", "eit_other_error", "eit_pf_error", "rst_error", "tdt_error",
              "empty_buffer_error", "data_delay_error")
T2MI_ERRORS = ("t2mi_sync_error", "t2mi_crc_error", "t2mi_packet_type_error", "t2mi_plp_num_error",
               "t2mi_timestamp_error")
IP_ERRORS = ("input_bitrate_error", "input_df_error", "input_ipat_error", "input_mlr_error", "input_dpc_error",
             "input_cce_error")
ERROR_NAMES = PRIORITY_1 + PRIORITY_2 + PRIORITY_3 + T2MI_ERRORS + IP_ERRORS
ALERT_TYPES = ("none", "warning", "critical")
ENTRY_FLAGS = ("enabled", "snmp_trap")
ENTRY_NUMBERS = ("threshold", "min_value", "max_value")
ENTRY_FIELDS = ("enabled", "alert_type", "snmp_trap", "threshold", "min_value", "max_value")
#: the factory profile, whatever its name ("Default" at the factory; a user may rename it): the
#: analyzer refuses to delete it, and a new input gets it when the user names no profile
FACTORY_PROFILE_ID = 1
#: statuses of inputs, statistics and errors
STATUS_NAMES = {0: "ok", 1: "warning", 2: "critical"}


def factory_entry(name):
    """What an entry of a new profile holds when nothing is said about it."""
    return {"enabled": True, "alert_type": "critical" if name in PRIORITY_1 else "warning", "snmp_trap": False,
            "threshold": 0, "min_value": 0, "max_value": 0}


def profile_entries(raw):
    """The entries array of a ``PROFILE``. The document does not show its name: ``entries``,
    else the one array whose objects carry ``error_name``; without one, a ShapeError (read as
    empty, every profile would be rewritten on every run)."""
    if isinstance(raw.get("entries"), list):
        return raw["entries"]
    arrays = [value for value in raw.values()
              if isinstance(value, list) and value and all(isinstance(e, dict) and "error_name" in e for e in value)]
    if len(arrays) == 1:
        return arrays[0]
    raise ShapeError(where_of(raw), "entries", sorted(raw), expected="an array of entries with error_name")


def profile_from_device(raw):
    """A ``PROFILE`` as the module's shape: entries keyed by error name."""
    return {"name": raw["name"],
            "errors": {e["error_name"]: {f: e[f] for f in ENTRY_FIELDS if f in e} for e in profile_entries(raw)}}


def profile_body(obj, names=None):
    """Body of ``POST /profiles`` (and of an update, with ``names``: only those entries)."""
    errors = obj.get("errors", {})
    chosen = [n for n in ERROR_NAMES if n in errors and (names is None or n in names)]
    return {"name": obj["name"], "entries": [dict(errors[n], error_name=n) for n in chosen]}


def profile_update_body(obj, names):
    """Body of ``POST /profiles/{id}``: the entries ``names``, without the name (the key:
    never renamed)."""
    body = profile_body(obj, names)
    del body["name"]
    return body


def inputs_using(inputs, profile_id):
    """Names of the inputs (``GET /inputs``) that use the profile."""
    return [raw["name"] for raw in inputs if input_profile_id(raw) == profile_id]


def features_from_device(raw):
    """SCTE-35 monitoring and thumbnails of one ``GET /inputs`` element, in the module's shape."""
    thumbs = raw.get("thumbnails") or {}
    return {"scte35": bool((raw.get("scte35") or {}).get("enabled")),
            "thumbnails": {"enabled": True, "pid": thumbs["pid"]} if thumbs.get("enabled") else {"enabled": False}}


def scte35_body(enabled):
    """Body of ``POST /inputs/{id}/scte/toggle``."""
    return {"enabled": enabled}


def thumbnails_body(pid):
    """Body of ``POST /inputs/{id}/thumbnails/enable``."""
    return {"pid": pid}


def input_own_from_module(monitoring, scte35, thumbnails):
    """An input's fields that have their own endpoints (INPUT_OWN_ENDPOINTS), in the device's
    shape, from the module's: ``monitoring`` started or stopped, ``scte35`` a bool,
    ``thumbnails`` ``{enabled: true, pid}`` or ``{enabled: false}``."""
    return {"monitoring": monitoring == "started", "scte35": {"enabled": scte35}, "thumbnails": thumbnails}


def input_own_requests(input_id, before, after):
    """``[Request]``: the writes that bring an input's monitoring, SCTE-35 and
    thumbnails (device shape, thumbnails without unset keys) from ``before`` to ``after``, in
    that order, each through its own endpoint. A GET among them writes."""
    requests = []
    if "monitoring" in after and bool(before.get("monitoring")) != bool(after["monitoring"]):
        requests.append(Request((INPUT_START if after["monitoring"] else INPUT_STOP) % input_id, method="GET"))
    scte = (after.get("scte35") or {}).get("enabled")
    if scte is not None and (before.get("scte35") or {}).get("enabled") != scte:
        requests.append(Request(INPUT_SCTE_TOGGLE % input_id, scte35_body(scte)))
    thumbs = after.get("thumbnails") or {}
    if thumbs and (before.get("thumbnails") or {}) != thumbs:
        if thumbs.get("enabled"):
            requests.append(Request(INPUT_THUMBNAILS_ENABLE % input_id, thumbnails_body(thumbs["pid"])))
        else:
            requests.append(Request(INPUT_THUMBNAILS_DISABLE % input_id, method="GET"))
    return requests


def input_state_from_device(raw, profile_names):
    """One ``GET /inputs`` element with its live state, for ts_info."""
    out = input_from_device(raw, profile_names)
    out.update(id=raw["id"], state=raw.get("state"), status=STATUS_NAMES.get(raw.get("status"), raw.get("status")),
               errors=dict(raw.get("errors") or {}), metrics=dict(raw.get("metrics") or {}))
    return out


# SNMP (v2c): the settings object is the module's shape as it is.
SNMP_SETTINGS = "/api/snmp/settings"
SNMP_MIB = "/api/snmp/mib"
MIB_FILENAME = "DVB-MGTR101290-MIB.txt"
SNMP_LISTS = ("listen_addresses", "trap_addresses")
SNMP_LIST_MAX = 16


def snmp_from_device(raw):
    return {"enabled": bool(raw.get("enabled")), "listen_addresses": list(raw.get("listen_addresses") or []),
            "trap_addresses": list(raw.get("trap_addresses") or [])}


def snmp_body(settings):
    """Body of ``POST /snmp/settings``: the settings object whole, in snmp_from_device's shape."""
    return {key: settings[key] for key in ("enabled",) + SNMP_LISTS}


# ASI-to-IP converter, one per ASI port
CONVERTERS = "/api/converter"
CONVERTER_START = "/api/converter/%d/start"
CONVERTER_STOP = "/api/converter/%d/stop"
CONVERTER_SETTINGS = ("multicast_address", "multicast_port", "interface", "ttl")
INTERFACES = ("eth0", "eth1")
TTL_MAX = 255


def converter_from_device(raw):
    """A ``CONVERTER`` as the module's shape; settings only while running (a stopped
    converter keeps its last settings, but they are not in effect)."""
    out = {"asi_port": raw["port"], "running": bool(raw["running"])}
    if out["running"]:
        out.update({key: raw[key] for key in CONVERTER_SETTINGS})
    return out


def converter_body(obj):
    return {key: obj[key] for key in CONVERTER_SETTINGS}


# SD card and recording; status and listing are POST queries (reads)
SDCARD_STATUS = "/api/sdcard/status"
SDCARD_FILES = "/api/sdcard/files"
SDCARD_PREPARE = {"init": "/api/sdcard/prepare/init", "format": "/api/sdcard/prepare/format"}
SDCARD_DOWNLOAD_TOKEN = "/api/sdcard/download_token"
SDCARD_DOWNLOAD = "/api/sdcard/download"
SDCARD_DELETE = "/api/sdcard/delete"
SDCARD_DELETE_ALL = "/api/sdcard/delete/all"
RECORD_START = "/api/record/start/%d"
RECORD_STOP = "/api/record/stop/%d"
#: card statuses in which nothing can be recorded, deleted or downloaded
CARD_BUSY = ("preparing",)


def card_from_device(raw, input_names):
    """``CARD`` with the recording's input named (``input_names``: id -> name)."""
    rec = raw.get("recording")
    if rec:
        rec = {"input": input_names.get(rec["input_id"], "#%s" % rec["input_id"]), "filename": rec["filename"],
               "started": rec.get("started"), "duration": rec.get("duration"), "size_mb": rec.get("size")}
    return {"status": raw["status"], "total_mb": raw.get("total_mb"), "used_mb": raw.get("used_mb"), "recording": rec}


def recording_from_device(raw, input_names):
    """The answer of ``POST /record/start/{id}`` in the shape of the card's ``recording``."""
    return card_from_device({"status": "recording", "recording": raw}, input_names)["recording"]


def files_from_device(raw):
    """``POST /sdcard/files`` as a list of {filename, size (bytes), timestamp, recording}."""
    return [{"filename": f["filename"], "size": f["size"], "timestamp": f.get("timestamp"),
             "recording": bool(f.get("recording"))} for f in raw.get("files", [])]


def recording_input_id(status):
    """The device id of the input ``POST /sdcard/status`` says is recording."""
    return status["recording"]["input_id"]


def finished_file(raw):
    """The answer of ``GET /record/stop/{id}``: the file written, {filename, size, timestamp}."""
    return {"filename": raw["filename"], "size": raw["size"], "timestamp": raw.get("timestamp")}


def record_body(duration, size):
    """Body of ``POST /record/start/{id}``: the limits given (None: no limit)."""
    return {key: value for key, value in (("duration", duration), ("size", size)) if value is not None}


def download_token(raw):
    """The one-time token of ``GET /sdcard/download_token``."""
    return raw["token"]


def download_query(filename, token):
    """Query string of ``GET /sdcard/download``."""
    return {"filename": filename, "token": token}


def delete_query(filename):
    """Query string of ``POST /sdcard/delete``."""
    return {"filename": filename}


# statistics and alert logs
STATISTICS_CURRENT = "/api/statistics/current"
STATISTICS_ARCHIVE = "/api/statistics/archive"
STATISTICS_CAS = "/api/statistics/cas"
INPUT_RESET_STATISTICS = "/api/inputs/%d/reset_stats_alerts"
INPUT_ALERTS = "/api/inputs/%d/alerts"
INPUT_IP_ALERTS = "/api/inputs/%d/input_alerts"
INPUT_ALERTS_CSV = "/api/inputs/%d/alerts/download"
ALERTS_CSV_FILENAME = "input-%s-alerts.csv"  # %s: the id comes from the device, checked before use
ARCHIVE_PERIODS = ("min", "10min", "hour", "day", "total")
ALERTS_PER_PAGE_MAX = 1000
ALERTS_PAGES_MAX = 1000


def statistics_by_input(raw):
    """``[(input id, statistics)]`` of ``GET /statistics/current``, each in ts_info's shape."""
    return [(stream["input_id"], statistics_from_device(stream)) for stream in list_or_empty(raw, "transport_streams")]


def archive_by_input(raw):
    """``[(input id, data)]`` of ``GET /statistics/archive``, the data as the analyzer gives it."""
    return [(stream["input_id"], stream["data"]) for stream in list_or_empty(raw, "transport_streams")]


def samples_by_input(raw):
    """``[(input id, samples)]`` of ``GET /metrics`` (every input)."""
    return [(series["input_id"], series["samples"]) for series in list_or_empty(raw, "inputs")]


def input_samples(raw):
    """The samples of ``GET /inputs/{id}/metrics``."""
    return raw["samples"]


def archive_query(options):
    """Query string of ``GET /statistics/archive`` from ts_info's ``archive`` options."""
    return {k: v for k, v in (("period", options.get("period") or "total"), ("time", options.get("time")))
            if v is not None}


def archive_from_device(raw):
    """``GET /statistics/archive``: its period, start and end, and ``[(input id, data)]``."""
    return {"period": raw.get("period"), "start": raw.get("start"), "end": raw.get("end"),
            "inputs": archive_by_input(raw)}


def metrics_from_device(raw, query):
    """The range and times of a metrics answer (``query``: what was asked, for a field the
    answer leaves out)."""
    return {"range_id": raw.get("range_id", query["rangeId"]), "sample_duration": raw.get("sample_duration"),
            "from_time": raw.get("from_time"), "to_time": raw.get("to_time")}


def rf_input_id(raw):
    """The input ``GET /inputs/rf_metrics`` reports on; None when it names none."""
    return raw.get("input_id")


def statistics_from_device(stream):
    """One element of ``transport_streams`` (current statistics), statuses by name."""
    return {"status": STATUS_NAMES.get(stream.get("status"), stream.get("status")),
            "bitrate": stream.get("bitrate"), "df": stream.get("df"), "mlr": stream.get("mlr"),
            "ipat": stream.get("ipat"),
            "errors": {name: dict(value, status=STATUS_NAMES.get(value.get("status"), value.get("status")))
                       for name, value in (stream.get("data") or {}).items()},
            "pids": stream.get("pids", [])}


def alerts_query(options):
    """Body of an alert query (``POST /inputs/{id}/alerts`` and ``/input_alerts``) from
    ts_info's ``alerts`` options; ``page`` and ``per_page`` say which page."""
    body = {"period": options.get("period") or "total", "page": options["page"], "perPage": options["per_page"]}
    for key, field in (("time", "time"), ("error_names", "error_code"), ("pid", "pid")):
        if options.get(key) is not None:
            body[field] = options[key]
    return body


def alerts_page(raw):
    """One page of an alert query's answer: ``{page, per_page, total, items}``."""
    return {"page": raw["page"], "per_page": raw["perPage"], "total": raw["total"], "items": list(raw["items"])}


def cas_by_input(raw):
    """``GET /statistics/cas`` as ``{input id: its conditional-access systems}``."""
    return {entry["input_id"]: entry["systems"] for entry in raw}


# stream data, metrics and system information (read by ts_info)
INPUT_PIDS = "/api/inputs/%d/pids"
INPUT_TABLES = "/api/inputs/%d/tables"
INPUT_EPG = "/api/inputs/%d/epg"
INPUT_EPG_PARAMETERS = "/api/inputs/%d/epg/parameters"
RF_METRICS = "/api/inputs/rf_metrics"
METRIC_RANGES = "/api/inputs/metrics/ranges"
METRICS = "/api/inputs/metrics"
INPUT_METRICS = "/api/inputs/%d/metrics"
EIT_TYPES = ("eit", "eit_other", "eit_sched", "eit_sched_other")
SYSTEM_WARNINGS = "/api/system/warnings"
SYSTEM_LOG = "/api/system/log"


def metrics_query(options):
    """Query string of ``GET /inputs/metrics`` and ``/inputs/{id}/metrics``."""
    query = {"rangeId": options.get("range_id") or 1}
    for key, field in (("from_time", "fromTime"), ("to_time", "toTime"), ("pid", "pid")):
        if options.get(key) is not None:
            query[field] = options[key]
    return query


def tables_query(known_tables):
    """Body of ``POST /inputs/{id}/tables``: the tables already known (``known_tables``
    entries of one input), which the analyzer leaves out of its answer."""
    return {"tables": [{k: t[k] for k in ("table_id", "table_id_extension", "revision")} for t in known_tables]}


def epg_query(options):
    """Body of ``POST /inputs/{id}/epg`` from ts_info's ``epg`` options."""
    body = {k: v for k, v in options.items() if v is not None}
    body.setdefault("eit_type", "eit")
    return body


def timezone_from_device(raw):
    """The IANA name ``GET /system/timezone`` gives."""
    return raw["timezone"]


# -- system: what the device_* modules read and write ----------------------------------
# Each function maps the analyzer's system endpoints to the device-neutral shapes of
# _system.py, so that module code never sees a path.

KIND = "ts_analyzer"
#: auto-detection asks this path without a token (device_type.DETECT): the analyzer has none, and answers 404
IDENTIFY = "/api/status"
ALIVE = "/api/system/alive"
STATUS = "/api/system/status"
DEVICE_INFO = "/api/system/device"
NETWORK = "/api/system/network"
HOSTNAME = "/api/system/hostname"
DATETIME = "/api/system/datetime"
TIMEZONE = "/api/system/timezone"
TIMEZONE_LIST = "/api/system/timezone/list"
LOG_SETTINGS = "/api/system/log/settings"
PASSWORD = "/api/user/password"
REBOOT = "/api/system/reboot"
FACTORY_RESET = "/api/system/factory_reset"
UPGRADE = "/api/system/upgrade"
#: timezones are IANA names, validated against the device's own list
TIMEZONE_KIND = "name"
#: the remote syslog port is a field of its own (remote_syslog.port), not part of the server
SYSLOG_HAS_PORT_FIELD = True
NETWORK_KEYS = ("dhcp", "address", "netmask", "gateway", "dns")


def read_network(client):
    raw = client.get(NETWORK)
    out = {key: raw.get(key) for key in NETWORK_KEYS}
    # The document does not name these fields: an empty list may be left out of the answer, but
    # DNS servers under another name are refused rather than read as none (and rewritten).
    not_renamed(raw, "dns", ("dns", "nameserver"))
    out["dns"] = list_or_empty(raw, "dns")
    # the saved hostname waits for a reboot like the rest of the saved settings
    out["hostname"] = raw.get("pending_hostname") or raw.get("hostname")
    return out


def read_firmware_version(client):
    return client.get(DEVICE_INFO)["firmware_version"]


def read_reboot_needed(client):
    return bool(client.get(STATUS).get("reboot_needed"))


def read_time(client):
    clock = client.get(DATETIME)
    return {"ntp": clock["enable_ntp"], "ntp_servers": clock.get("ntp_servers", []),
            "timezone": client.get(TIMEZONE)["timezone"], "datetime": clock.get("datetime")}


def timezones(client):
    return client.get(TIMEZONE_LIST)["timezones"]


def time_requests(before, after, set_clock):
    """The requests that write the time settings ``after`` (and the clock, ``set_clock``):
    NTP and the clock on one path, the timezone on another."""
    body = {"enable_ntp": after["ntp"], "ntp_servers": after["ntp_servers"]}
    if set_clock:
        body["datetime"] = after["datetime"]
    return [Request(DATETIME, body, ("ntp", "ntp_servers"), forced=set_clock),
            Request(TIMEZONE, {"timezone": after["timezone"]}, ("timezone",))]


def read_logging(client):
    raw = client.get(LOG_SETTINGS)
    syslog = raw["remote_syslog"]
    known = {key: syslog[key] for key in ("enabled", "server")}
    if "port" in syslog:
        known["port"] = syslog["port"]
    return {"level": raw["level"], "remote_syslog": known}


#: the remote syslog fields the collection manages; only these are written
SYSLOG_FIELDS = ("enabled", "server", "port")


def write_logging(client, after):
    client.post(LOG_SETTINGS, {"level": after["level"],
                               "remote_syslog": {key: after["remote_syslog"][key] for key in SYSLOG_FIELDS
                                                 if key in after["remote_syslog"]}})


#: the same on both devices: every device file answers it (_device_interface.COMMON)
alive_uptime = _device_api.alive_uptime


def read_identity(client):
    """Model, serial number and firmware version (``GET /system/device``)."""
    raw = client.get(DEVICE_INFO)
    return {"model": raw.get("model"), "serial_number": raw.get("serial_number"),
            "firmware_version": raw.get("firmware_version")}


# -- what the collection reads of each answer (device_compatibility reports on it) ------
READ_SHAPES = (
    Declared(DEVICE_INFO, required=("firmware_version",), optional=("model", "serial_number")),
    Declared(STATUS, optional=("reboot_needed", "uptime")),
    Declared(NETWORK, optional=NETWORK_KEYS + ("hostname", "pending_hostname")),
    Declared(DATETIME, required=("enable_ntp",), optional=("ntp_servers", "datetime")),
    Declared(TIMEZONE, required=("timezone",)),
    Declared(LOG_SETTINGS, required=("level", "remote_syslog")),
    Declared(INPUTS, element=True, required=("id", "name", "config", "alerts_config", "monitoring"),
             optional=INPUT_OWN_ENDPOINTS[1:] + INPUT_READ_ONLY[1:]),
    Declared(PROFILES, element=True, required=("id", "name", "entries")),
    Declared(SNMP_SETTINGS, optional=("enabled",) + SNMP_LISTS),
    Declared(CONVERTERS, element=True, required=("port", "running"), optional=CONVERTER_SETTINGS),
    Declared(STATISTICS_CURRENT, optional=("transport_streams",)),
)

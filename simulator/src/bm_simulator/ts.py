"""Transport-stream analyzer model (document 1, ``/work/shared/spec/ts-analyzer-api.md``).

Everything the unit keeps lives in ``self.state`` (JSON only, persisted by the core). The
stream world is simulated lazily: ``advance()`` walks each monitored input's chain of error
events (and SCTE-35 markers) up to the current simulated second. One simulated second lasts
``delay(1)`` real seconds, so ``--time-scale`` compresses measurement time as it does every
other device delay. Every draw comes from :func:`noise` over (seed, input id, tick, salt),
so a unit with the same seed and history shows the same stream. Shapes chosen where the
document says "not shown" are listed in ``README.ts.md``.
"""

import base64
import bisect
import csv
import functools
import hashlib
import hmac
import html
import io
import ipaddress
import json
import math
import re
import secrets
import struct
import time
import zlib
import zoneinfo
from datetime import datetime, timezone
from xml.sax.saxutils import quoteattr

from aiohttp import web

from .core import PAGE, ApiError, Device, deep, endpoint, keeps_unknown_fields, unknown_keys

# -- error catalogue ---------------------------------------------------------------------
PRIORITY_1 = ("ts_sync_loss", "sync_byte_error", "pat_error2", "continuity_count_error", "pmt_error2", "pid_error")
PRIORITY_2 = (
    "transport_error", "crc_error", "pcr_repetition_error", "pcr_discontinuity_indicator_error",
    "pcr_accuracy_error", "pts_error", "cat_error",
)
PRIORITY_3 = (
    "nit_actual_error", "nit_other_error", "si_repetition_error", "unreferenced_pid", "sdt_actual_error",
    "sdt_other_error", "eit_actual_error", "eit_other_error", "eit_pf_error", "rst_error", "tdt_error",
    "empty_buffer_error", "data_delay_error",
)
T2MI_ERRORS = (
    "t2mi_sync_error", "t2mi_crc_error", "t2mi_packet_type_error", "t2mi_plp_num_error", "t2mi_timestamp_error",
)
IP_ERRORS = (
    "input_bitrate_error", "input_df_error", "input_ipat_error", "input_mlr_error", "input_dpc_error",
    "input_cce_error",
)
ERROR_NAMES = PRIORITY_1 + PRIORITY_2 + PRIORITY_3 + T2MI_ERRORS + IP_ERRORS
ALERT_TYPES = ("none", "warning", "critical")
LEVEL = {"none": 0, "warning": 1, "critical": 2}
# Relative frequency of each error in the simulated streams (1 when not listed).
WEIGHT = {
    "ts_sync_loss": 0.3, "sync_byte_error": 0.3, "continuity_count_error": 6, "pcr_accuracy_error": 4,
    "pcr_repetition_error": 3, "pts_error": 3, "si_repetition_error": 3, "unreferenced_pid": 2,
    "input_df_error": 3, "input_ipat_error": 3, "input_cce_error": 2, "input_mlr_error": 2,
}
# Which PID an error is reported on: a fixed PSI PID, or a kind of PID of the stream.
ERROR_PID = {
    "pat_error2": 0, "cat_error": 1, "nit_actual_error": 16, "nit_other_error": 16, "sdt_actual_error": 17,
    "sdt_other_error": 17, "eit_actual_error": 18, "eit_other_error": 18, "eit_pf_error": 18, "rst_error": 19,
    "tdt_error": 20, "pmt_error2": "pmt", "pcr_repetition_error": "pcr", "pcr_discontinuity_indicator_error": "pcr",
    "pcr_accuracy_error": "pcr", "continuity_count_error": "es", "transport_error": "es", "pid_error": "es",
    "pts_error": "es", "empty_buffer_error": "es", "data_delay_error": "es", "crc_error": "psi",
    "si_repetition_error": "psi", "unreferenced_pid": "stray",
}

# -- model constants ---------------------------------------------------------------------
EVENT_MEAN = 20        # mean simulated seconds between two error events of one input
SCTE_MEAN = 45         # mean simulated seconds between two SCTE-35 markers
RECENT = 10            # simulated seconds an error keeps its status "current"
MAX_CATCHUP = 200      # events (or markers) one advance() simulates per input, at most
ALERT_KEEP = 500       # alert records kept per input
SCTE_KEEP = 200        # SCTE-35 markers kept per input
# Archive buckets per input: (key in state, seconds per bucket, buckets kept).
ARCHIVE_BUCKETS = (("minutes", 60, 120), ("hours", 3600, 48))
# Compact stored records (a fleet holds many): positions in an alert record and a marker.
R_NAME, R_PID, R_SERVICE, R_START, R_END, R_COUNT, R_SEVERITY = range(7)
M_TYPE, M_TIME, M_DURATION, M_EVENT = range(4)
MAX_INPUTS = 64        # hard limit: POST /inputs answers 409 beyond it
LIMITS = {"inputs": 16, "bitrate": 500_000_000, "services": 64}  # /system/warnings
ASI_PORTS = (1, 2)
INTERFACES = ("eth0", "eth1")
LOG_LEVELS = ("trace", "debug", "info", "warning", "error", "critical")
PERIODS = {"min": 60, "10min": 600, "hour": 3600, "day": 86400, "total": None}
EIT_TYPES = ("eit", "eit_other", "eit_sched", "eit_sched_other")
RANGES = (
    {"id": 1, "sample_duration": 1, "max_samples": 300},
    {"id": 2, "sample_duration": 10, "max_samples": 360},
    {"id": 3, "sample_duration": 300, "max_samples": 288},
    {"id": 4, "sample_duration": 3600, "max_samples": 168},
)
CARD_TOTAL_MB = 31914  # a "32 GB" card, MB = 10**6 bytes
PACKET = 188
PREPARE_SECONDS = {"init": 10.0, "format": 30.0}
EPG_SLOT = 1800
MODEL = "TSA-4"
TIMEZONES = sorted(zoneinfo.available_timezones())
TIMEZONE_SET = frozenset(TIMEZONES)
SERVICE_NAMES = ("Alpha TV", "Beta News", "Gamma Sport", "Delta Kids", "Epsilon Music", "Zeta Film", "Eta Info", "Theta Docs")
TITLES = ("Morning News", "Weather", "Documentary", "Feature Film", "Sport Live", "Magazine", "Series", "Quiz", "Concert")
CA_SYSTEMS = ((0x0B00, "Conax"), (0x0500, "Viaccess"), (0x1800, "Nagravision"), (0x0600, "Irdeto"))
VIDEO = ((0x1B, "H.264"), (0x24, "HEVC"), (0x02, "MPEG-2"))
AUDIO = ((0x0F, "AAC"), (0x03, "MPEG-1 Layer II"), (0x06, "AC-3"))
HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
_MASK = (1 << 64) - 1


# -- deterministic draws -----------------------------------------------------------------
def noise(*parts):
    """A float in [0, 1) that depends only on the integers given (a splitmix-style hash)."""
    h = 0x9E3779B97F4A7C15
    for part in parts:
        h = ((h ^ (part & _MASK)) * 0xBF58476D1CE4E5B9) & _MASK
        h ^= h >> 31
        h = (h * 0x94D049BB133111EB) & _MASK
        h ^= h >> 29
    return h / 2.0 ** 64


def gap(u, mean):
    """Simulated seconds to the next event, exponentially distributed around ``mean``."""
    return 1 + int(-math.log(1.0 - u) * (mean - 1))


def pick(items, u):
    return items[int(u * len(items))]


def crc_of(value):
    return zlib.crc32(json.dumps(value, sort_keys=True).encode())


# -- time ------------------------------------------------------------------------------
def iso(t):
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(value, field):
    if not isinstance(value, str):
        raise bad(field, "must be an ISO 8601 date-time string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise bad(field, "must be an ISO 8601 date-time string") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


# -- validation helpers: each raises a 400 naming the field --------------------------------
def bad(field, message):
    return ApiError(400, "%s: %s" % (field or "request body", message))


def sub(field, key):
    return "%s.%s" % (field, key) if field else key


def obj(value, field, required=(), optional=(), keep=False):
    """``value`` must be an object holding every required key and no unknown key; with
    ``keep``, a device that keeps unknown fields accepts them (the caller stores them)."""
    if value is None and not field:
        value = {}
    if not isinstance(value, dict):
        raise bad(field, "must be a JSON object")
    for key in required:
        if key not in value:
            raise bad(sub(field, key), "is required")
    if keep and keeps_unknown_fields():
        return value
    for key in value:
        if key not in required and key not in optional:
            raise bad(sub(field, key), "unknown field")
    return value


def kept(value, out, known=()):
    """``out`` (the validated fields of ``value``) with the unknown fields of ``value`` the
    device keeps; the validated fields win."""
    extra = unknown_keys(value, tuple(known) + tuple(out))
    return dict(extra, **out) if extra else out


def bounds(lo, hi):
    if lo is not None and hi is not None:
        return " %s-%s" % (lo, hi)
    if lo is not None:
        return " >= %s" % lo
    return ""


def integer(value, field, lo=None, hi=None):
    if (
        isinstance(value, bool) or not isinstance(value, int)
        or (lo is not None and value < lo) or (hi is not None and value > hi)
    ):
        raise bad(field, "must be an integer" + bounds(lo, hi))
    return value


def number(value, field, lo=None):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise bad(field, "must be a number" + bounds(lo, None))
    if lo is not None and value < lo:
        raise bad(field, "must be a number" + bounds(lo, None))
    return value


def boolean(value, field):
    if not isinstance(value, bool):
        raise bad(field, "must be a boolean")
    return value


def text(value, field, maxlen=64):
    if not isinstance(value, str) or not value.strip() or len(value) > maxlen:
        raise bad(field, "must be a non-empty string of at most %d characters" % maxlen)
    return value


def array(value, field, maxlen=None):
    if not isinstance(value, list):
        raise bad(field, "must be an array")
    if maxlen is not None and len(value) > maxlen:
        raise bad(field, "must have at most %d elements" % maxlen)
    return value


def ipv4(value, field, multicast=None):
    try:
        address = ipaddress.IPv4Address(value) if isinstance(value, str) else None
    except ValueError:
        address = None
    if address is None:
        raise bad(field, "must be an IPv4 address")
    if multicast is True and not address.is_multicast:
        raise bad(field, "must be a multicast IPv4 address (224.0.0.0/4)")
    if multicast is False and address.is_multicast:
        raise bad(field, "must be a unicast IPv4 address")
    return value


def hostname(value, field):
    if not isinstance(value, str) or not HOST_LABEL.match(value):
        raise bad(field, "must be a hostname label (RFC 1123: 1-63 letters, digits, hyphens; no hyphen at the ends)")
    return value


def host(value, field):
    """An IPv4 address or a DNS name."""
    if isinstance(value, str) and re.fullmatch(r"[0-9.]+", value or "x"):
        return ipv4(value, field)
    if (
        not isinstance(value, str) or not value or len(value) > 253
        or not all(HOST_LABEL.match(label) for label in value.rstrip(".").split("."))
    ):
        raise bad(field, "must be an IPv4 address or a DNS name")
    return value


def host_port(value, field):
    """``IP:port`` (SNMP trap destinations)."""
    address, sep, port = value.rpartition(":") if isinstance(value, str) else ("", "", "")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise bad(field, "must be IP:port with port 1-65535")
    ipv4(address, field)
    return value


def pid_value(value, field):
    return integer(value, field, 0, 8191)


# -- request shapes -----------------------------------------------------------------------
def parse_config(value):
    if not isinstance(value, dict) or len(value) != 1:
        raise bad("config", "must be an object holding exactly one of eth, asi, t2mi, rf")
    (variant, body), = value.items()
    parser = CONFIG_PARSERS.get(variant)
    if parser is None:
        raise bad("config.%s" % variant, "unknown source variant (eth, asi, t2mi, rf)")
    return {variant: parser(body, "config." + variant)}


def parse_eth(value, field):
    obj(value, field, required=("stream_protocol",), optional=("multicast", "unicast"), keep=True)
    if integer(value["stream_protocol"], sub(field, "stream_protocol")) != 0:
        raise bad(sub(field, "stream_protocol"), "must be 0")
    modes = [m for m in ("multicast", "unicast") if m in value]
    if len(modes) != 1:
        raise bad(field, "must hold exactly one of multicast or unicast")
    mode = modes[0]
    return kept(value, {"stream_protocol": 0, mode: ETH_PARSERS[mode](value[mode], sub(field, mode))},
                ("multicast", "unicast"))


def parse_multicast(value, field):
    obj(value, field, required=("multicast_address", "multicast_port"), optional=("source_address",), keep=True)
    out = {
        "multicast_address": ipv4(value["multicast_address"], sub(field, "multicast_address"), multicast=True),
        "multicast_port": integer(value["multicast_port"], sub(field, "multicast_port"), 1, 65535),
    }
    if value.get("source_address") is not None:
        out["source_address"] = ipv4(value["source_address"], sub(field, "source_address"), multicast=False)
    return kept(value, out, ("source_address",))


def parse_unicast(value, field):
    obj(value, field, required=("listen_address", "listen_port"), keep=True)
    return kept(value, {
        "listen_address": ipv4(value["listen_address"], sub(field, "listen_address"), multicast=False),
        "listen_port": integer(value["listen_port"], sub(field, "listen_port"), 1, 65535),
    })


def parse_asi(value, field):
    obj(value, field, required=("port",), keep=True)
    if integer(value["port"], sub(field, "port")) not in ASI_PORTS:
        raise bad(sub(field, "port"), "must be 1 or 2")
    return kept(value, {"port": value["port"]})


INT32 = 2 ** 31 - 1
T2MI_FIELDS = {"stream_id": INT32, "service_id": 65535, "elementary_stream_pid": 8191, "plp_id": 255}
RF_FIELDS = {"mode": INT32, "frequency": INT32, "bandwidth": INT32, "plp_id": 255}


def parse_t2mi(value, field):
    obj(value, field, required=tuple(T2MI_FIELDS) + ("manual",), keep=True)
    out = {key: integer(value[key], sub(field, key), 0, hi) for key, hi in T2MI_FIELDS.items()}
    out["manual"] = boolean(value["manual"], sub(field, "manual"))
    return kept(value, out)


def parse_rf(value, field):
    obj(value, field, required=tuple(RF_FIELDS), keep=True)
    return kept(value, {key: integer(value[key], sub(field, key), 0, hi) for key, hi in RF_FIELDS.items()})


CONFIG_PARSERS = {"eth": parse_eth, "asi": parse_asi, "t2mi": parse_t2mi, "rf": parse_rf}
ETH_PARSERS = {"multicast": parse_multicast, "unicast": parse_unicast}


def parse_alerts_config(value, profiles):
    obj(value, "alerts_config", required=("profile_id",), optional=("pid_error_list",), keep=True)
    profile_id = integer(value["profile_id"], "alerts_config.profile_id", 1)
    if not any(p["id"] == profile_id for p in profiles):
        raise bad("alerts_config.profile_id", "no profile %d" % profile_id)
    pids = value.get("pid_error_list")
    pids = [] if pids is None else array(pids, "alerts_config.pid_error_list", 8192)
    for i, pid in enumerate(pids):
        pid_value(pid, "alerts_config.pid_error_list[%d]" % i)
    return kept(value, {"profile_id": profile_id, "pid_error_list": list(pids)})


ENTRY_FIELDS = ("enabled", "snmp_trap", "alert_type", "threshold", "min_value", "max_value")
#: fields of an input as read that the device sets itself; posted back, they are not kept
INPUT_VIEW_FIELDS = ("id", "monitoring", "state", "status", "errors", "metrics", "scte35", "thumbnails")


def default_entry(name):
    return {
        "error_name": name, "enabled": True, "snmp_trap": False,
        "alert_type": "critical" if name in PRIORITY_1 else "warning",
        "threshold": 0, "min_value": 0, "max_value": 0,
    }


def parse_entries(value):
    """Given profile entries as {error_name: {field: value}} (partial entries allowed)."""
    out = {}
    for i, entry in enumerate(array(value, "entries", len(ERROR_NAMES))):
        field = "entries[%d]" % i
        obj(entry, field, required=("error_name",), optional=ENTRY_FIELDS, keep=True)
        name = entry["error_name"]
        if name not in ERROR_NAMES:
            raise bad(sub(field, "error_name"), "unknown error name %s" % json.dumps(name))
        if name in out:
            raise bad(sub(field, "error_name"), "duplicate entry for %s" % name)
        fields = {}
        for key in ("enabled", "snmp_trap"):
            if key in entry:
                fields[key] = boolean(entry[key], sub(field, key))
        if "alert_type" in entry and entry["alert_type"] not in ALERT_TYPES:
            raise bad(sub(field, "alert_type"), "must be one of none, warning, critical")
        for key in ("alert_type",):
            if key in entry:
                fields[key] = entry[key]
        for key in ("threshold", "min_value", "max_value"):
            if key in entry:
                fields[key] = number(entry[key], sub(field, key), 0)
        out[name] = kept(entry, fields, ("error_name",) + ENTRY_FIELDS)
    return out


def paging(call, body):
    """page and perPage from the query string, else from the body."""
    out = {}
    for key, default, hi in (("page", 1, 10 ** 6), ("perPage", 20, 1000)):
        raw = call.query.get(key, body.get(key, default))
        try:
            value = int(raw) if isinstance(raw, str) else raw
        except ValueError:
            value = None
        out[key] = integer(value, key, 1, hi)
    return out["page"], out["perPage"]


def envelope(items, page, per_page):
    start = (page - 1) * per_page
    return {"page": page, "perPage": per_page, "total": len(items), "items": items[start:start + per_page]}


def query_int(call, key, lo=0, default=None):
    raw = call.query.get(key)
    if raw is None:
        if default is None:
            raise bad(key, "is required")
        return default
    try:
        value = int(raw)
    except ValueError:
        raise bad(key, "must be an integer" + bounds(lo, None)) from None
    return integer(value, key, lo)


def window(period, when):
    """(start, end) of the aligned period containing ``when``; (None, None) for total."""
    length = PERIODS[period]
    if length is None:
        return None, None
    start = math.floor(when / length) * length
    return start, start + length


# -- stream layout, rebuilt from (seed, input id, config) -------------------------------------
def build_layout(seed, input_id, config):
    key = crc_of(config)

    def draw(salt):
        return noise(seed, input_id, key, salt)

    tsid = 1 + int(draw(1) * 65000)
    onid = 1 + int(draw(2) * 9000)
    services = []
    for i in range(1 + int(draw(3) * 4)):
        base = 0x100 + 0x20 * i
        video_type, video_codec = pick(VIDEO, draw(10 + i))
        audio_type, audio_codec = pick(AUDIO, draw(20 + i))
        es = [{"pid": base + 1, "stream_type": video_type, "kind": "video", "codec": video_codec,
               "bitrate": 2_000_000 + int(draw(30 + i) * 8_000_000)}]
        for j in range(1 + int(draw(40 + i) * 2)):
            es.append({"pid": base + 2 + j, "stream_type": audio_type, "kind": "audio", "codec": audio_codec,
                       "bitrate": (128_000, 192_000, 256_000)[int(draw(50 + i) * 3)]})
        scrambled = draw(60 + i) < 0.35
        ca = None
        if scrambled:
            ca_id, ca_name = pick(CA_SYSTEMS, draw(70 + i))
            ca = {"ca_system_id": ca_id, "ca_system_name": ca_name, "ecm_pid": base + 8}
        services.append({
            "service_id": tsid * 10 % 60000 + i + 1, "name": pick(SERVICE_NAMES, draw(80 + i)),
            "pmt_pid": base, "pcr_pid": base + 1, "es": es, "ca": ca,
        })
    psi = [(0, "PAT", 15_000), (16, "NIT", 5_000), (17, "SDT/BAT", 6_000), (18, "EIT", 60_000), (20, "TDT/TOT", 1_000)]
    if any(s["ca"] for s in services):
        psi.append((1, "CAT", 2_000))
    pids = [{"pid": p, "type": t, "service_name": None, "pcr": False, "bitrate": b} for p, t, b in psi]
    for s in services:
        pids.append({"pid": s["pmt_pid"], "type": "PMT", "service_name": s["name"], "pcr": False, "bitrate": 15_000})
        for e in s["es"]:
            pids.append({"pid": e["pid"], "type": "%s (%s)" % (e["kind"], e["codec"]), "service_name": s["name"],
                         "pcr": e["pid"] == s["pcr_pid"], "bitrate": e["bitrate"]})
        if s["ca"]:
            pids.append({"pid": s["ca"]["ecm_pid"], "type": "ECM", "service_name": s["name"], "pcr": False,
                         "bitrate": 10_000})
    emm = [0x1F00 + int(draw(90) * 0xF0)] if any(s["ca"] for s in services) else []
    for pid in emm:
        pids.append({"pid": pid, "type": "EMM", "service_name": None, "pcr": False, "bitrate": 20_000})
    payload = sum(p["bitrate"] for p in pids)
    null_rate = int(payload * (0.02 + draw(91) * 0.1))
    pids.append({"pid": 8191, "type": "null", "service_name": None, "pcr": False, "bitrate": null_rate})
    pids.sort(key=lambda p: p["pid"])
    return {
        "tsid": tsid, "onid": onid, "network_id": onid, "version": int(draw(92) * 32), "services": services,
        "pids": pids, "emm_pids": emm, "bitrate": payload + null_rate, "payload_bitrate": payload,
        "es_pids": [e["pid"] for s in services for e in s["es"]],
        "psi_pids": [entry[0] for entry in psi],
        "owner": {e["pid"]: s["name"] for s in services for e in s["es"]} | {s["pmt_pid"]: s["name"] for s in services},
    }


# -- capture files and thumbnails ------------------------------------------------------------
def crc32_mpeg(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for bit in range(8):  # pylint: disable=unused-variable
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
    return crc


def section_packet(pid, cc, table_id, ext, body):
    length = 5 + len(body) + 4
    head = bytes([table_id, 0xB0 | (length >> 8), length & 0xFF, ext >> 8, ext & 0xFF, 0xC1, 0, 0])
    section = head + body
    section += struct.pack(">I", crc32_mpeg(section))
    payload = b"\x00" + section
    return ts_header(pid, cc, True) + payload + b"\xff" * (184 - len(payload))


def ts_header(pid, cc, start=False):
    return bytes([0x47, (0x40 if start else 0) | (pid >> 8), pid & 0xFF, 0x10 | (cc & 0x0F)])


@functools.lru_cache(maxsize=16)
def capture_cycle(pid):
    """Bytes that repeat through a capture of one programme: PAT, PMT, 16 ES packets, x16."""
    pmt_pid = 0x100
    pat = struct.pack(">HH", 1, 0xE000 | pmt_pid)
    pmt = struct.pack(">HH", 0xE000 | pid, 0xF000) + struct.pack(">BHH", 0x1B, 0xE000 | pid, 0xF000)
    out = []
    for cc in range(16):
        out.append(section_packet(0, cc, 0x00, 1, pat))
        out.append(section_packet(pmt_pid, cc, 0x02, 1, pmt))
        for k in range(16):
            out.append(ts_header(pid, k) + bytes((cc * 16 + k + i) & 0xFF for i in range(184)))
    return b"".join(out)


def gray_jpeg(width=160, height=90):
    """A valid baseline JPEG of one mid-grey colour: every block is DC 0 and EOB."""

    def segment(marker, payload):
        return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload

    one_code = bytes([1] + [0] * 15) + b"\x00"  # one code of length 1 -> symbol 0
    blocks = math.ceil(width / 8) * math.ceil(height / 8)
    bits = 2 * blocks
    data = bytes(bits // 8) + (bytes([(1 << (8 - bits % 8)) - 1]) if bits % 8 else b"")
    return (
        b"\xff\xd8"
        + segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
        + segment(0xDB, b"\x00" + bytes([1] * 64))
        + segment(0xC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
        + segment(0xC4, b"\x00" + one_code)
        + segment(0xC4, b"\x10" + one_code)
        + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")
        + data
        + b"\xff\xd9"
    )


THUMBNAIL = gray_jpeg()

MIB = """DVB-MGTR101290-MIB DEFINITIONS ::= BEGIN

IMPORTS
    MODULE-IDENTITY, OBJECT-TYPE, NOTIFICATION-TYPE, Integer32, enterprises
        FROM SNMPv2-SMI
    TEXTUAL-CONVENTION, DisplayString
        FROM SNMPv2-TC;

tr101290 MODULE-IDENTITY
    LAST-UPDATED "202601010000Z"
    ORGANIZATION "DVB Measurement Group"
    CONTACT-INFO "simulated transport-stream analyzer"
    DESCRIPTION  "ETSI TR 101 290 test states of the monitored transport streams."
    ::= { enterprises 2696 3 2 }

TestState ::= TEXTUAL-CONVENTION
    STATUS      current
    DESCRIPTION "Result of one TR 101 290 test."
    SYNTAX      INTEGER { pass(1), fail(2), unknown(3) }

tr101290Objects       OBJECT IDENTIFIER ::= { tr101290 1 }
tr101290Notifications OBJECT IDENTIFIER ::= { tr101290 2 }

tsTable OBJECT-TYPE
    SYNTAX      SEQUENCE OF TsEntry
    MAX-ACCESS  not-accessible
    STATUS      current
    DESCRIPTION "One row per monitored input and test."
    ::= { tr101290Objects 1 }

tsEntry OBJECT-TYPE
    SYNTAX      TsEntry
    MAX-ACCESS  not-accessible
    STATUS      current
    DESCRIPTION "The state of one test on one input."
    INDEX       { tsInputId, tsTestIndex }
    ::= { tsTable 1 }

TsEntry ::= SEQUENCE {
    tsInputId    Integer32,
    tsTestIndex  Integer32,
    tsInputName  DisplayString,
    tsTestName   DisplayString,
    tsTestState  TestState,
    tsErrorCount Integer32
}

tsInputId    OBJECT-TYPE SYNTAX Integer32 (1..2147483647) MAX-ACCESS not-accessible STATUS current
    DESCRIPTION "Input id as in the HTTP interface." ::= { tsEntry 1 }
tsTestIndex  OBJECT-TYPE SYNTAX Integer32 (1..64) MAX-ACCESS not-accessible STATUS current
    DESCRIPTION "Position of the error name in the profile entries." ::= { tsEntry 2 }
tsInputName  OBJECT-TYPE SYNTAX DisplayString MAX-ACCESS read-only STATUS current
    DESCRIPTION "Input name." ::= { tsEntry 3 }
tsTestName   OBJECT-TYPE SYNTAX DisplayString MAX-ACCESS read-only STATUS current
    DESCRIPTION "Error name, e.g. continuity_count_error." ::= { tsEntry 4 }
tsTestState  OBJECT-TYPE SYNTAX TestState MAX-ACCESS read-only STATUS current
    DESCRIPTION "Current state of the test." ::= { tsEntry 5 }
tsErrorCount OBJECT-TYPE SYNTAX Integer32 MAX-ACCESS read-only STATUS current
    DESCRIPTION "Errors counted since the last reset." ::= { tsEntry 6 }

tsTestFailed NOTIFICATION-TYPE
    OBJECTS     { tsInputName, tsTestName, tsTestState }
    STATUS      current
    DESCRIPTION "Sent when a test whose profile entry has snmp_trap set fails."
    ::= { tr101290Notifications 1 }

END
"""


# The web interface's pages (outside /api): small HTML, title and body filled in.


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class TsAnalyzer(Device):
    kind = "ts_analyzer"
    login_path = "/user/login"
    role_denied_status = 403
    bad_credentials_status = 405
    # The analyzer's document does not say whether an upgrade reboots: both are offered
    # (README, "Open choices"); "reboots" stays the default the fleet has always had.
    UPGRADE_BEHAVIOURS = ("reboots", "pending")
    MODEL = MODEL
    #: statuses a user token on an admin route may get (the document does not say; README)
    ROLE_DENIED_VARIANTS = (403, 401)

    def __init__(self, *args, role_denied=403, **kwargs):
        if role_denied not in self.ROLE_DENIED_VARIANTS:
            raise ValueError("role_denied must be one of %s" % ", ".join(map(str, self.ROLE_DENIED_VARIANTS)))
        self.role_denied_status = role_denied
        self._layouts = {}
        self._last_tick = None
        self._downloads = 0
        super().__init__(*args, **kwargs)

    # -- state -----------------------------------------------------------------------------
    def factory_state(self):
        return {
            "inputs": {}, "next_input_id": 1, "stats": {}, "archive": {},
            "profiles": [{"id": 1, "name": "Default", "entries": [default_entry(n) for n in ERROR_NAMES]}],
            "next_profile_id": 2,
            "snmp": {"enabled": False, "listen_addresses": [], "trap_addresses": []},
            "converter": {str(p): dict(running=False, multicast_address=None, multicast_port=None,
                                       interface=None, ttl=None) for p in ASI_PORTS},
            "sdcard": {"files": [], "recording": None, "preparing": None, "download_tokens": []},
            "hostname": self.name,
            "datetime": {"enable_ntp": True, "ntp_servers": ["pool.ntp.org"]},
            "clock_offset": 0.0,
            "timezone": "UTC",
            "log_settings": self._factory_log_settings(),
            "log_settings_active": self._factory_log_settings(),
        }

    @staticmethod
    def _factory_log_settings():
        return {"level": "info", "remote_syslog": {"enabled": False, "server": "", "port": 514}}

    def apply_pending(self):
        pending = super().apply_pending()
        if "hostname" in pending:
            self.state["hostname"] = pending["hostname"]
        if "log_settings" in pending:
            self.state["log_settings_active"] = pending["log_settings"]
        return pending

    def on_boot(self):
        card = self.state["sdcard"]
        if card["recording"]:
            self._finish_recording(time.time())
        if card["preparing"]:
            card["preparing"] = None
            self.log("warning", "SD card preparation interrupted by reboot", pid="sdcard")
        self._downloads = 0
        tick = self._tick()
        for sid in self.state["inputs"]:
            self._resync(sid, tick)

    def build_app(self):
        app = super().build_app()
        app.router.add_get("/thumbnails/{name}", self._thumbnail_image)
        app.router.add_get("/settings/device", self._device_page)
        return app

    # -- clock ------------------------------------------------------------------------------
    def _tick_len(self):
        return self.delay(1.0)

    def _tick(self, now=None):
        return int((time.time() if now is None else now) / self._tick_len())

    def _clock(self, real=None):
        """Device clock (real time plus the offset set through /system/datetime)."""
        return (time.time() if real is None else real) + self.state["clock_offset"]

    def _tick_time(self, tick):
        return self._clock(tick * self._tick_len())

    # -- lookups ------------------------------------------------------------------------------
    def _input(self, call):
        sid = str(call.int_param("id"))
        inp = self.state["inputs"].get(sid)
        if inp is None:
            raise ApiError(404, "Input not found")
        return inp

    def _profile(self, call):
        pid = call.int_param("id")
        for profile in self.state["profiles"]:
            if profile["id"] == pid:
                return profile
        raise ApiError(404, "Profile not found")

    def _layout(self, inp):
        key = (inp["id"], crc_of(inp["config"]))
        layout = self._layouts.get(key)
        if layout is None:
            if len(self._layouts) > 256:
                self._layouts.clear()
            layout = self._layouts[key] = build_layout(self.seed, inp["id"], inp["config"])
        return layout

    @staticmethod
    def _variant(inp):
        return next(iter(inp["config"]))

    def _has_signal(self, inp):
        """No signal where nothing can arrive: a unicast listen address that is not this
        unit's (the address it answers at, or the one its network settings give it, which a
        unit configured off loopback reports but does not move to), or an RF input tuned to
        frequency 0; or where the stream stopped arriving (a lost signal, ``lose_signal``)."""
        if self._lost(inp):
            return False
        config = inp["config"]
        unicast = config.get("eth", {}).get("unicast")
        if unicast and unicast["listen_address"] not in ("0.0.0.0", self.address, self.state["network"]["address"]):
            return False
        return not ("rf" in config and config["rf"]["frequency"] == 0)

    def _active(self, inp):
        return inp["monitoring"] and self._has_signal(inp)

    def _lost(self, inp):
        """The input's stream stopped arriving (``lose_signal``, the world outside the unit)."""
        return inp["id"] in self.lost_signals

    SIGNAL_ITEM = "input id"

    def signal_changed(self, item):
        """A stream lost or back: measuring starts afresh from now (no error events are
        drawn for the time it was away; a lost stream counts its sync loss from now)."""
        if str(item) in self.state["inputs"]:
            self._resync(str(item), self._tick())

    # -- simulation ----------------------------------------------------------------------------
    def _new_stats(self, input_id, tick):
        return {"cursor": tick, "next_event": tick + gap(noise(self.seed, input_id, tick, 1), EVENT_MEAN),
                "next_scte": None, "counts": {}, "sums": {}, "pid_counts": {}, "last": {}, "alerts": [],
                "scte": [], "scte_seq": 0}

    def _resync(self, sid, tick):
        """Start measuring afresh at ``tick`` (after start, a config change, a boot)."""
        st = self.state["stats"][sid]
        inp = self.state["inputs"][sid]
        st["cursor"] = tick
        st["next_event"] = tick + gap(noise(self.seed, inp["id"], tick, 1), EVENT_MEAN)
        st["next_scte"] = tick + gap(noise(self.seed, inp["id"], tick, 2), SCTE_MEAN) if inp["scte35"]["enabled"] else None

    def advance(self):
        now = time.time()
        self._card_tick(now)
        tick = self._tick(now)
        if tick == self._last_tick:
            return
        self._last_tick = tick
        entries = None
        for sid, inp in self.state["inputs"].items():
            st = self.state["stats"][sid]
            lost = inp["monitoring"] and self._lost(inp)
            if tick <= st["cursor"] or not (lost or self._active(inp)):
                continue
            if entries is None:
                entries = {p["id"]: {e["error_name"]: e for e in p["entries"]} for p in self.state["profiles"]}
            simulate = self._simulate_loss if lost else self._simulate
            simulate(inp, st, tick, entries[inp["alerts_config"]["profile_id"]])

    def _simulate_loss(self, inp, st, tick, entries):
        """A monitored input whose stream stopped arriving: the transport stream's sync is lost
        for every second of it (``ts_sync_loss``, priority 1), one count a second, raised
        whatever the threshold (the loss lasts), at the entry's ``alert_type``; one alert
        record for the whole loss. A disabled entry is not evaluated at all."""
        start, seconds = st["cursor"], tick - st["cursor"]
        st["cursor"] = tick
        entry = entries["ts_sync_loss"]
        if not entry["enabled"]:
            return
        for key in ("counts", "sums"):
            st[key]["ts_sync_loss"] = st[key].get("ts_sync_loss", 0) + seconds
        st["last"]["ts_sync_loss"] = [tick, seconds, LEVEL[entry["alert_type"]]]
        when = self._tick_time(tick)
        self._archive_add(inp["id"], when, "ts_sync_loss", seconds)
        last = st["alerts"][-1] if st["alerts"] else None
        if (last and last[R_NAME] == "ts_sync_loss" and last[R_PID] is None and last[R_SEVERITY] == entry["alert_type"]
                and last[R_END] >= self._tick_time(start)):
            last[R_END] = when
            last[R_COUNT] += seconds
        else:
            st["alerts"].append(["ts_sync_loss", None, "", self._tick_time(start), when, seconds, entry["alert_type"]])
            del st["alerts"][:-ALERT_KEEP]

    def _simulate(self, inp, st, tick, entries):
        oldest = tick - MAX_CATCHUP * EVENT_MEAN
        if st["next_event"] < oldest:  # long unobserved: simulate only the latest stretch
            st["next_event"] = oldest + gap(noise(self.seed, inp["id"], oldest, 1), EVENT_MEAN)
        done = 0
        while st["next_event"] <= tick and done < MAX_CATCHUP:
            t = st["next_event"]
            self._error_event(inp, st, t, entries)
            st["next_event"] = t + gap(noise(self.seed, inp["id"], t, 1), EVENT_MEAN)
            done += 1
        if st["next_scte"] is not None:
            st["next_scte"] = max(st["next_scte"], tick - MAX_CATCHUP * SCTE_MEAN)
            done = 0
            while st["next_scte"] <= tick and done < MAX_CATCHUP:
                t = st["next_scte"]
                self._scte_marker(inp, st, t)
                st["next_scte"] = t + gap(noise(self.seed, inp["id"], t, 2), SCTE_MEAN)
                done += 1
        st["cursor"] = tick

    _tables = {}

    @classmethod
    def _error_table(cls, variant):
        """(names, cumulative weights) of the errors a source variant can show."""
        if variant not in cls._tables:
            names = PRIORITY_1 + PRIORITY_2 + PRIORITY_3
            names += T2MI_ERRORS if variant == "t2mi" else ()
            names += IP_ERRORS if variant == "eth" else ()
            cumulative, total = [], 0.0
            for name in names:
                total += WEIGHT.get(name, 1)
                cumulative.append(total)
            cls._tables[variant] = (names, cumulative)
        return cls._tables[variant]

    def _error_event(self, inp, st, t, entries):
        names, cumulative = self._error_table(self._variant(inp))
        draw = functools.partial(noise, self.seed, inp["id"], t)
        name = names[min(bisect.bisect_right(cumulative, draw(3) * cumulative[-1]), len(names) - 1)]
        entry = entries[name]
        if not entry["enabled"]:
            return
        count = 1 + int(20 * draw(4) ** 4)
        pid = self._error_pid(inp, name, draw(5))
        when = self._tick_time(t)
        for key in ("counts", "sums"):
            st[key][name] = st[key].get(name, 0) + count
        if pid is not None:
            per_pid = st["pid_counts"].setdefault(str(pid), {})
            per_pid[name] = per_pid.get(name, 0) + count
        raised = count > entry["threshold"]
        st["last"][name] = [t, count, LEVEL[entry["alert_type"]] if raised else 0]
        self._archive_add(inp["id"], when, name, count)
        if raised:
            service = self._layout(inp)["owner"].get(pid, "")
            self._alert(st, name, pid, service, when, count, entry["alert_type"])

    def _error_pid(self, inp, name, u):
        where = ERROR_PID.get(name)
        if where is None or isinstance(where, int):
            return where
        layout = self._layout(inp)
        if where == "es" and name == "pid_error" and inp["alerts_config"]["pid_error_list"]:
            return pick(inp["alerts_config"]["pid_error_list"], u)
        choices = {
            "es": layout["es_pids"], "psi": layout["psi_pids"],
            "pmt": [s["pmt_pid"] for s in layout["services"]], "pcr": [s["pcr_pid"] for s in layout["services"]],
            "stray": [0x1FF0 + int(u * 8)],
        }[where]
        return pick(choices, u)

    def _alert(self, st, name, pid, service, when, count, severity):
        alerts = st["alerts"]
        for record in reversed(alerts[-20:]):
            if record[R_NAME] == name and record[R_PID] == pid:
                if record[R_SEVERITY] == severity and record[R_END] >= when - RECENT * self._tick_len():
                    record[R_END] = when
                    record[R_COUNT] += count
                    return
                break
        alerts.append([name, pid, service, when, when, count, severity])
        del alerts[:-ALERT_KEEP]

    def _archive_add(self, input_id, when, name, count):
        archive = self.state["archive"].setdefault(str(input_id), {"minutes": {}, "hours": {}, "total": {}})
        for key, length, keep in ARCHIVE_BUCKETS:
            buckets = archive[key]
            start = str(int(when // length) * length)
            bucket = buckets.get(start)
            if bucket is None:
                bucket = buckets[start] = {}
                while len(buckets) > keep:
                    del buckets[next(iter(buckets))]
            bucket[name] = bucket.get(name, 0) + count
        archive["total"][name] = archive["total"].get(name, 0) + count

    def _scte_marker(self, inp, st, t):
        draw = functools.partial(noise, self.seed, inp["id"], t)
        st["scte_seq"] += 1
        insert = draw(50) < 0.7
        st["scte"].append([
            "splice_insert" if insert else "time_signal", self._tick_time(t),
            pick((15, 30, 60, 120), draw(51)) if insert else None, 1000 + st["scte_seq"],
        ])
        del st["scte"][:-SCTE_KEEP]

    # -- views of the simulated world ----------------------------------------------------------
    def _recent(self, st, tick):
        """{error_name: (count, level)} of errors seen within the last RECENT simulated seconds."""
        return {name: (c, lvl) for name, (t, c, lvl) in st["last"].items() if t > tick - RECENT}

    def _status(self, inp, st, tick):
        if not inp["monitoring"]:
            return 0
        if not self._has_signal(inp):
            return 2
        return max((pair[1] for pair in self._recent(st, tick).values()), default=0)

    def _metrics(self, inp, st, tick):
        if not self._active(inp):
            return {"bitrate": 0, "ipat": 0, "df": 0, "mlr": 0, "dpc": 0, "cce": 0}
        draw = functools.partial(noise, self.seed, inp["id"], tick)
        bitrate = int(self._layout(inp)["bitrate"] * (0.98 + 0.04 * draw(9)))
        if self._variant(inp) != "eth":
            return {"bitrate": bitrate, "ipat": 0, "df": 0, "mlr": 0, "dpc": 0, "cce": 0}
        recent = self._recent(st, tick)
        return {
            "bitrate": bitrate, "ipat": round(0.8 + 0.8 * draw(10), 2), "df": round(2 + 6 * draw(11), 1),
            "mlr": recent.get("input_mlr_error", (0, 0))[0], "dpc": recent.get("input_dpc_error", (0, 0))[0],
            "cce": recent.get("input_cce_error", (0, 0))[0],
        }

    def _input_view(self, inp, tick):
        st = self.state["stats"][str(inp["id"])]
        counts = st["counts"]
        state = "paused" if not inp["monitoring"] else ("ok" if self._has_signal(inp) else "no_signal")
        return {
            **deep(inp.get("extra", {})),
            "id": inp["id"], "name": inp["name"], "config": deep(inp["config"]),
            "alerts_config": deep(inp["alerts_config"]), "monitoring": inp["monitoring"], "state": state,
            "status": self._status(inp, st, tick),
            "errors": {"priority%d" % n: sum(counts.get(e, 0) for e in names)
                       for n, names in ((1, PRIORITY_1), (2, PRIORITY_2), (3, PRIORITY_3))},
            "metrics": self._metrics(inp, st, tick),
            "scte35": dict(inp["scte35"]), "thumbnails": dict(inp["thumbnails"]),
        }

    @staticmethod
    def _record_view(record):
        return {"service_name": record[R_SERVICE], "error_name": record[R_NAME],
                "start_time": iso(record[R_START]), "end_time": iso(record[R_END]), "count": record[R_COUNT],
                "severity": record[R_SEVERITY], "pid": record[R_PID]}

    def _sorted_inputs(self):
        return sorted(self.state["inputs"].values(), key=lambda i: i["id"])

    def _save_log(self, level, message, pid="system"):
        self.log(level, message, pid=pid)
        self.save()

    # -- authentication -----------------------------------------------------------------------
    def new_token(self, role):
        """Authentication 1: "bearer token (JWT)": header.payload.signature, HS256 under a key of
        this unit. No `exp` claim: "Tokens do not expire automatically"."""
        key = self.__dict__.setdefault("_jwt_key", secrets.token_bytes(32))
        header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
        claims = {"sub": role, "role": role, "iat": int(time.time()), "jti": secrets.token_hex(12)}
        payload = _b64url(json.dumps(claims, separators=(",", ":")).encode())
        signature = hmac.new(key, ("%s.%s" % (header, payload)).encode(), hashlib.sha256).digest()
        return "%s.%s.%s" % (header, payload, _b64url(signature))

    @endpoint("POST", "/user/login", kind="login", role=None)
    async def user_login(self, call):
        role, token = self.login(call.body)
        return {"role": role, "token": token}

    @endpoint("POST", "/user/password", kind="write", role="admin")
    async def user_password(self, call):
        body = obj(call.body, "", required=("role", "password"))
        if body["role"] not in ("admin", "user"):
            raise bad("role", "must be admin or user")
        self.state["passwords"][body["role"]] = text(body["password"], "password", 128)
        self.issued.add(self.state["passwords"][body["role"]])
        self._save_log("info", "password of role %s changed" % body["role"], pid="auth")
        return {}

    # -- inputs -----------------------------------------------------------------------------
    def _parse_input_body(self, body, path_id=None):
        keys = ("name", "config", "alerts_config") + (("input_id",) if path_id is not None else ())
        obj(body, "", required=keys, keep=True)
        if path_id is not None and integer(body["input_id"], "input_id", 0) != path_id:
            raise ApiError(400, "input_id must equal the id in the path")
        return {
            "name": text(body["name"], "name"),
            "config": parse_config(body["config"]),
            "alerts_config": parse_alerts_config(body["alerts_config"], self.state["profiles"]),
            # what a client posts back from a read is not a field to keep: only unknown ones are
            "extra": unknown_keys(body, keys + ("input_id",) + INPUT_VIEW_FIELDS),
        }

    @endpoint("GET", "/inputs", kind="read")
    async def inputs_list(self, call):
        tick = self._tick()
        return [self._input_view(inp, tick) for inp in self._sorted_inputs()]

    @endpoint("POST", "/inputs", kind="write", role="admin")
    async def inputs_add(self, call):
        fields = self._parse_input_body(call.body)
        if len(self.state["inputs"]) >= MAX_INPUTS:
            raise ApiError(409, "Input limit reached (%d inputs)" % MAX_INPUTS)
        input_id = self.state["next_input_id"]
        self.state["next_input_id"] += 1
        inp = dict(id=input_id, **fields, monitoring=True, scte35={"enabled": False},
                   thumbnails={"enabled": False, "pid": None}, created=self._clock(), paused_at=None)
        self.state["inputs"][str(input_id)] = inp
        self.state["stats"][str(input_id)] = self._new_stats(input_id, self._tick())
        self._save_log("info", "input %d (%s) added" % (input_id, inp["name"]), pid="inputs")
        return self._input_view(inp, self._tick())

    @endpoint("POST", "/inputs/{id}", kind="write", role="admin")
    async def inputs_update(self, call):
        inp = self._input(call)
        fields = self._parse_input_body(call.body, path_id=inp["id"])
        config_changed = fields["config"] != inp["config"]
        inp.update(fields)
        if config_changed:
            self._resync(str(inp["id"]), self._tick())
        self._save_log("info", "input %d (%s) updated" % (inp["id"], inp["name"]), pid="inputs")
        return self._input_view(inp, self._tick())

    @endpoint("DELETE", "/inputs/{id}", kind="write", role="admin")
    async def inputs_delete(self, call):
        inp = self._input(call)
        recording = self.state["sdcard"]["recording"]
        if recording and recording["input_id"] == inp["id"]:
            self._finish_recording(time.time())
        sid = str(inp["id"])
        for key in ("inputs", "stats", "archive"):
            self.state[key].pop(sid, None)
        self._save_log("info", "input %s deleted" % sid, pid="inputs")
        return {}

    @endpoint("GET", "/inputs/{id}/start", kind="write", role="admin")
    async def inputs_start(self, call):
        inp = self._input(call)
        if not inp["monitoring"]:
            inp["monitoring"] = True
            inp["paused_at"] = None
            self._resync(str(inp["id"]), self._tick())
            self._save_log("info", "input %d monitoring started" % inp["id"], pid="inputs")
        return {}

    @endpoint("GET", "/inputs/{id}/stop", kind="write", role="admin")
    async def inputs_stop(self, call):
        inp = self._input(call)
        if inp["monitoring"]:
            inp["monitoring"] = False
            inp["paused_at"] = self._clock()
            self._save_log("info", "input %d monitoring paused" % inp["id"], pid="inputs")
        return {}

    # -- stream data --------------------------------------------------------------------------
    @endpoint("GET", "/inputs/{id}/pids", kind="read")
    async def inputs_pids(self, call):
        inp = self._input(call)
        return deep(self._layout(inp)["pids"]) if self._active(inp) else []

    def _table_list(self, inp):
        if not self._active(inp):
            return []
        lay = self._layout(inp)
        now = self._clock()
        slot = int(now // EPG_SLOT)
        v = lay["version"]
        tables = [self._table(0x00, lay["tsid"], 0, "PAT", v, 15_000, 100, "".join(
            "<program number=\"%d\" pmt_pid=\"%d\"/>" % (s["service_id"], s["pmt_pid"]) for s in lay["services"]),
            transport_stream_id=lay["tsid"])]
        if lay["emm_pids"]:
            tables.append(self._table(0x01, 0xFFFF, 1, "CAT", v, 2_000, 500, "".join(
                "<ca_descriptor ca_pid=\"%d\"/>" % p for p in lay["emm_pids"])))
        for s in lay["services"]:
            streams = "".join("<stream pid=\"%d\" stream_type=\"%d\"/>" % (e["pid"], e["stream_type"]) for e in s["es"])
            if s["ca"]:
                streams += "<ca_descriptor ca_system_id=\"%d\" ca_pid=\"%d\"/>" % (s["ca"]["ca_system_id"], s["ca"]["ecm_pid"])
            tables.append(self._table(0x02, s["service_id"], s["pmt_pid"], "PMT", v, 15_000, 100, streams,
                                      program_number=s["service_id"], pcr_pid=s["pcr_pid"]))
        tables.append(self._table(0x40, lay["network_id"], 16, "NIT", v, 5_000, 10_000,
                                  "<transport_stream id=\"%d\"/>" % lay["tsid"], network_id=lay["network_id"]))
        tables.append(self._table(0x42, lay["tsid"], 17, "SDT", v, 6_000, 2_000, "".join(
            "<service id=\"%d\" name=%s scrambled=\"%s\"/>" % (s["service_id"], quoteattr(s["name"]),
                                                               "true" if s["ca"] else "false")
            for s in lay["services"]), transport_stream_id=lay["tsid"], original_network_id=lay["onid"]))
        for s in lay["services"]:
            tables.append(self._table(0x4E, s["service_id"], 18, "EIT", slot % 32, 10_000, 2_000, "".join(
                "<event id=\"%d\" start_time=\"%s\" duration=\"%d\"/>" % (k % 65536, iso(k * EPG_SLOT), EPG_SLOT)
                for k in (slot, slot + 1)), service_id=s["service_id"]))
        stamp = int(now)
        tables.append(self._table(0x70, 0, 20, "TDT", stamp, 500, 25_000, "", utc_time=iso(now)))
        tables.append(self._table(0x73, 0, 20, "TOT", stamp, 500, 25_000, "", utc_time=iso(now)))
        return tables

    @staticmethod
    def _table(table_id, ext, pid, name, revision, bitrate, repetition_ms, inner, **attrs):
        attributes = "".join(" %s=%s" % (k, quoteattr(str(v))) for k, v in attrs.items())
        return {
            "table_id": table_id, "table_id_extension": ext, "pid": pid, "name": name, "revision": revision,
            "bitrate": bitrate, "repetition_rate_ms": repetition_ms,
            "xml": "<%s version=\"%d\"%s>%s</%s>" % (name, revision % 32, attributes, inner, name),
        }

    @endpoint("GET", "/inputs/{id}/tables", kind="read")
    async def inputs_tables(self, call):
        return self._table_list(self._input(call))

    @endpoint("POST", "/inputs/{id}/tables", kind="read")
    async def inputs_tables_changed(self, call):
        inp = self._input(call)
        body = obj(call.body, "", optional=("tables",))
        known = {}
        for i, item in enumerate(array(body.get("tables", []), "tables")):
            field = "tables[%d]" % i
            obj(item, field, required=("table_id", "table_id_extension", "revision"))
            key = (integer(item["table_id"], sub(field, "table_id"), 0, 255),
                   integer(item["table_id_extension"], sub(field, "table_id_extension"), 0, 65535))
            known[key] = integer(item["revision"], sub(field, "revision"), 0)
        return [t for t in self._table_list(inp)
                if known.get((t["table_id"], t["table_id_extension"])) != t["revision"]]

    @endpoint("POST", "/inputs/{id}/epg", kind="read")
    async def inputs_epg(self, call):
        inp = self._input(call)
        body = obj(call.body, "", required=("eit_type",), optional=(
            "service_ids", "transport_stream_id", "original_network_id", "start_time", "end_time"))
        if body["eit_type"] not in EIT_TYPES:
            raise bad("eit_type", "must be one of %s" % ", ".join(EIT_TYPES))
        wanted = None
        if body.get("service_ids") is not None:
            wanted = {integer(v, "service_ids[%d]" % i, 0, 65535)
                      for i, v in enumerate(array(body["service_ids"], "service_ids"))}
        ids = {k: integer(body[k], k, 0, 65535) for k in ("transport_stream_id", "original_network_id")
               if body.get(k) is not None}
        now = self._clock()
        start = parse_iso(body["start_time"], "start_time") if body.get("start_time") is not None else now
        end = parse_iso(body["end_time"], "end_time") if body.get("end_time") is not None else start + 86400
        if end < start:
            raise bad("end_time", "must not be before start_time")
        if end - start > 8 * 86400:
            raise bad("end_time", "the range may span at most 8 days")
        if not self._active(inp) or body["eit_type"].endswith("_other"):
            return []
        lay = self._layout(inp)
        if ids.get("transport_stream_id", lay["tsid"]) != lay["tsid"] or ids.get("original_network_id", lay["onid"]) != lay["onid"]:
            return []
        if body["eit_type"] == "eit":
            slots = [int(now // EPG_SLOT), int(now // EPG_SLOT) + 1]
        else:
            first = int(start // EPG_SLOT)
            slots = list(range(first, max(first + 1, math.ceil(end / EPG_SLOT))))
        return [self._epg_event(s["service_id"], k) for s in lay["services"]
                if wanted is None or s["service_id"] in wanted for k in slots]

    def _epg_event(self, service_id, slot):
        title = pick(TITLES, noise(self.seed, service_id, slot, 60))
        return {"service_id": service_id, "event_id": slot % 65536, "start_time": iso(slot * EPG_SLOT),
                "duration": EPG_SLOT, "name": title, "description": "%s (simulated)" % title}

    @endpoint("GET", "/inputs/{id}/epg/parameters", kind="read")
    async def inputs_epg_parameters(self, call):
        inp = self._input(call)
        if not self._active(inp):
            return {"service_ids": [], "transport_stream_ids": [], "original_network_ids": []}
        lay = self._layout(inp)
        return {"service_ids": [s["service_id"] for s in lay["services"]],
                "transport_stream_ids": [lay["tsid"]], "original_network_ids": [lay["onid"]]}

    @endpoint("GET", "/inputs/rf_metrics", kind="read")
    async def inputs_rf_metrics(self, call):
        rf = [i for i in self._sorted_inputs() if "rf" in i["config"] and self._active(i)]
        if not rf:
            return {"input_id": None, "locked": False, "rssi": None, "ber": None, "ber_post": None, "snr": None,
                    "fer": None, "per": None, "uncorrectable_packets": None, "carrier_offset": None,
                    "timing_offset": None, "mode_metrics": {"cnr": None}}
        inp = rf[0]
        tick = self._tick()
        draw = functools.partial(noise, self.seed, inp["id"], tick)
        lay = self._layout(inp)
        cnr = round(24 + 6 * draw(20), 1)
        return {
            "input_id": inp["id"], "locked": True, "rssi": round(-60 + 25 * draw(21), 1),
            "ber": float("%.2e" % (1e-6 * (1 + 50 * draw(22)))), "ber_post": 0.0, "snr": round(cnr + 0.4, 1),
            "fer": 0.0, "per": 0.0,
            "uncorrectable_packets": self.state["stats"][str(inp["id"])]["counts"].get("transport_error", 0),
            "carrier_offset": int(-2000 + 4000 * draw(23)), "timing_offset": int(-10 + 20 * draw(24)),
            "mode_metrics": {
                "cnr": cnr, "constellation": "256QAM", "code_rate": "2/3", "guard_interval": "1/128",
                "fft_mode": "32K", "plp": {"id": inp["config"]["rf"]["plp_id"], "count": 1},
                "network_id": lay["network_id"], "t2_system_id": lay["tsid"], "cell_id": lay["onid"] % 4096,
            },
        }

    # -- statistics ------------------------------------------------------------------------
    @endpoint("GET", "/statistics/current", kind="read")
    async def statistics_current(self, call):
        tick = self._tick()
        streams = []
        for inp in self._sorted_inputs():
            st = self.state["stats"][str(inp["id"])]
            active = self._active(inp)
            recent = self._recent(st, tick) if active or (inp["monitoring"] and self._lost(inp)) else {}
            metrics = self._metrics(inp, st, tick)
            streams.append({
                "input_id": inp["id"], "name": inp["name"], "status": self._status(inp, st, tick),
                "bitrate": metrics["bitrate"], "df": metrics["df"], "mlr": metrics["mlr"], "ipat": metrics["ipat"],
                "data": {name: {"count": st["counts"].get(name, 0), "sum": st["sums"].get(name, 0),
                                "status": recent.get(name, (0, 0))[1]} for name in ERROR_NAMES},
                "pids": self._pid_statistics(inp, st, active),
            })
        return {"transport_streams": streams}

    def _pid_statistics(self, inp, st, active):
        """Every PID of the stream, plus PIDs that only errors named (unreferenced, missing)."""
        rates = {p["pid"]: p["bitrate"] for p in self._layout(inp)["pids"]}
        pids = sorted(set(rates) | {int(pid) for pid in st["pid_counts"]})
        return [{"pid": pid, "bitrate": rates.get(pid, 0) if active else 0,
                 "data": dict(st["pid_counts"].get(str(pid), {}))} for pid in pids]

    @endpoint("DELETE", "/statistics/current", kind="action", role="admin")
    async def statistics_current_reset(self, call):
        for st in self.state["stats"].values():
            st["counts"], st["pid_counts"], st["last"] = {}, {}, {}
        self._save_log("info", "current statistics reset", pid="statistics")
        return {}

    @endpoint("GET", "/statistics/archive", kind="read")
    async def statistics_archive(self, call):
        period = call.query.get("period", "total")
        if period not in PERIODS:
            raise bad("period", "must be one of %s" % ", ".join(PERIODS))
        when = parse_iso(call.query["time"], "time") if "time" in call.query else self._clock()
        start, end = window(period, when)
        streams = []
        for inp in self._sorted_inputs():
            archive = self.state["archive"].get(str(inp["id"]), {"minutes": {}, "hours": {}, "total": {}})
            if start is None:
                counts = archive["total"]
            else:
                counts = {}
                for bucket_start, bucket in archive["minutes" if end - start < 3600 else "hours"].items():
                    if start <= int(bucket_start) < end:
                        for name, n in bucket.items():
                            counts[name] = counts.get(name, 0) + n
            streams.append({"input_id": inp["id"], "name": inp["name"],
                            "data": {name: counts.get(name, 0) for name in ERROR_NAMES}})
        return {"period": period, "start": None if start is None else iso(start),
                "end": None if end is None else iso(end), "transport_streams": streams}

    @endpoint("DELETE", "/statistics/archive", kind="action", role="admin")
    async def statistics_archive_clear(self, call):
        self.state["archive"] = {}
        self._save_log("info", "statistics archive cleared", pid="statistics")
        return {}

    @endpoint("GET", "/statistics/cas", kind="read")
    async def statistics_cas(self, call):
        out = []
        for inp in self._sorted_inputs():
            if not self._active(inp):
                continue
            lay = self._layout(inp)
            systems = {}
            for s in lay["services"]:
                if s["ca"]:
                    system = systems.setdefault(s["ca"]["ca_system_id"], {
                        "ca_system_id": s["ca"]["ca_system_id"], "ca_system_name": s["ca"]["ca_system_name"],
                        "ecm_pids": [], "emm_pids": list(lay["emm_pids"]), "service_ids": [], "pid_status": "ok"})
                    system["ecm_pids"].append(s["ca"]["ecm_pid"])
                    system["service_ids"].append(s["service_id"])
            out.append({"input_id": inp["id"], "name": inp["name"], "systems": list(systems.values())})
        return out

    # -- alert log ----------------------------------------------------------------------------
    def _alert_query(self, call, names):
        inp = self._input(call)
        body = obj(call.body, "", optional=("period", "time", "error_code", "pid", "page", "perPage"))
        page, per_page = paging(call, body)
        period = body.get("period", "total")
        if period not in PERIODS:
            raise bad("period", "must be one of %s" % ", ".join(PERIODS))
        when = parse_iso(body["time"], "time") if body.get("time") is not None else self._clock()
        start, end = window(period, when)
        codes = None
        if body.get("error_code") is not None:
            for i, code in enumerate(array(body["error_code"], "error_code")):
                if code not in ERROR_NAMES:
                    raise bad("error_code[%d]" % i, "unknown error name %s" % json.dumps(code))
            codes = set(body["error_code"])
        pid = pid_value(body["pid"], "pid") if body.get("pid") is not None else None
        records = [
            self._record_view(r) for r in reversed(self.state["stats"][str(inp["id"])]["alerts"])
            if r[R_NAME] in names and (codes is None or r[R_NAME] in codes)
            and (pid is None or r[R_PID] == pid) and (start is None or (r[R_START] < end and r[R_END] >= start))
        ]
        return envelope(records, page, per_page)

    @endpoint("POST", "/inputs/{id}/alerts", kind="read")
    async def inputs_alerts(self, call):
        return self._alert_query(call, frozenset(ERROR_NAMES) - frozenset(IP_ERRORS))

    @endpoint("POST", "/inputs/{id}/input_alerts", kind="read")
    async def inputs_input_alerts(self, call):
        return self._alert_query(call, frozenset(IP_ERRORS))

    @endpoint("GET", "/inputs/{id}/alerts/download", kind="read")
    async def inputs_alerts_download(self, call):
        inp = self._input(call)
        columns = ("service_name", "error_name", "start_time", "end_time", "count", "severity", "pid")
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\r\n")
        writer.writeheader()
        for record in self.state["stats"][str(inp["id"])]["alerts"]:
            writer.writerow({k: ("" if v is None else v) for k, v in self._record_view(record).items()})
        return web.Response(text=out.getvalue(), content_type="text/csv", headers={
            "Content-Disposition": "attachment; filename=\"input-%d-alerts.csv\"" % inp["id"]})

    @endpoint("GET", "/inputs/{id}/reset_stats_alerts", kind="action", role="admin")
    async def inputs_reset_stats_alerts(self, call):
        inp = self._input(call)
        st = self.state["stats"][str(inp["id"])]
        for key in ("counts", "sums", "pid_counts", "last"):
            st[key] = {}
        st["alerts"] = []
        self._save_log("info", "statistics and alert log of input %d cleared" % inp["id"], pid="statistics")
        return {}

    # -- metric series -----------------------------------------------------------------------
    @endpoint("GET", "/inputs/metrics/ranges", kind="read")
    async def metrics_ranges(self, call):
        return [dict(r) for r in RANGES]

    def _series_window(self, call):
        range_id = query_int(call, "rangeId", 1)
        spec = next((r for r in RANGES if r["id"] == range_id), None)
        if spec is None:
            raise bad("rangeId", "no range %d (see /inputs/metrics/ranges)" % range_id)
        now = int(self._clock())
        to_time = query_int(call, "toTime", 0, now)
        from_time = query_int(call, "fromTime", 0, to_time - spec["sample_duration"] * spec["max_samples"])
        if from_time > to_time:
            raise bad("fromTime", "must not be after toTime")
        return spec, from_time, to_time

    def _samples(self, inp, spec, from_time, to_time, pid=None):
        step = spec["sample_duration"]
        first = max(from_time, int(inp["created"]))
        last = min(to_time, int(self._clock()), int(inp["paused_at"] or 2 ** 62))
        if not self._has_signal(inp) or last < first:
            return []
        lay = self._layout(inp)
        ks = range(math.ceil(first / step), last // step + 1)[-spec["max_samples"]:]
        eth, rf = self._variant(inp) == "eth", self._variant(inp) == "rf"
        base = lay["bitrate"] if pid is None else next((p["bitrate"] for p in lay["pids"] if p["pid"] == pid), 0)
        out = []
        for k in ks:
            draw = functools.partial(noise, self.seed, inp["id"], spec["id"], k)
            bitrate = int(base * (0.97 + 0.06 * draw(1)))
            sample = {"time": k * step, "bitrate": bitrate, "payload_bitrate": int(bitrate * 0.96),
                      "jitter": None, "ipat": None, "df": None, "mlr": None,
                      "cce": int(draw(2) < 0.05), "cnr": None}
            if pid is None and eth:
                sample.update(jitter=round(0.5 + 3 * draw(3), 2), ipat=round(0.8 + 0.8 * draw(4), 2),
                              df=round(2 + 6 * draw(5), 1), mlr=int(draw(6) < 0.03))
            if pid is None and rf:
                sample["cnr"] = round(24 + 6 * draw(7), 1)
            out.append(sample)
        return out

    @endpoint("GET", "/inputs/metrics", kind="read")
    async def metrics_all(self, call):
        spec, from_time, to_time = self._series_window(call)
        return {"range_id": spec["id"], "sample_duration": spec["sample_duration"], "from_time": from_time,
                "to_time": to_time, "inputs": [
                    {"input_id": inp["id"], "samples": self._samples(inp, spec, from_time, to_time)}
                    for inp in self._sorted_inputs()]}

    @endpoint("GET", "/inputs/{id}/metrics", kind="read")
    async def metrics_one(self, call):
        inp = self._input(call)
        spec, from_time, to_time = self._series_window(call)
        pid = pid_value(query_int(call, "pid", 0), "pid") if "pid" in call.query else None
        if pid is not None and pid not in {p["pid"] for p in self._layout(inp)["pids"]}:
            raise ApiError(404, "PID %d not found in input %d" % (pid, inp["id"]))
        return {"range_id": spec["id"], "sample_duration": spec["sample_duration"], "from_time": from_time,
                "to_time": to_time, "input_id": inp["id"], "pid": pid,
                "samples": self._samples(inp, spec, from_time, to_time, pid)}

    # -- alert profiles -------------------------------------------------------------------------
    def _check_profile_name(self, name, own_id=None):
        text(name, "name")
        if any(p["name"] == name and p["id"] != own_id for p in self.state["profiles"]):
            raise ApiError(409, "A profile named %s already exists" % json.dumps(name))

    @endpoint("GET", "/profiles", kind="read")
    async def profiles_list(self, call):
        return deep(self.state["profiles"])

    @endpoint("POST", "/profiles", kind="write", role="admin")
    async def profiles_add(self, call):
        body = obj(call.body, "", required=("name",), optional=("entries",), keep=True)
        given = parse_entries(body.get("entries", []))
        self._check_profile_name(body["name"])
        profile = {**unknown_keys(body, ("id", "name", "entries")), "id": self.state["next_profile_id"],
                   "name": body["name"], "entries": [dict(default_entry(n), **given.get(n, {})) for n in ERROR_NAMES]}
        self.state["next_profile_id"] += 1
        self.state["profiles"].append(profile)
        self._save_log("info", "alert profile %d (%s) created" % (profile["id"], profile["name"]), pid="profiles")
        return deep(profile)

    @endpoint("POST", "/profiles/{id}", kind="write", role="admin")
    async def profiles_update(self, call):
        profile = self._profile(call)
        body = obj(call.body, "", optional=("name", "entries"), keep=True)
        given = parse_entries(body.get("entries", []))
        profile.update(unknown_keys(body, ("id", "name", "entries")))  # merged, like the entries
        if "name" in body:
            self._check_profile_name(body["name"], own_id=profile["id"])
            profile["name"] = body["name"]
        for entry in profile["entries"]:
            entry.update(given.get(entry["error_name"], {}))
        self._save_log("info", "alert profile %d (%s) updated" % (profile["id"], profile["name"]), pid="profiles")
        return deep(profile)

    @endpoint("DELETE", "/profiles/{id}", kind="write", role="admin")
    async def profiles_delete(self, call):
        profile = self._profile(call)
        if profile["id"] == 1:
            raise ApiError(409, "The Default profile cannot be deleted")
        users = [i["id"] for i in self._sorted_inputs() if i["alerts_config"]["profile_id"] == profile["id"]]
        if users:
            raise ApiError(409, "Profile %d is used by inputs %s" % (profile["id"], ", ".join(map(str, users))))
        self.state["profiles"].remove(profile)
        self._save_log("info", "alert profile %d deleted" % profile["id"], pid="profiles")
        return {}

    # -- SNMP ------------------------------------------------------------------------------
    @endpoint("GET", "/snmp/settings", kind="read")
    async def snmp_get(self, call):
        return deep(self.state["snmp"])

    @endpoint("POST", "/snmp/settings", kind="write", role="admin")
    async def snmp_set(self, call):
        body = obj(call.body, "", required=("enabled", "listen_addresses", "trap_addresses"), keep=True)
        settings = {
            "enabled": boolean(body["enabled"], "enabled"),
            "listen_addresses": [ipv4(a, "listen_addresses[%d]" % i, multicast=False)
                                 for i, a in enumerate(array(body["listen_addresses"], "listen_addresses", 16))],
            "trap_addresses": [host_port(a, "trap_addresses[%d]" % i)
                               for i, a in enumerate(array(body["trap_addresses"], "trap_addresses", 16))],
        }
        settings = kept(body, settings)
        self.state["snmp"] = settings
        self._save_log("info", "SNMP settings changed (enabled: %s)" % settings["enabled"], pid="snmp")
        return deep(settings)

    @endpoint("GET", "/snmp/mib", kind="read")
    async def snmp_mib(self, call):
        return web.Response(text=MIB, content_type="text/plain", headers={
            "Content-Disposition": "attachment; filename=\"DVB-MGTR101290-MIB.txt\""})

    # -- ASI-to-IP converter -------------------------------------------------------------------
    def _converter(self, call):
        port = call.int_param("input_port")
        state = self.state["converter"].get(str(port))
        if state is None:
            raise ApiError(404, "Converter port not found (ASI ports are 1 and 2)")
        return port, state

    @staticmethod
    def _converter_view(port, state):
        return dict(port=port, **state)

    @endpoint("GET", "/converter", kind="read")
    async def converter_list(self, call):
        return [self._converter_view(p, self.state["converter"][str(p)]) for p in ASI_PORTS]

    @endpoint("GET", "/converter/{input_port}", kind="read")
    async def converter_get(self, call):
        return self._converter_view(*self._converter(call))

    @endpoint("POST", "/converter/{input_port}/start", kind="write", role="admin")
    async def converter_start(self, call):
        port, state = self._converter(call)
        body = obj(call.body, "", required=("multicast_address", "multicast_port", "interface", "ttl"))
        if body["interface"] not in INTERFACES:
            raise bad("interface", "must be eth0 or eth1")
        state.update(
            running=True,
            multicast_address=ipv4(body["multicast_address"], "multicast_address", multicast=True),
            multicast_port=integer(body["multicast_port"], "multicast_port", 1, 65535),
            interface=body["interface"], ttl=integer(body["ttl"], "ttl", 1, 255),
        )
        target = "%s:%d" % (state["multicast_address"], state["multicast_port"])
        self._save_log("info", "converter %d started to %s" % (port, target), pid="converter")
        return self._converter_view(port, state)

    @endpoint("GET", "/converter/{input_port}/stop", kind="write", role="admin")
    async def converter_stop(self, call):
        port, state = self._converter(call)
        if state["running"]:
            state["running"] = False
            self._save_log("info", "converter %d stopped" % port, pid="converter")
        return self._converter_view(port, state)

    # -- SCTE-35 and thumbnails ---------------------------------------------------------------
    @endpoint("POST", "/inputs/{id}/scte/toggle", kind="write", role="admin")
    async def scte_toggle(self, call):
        inp = self._input(call)
        enabled = boolean(obj(call.body, "", required=("enabled",))["enabled"], "enabled")
        if enabled != inp["scte35"]["enabled"]:
            inp["scte35"]["enabled"] = enabled
            st = self.state["stats"][str(inp["id"])]
            tick = self._tick()
            st["next_scte"] = tick + gap(noise(self.seed, inp["id"], tick, 2), SCTE_MEAN) if enabled else None
            self._save_log("info", "SCTE-35 monitoring of input %d %s" % (inp["id"], "on" if enabled else "off"),
                           pid="scte35")
        return {"enabled": enabled}

    @endpoint("POST", "/inputs/{id}/scte", kind="read")
    async def scte_markers(self, call):
        inp = self._input(call)
        body = obj(call.body, "", optional=("page", "perPage"))
        page, per_page = paging(call, body)
        markers = [
            {"command_type": m[M_TYPE], "timestamp": iso(m[M_TIME]), "duration": m[M_DURATION],
             "splice_event_id": m[M_EVENT]}
            for m in reversed(self.state["stats"][str(inp["id"])]["scte"])
        ]
        return envelope(markers, page, per_page)

    def _thumbnail_view(self, inp):
        thumbs = inp["thumbnails"]
        return {"enabled": thumbs["enabled"], "pid": thumbs["pid"],
                "image": "/thumbnails/%d.jpg" % inp["id"] if thumbs["enabled"] else None}

    @endpoint("GET", "/inputs/{id}/thumbnails/status", kind="read")
    async def thumbnails_status(self, call):
        return self._thumbnail_view(self._input(call))

    @endpoint("POST", "/inputs/{id}/thumbnails/enable", kind="write", role="admin")
    async def thumbnails_enable(self, call):
        inp = self._input(call)
        pid = pid_value(obj(call.body, "", required=("pid",))["pid"], "pid")
        inp["thumbnails"] = {"enabled": True, "pid": pid}
        self._save_log("info", "thumbnails of input %d on PID %d" % (inp["id"], pid), pid="thumbnails")
        return self._thumbnail_view(inp)

    @endpoint("GET", "/inputs/{id}/thumbnails/disable", kind="write", role="admin")
    async def thumbnails_disable(self, call):
        inp = self._input(call)
        if inp["thumbnails"]["enabled"]:
            inp["thumbnails"] = {"enabled": False, "pid": None}
            self._save_log("info", "thumbnails of input %d off" % inp["id"], pid="thumbnails")
        return self._thumbnail_view(inp)

    async def _thumbnail_image(self, request):
        """``GET /thumbnails/{id}.jpg`` (outside /api, no token, like the device's static files)."""
        match = re.fullmatch(r"(\d+)\.jpg", request.match_info["name"])
        inp = self.state["inputs"].get(str(int(match.group(1)))) if match else None
        if inp is None or not inp["thumbnails"]["enabled"] or not self._active(inp):
            self._record(request, "read", 404)
            return web.json_response({"code": 404, "message": "No thumbnail"}, status=404)
        self._record(request, "read", 200)
        return web.Response(body=THUMBNAIL, content_type="image/jpeg")

    # -- SD card and recording -------------------------------------------------------------
    def _card_status(self):
        card = self.state["sdcard"]
        if card["preparing"]:
            return "preparing"
        if card["recording"]:
            return "recording"
        return "downloading" if self._downloads else "ok"

    def _card_tick(self, now):
        card = self.state["sdcard"]
        if card["preparing"] and now >= card["preparing"]["until"]:
            self.log("info", "SD card %s finished" % card["preparing"]["operation"], pid="sdcard")
            card["preparing"] = None
        if card["recording"] and now >= card["recording"]["end_at"]:
            self._finish_recording(card["recording"]["end_at"])

    def _recorded_bytes(self, rec, now):
        elapsed = max(0.0, now - rec["started"]) / self.time_scale
        return int(min(rec["limit"], rec["rate"] * elapsed) // PACKET * PACKET)

    def _used_bytes(self):
        card = self.state["sdcard"]
        used = sum(f["size"] for f in card["files"])
        if card["recording"]:
            used += self._recorded_bytes(card["recording"], time.time())
        return used

    def _finish_recording(self, now):
        card = self.state["sdcard"]
        rec = card["recording"]
        card["recording"] = None
        size = self._recorded_bytes(rec, min(now, rec["end_at"]))
        card["files"].append({"filename": rec["filename"], "size": size, "timestamp": rec["timestamp"],
                              "input_id": rec["input_id"], "pid": rec["pid"]})
        self.log("info", "recording %s finished (%d bytes)" % (rec["filename"], size), pid="sdcard")
        self.save()

    def _card_view(self):
        rec = self.state["sdcard"]["recording"]
        return {
            "status": self._card_status(), "total_mb": CARD_TOTAL_MB, "used_mb": math.ceil(self._used_bytes() / 1e6),
            "recording": None if rec is None else {
                "input_id": rec["input_id"], "filename": rec["filename"], "started": rec["timestamp"],
                "duration": rec["duration"], "size": rec["size"]},
        }

    def _card_idle(self):
        status = self._card_status()
        if status in ("preparing", "recording"):
            raise ApiError(409, "SD card is busy (%s)" % status)

    def _card_file(self, filename):
        for entry in self.state["sdcard"]["files"]:
            if entry["filename"] == filename:
                return entry
        rec = self.state["sdcard"]["recording"]
        if rec and rec["filename"] == filename:
            raise ApiError(409, "File %s is being recorded" % filename)
        raise ApiError(404, "File not found")

    @endpoint("POST", "/sdcard/status", kind="read")
    async def sdcard_status(self, call):
        return self._card_view()

    @endpoint("POST", "/sdcard/files", kind="read")
    async def sdcard_files(self, call):
        card = self.state["sdcard"]
        files = [{"filename": f["filename"], "size": f["size"], "timestamp": f["timestamp"], "recording": False}
                 for f in card["files"]]
        rec = card["recording"]
        if rec:
            files.append({"filename": rec["filename"], "size": self._recorded_bytes(rec, time.time()),
                          "timestamp": rec["timestamp"], "recording": True})
        return {"files": files}

    async def _prepare(self, operation):
        self._card_idle()
        card = self.state["sdcard"]
        card["preparing"] = {"operation": operation, "until": time.time() + self.delay(PREPARE_SECONDS[operation])}
        if operation == "format":
            card["files"] = []
        self._save_log("info", "SD card %s started" % operation, pid="sdcard")
        return self._card_view()

    @endpoint("POST", "/sdcard/prepare/init", kind="action", role="admin")
    async def sdcard_prepare_init(self, call):
        return await self._prepare("init")

    @endpoint("POST", "/sdcard/prepare/format", kind="action", role="admin")
    async def sdcard_prepare_format(self, call):
        return await self._prepare("format")

    @endpoint("GET", "/sdcard/download_token", kind="read")
    async def sdcard_download_token(self, call):
        tokens = self.state["sdcard"]["download_tokens"]
        token = secrets.token_urlsafe(18)
        tokens.append(token)
        self.issued.add(token)
        del tokens[:-20]
        self.save()
        return {"token": token}

    @endpoint("GET", "/sdcard/download", kind="read")
    async def sdcard_download(self, call):
        card = self.state["sdcard"]
        token = call.query.get("token")
        if not token or token not in card["download_tokens"]:
            raise ApiError(401, "Invalid or already used download token")
        card["download_tokens"].remove(token)
        self.save()
        filename = call.query.get("filename")
        if not filename:
            raise bad("filename", "is required")
        if card["preparing"]:
            raise ApiError(409, "SD card is busy (preparing)")
        entry = self._card_file(filename)
        return await self._stream_file(call.request, entry)

    async def _stream_file(self, request, entry):
        response = web.StreamResponse(headers={
            "Content-Type": "video/mp2t", "Content-Disposition": "attachment; filename=\"%s\"" % entry["filename"]})
        response.content_length = entry["size"]
        self._downloads += 1
        try:
            await response.prepare(request)
            cycle = capture_cycle(entry["pid"])
            chunk = cycle * 8
            left = entry["size"]
            while left > 0:
                part = chunk[:left]
                await response.write(part)
                left -= len(part)
            await response.write_eof()
        finally:
            self._downloads -= 1
        return response

    def _filename_param(self, call):
        body = call.body if isinstance(call.body, dict) else {}
        filename = call.query.get("filename", body.get("filename"))
        if not isinstance(filename, str) or not filename:
            raise bad("filename", "is required")
        return filename

    @endpoint("POST", "/sdcard/delete", kind="action", role="admin")
    async def sdcard_delete(self, call):
        filename = self._filename_param(call)
        if self.state["sdcard"]["preparing"]:
            raise ApiError(409, "SD card is busy (preparing)")
        entry = self._card_file(filename)
        self.state["sdcard"]["files"].remove(entry)
        self._save_log("info", "capture %s deleted" % entry["filename"], pid="sdcard")
        return {}

    @endpoint("POST", "/sdcard/delete/all", kind="action", role="admin")
    async def sdcard_delete_all(self, call):
        self._card_idle()
        self.state["sdcard"]["files"] = []
        self._save_log("info", "all captures deleted", pid="sdcard")
        return {}

    @endpoint("POST", "/record/start/{id}", kind="action", role="admin")
    async def record_start(self, call):
        inp = self._input(call)
        body = obj(call.body, "", optional=("duration", "size"))
        duration = integer(body["duration"], "duration", 1) if body.get("duration") is not None else None
        size = integer(body["size"], "size", 1) if body.get("size") is not None else None
        self._card_idle()
        if not self._active(inp):
            raise ApiError(409, "Input %d has no stream to record (%s)" % (
                inp["id"], "paused" if not inp["monitoring"] else "no signal"))
        free = CARD_TOTAL_MB * 10 ** 6 - self._used_bytes()
        if free < PACKET:
            raise ApiError(409, "SD card is full")
        lay = self._layout(inp)
        rate = lay["bitrate"] / 8.0
        limit = min(free, size * 10 ** 6 if size else free)
        seconds = min(duration or math.inf, limit / rate)
        now = time.time()
        stamp = self._clock(now)
        filename = "input%d_%s.ts" % (inp["id"], datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y%m%d_%H%M%S"))
        names = {f["filename"] for f in self.state["sdcard"]["files"]}
        n = 1
        while filename in names:
            n += 1
            filename = "input%d_%s_%d.ts" % (inp["id"], datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y%m%d_%H%M%S"), n)
        rec = {"input_id": inp["id"], "filename": filename, "started": now, "end_at": now + self.delay(seconds),
               "rate": rate, "limit": limit, "duration": duration, "size": size, "timestamp": iso(stamp),
               "pid": lay["es_pids"][0]}
        self.state["sdcard"]["recording"] = rec
        self._save_log("info", "recording of input %d to %s started" % (inp["id"], filename), pid="sdcard")
        return self._card_view()["recording"]

    @endpoint("GET", "/record/stop/{id}", kind="action", role="admin")
    async def record_stop(self, call):
        inp = self._input(call)
        rec = self.state["sdcard"]["recording"]
        if not rec or rec["input_id"] != inp["id"]:
            raise ApiError(409, "Input %d is not recording" % inp["id"])
        self._finish_recording(time.time())
        entry = self.state["sdcard"]["files"][-1]
        return {"filename": entry["filename"], "size": entry["size"], "timestamp": entry["timestamp"]}

    # -- system ------------------------------------------------------------------------------
    @endpoint("GET", "/system/status", kind="read")
    async def system_status(self, call):
        inputs = self.state["inputs"].values()
        active = sum(1 for i in inputs if self._active(i))
        tick = self._tick()
        log_bytes = 120 * len(self.state.get("log", []))
        return {
            "cpu_load": round(min(100.0, 4 + 5.5 * active + 3 * noise(self.seed, tick, 70)), 1),
            "memory": {"total": 4 * 2 ** 30, "used": 900 * 2 ** 20 + 48 * 2 ** 20 * len(inputs)},
            "storage": {"total": 8 * 2 ** 30, "used": 2_300_000_000 + log_bytes},
            "uptime": self.uptime(),
            "reboot_needed": self.state["reboot_needed"],
        }

    def _device_identity(self):
        serial = self.serial_number or "TSA%09d" % (zlib.crc32(self.name.encode()) % 10 ** 9)
        return {"serial_number": serial, "firmware_version": self.state["firmware_version"], "model": self.model}

    @endpoint("GET", "/system/device", kind="read")
    async def system_device(self, call):
        return self._device_identity()

    # -- web pages (outside /api; no token, like the device's static files) ------------------
    async def _device_page(self, request):
        """``GET /settings/device``: the web interface page with firmware version and serial number."""
        identity = self._device_identity()
        body = ("<h1>Device</h1>\n<dl>\n<dt>Model</dt><dd id=\"model\">%s</dd>\n"
                "<dt>Serial number</dt><dd id=\"serial_number\">%s</dd>\n"
                "<dt>Firmware version</dt><dd id=\"firmware_version\">%s</dd>\n</dl>"
                % tuple(html.escape(identity[k]) for k in ("model", "serial_number", "firmware_version")))
        self._record(request, "read", 200)
        return web.Response(text=PAGE % ("Device", body), content_type="text/html")

    def _mac(self):
        digest = zlib.crc32(("mac:" + self.name).encode())
        return "02:54:53:%02x:%02x:%02x" % (digest >> 16 & 0xFF, digest >> 8 & 0xFF, digest & 0xFF)

    def _network_view(self):
        pending = self.state["pending"].get("hostname")
        return dict(deep(self.state["network"]), mac=self._mac(), hostname=self.state["hostname"],
                    pending_hostname=pending)

    @endpoint("GET", "/system/network", kind="read")
    async def system_network(self, call):
        return self._network_view()

    @endpoint("POST", "/system/network", kind="write", role="admin")
    async def system_network_set(self, call):
        current = self.state["network"]
        body = obj(call.body, "", required=("dhcp",), optional=("address", "netmask", "gateway", "dns"))
        dhcp = boolean(body["dhcp"], "dhcp")
        if not dhcp:
            obj(body, "", required=("dhcp", "address", "netmask", "gateway", "dns"))
        address = ipv4(body.get("address", current["address"]), "address", multicast=False)
        netmask = body.get("netmask", current["netmask"])
        try:
            network = ipaddress.IPv4Network("%s/%s" % (address, ipv4(netmask, "netmask")), strict=False)
        except ValueError:
            network = None
        if network is None or network.prefixlen == 0:
            raise bad("netmask", "must be a contiguous IPv4 netmask of /1 to /32")
        edges = (network.network_address, network.broadcast_address) if network.prefixlen < 31 else ()
        if address == "0.0.0.0" or ipaddress.IPv4Address(address) in edges:
            raise bad("address", "must be a host address of its network")
        gateway = ipv4(body.get("gateway", current["gateway"]), "gateway", multicast=False)
        if ipaddress.IPv4Address(gateway) not in network:
            raise bad("gateway", "must be inside %s" % network)
        dns = array(body.get("dns", current["dns"]), "dns", 3)
        for i, server in enumerate(dns):
            ipv4(server, "dns[%d]" % i, multicast=False)
        new = {"dhcp": dhcp, "address": address, "netmask": netmask, "gateway": gateway, "dns": list(dns)}
        if new != current:
            self.state["network"] = new
            self.state["reboot_needed"] = True
            self._save_log("info", "network settings saved; effective after reboot", pid="network")
        return self._network_view()

    @endpoint("POST", "/system/hostname", kind="write", role="admin")
    async def system_hostname(self, call):
        name = hostname(obj(call.body, "", required=("hostname",))["hostname"], "hostname")
        pending = self.state["pending"]
        if name != pending.get("hostname", self.state["hostname"]):
            if name == self.state["hostname"]:
                pending.pop("hostname", None)
            else:
                pending["hostname"] = name
            self.state["reboot_needed"] = True
            self._save_log("info", "hostname %s saved; effective after reboot" % name, pid="network")
        return {"hostname": self.state["hostname"], "pending_hostname": pending.get("hostname")}

    def _datetime_view(self):
        return dict(deep(self.state["datetime"]), datetime=iso(self._clock()))

    @endpoint("GET", "/system/datetime", kind="read")
    async def system_datetime(self, call):
        return self._datetime_view()

    @endpoint("POST", "/system/datetime", kind="write", role="admin")
    async def system_datetime_set(self, call):
        body = obj(call.body, "", required=("enable_ntp", "ntp_servers"), optional=("datetime",))
        ntp = boolean(body["enable_ntp"], "enable_ntp")
        servers = [host(s, "ntp_servers[%d]" % i) for i, s in enumerate(array(body["ntp_servers"], "ntp_servers", 5))]
        if ntp and not servers:
            raise bad("ntp_servers", "needs at least one server when enable_ntp is true")
        when = parse_iso(body["datetime"], "datetime") if body.get("datetime") is not None else None
        self.state["datetime"] = {"enable_ntp": ntp, "ntp_servers": servers}
        if ntp:
            self.state["clock_offset"] = 0.0  # synchronised: the device clock is true time
        elif when is not None:
            self.state["clock_offset"] = when - time.time()
        self._save_log("info", "date/time settings changed (NTP %s)" % ("on" if ntp else "off"), pid="time")
        return self._datetime_view()

    @endpoint("GET", "/system/timezone", kind="read")
    async def system_timezone(self, call):
        return {"timezone": self.state["timezone"]}

    @endpoint("POST", "/system/timezone", kind="write", role="admin")
    async def system_timezone_set(self, call):
        name = obj(call.body, "", required=("timezone",))["timezone"]
        if not isinstance(name, str) or name not in TIMEZONE_SET:
            raise bad("timezone", "unknown timezone %s (see /system/timezone/list)" % json.dumps(name))
        if name != self.state["timezone"]:
            self.state["timezone"] = name
            self._save_log("info", "timezone set to %s" % name, pid="time")
        return {"timezone": name}

    @endpoint("GET", "/system/timezone/list", kind="read")
    async def system_timezone_list(self, call):
        return {"timezones": TIMEZONES}

    @endpoint("GET", "/system/warnings", kind="read")
    async def system_warnings(self, call):
        active = [i for i in self.state["inputs"].values() if self._active(i)]
        bitrate = sum(self._layout(i)["bitrate"] for i in active)
        services = sum(len(self._layout(i)["services"]) for i in active)
        return {
            "inputs_exceeded": len(self.state["inputs"]) > LIMITS["inputs"],
            "bitrate_exceeded": bitrate > LIMITS["bitrate"],
            "services_exceeded": services > LIMITS["services"],
            "limits": dict(LIMITS),
        }

    @endpoint("GET", "/system/log/settings", kind="read")
    async def system_log_settings(self, call):
        return deep(self.state["log_settings"])

    @endpoint("POST", "/system/log/settings", kind="write", role="admin")
    async def system_log_settings_set(self, call):
        body = obj(call.body, "", required=("level", "remote_syslog"), keep=True)
        if body["level"] not in LOG_LEVELS:
            raise bad("level", "must be one of %s" % ", ".join(LOG_LEVELS))
        remote = obj(body["remote_syslog"], "remote_syslog", required=("enabled", "server", "port"), keep=True)
        enabled = boolean(remote["enabled"], "remote_syslog.enabled")
        server = remote["server"]
        if enabled or server != "":
            host(server, "remote_syslog.server")
        settings = kept(body, {"level": body["level"], "remote_syslog": kept(remote, {
            "enabled": enabled, "server": server, "port": integer(remote["port"], "remote_syslog.port", 1, 65535)})})
        if settings != self.state["log_settings"]:
            self.state["log_settings"] = settings
            if settings == self.state["log_settings_active"]:
                self.state["pending"].pop("log_settings", None)
            else:
                self.state["pending"]["log_settings"] = deep(settings)
            self.state["reboot_needed"] = True
            self._save_log("info", "log settings saved; effective after reboot")
        return deep(settings)

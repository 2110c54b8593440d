"""FM tuner monitoring receiver (interface document 2 of 2).

Eight tuners listen to a simulated FM band (a dozen stations, fixed per seed). An enabled
tuner on a station's frequency locks and measures it; alerts open and close as the
measurements of each interval cross the tuner's thresholds. Everything moves lazily in
:meth:`FmMonitor.advance`, which the core calls before every request. Band scans keep the
tuner busy (503) for a scaled 10 s while other tuners answer. Every refusal names the
field it is about; nothing invalid is ever stored. README.fm.md lists every shape.
"""

import asyncio
import csv
import io
import ipaddress
import json
import random
import re
import time
from datetime import datetime, timedelta, timezone

from aiohttp import web

from .core import ApiError, Device, deep, endpoint, keeps_unknown_fields, unknown_keys

TUNERS = 8
#: fields of a tuner as read that the device sets itself (a /conf entry posted with them does not keep them)
TUNER_VIEW_FIELDS = ("tuned", "signal_ok", "quality", "rds", "station_id")
FREQ_MIN, FREQ_MAX = 87500, 108000
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
BITRATES = (64, 96, 128, 192, 256, 320)
CODECS = ("mp3", "aac")
LEVELS = ("trace", "debug", "info", "warning", "error", "critical")
SCAN_SECONDS = 10.0     # a full band scan (document: up to 10 s), before --time-scale
SWITCH_SECONDS = 0.3    # a tuner re-tuning to another frequency answers 503 meanwhile
MIN_PERIOD = 0.01       # shortest measurement interval in real seconds, whatever the scale
FRAGMENT_SECONDS = 0.5  # simulated media time per live.mp4 fragment, before --time-scale
CATCH_UP = 50           # intervals evaluated per tuner and request at most
ALERTS_KEEP = 10000
MAX_EVENTS_PER_DAY = 100
KEEP = object()         # set_frequency: leave station_id alone

# metric -> (largest value, value that disables a bound)
METRICS = {"rssi": (127, 0), "snr": (127, 0), "multipath": (100, 100), "stereoblend": (127, 0),
           "audiol": (127, 0), "audior": (127, 0)}
RDS_FLAGS = ("blocka", "blockb", "blockc", "blockd", "group_lost", "sync_lost")
# (metric, bound, alert type, token in quality.alarms)
LEVEL_ALARMS = (
    ("rssi", "min", "RFL is low", "rfl_low"),
    ("rssi", "max", "RFL is high", "rfl_high"),
    ("snr", "min", "SNR is low", "snr_low"),
    ("snr", "max", "SNR is high", "snr_high"),
    ("multipath", "max", "Multipath is high", "multipath_high"),
    ("stereoblend", "min", "Stereoblend is low", "stereoblend_low"),
    ("stereoblend", "max", "Stereoblend is high", "stereoblend_high"),
    ("audiol", "min", "AudioL level is low", "audiol_low"),
    ("audiol", "max", "AudioL level is high", "audiol_high"),
    ("audior", "min", "AudioR level is low", "audior_low"),
    ("audior", "max", "AudioR level is high", "audior_high"),
)
# (rds flag enabling it, alert type, token)
RDS_ALARMS = (
    ("sync_lost", "RDS synchronization lost", "rds_sync_lost"),
    ("group_lost", "RDS buffer overflow", "rds_overflow"),
    ("blocka", "RDS error block A (data lost)", "rds_block_a"),
    ("blockb", "RDS error block B (data lost)", "rds_block_b"),
    ("blockc", "RDS error block C (data lost)", "rds_block_c"),
    ("blockd", "RDS error block D (data lost)", "rds_block_d"),
)
ALERT_TYPES = tuple(a[2] for a in LEVEL_ALARMS) + tuple(a[1] for a in RDS_ALARMS)
TOKENS = {a[2]: a[3] for a in LEVEL_ALARMS}
TOKENS.update({a[1]: a[2] for a in RDS_ALARMS})
ALERT_ORDER = {t: i for i, t in enumerate(ALERT_TYPES)}

EMPTY_RDS = {"pi": "", "ps": "", "prog_type": "", "radiotext": "", "pty": 0, "country": "", "language": ""}
PTYS = ((1, "News"), (3, "Information"), (4, "Sport"), (9, "Varied"), (10, "Pop Music"),
        (11, "Rock Music"), (14, "Serious classical"), (24, "Jazz Music"))
COUNTRIES = (("DE", "de", "D"), ("FR", "fr", "F"), ("NL", "nl", "8"), ("AT", "de", "A"), ("IT", "it", "5"))
PS_WORDS = ("NOVA", "WAVE", "ECHO", "PULSE", "METRO", "CITY", "VALLEY", "COAST", "ALPHA", "DELTA",
            "ORBIT", "SUNNY", "HARBOR", "FOREST", "SIGNAL", "BEACON", "MERIDI", "LUMEN")

HOSTNAME_RE = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                         r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$")
UDP_RE = re.compile(r"^udp://([0-9.]+):([0-9]{1,5})$")


# -- validation helpers -------------------------------------------------------------------
def bad(path, text):
    raise ApiError(400, "%s %s" % (path, text))


def sub(path, key):
    return "%s.%s" % (path, key) if path else key


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def want_int(value, path, lo=None, hi=None, choices=None):
    if not is_int(value):
        bad(path, "must be an integer")
    if choices is not None and value not in choices:
        bad(path, "must be one of %s" % ", ".join(str(c) for c in choices))
    if lo is not None and value < lo or hi is not None and value > hi:
        bad(path, "must be %s" % ("between %d and %d" % (lo, hi) if hi is not None else ">= %d" % lo))
    return value


def want_bool(value, path):
    if not isinstance(value, bool):
        bad(path, "must be a boolean")
    return value


def want_str(value, path, max_len=255, allow_empty=False):
    if not isinstance(value, str):
        bad(path, "must be a string")
    if not value and not allow_empty:
        bad(path, "must not be empty")
    if len(value) > max_len:
        bad(path, "must be at most %d characters" % max_len)
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        bad(path, "must not contain control characters")
    return value


def want_obj(value, path, allowed, required=(), nonempty=False, keep=False):
    """A JSON object with only ``allowed`` keys and all ``required`` ones; with ``keep``, a
    device that keeps unknown fields accepts others too (the caller stores them)."""
    if not isinstance(value, dict):
        bad(path or "request body", "must be a JSON object")
    for key in value:
        if key not in allowed and not (keep and keeps_unknown_fields()):
            bad(sub(path, key), "is not a known field")
    for key in required:
        if key not in value:
            bad(sub(path, key), "is required")
    if nonempty and not value:
        bad(path or "request body", "must set at least one of %s" % ", ".join(allowed))
    return value


def want_list(value, path, max_len=None):
    if not isinstance(value, list):
        bad(path, "must be an array")
    if max_len is not None and len(value) > max_len:
        bad(path, "must hold at most %d entries" % max_len)
    return value


def want_ipv4(value, path, allow_empty=False):
    if allow_empty and value == "":
        return value
    try:
        address = ipaddress.IPv4Address(value) if isinstance(value, str) else None
    except ValueError:
        address = None
    if address is None or address.is_unspecified:
        bad(path, "must be an IPv4 address")
    return value


def want_netmask(value, path):
    try:
        prefix = ipaddress.IPv4Network("0.0.0.0/%s" % value).prefixlen if isinstance(value, str) else -1
    except ValueError:
        prefix = -1
    if "." not in str(value) or prefix < 1:
        bad(path, "must be a dotted IPv4 netmask such as 255.255.255.0")
    return value


def want_host(value, path, allow_empty=False, port=False):
    """An IPv4 address or a hostname (``port``: optionally followed by ``:port``)."""
    want_str(value, path, 253, allow_empty)
    if value == "" and allow_empty:
        return value
    host = value
    if port and re.match(r"^[^:]+:[0-9]{1,5}$", value):
        host, number = value.rsplit(":", 1)
        if not 1 <= int(number) <= 65535:
            bad(path, "port must be between 1 and 65535")
    if re.match(r"^[0-9.]+$", host):
        want_ipv4(host, path)
    elif not HOSTNAME_RE.match(host):
        bad(path, "must be an IPv4 address or a hostname")
    return value


def parse_iso(value, path, tz_hours=0):
    """Unix seconds of an ISO 8601 string; without an offset it is local time at ``tz_hours``."""
    want_str(value, path, 64)
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        bad(path, "must be an ISO 8601 date and time such as 2024-01-31T12:00:00+01:00")
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone(timedelta(hours=tz_hours)))
    if not 2000 <= stamp.astimezone(timezone.utc).year <= 2099:
        bad(path, "must lie between the years 2000 and 2099")
    return stamp.timestamp()


def iso(ts):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def check_name(value, path):
    return want_str(value, path, 32)


def check_frequency(value, path):
    return want_int(value, path, FREQ_MIN, FREQ_MAX)


def check_hw(value, current, path):
    obj = want_obj(value, path, tuple(current), nonempty=True)
    merged = dict(current)
    limits = {"agc_state": (0, 1), "channel_filter": (0, 4), "deemphasis": (1, 2),
              "lna_gain": (0, 15), "rssi_threshold": (0, 127)}
    for key, item in obj.items():
        merged[key] = want_int(item, sub(path, key), *limits[key])
    return merged


def check_thresholds(value, current, path, tuner_id=None):
    """Merge a (partial) Thresholds object into ``current``; ``tuner_id``: the path's id."""
    obj = want_obj(value, path, ("rssi_threshold", "rssi_interval", "thresholds"), nonempty=True)
    merged = deep(current)
    if "rssi_threshold" in obj:
        merged["rssi_threshold"] = want_int(obj["rssi_threshold"], sub(path, "rssi_threshold"), 0, 127)
    if "rssi_interval" in obj:
        merged["rssi_interval"] = want_int(obj["rssi_interval"], sub(path, "rssi_interval"), 1, 3600)
    if "thresholds" in obj:
        inner_path = sub(path, "thresholds")
        inner = want_obj(obj["thresholds"], inner_path, ("tuner_id",) + tuple(METRICS) + ("rds",))
        if "tuner_id" in inner:
            want_int(inner["tuner_id"], sub(inner_path, "tuner_id"), 0)
            if tuner_id is not None and inner["tuner_id"] != tuner_id:
                bad(sub(inner_path, "tuner_id"), "must be %d, the tuner of the path" % tuner_id)
        for metric, (top, off) in METRICS.items():
            if metric not in inner:
                continue
            mpath = sub(inner_path, metric)
            for key, item in want_obj(inner[metric], mpath, ("min", "max", "margin")).items():
                merged["thresholds"][metric][key] = want_int(item, sub(mpath, key), 0, top)
            low, high = merged["thresholds"][metric]["min"], merged["thresholds"][metric]["max"]
            if metric != "multipath" and low != off and high != off and low > high:
                bad(sub(mpath, "min"), "must not exceed %s (%d)" % (sub(mpath, "max"), high))
        if "rds" in inner:
            rpath = sub(inner_path, "rds")
            for key, item in want_obj(inner["rds"], rpath, RDS_FLAGS + ("margin",)).items():
                if key == "margin":
                    merged["thresholds"]["rds"]["margin"] = want_int(item, sub(rpath, key), 0, 127)
                else:
                    merged["thresholds"]["rds"][key] = want_bool(item, sub(rpath, key))
    if tuner_id is not None:
        merged["thresholds"]["tuner_id"] = tuner_id
    return merged


def check_schedule(value, current, path):
    obj = want_obj(value, path, ("active", "events"), required=("active",))
    merged = {"active": want_bool(obj["active"], sub(path, "active")), "events": deep(current["events"])}
    if "events" in obj:
        epath = sub(path, "events")
        for day, events in want_obj(obj["events"], epath, DAYS).items():
            dpath = sub(epath, day)
            seen = set()
            clean = []
            for i, event in enumerate(want_list(events, dpath, MAX_EVENTS_PER_DAY)):
                item = "%s[%d]" % (dpath, i)
                want_obj(event, item, ("minute", "state"), required=("minute", "state"))
                minute = want_int(event["minute"], sub(item, "minute"), 0, 1439)
                state = want_int(event["state"], sub(item, "state"), choices=(0, 1, 2))
                if minute in seen:
                    bad(sub(item, "minute"), "repeats minute %d of the same day" % minute)
                seen.add(minute)
                clean.append({"minute": minute, "state": state})
            merged["events"][day] = sorted(clean, key=lambda e: e["minute"])
    return merged


def check_stream_fields(value, current, path):
    """url/codec/bitrate of a stream (partial), merged into the stored stream."""
    obj = want_obj(value, path, ("url", "codec", "bitrate"))
    merged = dict(current)
    if "url" in obj:
        upath = sub(path, "url")
        match = UDP_RE.match(obj["url"]) if isinstance(obj["url"], str) else None
        if not match:
            bad(upath, "must be udp://IPv4:port")
        want_ipv4(match.group(1), upath)
        if not 1 <= int(match.group(2)) <= 65535:
            bad(upath, "port must be between 1 and 65535")
        merged["url"] = obj["url"]
    if "codec" in obj:
        if obj["codec"] not in CODECS:
            bad(sub(path, "codec"), "must be one of %s" % ", ".join(CODECS))
        merged["codec"] = obj["codec"]
    if "bitrate" in obj:
        merged["bitrate"] = want_int(obj["bitrate"], sub(path, "bitrate"), choices=BITRATES)
    return merged


def check_network(value, current, path):
    obj = want_obj(value, path, ("dhcp", "address", "netmask", "gateway", "dns"),
                   required=("dhcp", "address", "netmask"))
    merged = {
        "dhcp": want_bool(obj["dhcp"], sub(path, "dhcp")),
        "address": want_ipv4(obj["address"], sub(path, "address")),
        "netmask": want_netmask(obj["netmask"], sub(path, "netmask")),
        "gateway": current.get("gateway", ""),
        "dns": list(current.get("dns", [])),
    }
    if "gateway" in obj:
        merged["gateway"] = want_ipv4(obj["gateway"], sub(path, "gateway"), allow_empty=True)
    if "dns" in obj:
        dpath = sub(path, "dns")
        merged["dns"] = [want_ipv4(s, "%s[%d]" % (dpath, i)) for i, s in enumerate(want_list(obj["dns"], dpath, 3))]
    return merged


def check_hostname(value, path):
    want_str(value, path, 253)
    if not HOSTNAME_RE.match(value):
        bad(path, "must be a hostname: letters, digits and hyphens, dot-separated labels of at most 63")
    return value


def check_log_conf(value, current, path):
    obj = want_obj(value, path, ("level", "enable_rsyslog", "rsyslog_server"), nonempty=True)
    merged = dict(current)
    if "level" in obj:
        if obj["level"] not in LEVELS:
            bad(sub(path, "level"), "must be one of %s" % ", ".join(LEVELS))
        merged["level"] = obj["level"]
    if "enable_rsyslog" in obj:
        merged["enable_rsyslog"] = want_bool(obj["enable_rsyslog"], sub(path, "enable_rsyslog"))
    if "rsyslog_server" in obj:
        merged["rsyslog_server"] = want_host(obj["rsyslog_server"], sub(path, "rsyslog_server"), True, True)
    if merged["enable_rsyslog"] and not merged["rsyslog_server"]:
        bad(sub(path, "rsyslog_server"), "is required when enable_rsyslog is true")
    return merged


def check_ntp_servers(value, path):
    return [want_host(s, "%s[%d]" % (path, i)) for i, s in enumerate(want_list(value, path, 4))]


def check_station(value, path):
    keys = ("station_id", "frequency", "rssi", "snr", "timestamp")
    obj = want_obj(value, path, keys, required=keys)
    return {
        "station_id": want_int(obj["station_id"], sub(path, "station_id"), 0),
        "frequency": check_frequency(obj["frequency"], sub(path, "frequency")),
        "rssi": want_int(obj["rssi"], sub(path, "rssi"), 0, 127),
        "snr": want_int(obj["snr"], sub(path, "snr"), 0, 127),
        "timestamp": iso(parse_iso(obj["timestamp"], sub(path, "timestamp"))),
    }


# -- the simulated band ---------------------------------------------------------------------
def fmix(h):
    h &= 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def mix(*values):
    h = 0x9E3779B9
    for value in values:
        h = fmix(h ^ (value & 0xFFFFFFFF) ^ ((value >> 32) * 0x27D4EB2D))
    return h


def make_band(seed):
    """The stations on the air around this device: {frequency: properties}, fixed per seed."""
    rng = random.Random(seed * 7919 + 17)
    country, language, nibble = rng.choice(COUNTRIES)
    freqs = []
    while len(freqs) < 12:
        freq = rng.randrange(FREQ_MIN + 100, FREQ_MAX + 1, 100)
        if all(abs(freq - other) >= 300 for other in freqs):
            freqs.append(freq)
    band = {}
    for freq in sorted(freqs):
        pty, prog_type = rng.choice(PTYS)
        ps = (rng.choice(PS_WORDS) + " " + str(rng.randint(1, 9)))[:8]
        rds = rng.random() < 0.85
        band[freq] = {
            "frequency": freq, "rssi": rng.randint(30, 75), "snr": rng.randint(18, 45),
            "multipath": rng.randint(2, 30), "stereo": rng.random() < 0.9, "blend": rng.randint(0, 40),
            "audio": rng.randint(55, 90), "rds": rds,
            "info": {"pi": "%s%03X" % (nibble, rng.randrange(0x1000)), "ps": ps, "prog_type": prog_type,
                     "radiotext": "%s - %s on %.1f MHz" % (ps, prog_type, freq / 1000.0), "pty": pty,
                     "country": country, "language": language} if rds else dict(EMPTY_RDS),
        }
    return band


def spread(h, shift, width):
    """A value in -width..width from some bits of ``h``."""
    return (h >> shift) % (2 * width + 1) - width


def clamp(value, top):
    return max(0, min(top, value))


# -- factory state ------------------------------------------------------------------------
def factory_thresholds(tuner_id):
    level = {"min": 0, "max": 127, "margin": 2}
    return {
        "rssi_threshold": 20,
        "rssi_interval": 10,
        "thresholds": {
            "tuner_id": tuner_id,
            "rssi": {"min": 20, "max": 127, "margin": 2},
            "snr": {"min": 10, "max": 127, "margin": 2},
            "multipath": {"min": 0, "max": 100, "margin": 5},
            "stereoblend": dict(level),
            "audiol": dict(level),
            "audior": dict(level),
            "rds": {"blocka": False, "blockb": False, "blockc": False, "blockd": False,
                    "group_lost": False, "sync_lost": False, "margin": 2},
        },
    }


def factory_tuner(tuner_id):
    return {
        "tuner_id": tuner_id,
        "name": "Tuner %d" % (tuner_id + 1),
        "frequency": FREQ_MIN,
        "state": 0,
        "muted": False,
        "station_id": None,
        "hw_settings": {"agc_state": 1, "channel_filter": 0, "deemphasis": 2, "lna_gain": 0, "rssi_threshold": 20},
        "thresholds": factory_thresholds(tuner_id),
        "schedule": {"active": False, "events": {day: [] for day in DAYS}},
        "stream": {"enabled": False, "url": "udp://239.1.1.%d:1234" % (tuner_id + 1), "codec": "mp3", "bitrate": 128},
    }


#: What ``GET /conf`` carries ("complete configuration"; its structure is not shown). With
#: ``conf="partial"`` it leaves these out, and they are set only through their own endpoints.
PARTIAL_CONF_LEAVES_OUT = ("log",)
PARTIAL_CONF_TUNER_LEAVES_OUT = ("hw_settings", "thresholds", "schedule")


class FmMonitor(Device):
    kind = "fm_monitor"
    login_path = "/login"
    MODEL = "FMM-8 FM Monitoring Receiver"

    def __init__(self, *args, conf="complete", **kwargs):
        if conf not in ("complete", "partial"):
            raise ValueError("conf must be complete or partial, got %r" % (conf,))
        self.conf_scope = conf
        super().__init__(*args, **kwargs)
        self.band = make_band(self.seed)
        self._boot = 0            # bumped by every boot: ends running scans
        self._runtime_for = None  # the state object the runtime caches below belong to
        self._busy = {}           # tuner_id -> (until, word)
        self._open = {}           # tuner_id -> {alert type: open alert record}
        self._eval_t = {}         # tuner_id -> real time of the last evaluation
        self._saved_at = 0.0
        self._live = {}           # id -> request, for each live.mp4 stream being served now

    @property
    def live_streams(self):
        """How many live.mp4 clients are being served (returns to 0 when they have all left)."""
        return len(self._live)

    async def stop(self):
        # An endless stream would hold the server's graceful shutdown for its whole timeout.
        for request in list(self._live.values()):
            if request.transport is not None:
                request.transport.abort()
        await super().stop()

    def factory_state(self):
        return {
            "hostname": self.name,
            "datetime": {"enable_ntp": True, "timezone": 0, "ntp_servers": ["pool.ntp.org"], "offset": 0.0},
            "log_conf": {"level": "info", "enable_rsyslog": False, "rsyslog_server": ""},
            "tuners": [factory_tuner(i) for i in range(TUNERS)],
            "stations": [],
            "next_station_id": 0,
            "alerts": [],
            "alert_seq": 0,
            "monitor": {"tuner_id": 0, "mute": 0},
            "schedule_minute": None,
        }

    # -- clock --------------------------------------------------------------------------
    def now(self):
        """The device clock (Unix seconds): real time unless set by hand with NTP off."""
        return time.time() + self.state["datetime"]["offset"]

    def local_minute(self):
        """Minutes since the epoch on the device's local clock (UTC + timezone)."""
        return int((self.now() + self.state["datetime"]["timezone"] * 3600) // 60)

    # -- reboot hooks -------------------------------------------------------------------
    def apply_pending(self):
        pending = super().apply_pending()
        if "hostname" in pending:
            self.state["hostname"] = pending["hostname"]
        if "log_conf" in pending:
            self.state["log_conf"] = pending["log_conf"]
        return pending

    def on_boot(self):
        self._boot += 1
        self._busy = {}
        self._eval_t = {}

    def log(self, level, msg, pid="system"):
        running = self.state.get("log_conf", {}).get("level", "info")
        if LEVELS.index(level) < LEVELS.index(running):
            return
        super().log(level, msg, pid)
        if self.state["datetime"]["offset"]:
            self.state["log"][-1]["ts"] = iso(self.now())

    # -- lazy simulation ----------------------------------------------------------------
    def advance(self):
        now = time.time()
        if self._runtime_for is not self.state:
            self._runtime_for = self.state
            self._busy = {}
            self._eval_t = {}
            self._index_alerts()
        changed = self._run_schedules()
        for tuner in self.state["tuners"]:
            changed = self._evaluate(tuner, now) or changed
        if changed and now - self._saved_at > 5:
            self.commit()

    def commit(self):
        self._saved_at = time.time()
        self.save()

    def _index_alerts(self):
        self._open = {i: {} for i in range(TUNERS)}
        for alert in self.state["alerts"]:
            if alert["till"] is None:
                self._open[alert["tuner_id"]][alert["type"]] = alert

    def _run_schedules(self):
        """Apply the schedule events whose minute came since the last request."""
        current = self.local_minute()
        last = self.state["schedule_minute"]
        self.state["schedule_minute"] = current
        if last is None or current <= last:
            return False
        first = max(last + 1, current - 7 * 1440)
        changed = False
        for tuner in self.state["tuners"]:
            schedule = tuner["schedule"]
            if not schedule["active"]:
                continue
            latest = None
            for day in range(first // 1440, current // 1440 + 1):
                for event in schedule["events"][DAYS[(day + 3) % 7]]:  # day 0 was a Thursday
                    at = day * 1440 + event["minute"]
                    if first <= at <= current and (latest is None or at > latest[0]):
                        latest = (at, event["state"])
            if latest is not None and latest[1] != tuner["state"]:
                self.set_tuner_state(tuner, latest[1], "schedule")
                changed = True
        return changed

    def period(self, tuner):
        return max(self.delay(tuner["thresholds"]["rssi_interval"]), MIN_PERIOD)

    def locked_station(self, tuner):
        """The band station an enabled tuner is locked on, or None (also while the tuner's
        signal is lost: ``lose_signal``, an antenna or transmitter outage)."""
        if tuner["state"] != 1 or tuner["tuner_id"] in self.lost_signals:
            return None
        station = self.band.get(tuner["frequency"])
        if station is None or station["rssi"] < tuner["hw_settings"]["rssi_threshold"]:
            return None
        return station

    def measure(self, station, k):
        """Measurements of one interval ``k`` on ``station`` (None: nothing received)."""
        if station is None:
            return {"rssi": 0, "snr": 0, "multipath": 0, "stereoblend": 0, "audiol": 0, "audior": 0,
                    "stereo": False, "rds_events": {"sync_lost"}}
        h = mix(self.seed, station["frequency"], k)
        audio = station["audio"] + spread(h, 12, 12)
        events = set() if station["rds"] else {"sync_lost"}
        if station["rds"] and (h >> 22) % 40 == 0:
            events.add(RDS_FLAGS[(h >> 28) % 4])
        if station["rds"] and (h >> 24) % 150 == 0:
            events.add("group_lost")
        return {
            "rssi": clamp(station["rssi"] + spread(h, 0, 3), 127),
            "snr": clamp(station["snr"] + spread(h, 3, 3), 127),
            "multipath": clamp(station["multipath"] + spread(h, 6, 5), 100),
            "stereoblend": clamp(station["blend"] + spread(h, 9, 5), 100) if station["stereo"] else 100,
            "audiol": clamp(audio + spread(h, 17, 3), 127),
            "audior": clamp(audio + spread(h, 20, 3), 127),
            "stereo": station["stereo"],
            "rds_events": events,
        }

    SIGNAL_ITEM = "tuner id"

    def check_signal_item(self, item):
        item = super().check_signal_item(item)
        if item >= TUNERS:
            raise ValueError("%s: tuner id must be below %d, got %d" % (self.name, TUNERS, item))
        return item

    def signal_changed(self, item):
        """Signal lost or back: the next request measures the current interval afresh."""
        self._eval_t.pop(item, None)

    def _evaluate(self, tuner, now):
        """Evaluate the intervals since the last request; open and close alerts."""
        tid = tuner["tuner_id"]
        opened = self._open[tid]
        last = self._eval_t.get(tid)
        self._eval_t[tid] = now
        if tuner["state"] != 1:
            return self._close_all(tid, now) if opened else False
        period = self.period(tuner)
        k_now = int(now // period)
        k = k_now if last is None else int(last // period) + 1
        if k > k_now:
            return False
        station = self.locked_station(tuner)
        if station is None:  # nothing on air: every interval measures the same
            k = k_now
        changed = False
        for kk in range(max(k, k_now - CATCH_UP), k_now + 1):
            at = max(kk * period, last if last is not None else now)
            changed = self._judge(tuner, self.measure(station, kk), at) or changed
        return changed

    def _judge(self, tuner, values, at):
        tid = tuner["tuner_id"]
        opened = self._open[tid]
        limits = tuner["thresholds"]["thresholds"]
        active = set()
        for metric, bound, kind, unused in LEVEL_ALARMS:
            cfg = limits[metric]
            if cfg[bound] == METRICS[metric][1]:
                continue
            value, margin = values[metric], (cfg["margin"] if kind in opened else 0)
            if bound == "min" and value < cfg["min"] + margin or bound == "max" and value > cfg["max"] - margin:
                active.add(kind)
        for flag, kind, unused in RDS_ALARMS:
            if limits["rds"][flag] and flag in values["rds_events"]:
                active.add(kind)
        changed = False
        stamp = round(at + self.state["datetime"]["offset"], 3)
        for kind in list(opened):
            if kind not in active:
                opened.pop(kind)["till"] = stamp
                changed = True
        for kind in active:
            if kind not in opened:
                self.state["alert_seq"] += 1
                alert = {"seq": self.state["alert_seq"], "tuner_id": tid, "type": kind, "from": stamp, "till": None}
                self.state["alerts"].append(alert)
                opened[kind] = alert
                changed = True
        if len(self.state["alerts"]) > ALERTS_KEEP:
            del self.state["alerts"][:-ALERTS_KEEP]
        return changed

    def _close_all(self, tid, now):
        stamp = round(now + self.state["datetime"]["offset"], 3)
        for alert in self._open[tid].values():
            alert["till"] = stamp
        self._open[tid] = {}
        return True

    # -- tuner changes shared by handlers, schedules and POST /conf ------------------------
    def set_tuner_state(self, tuner, state, why):
        if tuner["state"] == state:
            return
        now = time.time()
        self._evaluate(tuner, now)
        tuner["state"] = state
        if state != 1 and self._open[tuner["tuner_id"]]:
            self._close_all(tuner["tuner_id"], now)
        self._eval_t.pop(tuner["tuner_id"], None)
        self.log("info", "tuner %d state %d (%s)" % (tuner["tuner_id"], state, why), pid="tuner")

    def set_frequency(self, tuner, frequency, station_id=KEEP):
        """Tune; a changed frequency switches (503 briefly) and, unless ``station_id`` is
        given, points ``station_id`` at the station record of that frequency (or null)."""
        if tuner["frequency"] != frequency:
            self._evaluate(tuner, time.time())
            tuner["frequency"] = frequency
            self._eval_t.pop(tuner["tuner_id"], None)
            self._busy[tuner["tuner_id"]] = (time.monotonic() + self.delay(SWITCH_SECONDS), "switching")
            self.log("info", "tuner %d tuned to %d kHz" % (tuner["tuner_id"], frequency), pid="tuner")
            if station_id is KEEP:
                known = [s["station_id"] for s in self.state["stations"] if s["frequency"] == frequency]
                station_id = known[0] if known else None
        if station_id is not KEEP:
            tuner["station_id"] = station_id

    def busy_word(self, tid):
        entry = self._busy.get(tid)
        if entry is None:
            return None
        if entry[0] <= time.monotonic():
            del self._busy[tid]
            return None
        return entry[1]

    def tuner(self, call):
        """The tuner of the path: 404 when there is none, 503 while it scans or switches."""
        tid = call.int_param("tuner_id")
        if tid >= TUNERS:
            raise ApiError(404, "Tuner %d not found" % tid)
        word = self.busy_word(tid)
        if word:
            raise ApiError(503, "Tuner %d is %s" % (tid, word))
        return self.state["tuners"][tid]

    def all_idle(self):
        for tid in range(TUNERS):
            word = self.busy_word(tid)
            if word:
                raise ApiError(503, "Tuner %d is %s" % (tid, word))
        return self.state["tuners"]

    # -- rendering ----------------------------------------------------------------------
    def render_tuner(self, tuner, now):
        station = self.locked_station(tuner)
        period = self.period(tuner)
        values = self.measure(station, int(now // period)) if station else None
        limits = tuner["thresholds"]["thresholds"]
        opened = self._open.get(tuner["tuner_id"], {})
        level = values is not None and all(
            limits[m]["min"] == 0 or values[m] >= limits[m]["min"] for m in ("audiol", "audior")
        ) and all(limits[m]["max"] == 0 or values[m] <= limits[m]["max"] for m in ("audiol", "audior"))
        stream = tuner["stream"]
        flowing = stream["enabled"] and tuner["state"] == 1
        jitter = spread(mix(self.seed, tuner["tuner_id"], int(now)), 0, 2)
        return {
            "tuner_id": tuner["tuner_id"],
            "name": tuner["name"],
            "frequency": tuner["frequency"],
            "tuned": station is not None,
            "state": tuner["state"],
            "signal_ok": values is not None and values["rssi"] >= tuner["thresholds"]["rssi_threshold"],
            "muted": tuner["muted"],
            "stream_enabled": stream["enabled"],
            "quality": {
                "rssi": values["rssi"] if values else 0,
                "snr": values["snr"] if values else 0,
                "multipath": values["multipath"] if values else 0,
                "stereo": bool(values and values["stereo"]),
                "stereo_blend": values["stereoblend"] if values else 0,
                "rds": bool(station and station["rds"]),
                "level": level,
                "alarms": " ".join(TOKENS[k] for k in sorted(opened, key=ALERT_ORDER.get)),
            },
            "rds": dict(station["info"]) if station else dict(EMPTY_RDS),
            "stream": {"url": stream["url"], "codec": stream["codec"], "requested_bitrate": stream["bitrate"],
                       "measured_bitrate": stream["bitrate"] + jitter if flowing else 0},
            "thresholds": deep(tuner["thresholds"]),
            "schedule": deep(tuner["schedule"]),
            "hw_settings": dict(tuner["hw_settings"]),
            "station_id": tuner["station_id"],
        }

    def saved_hostname(self):
        return self.state["pending"].get("hostname", self.state["hostname"])

    def saved_log_conf(self):
        return dict(self.state["pending"].get("log_conf", self.state["log_conf"]))

    def mac(self):
        h = mix(self.seed, sum(self.name.encode()), len(self.name))
        return "00:1e:c0:%02x:%02x:%02x" % ((h >> 16) & 255, (h >> 8) & 255, h & 255)

    def datetime_view(self):
        conf = self.state["datetime"]
        zone = timezone(timedelta(hours=conf["timezone"]))
        local = datetime.fromtimestamp(int(self.now()), zone)
        return {"enable_ntp": conf["enable_ntp"], "datetime": local.isoformat(),
                "timezone": conf["timezone"], "ntp_servers": list(conf["ntp_servers"])}

    def conf_view(self):
        view = self._complete_conf()
        if self.conf_scope == "partial":
            for key in PARTIAL_CONF_LEAVES_OUT:
                del view[key]
            for tuner in view["tuners"]:
                for key in PARTIAL_CONF_TUNER_LEAVES_OUT:
                    del tuner[key]
        return view

    def _complete_conf(self):
        conf = self.state["datetime"]
        return {
            **deep(self.state.get("conf_extra", {})),
            "version": 1,
            "hostname": self.saved_hostname(),
            "network": deep(self.state["network"]),
            "datetime": {"enable_ntp": conf["enable_ntp"], "timezone": conf["timezone"],
                         "ntp_servers": list(conf["ntp_servers"])},
            "log": self.saved_log_conf(),
            "tuners": [{
                **deep(t.get("conf_extra", {})),
                "tuner_id": t["tuner_id"], "name": t["name"], "frequency": t["frequency"], "state": t["state"],
                "muted": t["muted"], "hw_settings": dict(t["hw_settings"]), "thresholds": deep(t["thresholds"]),
                "schedule": deep(t["schedule"]), "stream": dict(t["stream"]),
            } for t in self.state["tuners"]],
            "stations": deep(self.state["stations"]),
            "monitor": dict(self.state["monitor"]),
        }

    # -- saved-until-reboot settings ----------------------------------------------------
    def store_network(self, network):
        if network != self.state["network"]:
            self.state["network"] = network
            self.state["reboot_needed"] = True
            self.log("info", "network configuration saved; effective after reboot", pid="config")

    def store_hostname(self, hostname):
        if hostname != self.saved_hostname():
            self.state["pending"]["hostname"] = hostname
            self.state["reboot_needed"] = True
            self.log("info", "hostname %s saved; effective after reboot" % hostname, pid="config")

    def store_log_conf(self, conf):
        if conf != self.saved_log_conf():
            self.state["pending"]["log_conf"] = conf
            self.state["reboot_needed"] = True
            self.log("info", "log configuration saved; effective after reboot", pid="config")

    def store_datetime(self, enable_ntp, timezone_hours, ntp_servers, manual=None):
        conf = self.state["datetime"]
        before = self.local_minute()
        conf.update({"enable_ntp": enable_ntp, "timezone": timezone_hours, "ntp_servers": ntp_servers})
        if enable_ntp:
            conf["offset"] = 0.0
        elif manual is not None:
            conf["offset"] = round(manual - time.time(), 3)
        if self.local_minute() != before:  # the clock jumped: schedules start over from now
            self.state["schedule_minute"] = self.local_minute()

    # -- auth ---------------------------------------------------------------------------
    @endpoint("POST", "/login", kind="login", role=None)
    async def login_route(self, call):
        body = call.json_body()
        if "keep_logged_in" in body:
            want_bool(body["keep_logged_in"], "keep_logged_in")
        role, token = self.login(body)
        return {"role": role, "token": token}

    # -- tuners -------------------------------------------------------------------------
    @endpoint("GET", "/tuners/all", kind="read", role="user")
    async def tuners_all(self, call):
        now = time.time()
        return [self.render_tuner(t, now) for t in self.state["tuners"]]

    @endpoint("GET", "/tuner/{tuner_id}", kind="read", role="user")
    async def tuner_get(self, call):
        return self.render_tuner(self.tuner(call), time.time())

    @endpoint("POST", "/tuner/{tuner_id}/settings", kind="write", role="user")
    async def tuner_settings(self, call):
        tuner = self.tuner(call)
        body = want_obj(call.json_body(), "", ("name", "frequency", "hw_settings"), nonempty=True)
        name = check_name(body["name"], "name") if "name" in body else tuner["name"]
        freq = check_frequency(body["frequency"], "frequency") if "frequency" in body else tuner["frequency"]
        hw = check_hw(body["hw_settings"], tuner["hw_settings"], "hw_settings") if "hw_settings" in body else None
        tuner["name"] = name
        if hw is not None:
            tuner["hw_settings"] = hw
        self.set_frequency(tuner, freq)
        self.commit()

    @endpoint("POST", "/tuners/all/settings", kind="write", role="user")
    async def tuners_all_settings(self, call):
        body = want_obj(call.json_body(), "", ("hw_settings",), required=("hw_settings",))
        tuners = self.all_idle()
        merged = [check_hw(body["hw_settings"], t["hw_settings"], "hw_settings") for t in tuners]
        for tuner, hw in zip(tuners, merged):
            tuner["hw_settings"] = hw
        self.commit()

    @endpoint("POST", "/tuner/{tuner_id}/state", kind="write", role="admin")
    async def tuner_state(self, call):
        tuner = self.tuner(call)
        body = want_obj(call.json_body(), "", ("state",), required=("state",))
        self.set_tuner_state(tuner, want_int(body["state"], "state", choices=(0, 1, 2)), "request")
        self.commit()

    @endpoint("POST", "/tuner/{tuner_id}/station", kind="write", role="admin")
    async def tuner_station(self, call):
        tuner = self.tuner(call)
        body = want_obj(call.json_body(), "", ("station_id",), required=("station_id",))
        sid = want_int(body["station_id"], "station_id", 0)
        station = self.find_station(sid)
        self.set_frequency(tuner, station["frequency"], sid)
        self.commit()

    @endpoint("POST", "/tuner/{tuner_id}/scan", kind="action", role="user")
    async def tuner_scan(self, call):
        tuner = self.tuner(call)
        mode = call.query.get("async", "0")
        if mode not in ("0", "1"):
            raise ApiError(400, "async must be 0 or 1")
        tid, boot, state = tuner["tuner_id"], self._boot, self.state
        self._busy[tid] = (float("inf"), "busy")
        self.log("info", "tuner %d band scan started" % tid, pid="scan")
        loop = asyncio.get_running_loop()
        start, duration = loop.time(), self.delay(SCAN_SECONDS)
        found = [s for s in self.band.values() if s["rssi"] >= tuner["hw_settings"]["rssi_threshold"]]
        response = None
        records = []
        listening = True
        try:
            if mode == "1":
                response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
                response.enable_chunked_encoding()
                await response.prepare(call.request)
            for station in found:
                share = (station["frequency"] - FREQ_MIN) / float(FREQ_MAX - FREQ_MIN)
                await asyncio.sleep(max(0.0, start + duration * share - loop.time()))
                if self._boot != boot or self.state is not state:
                    break
                records.append(self.record_station(station))
                if response is not None and listening:
                    try:
                        await response.write((json.dumps(records[-1]) + "\n").encode())
                    except ConnectionResetError:
                        listening = False  # the client left; the scan goes on
            if self._boot == boot:
                await asyncio.sleep(max(0.0, start + duration - loop.time()))
        finally:
            if self._boot == boot and self.state is state:
                self._busy.pop(tid, None)
        if self._boot != boot:
            self.log("warning", "tuner %d band scan ended by a reboot" % tid, pid="scan")
            if call.request.transport is not None:
                call.request.transport.abort()  # this connection predates the reboot
        else:
            self.log("info", "tuner %d band scan found %d stations" % (tid, len(records)), pid="scan")
        self.commit()
        if response is not None:
            if listening:
                try:
                    await response.write_eof()
                except ConnectionResetError:
                    pass
            return response
        return records

    def record_station(self, station):
        """Add (or refresh, by frequency) a found station in the global list."""
        h = mix(self.seed, station["frequency"], int(time.time()))
        record = {"frequency": station["frequency"], "rssi": clamp(station["rssi"] + spread(h, 0, 3), 127),
                  "snr": clamp(station["snr"] + spread(h, 3, 3), 127), "timestamp": iso(self.now())}
        for existing in self.state["stations"]:
            if existing["frequency"] == station["frequency"]:
                existing.update(record)
                return dict(existing)
        record = dict(station_id=self.state["next_station_id"], **record)
        self.state["next_station_id"] += 1
        self.state["stations"].append(record)
        return dict(record)

    @endpoint("POST", "/tuner/{tuner_id}/stream", kind="write", role="user")
    async def tuner_stream(self, call):
        tuner = self.tuner(call)
        body = want_obj(call.json_body(), "", ("enabled", "stream"), required=("enabled",))
        enabled = want_bool(body["enabled"], "enabled")
        fields = {k: v for k, v in tuner["stream"].items() if k != "enabled"}
        if "stream" in body:
            fields = check_stream_fields(body["stream"], fields, "stream")
        tuner["stream"] = dict(enabled=enabled, **fields)
        self.commit()

    @endpoint("POST", "/tuner/{tuner_id}/muted", kind="write", role="user")
    async def tuner_muted(self, call):
        tuner = self.tuner(call)
        body = want_obj(call.json_body(), "", ("muted",), required=("muted",))
        tuner["muted"] = want_bool(body["muted"], "muted")
        self.commit()

    @endpoint("POST", "/tuner/{tuner_id}/thresholds", kind="write", role="user")
    async def tuner_thresholds(self, call):
        tuner = self.tuner(call)
        tuner["thresholds"] = check_thresholds(call.json_body(), tuner["thresholds"], "", tuner["tuner_id"])
        self.commit()

    @endpoint("POST", "/tuners/all/thresholds", kind="write", role="user")
    async def tuners_all_thresholds(self, call):
        tuners = self.all_idle()
        merged = [check_thresholds(call.json_body(), t["thresholds"], "") for t in tuners]
        for tuner, value in zip(tuners, merged):
            value["thresholds"]["tuner_id"] = tuner["tuner_id"]
            tuner["thresholds"] = value
        self.commit()

    @endpoint("POST", "/tuner/{tuner_id}/schedule", kind="write", role="user")
    async def tuner_schedule(self, call):
        tuner = self.tuner(call)
        tuner["schedule"] = check_schedule(call.json_body(), tuner["schedule"], "")
        self.commit()

    @endpoint("POST", "/tuners/all/schedule", kind="write", role="user")
    async def tuners_all_schedule(self, call):
        tuners = self.all_idle()
        merged = [check_schedule(call.json_body(), t["schedule"], "") for t in tuners]
        for tuner, value in zip(tuners, merged):
            tuner["schedule"] = value
        self.commit()

    @endpoint("GET", "/tuner/{tuner_id}/live.m3u8", kind="read", role=None)
    async def tuner_hls(self, call):
        tuner = self.tuner(call)
        text = ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:%d\n"
                "#EXTINF:2.0,%s\nlive.mp4\n" % (int(time.time() // 2), tuner["name"]))
        return web.Response(text=text, content_type="application/vnd.apple.mpegurl")

    @endpoint("GET", "/tuner/{tuner_id}/live.mp4", kind="read", role=None)
    async def tuner_mp4(self, call):
        """Endless chunked video/mp4 until the client closes: one fragment per 0.5 s of
        simulated time. A reboot or factory reset ends it by dropping the connection."""
        tuner = self.tuner(call)
        tid, boot, state = tuner["tuner_id"], self._boot, self.state
        request = call.request
        response = web.StreamResponse(headers={"Content-Type": "video/mp4", "Cache-Control": "no-cache"})
        response.enable_chunked_encoding()
        self._live[id(request)] = request
        try:
            await response.prepare(request)
            await response.write(mp4_box(b"ftyp", b"isom\x00\x00\x02\x00isomiso6mp41"))
            number = 0
            while True:
                await asyncio.sleep(self.delay(FRAGMENT_SECONDS))
                if self.down or self._boot != boot or self.state is not state:
                    if request.transport is not None:
                        request.transport.abort()  # the unit went away under this connection
                    break
                if request.transport is None or request.transport.is_closing():
                    break  # the client closed
                await response.write(live_fragment(self.seed, tid, number))
                number += 1
        except ConnectionResetError:
            pass  # the client went away between two fragments, as players do
        finally:
            self._live.pop(id(request), None)
        return response

    # -- stations -----------------------------------------------------------------------
    def find_station(self, sid):
        for station in self.state["stations"]:
            if station["station_id"] == sid:
                return station
        raise ApiError(404, "Station %d not found" % sid)

    @endpoint("GET", "/stations/all", kind="read", role="user")
    async def stations_all(self, call):
        return deep(self.state["stations"])

    @endpoint("GET", "/station/{station_id}", kind="read", role="user")
    async def station_get(self, call):
        return dict(self.find_station(call.int_param("station_id")))

    @endpoint("DELETE", "/station/{station_id}", kind="action", role="user")
    async def station_delete(self, call):
        self.state["stations"].remove(self.find_station(call.int_param("station_id")))
        self.commit()

    @endpoint("DELETE", "/stations/all", kind="action", role="user")
    async def stations_delete(self, call):
        self.state["stations"] = []
        self.state["next_station_id"] = 0
        self.commit()

    # -- alerts -------------------------------------------------------------------------
    @staticmethod
    def alert_view(alert):
        return {"tuner_id": alert["tuner_id"], "type": alert["type"], "from": iso(alert["from"]),
                "till": None if alert["till"] is None else iso(alert["till"])}

    def sorted_alerts(self, order, by="from"):
        fields = ("tuner_id", "from", "seq") if by == "tuner_id" else ("from", "seq")
        return sorted(self.state["alerts"], key=lambda a: tuple(a[f] for f in fields), reverse=order == "desc")

    @endpoint("POST", "/alerts", kind="read", role="user")
    async def alerts_query(self, call):
        keys = ("order", "by", "type", "id", "limit", "offset")
        body = want_obj(call.json_body(), "", keys + ("from", "till"), required=keys)
        if body["order"] not in ("asc", "desc"):
            bad("order", "must be asc or desc")
        if body["by"] not in ("tuner_id", "from"):
            bad("by", "must be tuner_id or from")
        for i, kind in enumerate(want_list(body["type"], "type")):
            if kind not in ALERT_TYPES:
                bad("type[%d]" % i, "is not a known alert type")
        ids = [want_int(v, "id[%d]" % i, 0) for i, v in enumerate(want_list(body["id"], "id"))]
        limit = want_int(body["limit"], "limit", 0)
        offset = want_int(body["offset"], "offset", 0)
        start = want_int(body["from"], "from", 0) if "from" in body else None
        end = want_int(body["till"], "till", 0) if "till" in body else None
        matches = [a for a in self.sorted_alerts(body["order"], body["by"])
                   if (not body["type"] or a["type"] in body["type"]) and (not ids or a["tuner_id"] in ids)
                   and (start is None or a["from"] >= start) and (end is None or a["from"] <= end)]
        page = matches[offset:offset + limit] if limit else matches[offset:]
        return {"total": len(matches), "alerts": [self.alert_view(a) for a in page]}

    @endpoint("POST", "/alerts/csv", kind="read", role="user")
    async def alerts_csv(self, call):
        body = want_obj(call.json_body(), "", ("order",), required=("order",))
        if body["order"] not in ("asc", "desc"):
            bad("order", "must be asc or desc")
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(("tuner_id", "type", "from", "till"))
        for alert in self.sorted_alerts(body["order"]):
            view = self.alert_view(alert)
            writer.writerow((view["tuner_id"], view["type"], view["from"], view["till"] or ""))
        return web.Response(text=out.getvalue(), content_type="text/csv",
                            headers={"Content-Disposition": 'attachment; filename="alerts.csv"'})

    @endpoint("DELETE", "/alerts", kind="action", role="user")
    async def alerts_clear(self, call):
        self.state["alerts"] = []
        self._index_alerts()
        self.log("info", "alert log cleared", pid="alerts")
        self.commit()

    # -- system -------------------------------------------------------------------------
    @endpoint("GET", "/status", kind="read", role="user")
    async def status(self, call):
        h = mix(self.seed, int(time.time() // 60))
        warning = any(self._open.get(i) for i in range(TUNERS))
        return {
            "hostname": self.state["hostname"],
            "health": "warning" if warning else "ok",
            "tuners": TUNERS,
            "system_uptime": self.uptime(),
            "streamer_uptime": self.uptime(),
            "reboot_needed": self.state["reboot_needed"],
            "monitor_tuner": self.state["monitor"]["tuner_id"],
            "versions": {
                "producer": "Simulated Broadcast Devices", "model_name": self.model,
                "part_number": "FMM-8-R2", "serial_number": self.serial_number or "FMM8%07d" % (self.seed % 10000000),
                "package_ver": self.state["firmware_version"], "fpga_ver": "2.3.1", "streamer_ver": "1.8.0",
                "kernel_ver": "5.10.184",
            },
            "resources": {
                "load_average_1min": round(0.2 + (h % 60) / 100.0, 2),
                "load_average_5min": round(0.3 + (h >> 6) % 40 / 100.0, 2),
                "load_average_15min": round(0.35 + (h >> 12) % 20 / 100.0, 2),
                "cpu_load": round(8.0 + (h >> 16) % 250 / 10.0, 1),
                "memory_total": 1017856, "memory_free": 512000 + (h >> 8) % 65536,
                "memory_shared": 10240, "memory_buffer": 48128,
            },
        }

    @endpoint("GET", "/playlist", kind="read", role="user")
    async def playlist(self, call):
        row = "    <track><title>%s</title><location>%s</location></track>\n"
        tracks = "".join(row % (escape(t["name"]), escape(t["stream"]["url"]))
                         for t in self.state["tuners"] if t["stream"]["enabled"])
        text = ('<?xml version="1.0" encoding="UTF-8"?>\n<playlist version="1" xmlns="http://xspf.org/ns/0/">\n'
                "  <title>%s</title>\n  <trackList>\n%s  </trackList>\n</playlist>\n"
                % (escape(self.state["hostname"]), tracks))
        return web.Response(text=text, content_type="application/xspf+xml")

    @endpoint("GET", "/mib", kind="read", role="user")
    async def mib(self, call):
        return web.Response(body=MIB.encode(), content_type="application/octet-stream",
                            headers={"Content-Disposition": 'attachment; filename="FM-MONITOR-MIB.txt"'})

    @endpoint("GET", "/valid_bitrates", kind="read", role="user")
    async def valid_bitrates(self, call):
        return {"bitrates": list(BITRATES)}

    @endpoint("GET", "/conf", kind="read", role="user")
    async def conf_get(self, call):
        return self.conf_view()

    @endpoint("POST", "/conf", kind="write", role="admin")
    async def conf_post(self, call):
        keys = ("version", "hostname", "network", "datetime", "log", "tuners", "stations", "monitor")
        if self.conf_scope == "partial":
            keys = tuple(k for k in keys if k not in PARTIAL_CONF_LEAVES_OUT)
        body = want_obj(call.json_body(), "", keys, required=keys, keep=True)
        if body["version"] != 1 or not is_int(body["version"]):
            bad("version", "must be 1")
        hostname = check_hostname(body["hostname"], "hostname")
        network = check_network(body["network"], self.state["network"], "network")
        dt_keys = ("enable_ntp", "timezone", "ntp_servers")
        dt = want_obj(body["datetime"], "datetime", dt_keys, required=dt_keys)
        enable_ntp = want_bool(dt["enable_ntp"], "datetime.enable_ntp")
        tz_hours = want_int(dt["timezone"], "datetime.timezone", -12, 14)
        servers = check_ntp_servers(dt["ntp_servers"], "datetime.ntp_servers")
        log_keys = ("level", "enable_rsyslog", "rsyslog_server")
        log_conf = None
        if "log" in keys:
            want_obj(body["log"], "log", log_keys, required=log_keys)
            log_conf = check_log_conf(body["log"], self.saved_log_conf(), "log")
        tuners = self.check_conf_tuners(body["tuners"])
        stations = self.check_conf_stations(body["stations"])
        monitor = check_monitor(body["monitor"], "monitor")
        self.all_idle()
        self.store_hostname(hostname)
        self.store_network(network)
        if log_conf is not None:
            self.store_log_conf(log_conf)
        self.store_datetime(enable_ntp, tz_hours, servers)
        self.state["stations"] = stations
        self.state["next_station_id"] = max([self.state["next_station_id"]] + [s["station_id"] + 1 for s in stations])
        self.state["monitor"] = monitor
        self.state["conf_extra"] = unknown_keys(body, keys)  # POST /conf overwrites all settings
        for tuner, new in zip(self.state["tuners"], tuners):
            for key in ("name", "muted", "hw_settings", "thresholds", "schedule", "stream", "conf_extra"):
                tuner[key] = new[key]
            self.set_frequency(tuner, new["frequency"])
            self.set_tuner_state(tuner, new["state"], "configuration")
        self.commit()

    def check_conf_tuners(self, value):
        keys = ("tuner_id", "name", "frequency", "state", "muted", "hw_settings", "thresholds", "schedule", "stream")
        if self.conf_scope == "partial":
            keys = tuple(k for k in keys if k not in PARTIAL_CONF_TUNER_LEAVES_OUT)
        out = [None] * TUNERS
        for i, entry in enumerate(want_list(value, "tuners")):
            path = "tuners[%d]" % i
            want_obj(entry, path, keys, required=keys, keep=True)
            tid = want_int(entry["tuner_id"], path + ".tuner_id", 0, TUNERS - 1)
            if out[tid] is not None:
                bad(path + ".tuner_id", "repeats tuner %d" % tid)
            current = self.state["tuners"][tid]
            stream = want_obj(entry["stream"], path + ".stream", ("enabled", "url", "codec", "bitrate"),
                              required=("enabled", "url", "codec", "bitrate"))
            fields = check_stream_fields({k: v for k, v in stream.items() if k != "enabled"}, {}, path + ".stream")
            out[tid] = {
                "name": check_name(entry["name"], path + ".name"),
                "frequency": check_frequency(entry["frequency"], path + ".frequency"),
                "state": want_int(entry["state"], path + ".state", choices=(0, 1, 2)),
                "muted": want_bool(entry["muted"], path + ".muted"),
                # what a partial /conf leaves out stays as it is
                "hw_settings": check_hw(entry["hw_settings"], current["hw_settings"], path + ".hw_settings")
                if "hw_settings" in keys else deep(current["hw_settings"]),
                "thresholds": check_thresholds(entry["thresholds"], current["thresholds"], path + ".thresholds", tid)
                if "thresholds" in keys else deep(current["thresholds"]),
                "schedule": check_schedule(entry["schedule"], current["schedule"], path + ".schedule")
                if "schedule" in keys else deep(current["schedule"]),
                "stream": dict(enabled=want_bool(stream["enabled"], path + ".stream.enabled"), **fields),
                # a tuner as read carries more than the configuration (measurements): not kept
                "conf_extra": unknown_keys(entry, keys + TUNER_VIEW_FIELDS),
            }
        missing = [str(i) for i, t in enumerate(out) if t is None]
        if missing:
            bad("tuners", "must list every tuner once; missing tuner_id %s" % ", ".join(missing))
        return out

    def check_conf_stations(self, value):
        stations = [check_station(s, "stations[%d]" % i) for i, s in enumerate(want_list(value, "stations"))]
        for field in ("station_id", "frequency"):
            seen = set()
            for i, station in enumerate(stations):
                if station[field] in seen:
                    bad("stations[%d].%s" % (i, field), "repeats %d" % station[field])
                seen.add(station[field])
        return stations

    # -- configuration ------------------------------------------------------------------
    @endpoint("GET", "/conf/network", kind="read", role="user")
    async def network_get(self, call):
        network = self.state["network"]
        return {"hostname": self.saved_hostname(), "dhcp": network["dhcp"], "mac": self.mac(),
                "address": network["address"], "netmask": network["netmask"],
                "gateway": network["gateway"], "dns": list(network["dns"])}

    @endpoint("POST", "/conf/network", kind="write", role="admin")
    async def network_post(self, call):
        self.store_network(check_network(call.json_body(), self.state["network"], ""))
        self.commit()

    @endpoint("POST", "/conf/hostname", kind="write", role="admin")
    async def hostname_post(self, call):
        body = want_obj(call.json_body(), "", ("hostname",), required=("hostname",))
        self.store_hostname(check_hostname(body["hostname"], "hostname"))
        self.commit()

    @endpoint("GET", "/conf/datetime", kind="read", role="user")
    async def datetime_get(self, call):
        return self.datetime_view()

    @endpoint("POST", "/conf/datetime", kind="write", role="admin")
    async def datetime_post(self, call):
        keys = ("enable_ntp", "datetime", "timezone", "ntp_servers")
        body = want_obj(call.json_body(), "", keys, required=keys[:3])
        enable_ntp = want_bool(body["enable_ntp"], "enable_ntp")
        tz_hours = want_int(body["timezone"], "timezone", -12, 14)
        manual = parse_iso(body["datetime"], "datetime", tz_hours)
        servers = self.state["datetime"]["ntp_servers"]
        if "ntp_servers" in body:
            servers = check_ntp_servers(body["ntp_servers"], "ntp_servers")
        self.store_datetime(enable_ntp, tz_hours, servers, manual)
        self.log("info", "date and time settings changed", pid="config")
        self.commit()

    @endpoint("GET", "/conf/log", kind="read", role="user")
    async def log_get(self, call):
        return self.saved_log_conf()

    @endpoint("POST", "/conf/log", kind="write", role="admin")
    async def log_post(self, call):
        self.store_log_conf(check_log_conf(call.json_body(), self.saved_log_conf(), ""))
        self.commit()

    @endpoint("POST", "/conf/password", kind="write", role="admin")
    async def password_post(self, call):
        body = want_obj(call.json_body(), "", ("role", "password"), required=("role", "password"))
        if body["role"] not in ("admin", "user"):
            bad("role", "must be admin or user")
        self.state["passwords"][body["role"]] = want_str(body["password"], "password", 64)
        self.issued.add(self.state["passwords"][body["role"]])
        self.log("info", "password changed for role %s" % body["role"], pid="auth")
        self.commit()

    @endpoint("POST", "/monitor", kind="action", role="user")
    async def monitor(self, call):
        self.state["monitor"] = check_monitor(call.json_body(), "")
        self.commit()


def check_monitor(value, path):
    obj = want_obj(value, path, ("tuner_id", "mute"), required=("tuner_id", "mute"))
    return {"tuner_id": want_int(obj["tuner_id"], sub(path, "tuner_id"), 0, TUNERS - 1),
            "mute": want_int(obj["mute"], sub(path, "mute"), choices=(0, 16))}


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def mp4_box(kind, payload):
    return (8 + len(payload)).to_bytes(4, "big") + kind + payload


def live_fragment(seed, tuner_id, number):
    """Fragment ``number`` of a tuner's live stream: a ``moof`` box carrying the sequence
    number, then an ``mdat`` of 256 bytes fixed per seed, tuner and number."""
    payload = bytes(mix(seed, tuner_id, number, i) & 255 for i in range(256))
    return mp4_box(b"moof", (number & 0xFFFFFFFF).to_bytes(4, "big")) + mp4_box(b"mdat", payload)


MIB = """FM-MONITOR-MIB DEFINITIONS ::= BEGIN

-- Simulated FM tuner monitoring receiver. Rooted under the documentation
-- enterprise number 32473 (RFC 5612); not a registered MIB.

IMPORTS
    MODULE-IDENTITY, OBJECT-TYPE, NOTIFICATION-TYPE, Integer32, enterprises
        FROM SNMPv2-SMI
    DisplayString
        FROM SNMPv2-TC;

fmMonitorMIB MODULE-IDENTITY
    LAST-UPDATED "202401010000Z"
    ORGANIZATION "broadcast.monitoring simulator"
    CONTACT-INFO "none"
    DESCRIPTION  "Tuner status and alarms of an FM monitoring receiver."
    ::= { enterprises 32473 2 }

fmTunerTable OBJECT-TYPE
    SYNTAX      SEQUENCE OF FmTunerEntry
    MAX-ACCESS  not-accessible
    STATUS      current
    DESCRIPTION "One row per tuner."
    ::= { fmMonitorMIB 1 }

fmTunerEntry OBJECT-TYPE
    SYNTAX      FmTunerEntry
    MAX-ACCESS  not-accessible
    STATUS      current
    DESCRIPTION "A tuner."
    INDEX       { fmTunerIndex }
    ::= { fmTunerTable 1 }

FmTunerEntry ::= SEQUENCE {
    fmTunerIndex     Integer32,
    fmTunerName      DisplayString,
    fmTunerFrequency Integer32,
    fmTunerRssi      Integer32,
    fmTunerSnr       Integer32,
    fmTunerAlarms    DisplayString
}

fmTunerIndex OBJECT-TYPE
    SYNTAX Integer32 (0..7) MAX-ACCESS read-only STATUS current
    DESCRIPTION "Tuner id." ::= { fmTunerEntry 1 }
fmTunerName OBJECT-TYPE
    SYNTAX DisplayString MAX-ACCESS read-only STATUS current
    DESCRIPTION "Display label." ::= { fmTunerEntry 2 }
fmTunerFrequency OBJECT-TYPE
    SYNTAX Integer32 (87500..108000) MAX-ACCESS read-only STATUS current
    DESCRIPTION "Frequency in kHz." ::= { fmTunerEntry 3 }
fmTunerRssi OBJECT-TYPE
    SYNTAX Integer32 (0..127) MAX-ACCESS read-only STATUS current
    DESCRIPTION "Signal strength." ::= { fmTunerEntry 4 }
fmTunerSnr OBJECT-TYPE
    SYNTAX Integer32 (0..127) MAX-ACCESS read-only STATUS current
    DESCRIPTION "Signal to noise ratio in dB." ::= { fmTunerEntry 5 }
fmTunerAlarms OBJECT-TYPE
    SYNTAX DisplayString MAX-ACCESS read-only STATUS current
    DESCRIPTION "Active alarms, space-separated." ::= { fmTunerEntry 6 }

fmAlarmRaised NOTIFICATION-TYPE
    OBJECTS { fmTunerIndex, fmTunerAlarms }
    STATUS  current
    DESCRIPTION "A threshold was crossed on a tuner."
    ::= { fmMonitorMIB 2 }

END
"""

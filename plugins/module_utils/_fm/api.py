# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every path and response shape of the FM monitoring receiver that modules use.

Where the interface document says "not shown", the shapes here are the ones chosen and
documented in simulator/README.md; meeting a real device means changing this file.
"""

from __future__ import annotations

import datetime

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_api
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import Request
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import Declared, list_or_empty

# keep_logged_in: one token serves a whole play (roles hand it to every module)
LOGIN = Request("/api/login", {"keep_logged_in": True})


# -- FM monitoring: tuners, thresholds, schedules, stations, alerts (fm_* modules) -------
# Paths, limits and pure conversions between the device's JSON and the modules' shapes.
# "Chosen" marks a value the document leaves open (simulator/README.md). The system
# section below defines STATUS, NETWORK, DATETIME and LOG_SETTINGS, which fm_info reads too.

TUNERS = "/api/tuners/all"
TUNER_SETTINGS = "/api/tuner/%d/settings"
ALL_SETTINGS = "/api/tuners/all/settings"
TUNER_STATE = "/api/tuner/%d/state"
TUNER_STATION = "/api/tuner/%d/station"
TUNER_SCAN = "/api/tuner/%d/scan"
TUNER_STREAM = "/api/tuner/%d/stream"
TUNER_MUTED = "/api/tuner/%d/muted"
TUNER_THRESHOLDS = "/api/tuner/%d/thresholds"
ALL_THRESHOLDS = "/api/tuners/all/thresholds"
TUNER_SCHEDULE = "/api/tuner/%d/schedule"
ALL_SCHEDULE = "/api/tuners/all/schedule"
STATIONS = "/api/stations/all"
STATION = "/api/station/%d"
ALERTS = "/api/alerts"
ALERTS_CSV = "/api/alerts/csv"
MONITOR = "/api/monitor"
SYSTEM_LOG = "/api/system/log"
PLAYLIST = "/api/playlist"
MIB = "/api/mib"
VALID_BITRATES = "/api/valid_bitrates"
CONF = "/api/conf"

#: kHz, the FM broadcast band
FREQUENCY_RANGE = (87500, 108000)
NAME_MAX = 32                 # chosen
LEVEL_MAX = 127
LNA_GAIN_MAX = 15             # chosen (document: >= 0)
CHANNEL_FILTER_MAX = 4
RSSI_INTERVAL_RANGE = (1, 3600)  # chosen unit: seconds
#: the document's stream bitrates (kbps); a device's own list is GET /valid_bitrates
BITRATES = (64, 96, 128, 192, 256, 320)
CODECS = ("mp3", "aac")       # chosen
#: operating state names, in the order of the device's numbers 0, 1, 2
STATE_NAMES = ("disabled", "enabled", "sleep")
#: de-emphasis time constant in microseconds -> the device's number
DEEMPHASIS = {50: 2, 75: 1}
MONITOR_MUTE = {False: 0, True: 16}
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MINUTES_PER_DAY = 1440
#: document: a full band scan lasts up to 10 seconds
SCAN_SECONDS = 10
ALERT_TYPES = (
    "RFL is low", "RFL is high", "SNR is low", "SNR is high", "Multipath is high", "Stereoblend is low",
    "Stereoblend is high", "AudioL level is low", "AudioL level is high", "AudioR level is low",
    "AudioR level is high", "RDS synchronization lost", "RDS buffer overflow", "RDS error block A (data lost)",
    "RDS error block B (data lost)", "RDS error block C (data lost)", "RDS error block D (data lost)",
)
#: the value a module shows (and takes) for a bound the device does not alert on
DISABLED = "disabled"
#: (module name, device key, largest value, value that disables a bound) per metric
METRICS = (
    ("rssi", "rssi", 127, 0),
    ("snr", "snr", 127, 0),
    ("multipath", "multipath", 100, 100),
    ("stereo_blend", "stereoblend", 127, 0),
    ("audio_left", "audiol", 127, 0),
    ("audio_right", "audior", 127, 0),
)
#: bounds no alert uses: stored and shown as numbers, never "disabled"
UNUSED_BOUNDS = (("multipath", "min"),)
#: (module name, device key) of the RDS alert flags
RDS_FLAGS = (("block_a", "blocka"), ("block_b", "blockb"), ("block_c", "blockc"), ("block_d", "blockd"),
             ("group_lost", "group_lost"), ("sync_lost", "sync_lost"))

#: factory values (chosen), which state=replaced gives to what the user leaves out
FACTORY_HW = {"agc_state": 1, "channel_filter": 0, "deemphasis": 2, "lna_gain": 0, "rssi_threshold": 20}
FACTORY_STREAM = {"enabled": False, "codec": "mp3", "bitrate": 128}
FACTORY_THRESHOLDS = {
    "rssi_threshold": 20, "rssi_interval": 10,
    "thresholds": {
        "rssi": {"min": 20, "max": 127, "margin": 2}, "snr": {"min": 10, "max": 127, "margin": 2},
        "multipath": {"min": 0, "max": 100, "margin": 5}, "stereoblend": {"min": 0, "max": 127, "margin": 2},
        "audiol": {"min": 0, "max": 127, "margin": 2}, "audior": {"min": 0, "max": 127, "margin": 2},
        "rds": {"blocka": False, "blockb": False, "blockc": False, "blockd": False, "group_lost": False,
                "sync_lost": False, "margin": 2},
    },
}


def factory_name(tuner_id):
    return "Tuner %d" % (tuner_id + 1)


def factory_url(tuner_id):
    return "udp://239.1.1.%d:1234" % (tuner_id + 1)


# -- tuners ---------------------------------------------------------------------------
def hw_from_device(raw):
    """``hw_settings`` of a tuner as the module shows it (agc a boolean, de-emphasis in µs)."""
    microseconds = {number: us for us, number in DEEMPHASIS.items()}
    return {"agc": bool(raw["agc_state"]), "channel_filter": raw["channel_filter"],
            "deemphasis": microseconds.get(raw["deemphasis"], raw["deemphasis"]),
            "lna_gain": raw["lna_gain"], "rssi_threshold": raw["rssi_threshold"]}


def hw_to_device(hw):
    """The module's (possibly partial) ``hw_settings`` as the device's."""
    out = {}
    for key, value in hw.items():
        if key == "agc":
            out["agc_state"] = int(bool(value))
        elif key == "deemphasis":
            out["deemphasis"] = DEEMPHASIS.get(value, value)
        else:
            out[key] = value
    return out


# -- what identifies an element of GET /tuners/all, and its parts: the rest of the collection
# reads them through these, not by the device's field names (``<kind>_id_of``: the same
# scheme as the analyzer's)
def tuner_id_of(raw):
    """The tuner id of a ``GET /tuners/all`` element."""
    return raw["tuner_id"]


def tuner_thresholds(raw):
    """The thresholds of a ``GET /tuners/all`` element, in fm_thresholds' shape."""
    return thresholds_from_device(raw["tuner_id"], raw["thresholds"])


def tuner_schedule(raw):
    """The schedule of a ``GET /tuners/all`` element, in fm_schedule's shape."""
    return schedule_from_device(raw["tuner_id"], raw["schedule"])


def schedule_active(raw):
    """Whether a ``GET /tuners/all`` element reports its schedule active (then the schedule
    sets the tuner's operating state)."""
    return bool((raw.get("schedule") or {}).get("active"))


def station_id_of(station):
    """The id of a stored station (an element of ``GET /stations/all`` or of a scan's answer)."""
    return station["station_id"]


def scan_query():
    """Query string of ``POST /tuner/{id}/scan``: the answer comes when the scan has ended."""
    return {"async": 0}


def station_frequency(station):
    """The frequency (kHz) of a stored or found station."""
    return station["frequency"]


def tuner_from_device(raw):
    """One element of ``GET /tuners/all`` in fm_tuner's shape."""
    stream = raw.get("stream") or {}
    return {
        "tuner_id": raw["tuner_id"],
        "name": raw["name"],
        "frequency": raw["frequency"],
        "station_id": raw.get("station_id"),
        "operating_state": STATE_NAMES[raw["state"]],
        "muted": raw["muted"],
        "hw_settings": hw_from_device(raw["hw_settings"]),
        "stream": {"enabled": raw["stream_enabled"], "url": stream.get("url"), "codec": stream.get("codec"),
                   "bitrate": stream.get("requested_bitrate")},
    }


def factory_tuner(tuner_id):
    """What a tuner is after a factory reset, in fm_tuner's shape (without ``station_id``)."""
    return {"tuner_id": tuner_id, "name": factory_name(tuner_id), "frequency": FREQUENCY_RANGE[0],
            "operating_state": "disabled", "muted": False, "hw_settings": hw_from_device(FACTORY_HW),
            "stream": dict(FACTORY_STREAM, url=factory_url(tuner_id))}


def tuner_state_body(state):
    """Body of ``POST /tuner/{id}/state`` (``state``: a name of STATE_NAMES)."""
    return {"state": STATE_NAMES.index(state)}


def tuner_muted_body(muted):
    """Body of ``POST /tuner/{id}/muted``."""
    return {"muted": muted}


def tuner_stream_body(enabled, fields):
    """Body of ``POST /tuner/{id}/stream``: ``enabled``, and the stream ``fields`` that are
    written (url, codec, bitrate), when any."""
    body = {"enabled": enabled}
    if fields:
        body["stream"] = fields
    return body


def tuner_settings_body(name=None, hw_settings=None, frequency=None):
    """Body of ``POST /tuner/{id}/settings`` with what is given (``hw_settings`` in the
    device's shape); empty when nothing is."""
    body = {"name": name, "hw_settings": hw_settings or None, "frequency": frequency}
    return {key: value for key, value in body.items() if value is not None}


def tuner_station_body(station_id):
    """Body of ``POST /tuner/{id}/station``: tune to a stored station."""
    return {"station_id": station_id}


def tuner_requests(before, after, station_id=None):
    """``[Request]`` that take one tuner from ``before`` to ``after`` (fm_tuner shape).

    ``station_id``: tune to that stored station (the frequency follows it) instead of
    writing the frequency. Order: state, mute and stream first, then settings, then the
    station: a frequency change makes the tuner answer 503 while it switches.
    """
    tid = after["tuner_id"]
    writes = []
    if before["operating_state"] != after["operating_state"]:
        writes.append(Request(TUNER_STATE % tid, tuner_state_body(after["operating_state"])))
    if before["muted"] != after["muted"]:
        writes.append(Request(TUNER_MUTED % tid, tuner_muted_body(after["muted"])))
    if before["stream"] != after["stream"]:
        fields = {k: after["stream"][k] for k in ("url", "codec", "bitrate") if after["stream"][k] != before["stream"][k]}
        writes.append(Request(TUNER_STREAM % tid, tuner_stream_body(after["stream"]["enabled"], fields)))
    old, new = hw_to_device(before["hw_settings"]), hw_to_device(after["hw_settings"])
    settings = tuner_settings_body(after["name"] if before["name"] != after["name"] else None,
                                   {k: v for k, v in new.items() if old.get(k) != v},
                                   after["frequency"] if before["frequency"] != after["frequency"] and station_id is None else None)
    if settings:
        writes.append(Request(TUNER_SETTINGS % tid, settings))
    if station_id is not None:
        writes.append(Request(TUNER_STATION % tid, tuner_station_body(station_id)))
    return writes


def tuner_operating_state(raw):
    """The operating state name of a ``GET /tuners/all`` element."""
    return STATE_NAMES[raw["state"]]


def tuner_info(raw):
    """A tuner as fm_info returns it: fm_tuner's shape, its thresholds and schedule in
    fm_thresholds'/fm_schedule's shapes, and what it measures now."""
    out = tuner_from_device(raw)
    out["thresholds"] = thresholds_from_device(raw["tuner_id"], raw["thresholds"])
    out["schedule"] = schedule_from_device(raw["tuner_id"], raw["schedule"])
    del out["thresholds"]["tuner_id"], out["schedule"]["tuner_id"]
    out["measured"] = {"tuned": raw.get("tuned"), "signal_ok": raw.get("signal_ok"), "quality": raw.get("quality"),
                       "rds": raw.get("rds"), "stream_bitrate": (raw.get("stream") or {}).get("measured_bitrate")}
    return out


# -- thresholds -----------------------------------------------------------------------
def _bound_from_device(metric, bound, value, off):
    return DISABLED if value == off and (metric, bound) not in UNUSED_BOUNDS else value


def thresholds_from_device(tuner_id, raw):
    """A tuner's ``thresholds`` object in fm_thresholds' shape (disabling values as ``disabled``)."""
    inner = raw["thresholds"]
    out = {"tuner_id": tuner_id, "rssi_threshold": raw["rssi_threshold"], "rssi_interval": raw["rssi_interval"]}
    for name, key, unused_top, off in METRICS:
        values = inner[key]
        out[name] = {"min": _bound_from_device(name, "min", values["min"], off),
                     "max": _bound_from_device(name, "max", values["max"], off), "margin": values["margin"]}
    rds = inner["rds"]
    out["rds"] = dict(((name, rds[key]) for name, key in RDS_FLAGS), margin=rds["margin"])
    return out


def thresholds_to_device(obj):
    """fm_thresholds' (possibly partial) shape as the device's Thresholds body."""
    out = {key: obj[key] for key in ("rssi_threshold", "rssi_interval") if key in obj}
    inner = {}
    for name, key, unused_top, off in METRICS:
        if name in obj:
            inner[key] = {bound: off if value == DISABLED else value for bound, value in obj[name].items()}
    if "rds" in obj:
        keys = dict(RDS_FLAGS, margin="margin")
        inner["rds"] = {keys[flag]: value for flag, value in obj["rds"].items()}
    if inner:
        out["thresholds"] = inner
    return out


# -- schedules ------------------------------------------------------------------------
def minute_of(value):
    """Minutes since midnight of ``HH:MM``, or of a minute 0-1439 (integer or digits); None
    when the value is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < MINUTES_PER_DAY else None
    text = str(value).strip()
    if text.isdigit():
        return minute_of(int(text))
    hours, sep, minutes = text.partition(":")
    if sep and hours.isdigit() and minutes.isdigit() and len(minutes) == 2 and int(hours) < 24 and int(minutes) < 60:
        return int(hours) * 60 + int(minutes)
    return None


def clock(minute):
    return "%02d:%02d" % divmod(minute, 60)


def schedule_from_device(tuner_id, raw):
    """A tuner's ``schedule`` in fm_schedule's shape: all seven days, events by time."""
    events = raw.get("events") or {}
    return {"tuner_id": tuner_id, "active": raw["active"],
            "events": {day: [{"time": clock(e["minute"]), "state": STATE_NAMES[e["state"]]}
                             for e in sorted(events.get(day, []), key=lambda e: e["minute"])] for day in DAYS}}


def device_clock(time_read):
    """``(day index 0 = Monday, minute of the day)`` on the device's own clock, from what
    ``read_time`` gives: its ``datetime`` (ISO 8601) in its ``timezone`` (UTC offset in hours;
    a datetime without an offset is taken as local time). None when the datetime cannot be read."""
    text = str(time_read.get("datetime") or "").strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        stamp = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if stamp.tzinfo is not None and isinstance(time_read.get("timezone"), int):
        stamp = stamp.astimezone(datetime.timezone(datetime.timedelta(hours=time_read["timezone"])))
    return stamp.weekday(), stamp.hour * 60 + stamp.minute


def state_at(schedule, day, minute):
    """The operating state ``schedule`` (fm_schedule's shape) gives at ``day`` (0 = Monday) and
    ``minute``: that of its latest event at or before then, wrapping around the week; None for a
    schedule without events. An event of the present minute counts: the device applies it now
    (spec: an event is reached when day and minute match)."""
    events = schedule.get("events") or {}
    for back in range(8):  # today, the six days before, then today's later events a week ago
        name = DAYS[(day - back) % 7]
        times = [(minute_of(e["time"]), e["state"]) for e in events.get(name) or []]
        if back == 0:
            times = [(m, state) for m, state in times if m <= minute]
        elif back == 7:
            times = [(m, state) for m, state in times if m > minute]
        if times:
            return max(times, key=lambda pair: pair[0])[1]
    return None


def schedule_to_device(obj):
    """fm_schedule's (possibly partial) shape as the device's Schedule body."""
    out = {"active": obj["active"]} if "active" in obj else {}
    if "events" in obj:
        out["events"] = {day: [{"minute": minute_of(e["time"]), "state": STATE_NAMES.index(e["state"])} for e in events]
                         for day, events in obj["events"].items()}
    return out


def schedule_update_body(changed, active):
    """Body of ``POST /tuner/{id}/schedule``: what changes (``schedule_to_device``'s shape)
    and ``active``, which the device wants in every schedule write."""
    return dict(changed, active=active)


# -- alerts, monitor output, status, playlist ------------------------------------------
#: the most pages of POST /alerts one read takes, by default (fm_info's alerts.max_pages)
ALERTS_PAGES_MAX = 1000


def alerts_query(options):
    """Body of ``POST /alerts`` from fm_info's ``alerts`` options (what is left out: the
    defaults; ``since``/``until``: Unix seconds or ISO 8601, alerts that began then)."""
    body = {"order": options.get("order") or "desc", "by": options.get("sort_by") or "from",
            "type": list(options.get("types") or []), "id": list(options.get("tuner_ids") or []),
            "limit": 100 if options.get("limit") is None else options["limit"], "offset": options.get("offset") or 0}
    for key, field in (("since", "from"), ("until", "till")):
        if options.get(key) is not None:
            body[field] = unix_seconds(options[key])
    return body


def alerts_csv_body(order):
    """Body of ``POST /alerts/csv``: ``asc`` or ``desc``."""
    return {"order": order}


def unix_seconds(value):
    """Unix seconds (the device's filter times) of an integer, digits or an ISO 8601 time
    (``Z`` or an offset; a naive time is UTC); None when the value is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    text = str(value).strip()
    if text.isdigit():
        return int(text)
    try:
        stamp = datetime.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=datetime.timezone.utc)
    seconds = int(stamp.timestamp())
    return seconds if seconds >= 0 else None


def monitor_body(tuner_id, muted):
    return {"tuner_id": tuner_id, "mute": MONITOR_MUTE[bool(muted)]}


def write_monitor(client, after):
    """Route ``after["tuner_id"]`` to the monitor output, muted or not (``POST /monitor``)."""
    client.post(MONITOR, monitor_body(after["tuner_id"], after["muted"]))


def monitor_from_device(status, conf):
    """``{tuner_id, muted}`` of the monitor output: the tuner from ``GET /status``, the mute
    from the configuration (chosen shape ``monitor: {tuner_id, mute}``); None where unknown."""
    monitor = (conf or {}).get("monitor") or {}
    tuner_id = (status or {}).get("monitor_tuner", monitor.get("tuner_id"))
    mute = monitor.get("mute")
    return {"tuner_id": tuner_id, "muted": None if mute is None else mute == MONITOR_MUTE[True]}


def alerts_page(raw):
    """One page of ``POST /alerts``: ``{total, alerts}``."""
    return {"total": raw["total"], "alerts": list(raw["alerts"])}


def alerts_total(raw):
    """How many alerts a ``POST /alerts`` answer says match the query."""
    return raw["total"]


def bitrates_from_device(raw):
    """``GET /valid_bitrates`` as a list of bitrates (None when the device lists none)."""
    return raw.get("bitrates")


def station_at(stations, frequency):
    """The ``station_id`` a tuner at ``frequency`` reports: the first stored station of that
    frequency, or None (a tuner's station follows its frequency and the station list)."""
    found = [s["station_id"] for s in stations if s.get("frequency") == frequency]
    return found[0] if found else None


#: ids the monitor assigns itself, which a rendered request (_offline.py) names instead:
#: none (tuner ids are fixed indexes; station ids are kept by a backup and restored)
ASSIGNED_IDS = {}
ID_FIELDS = {}


def created_answer(body, ident):
    """The answer to a create posted to an ASSIGNED_IDS list: there is none on the monitor."""
    raise NotImplementedError("the FM monitor assigns no id (ASSIGNED_IDS is empty)")


def tuner_count(status):
    """How many tuners ``GET /status`` says the device has (None when it does not say)."""
    return status.get("tuners")


#: names some firmware releases use instead of the document's (see the notes)
STATUS_ALIASES = (("streamer_uptime", "xcast_uptime"),)
VERSION_ALIASES = (("fpga_ver", "altera_ver"), ("streamer_ver", "xcast_ver"))


def status_from_device(raw):
    """``GET /status`` with the document's field names, whichever the firmware used."""
    out = dict(raw)
    for name, alias in STATUS_ALIASES:
        if name not in out and alias in out:
            out[name] = out.pop(alias)
    versions = dict(out.get("versions") or {})
    for name, alias in VERSION_ALIASES:
        if name not in versions and alias in versions:
            versions[name] = versions.pop(alias)
    out["versions"] = versions
    return out


def playlist_tracks(text):
    """``[{title, location}]`` of an XSPF playlist (``GET /playlist``)."""
    from xml.etree import ElementTree  # only fm_info's playlist needs it: not part of every start-up

    root = ElementTree.fromstring(text)
    tracks = []
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] != "track":
            continue
        fields = {child.tag.rsplit("}", 1)[-1]: (child.text or "") for child in element}
        tracks.append({"title": fields.get("title", ""), "location": fields.get("location", "")})
    return tracks


# -- system: what the device_* modules read and write ----------------------------------
# Each function maps the monitor's system endpoints to the device-neutral shapes of
# _system.py, so that module code never sees a path.

KIND = "fm_monitor"
#: answers 401 without a token on this device; the analyzer has no such path (404)
IDENTIFY = "/api/status"
ALIVE = "/api/system/alive"
STATUS = "/api/status"
NETWORK = "/api/conf/network"
HOSTNAME = "/api/conf/hostname"
DATETIME = "/api/conf/datetime"
LOG_SETTINGS = "/api/conf/log"
PASSWORD = "/api/conf/password"
REBOOT = "/api/system/reboot"
FACTORY_RESET = "/api/system/factory_reset"
UPGRADE = "/api/system/upgrade"
#: timezones are whole-hour UTC offsets
TIMEZONE_KIND = "offset"
TIMEZONE_RANGE = (-12, 14)
#: the remote syslog port has no field of its own: rsyslog_server holds it (host:port)
SYSLOG_HAS_PORT_FIELD = False
NETWORK_KEYS = ("dhcp", "address", "netmask", "gateway", "dns")


def read_network(client):
    raw = client.get(NETWORK)
    out = {key: raw.get(key) for key in NETWORK_KEYS}
    out["dns"] = list_or_empty(raw, "dns")  # an empty list may be left out of the answer
    out["hostname"] = raw.get("hostname")  # the saved one, pending until reboot
    return out


def read_firmware_version(client):
    return client.get(STATUS)["versions"]["package_ver"]


def read_reboot_needed(client):
    return bool(client.get(STATUS).get("reboot_needed"))


def read_time(client):
    raw = client.get(DATETIME)
    return {"ntp": raw["enable_ntp"], "ntp_servers": raw.get("ntp_servers", []), "timezone": raw["timezone"],
            "datetime": raw.get("datetime")}


def time_requests(before, after, set_clock):
    """The request that writes the time settings ``after`` (and the clock, ``set_clock``), all
    on one path."""
    # The device wants a datetime in every write; without a clock change, send back the
    # time just read (NTP on ignores it).
    return [Request(DATETIME, {
        "enable_ntp": after["ntp"], "ntp_servers": after["ntp_servers"], "timezone": after["timezone"],
        "datetime": after["datetime"] if set_clock else before["datetime"]}, ("ntp", "ntp_servers", "timezone"),
        forced=set_clock)]


def read_logging(client):
    raw = client.get(LOG_SETTINGS)
    syslog = {"enabled": raw["enable_rsyslog"], "server": raw["rsyslog_server"]}
    return {"level": raw["level"], "remote_syslog": syslog}


def write_logging(client, after):
    client.post(LOG_SETTINGS, {"level": after["level"], "enable_rsyslog": after["remote_syslog"]["enabled"],
                               "rsyslog_server": after["remote_syslog"]["server"]})


#: the same on both devices: every device file answers it (_device_interface.COMMON)
alive_uptime = _device_api.alive_uptime


def read_identity(client):
    """Model, serial number and firmware version (``versions`` of ``GET /status``)."""
    versions = client.get(STATUS).get("versions") or {}
    return {"model": versions.get("model_name"), "serial_number": versions.get("serial_number"),
            "firmware_version": versions.get("package_ver")}


# -- what the collection reads of each answer (device_compatibility reports on it) ------
READ_SHAPES = (
    Declared(STATUS, required=("versions",),
             optional=("reboot_needed", "system_uptime", "streamer_uptime", "tuners", "hostname", "monitor_tuner"),
             aliases={name: (alias,) for name, alias in STATUS_ALIASES}),
    Declared(NETWORK, optional=NETWORK_KEYS + ("hostname",)),
    Declared(DATETIME, required=("enable_ntp", "timezone"), optional=("ntp_servers", "datetime")),
    Declared(LOG_SETTINGS, required=("level", "enable_rsyslog", "rsyslog_server")),
    Declared(TUNERS, element=True,
             required=("tuner_id", "name", "frequency", "state", "muted", "hw_settings", "stream_enabled",
                       "thresholds", "schedule"),
             optional=("station_id", "stream", "tuned", "signal_ok", "quality", "rds")),
    Declared(CONF, optional=("network", "datetime", "log", "monitor", "tuners", "stations", "hostname")),
)

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitor's own answers as a backup holds them, and the requests of a restore: the
backup's part of the monitor's API layer (paths and shapes are api.py's)."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.api import (
    BITRATES,
    CONF,
    LOG_SETTINGS,
    STATIONS,
    TUNERS,
    VALID_BITRATES,
    station_at,
)


#: what the monitor reports of a tuner that it measures or derives (station_id follows the
#: frequency and the station list, both restored)
TUNER_NOT_CONFIG = ("tuned", "signal_ok", "quality", "rds", "station_id")


def without(obj, keys):
    return {key: value for key, value in obj.items() if key not in keys}


def schedule_ordered(tuner):
    """A tuner with its schedule's events of each day by minute: the document gives a day's events
    as "an array of {minute, state}" (fm-monitor-api.md, Schedule) whose order means nothing,
    since an event is reached when "day and minute match"; a firmware may list them in any order."""
    schedule = tuner.get("schedule") if isinstance(tuner, dict) else None
    if not isinstance(schedule, dict) or not isinstance(schedule.get("events"), dict):
        return tuner
    events = {day: sorted(listed, key=lambda e: (e.get("minute", 0), e.get("state", 0)))
              if isinstance(listed, list) and all(isinstance(e, dict) for e in listed) else listed
              for day, listed in schedule["events"].items()}
    return dict(tuner, schedule=dict(schedule, events=events))


def conf_ordered(conf):
    """/conf as a backup holds it: its lists in a stable order (tuners by id, stations by id, a
    day's schedule events by minute), without a clock reading (should a device add one, it is
    stale at once)."""
    conf = dict(conf)
    if isinstance(conf.get("datetime"), dict):
        conf["datetime"] = without(conf["datetime"], ("datetime",))
    for key, field in (("tuners", "tuner_id"), ("stations", "station_id")):
        if isinstance(conf.get(key), list):
            conf[key] = sorted(conf[key], key=lambda item, f=field: item.get(f, 0))
    if isinstance(conf.get("tuners"), list):
        conf["tuners"] = [schedule_ordered(tuner) for tuner in conf["tuners"]]
    return conf


def conf_keeping_network(wanted, current):
    """A /conf to restore with the unit's own address and name kept (``current``'s)."""
    return dict(wanted, network=current.get("network"), hostname=current.get("hostname"))


def backup_raw(client):
    """The monitor's configuration as a backup holds it (``raw``): its answers without what
    it measures or derives, lists in a stable order."""
    conf = conf_ordered(client.get(CONF))
    tuners = []
    for raw in sorted(client.get(TUNERS), key=lambda t: t["tuner_id"]):
        tuner = schedule_ordered(without(raw, TUNER_NOT_CONFIG))
        if isinstance(tuner.get("stream"), dict):
            tuner["stream"] = without(tuner["stream"], ("measured_bitrate",))
        tuners.append(tuner)
    return {"conf": conf, "tuners": tuners, "log_settings": client.get(LOG_SETTINGS)}


def backup_answers(raw):
    """``(answers, names)`` of a backup's ``raw``: the answer of each GET the resource modules
    read, rebuilt from it (the monitor assigns no ids itself: ``names`` is empty)."""
    stations = list((raw.get("conf") or {}).get("stations") or [])
    tuners = [dict(t, station_id=station_at(stations, t.get("frequency"))) for t in raw.get("tuners") or []]
    return {TUNERS: tuners, STATIONS: stations,
            # not in a backup: the document's list of stream bitrates
            VALID_BITRATES: {"bitrates": list(BITRATES)}}, {}

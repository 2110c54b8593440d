# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's operational snapshot (device_snapshot, the snapshot a backup keeps, the EDA
source): what each input receives and raises, read from api.py's answers."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.api import (
    DEVICE_INFO,
    ERROR_NAMES,
    INPUTS,
    PRIORITY_1,
    STATISTICS_CURRENT,
    STATUS_NAMES,
    read_reboot_needed,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import list_or_empty, sorted_by_id


#: the input ``state`` of an input that receives its stream (chosen shapes: ``ok``,
#: ``no_signal``, ``paused``; simulator/README.md)
RECEIVING_STATE = "ok"


def _status_level(value):
    """A statistics status (0 OK, 1 warning, 2 critical) as an integer; 0 when absent."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def snapshot_items(client):
    """What each input is doing now (``GET /inputs``, ``GET /statistics/current``), by id:
    ``id``, ``name``, ``monitoring``, ``state``, ``receiving``, ``bitrate`` (bit/s),
    ``priority1`` (the worst TR 101 290 priority-1 status: ok, warning, critical),
    ``priority1_errors`` and ``alarms`` (the error names whose current status is not OK)."""
    streams = {}
    for stream in list_or_empty(client.get(STATISTICS_CURRENT), "transport_streams"):
        streams[stream.get("input_id")] = stream.get("data") or {}
    items = []
    for raw in sorted_by_id(client.get(INPUTS), "id"):
        data = streams.get(raw["id"], {})
        levels = {name: _status_level(value.get("status")) for name, value in data.items() if isinstance(value, dict)}
        known = [name for name in ERROR_NAMES if levels.get(name)]
        items.append({
            "id": raw["id"],
            "name": raw["name"],
            "monitoring": bool(raw.get("monitoring")),
            "state": raw.get("state"),
            "receiving": raw.get("state") == RECEIVING_STATE,
            "bitrate": (raw.get("metrics") or {}).get("bitrate") or 0,
            "priority1": STATUS_NAMES.get(max([levels.get(name, 0) for name in PRIORITY_1]), "critical"),
            "priority1_errors": [name for name in PRIORITY_1 if levels.get(name)],
            "alarms": known + sorted(name for name in levels if levels[name] and name not in ERROR_NAMES),
        })
    return items


def snapshot_system(client):
    """Model, firmware version and whether a reboot is pending (``GET /system/device``, ``/system/status``)."""
    identity = client.get(DEVICE_INFO)
    return {"model": identity.get("model"), "firmware_version": identity["firmware_version"],
            "reboot_needed": read_reboot_needed(client)}

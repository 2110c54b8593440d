# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitor's operational snapshot (device_snapshot, the snapshot a backup keeps, the EDA
source): what each tuner receives, read from api.py's answers."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.api import (
    STATE_NAMES,
    STATUS,
    TUNERS,
    status_from_device,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import sorted_by_id


def snapshot_items(client):
    """What each tuner is doing now (``GET /tuners/all``), by id: ``id``, ``name``,
    ``state`` (disabled, enabled, sleep), ``frequency`` (kHz), ``tuned``, ``signal_ok``,
    ``stream_enabled``, ``rssi`` (``quality.rssi``) and ``alarms`` (the tokens of ``quality.alarms``, sorted)."""
    items = []
    for raw in sorted_by_id(client.get(TUNERS), "tuner_id"):
        state = raw.get("state")
        quality = raw.get("quality") or {}
        alarms = quality.get("alarms") or ""
        items.append({
            "id": raw["tuner_id"],
            "name": raw.get("name"),
            "state": STATE_NAMES[state] if isinstance(state, int) and 0 <= state < len(STATE_NAMES) else state,
            "frequency": raw.get("frequency"),
            "tuned": bool(raw.get("tuned")),
            "signal_ok": bool(raw.get("signal_ok")),
            "stream_enabled": bool(raw.get("stream_enabled")),
            "rssi": quality.get("rssi"),
            "alarms": sorted(alarms.split()) if isinstance(alarms, str) else sorted(alarms),
        })
    return items


def snapshot_system(client):
    """Model, firmware version and whether a reboot is pending (one ``GET /status``)."""
    status = status_from_device(client.get(STATUS))
    return {"model": status["versions"].get("model_name"), "firmware_version": status["versions"].get("package_ver"),
            "reboot_needed": bool(status.get("reboot_needed"))}

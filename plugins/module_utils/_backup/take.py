# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Taking a backup (format.py describes the document): what the device answers, read through
its own api_backup.py (``backup_raw``), so a backup loads only the device it reads."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils import _snapshot as snapshot
from ansible_collections.broadcast.monitoring.plugins.module_utils._backup.format import COLLECTION_VERSION, FORMAT, TIME_KEYS


def take(client, api):
    """The backup document of one device: identity, the device-neutral system settings
    (structured), the device's own answers (raw, only what changes by itself left out), and
    what it does in operation (the stable part of its snapshot, snapshot.baseline)."""
    time_settings = api.read_time(client)
    system_settings = {"network": api.read_network(client),
                       "time": {key: time_settings[key] for key in TIME_KEYS}}
    raw = devices.api_backup(api.KIND).backup_raw(client)
    return {
        "format": FORMAT,
        "collection_version": COLLECTION_VERSION,
        "device_type": api.KIND,
        "device": api.read_identity(client),
        "system": system_settings,
        "raw": raw,
        "snapshot": snapshot.baseline(api, client),
    }

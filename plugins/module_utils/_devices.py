# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one place that maps a device type (``ts_analyzer``, ``fm_monitor``) to the files of
its folder (``_ts/``, ``_fm/``) that device-neutral code needs.

Each file is imported here, inside the function, once the device type is known, rather than
at the top of a device-neutral file: a module then compiles and loads only the device it talks
to (the start-up time of every run). Each import is written out: AnsiballZ finds the
module_utils a module needs by reading its import statements, so a computed name would be
left out of the module's payload."""

from __future__ import annotations

FM = "fm_monitor"


def api(kind):
    """The device's API layer (``_ts/api.py``, ``_fm/api.py``): a ``device_*`` module's device file."""
    if kind == FM:
        from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_api
        return fm_api
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_api
    return ts_api


def api_backup(kind):
    """The backup part of the device's API layer (``api_backup.py``): a backup taken or read."""
    if kind == FM:
        from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api_backup as fm_api_backup
        return fm_api_backup
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api_backup as ts_api_backup
    return ts_api_backup


def api_snapshot(kind):
    """The snapshot part of the device's API layer (``api_snapshot.py``): a snapshot taken."""
    if kind == FM:
        from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api_snapshot as fm_api_snapshot
        return fm_api_snapshot
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api_snapshot as ts_api_snapshot
    return ts_api_snapshot


def restore(kind):
    """The device's sections of a restore (``_ts/restore.py``, ``_fm/restore.py``)."""
    if kind == FM:
        from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import restore as fm_restore
        return fm_restore
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import restore as ts_restore
    return ts_restore


def parts(kind):
    """The device's registry of parts (``_ts/parts.py``, ``_fm/parts.py``)."""
    if kind == FM:
        from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import parts as fm_parts
        return fm_parts
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import parts as ts_parts
    return ts_parts

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The transport-stream analyzer as a registered device type (_devices.py): what device-neutral
code asks of a device type, and the files of this folder it loads once the type is known.

Each file is imported inside its function, written out: AnsiballZ finds the module_utils a
module needs by reading its import statements, and a module loads only the device it talks to."""

from __future__ import annotations

NAME = "ts_analyzer"
#: how the documentation, messages and the fleet status name the device type
LABEL = "TS analyzer"
#: the key of the device's list of monitored things in a snapshot, and what one of them is called
ITEMS, ITEM = "inputs", "input"
#: the module that reads everything about the device (named in a hint to report a fault)
INFO_MODULE = "ts_info"
#: auto-detection: the HTTP statuses of an unauthenticated GET of the API layer's IDENTIFY path
#: that mean this type. The analyzer has no such path: a rule of absence, tried after every rule
#: of presence (_devices.detection_order).
DETECT = (404,)


def api():
    """The device's API layer: paths, answers read, requests built."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as found
    return found


def api_backup():
    """The backup part of the API layer: a backup taken or read."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api_backup as found
    return found


def api_snapshot():
    """The snapshot part of the API layer: a snapshot taken."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api_snapshot as found
    return found


def snapshot():
    """What a snapshot's items mean: checks, baseline fields, regressions."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import snapshot as found
    return found


def rules():
    """The rules between the device's declared parts (device_state checks them before any request)."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import rules as found
    return found


def arguments():
    """How device_state turns the device's declared parts into their modules' arguments."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import arguments as found
    return found


def restore():
    """The device's sections of a restore."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import restore as found
    return found


def parts():
    """The device's registry of parts (device_state, onboarding, backup and restore)."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import parts as found
    return found


def validation():
    """The checks of a validation (the validation_result filter)."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import validation as found
    return found


def events():
    """What the event source reads and reports."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import events as found
    return found


def status():
    """What the fleet status reads of the device's items and how its page sums them up."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import status as found
    return found

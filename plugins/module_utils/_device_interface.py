# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one interface both device files (_ts/api.py, _fm/api.py) provide to the code that
serves either device type (_connection.py, _system.py, _backup/, _compatibility.py, _snapshot.py,
_offline.py); what both do the same way is
_device_api.py's. A unit test checks that each file provides
every name here, so a difference between the devices lives in the device files, not in
attributes only one of them has."""

from __future__ import annotations

#: names every device file defines: paths, what differs in kind, and the functions that map
#: the device's system answers to the device-neutral shapes of _system.py
COMMON = (
    "KIND", "LOGIN", "IDENTIFY", "ALIVE", "STATUS", "NETWORK", "HOSTNAME", "DATETIME", "LOG_SETTINGS", "PASSWORD", "REBOOT",
    "FACTORY_RESET", "UPGRADE", "NETWORK_KEYS", "TIMEZONE_KIND", "SYSLOG_HAS_PORT_FIELD", "READ_SHAPES",
    "read_network", "read_firmware_version", "read_reboot_needed", "read_time", "time_requests",
    "read_logging", "write_logging", "read_identity", "alive_uptime",
    "ASSIGNED_IDS", "ID_FIELDS", "created_answer",
)
#: what a device file defines besides, by its TIMEZONE_KIND: IANA names checked against the
#: device's own list, or UTC offsets in a range
BY_TIMEZONE_KIND = {"name": ("timezones",), "offset": ("TIMEZONE_RANGE",)}
#: the names each file of a device folder (_ts/, _fm/) provides in both folders, by file: the
#: two folders hold the same files, and a name here is found in both (a unit test checks it);
#: () where the two devices have nothing alike to declare (their actions and resources differ)
BY_FILE = {
    "api": COMMON,
    "api_backup": ("backup_raw", "backup_answers", "without"),
    "api_snapshot": ("snapshot_items", "snapshot_system"),
    "info": ("SUBSETS", "MINIMAL", "check_options", "readers", "read_info"),
    "actions": (),
    "resources": (),
    "parts": ("KIND", "ROLE", "PARTS", "RAW_SECTIONS", "prechecks"),
    "rules": ("declared_problems",),
    "snapshot": ("CHECKS", "LOST", "BASELINE_FIELDS", "IDENTS", "baseline_order", "label", "worked", "lost_detail",
                 "regressions"),
    "validation": ("CHECKS", "checks"),
    "events": ("ALERT_KEY", "NEW_ITEM_LOG_IS_NEW", "alert_records", "item_events"),
    "restore": ("section_order", "steps"),
    # what the registry of device types (_devices.py) and the code it serves ask of a device type
    "device_type": ("NAME", "LABEL", "ITEMS", "ITEM", "INFO_MODULE", "DETECT", "api", "api_backup", "api_snapshot",
                    "snapshot", "restore", "parts", "rules", "arguments", "validation",
                    "events", "status"),
    "arguments": ("BUILD", "SECOND_PASS", "more_args"),
    "status": ("ITEMS_LABEL", "PRIORITY1", "item", "items_summary"),
}


def missing(device_file):
    """The interface names ``device_file`` does not define."""
    wanted = COMMON + BY_TIMEZONE_KIND.get(getattr(device_file, "TIMEZONE_KIND", None), ())
    return [name for name in wanted if not hasattr(device_file, name)]

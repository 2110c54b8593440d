# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The backup document: its formats, its text, and the checks that a document fits a device.

A document holds a device's whole configuration: the system settings in the device-neutral
shape, and the rest as the device answers (raw), unknown fields included. It holds no
password or token, and nothing that changes by itself (no clock, no measurement, no
device-assigned id), so two backups of an unchanged device are equal byte for byte. Besides
the configuration, it keeps what the device did when it was taken (``snapshot``), the
baseline a restore compares the service with; a backup without it (older releases) restores
all the same. The format is described in docs/docsite/rst/guide_disaster_recovery.rst.
Taking one: take.py; restoring one: restore.py.
"""

from __future__ import annotations

import json

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError

FORMAT = "broadcast.monitoring.backup/2"
#: the first format (module shapes only); still loaded and restored as it was
FORMAT_1 = "broadcast.monitoring.backup/1"
FORMATS = (FORMAT, FORMAT_1)
#: the collection's version, recorded in every backup (a unit test keeps it equal to galaxy.yml)
COLLECTION_VERSION = "1.0.0"
#: keys of a device's time settings that are configuration (the clock itself is not)
TIME_KEYS = ("ntp", "ntp_servers", "timezone")


def dumps(doc):
    """Stable text of a document: equal documents give equal files."""
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def load(text, device, where="src"):
    """The document in ``text``, checked to fit ``device``; InputError naming ``where``."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise InputError(["%s: not a backup document (invalid JSON: %s)" % (where, err)]) from None
    if not isinstance(doc, dict) or doc.get("format") not in FORMATS:
        raise InputError(["%s: not a backup document of this collection (format %s expected)"
                          % (where, " or ".join(FORMATS))])
    if doc.get("device_type") != device.KIND:
        raise InputError(["%s: a backup of a %s cannot be restored to a %s" % (where, doc.get("device_type"), device.KIND)])
    return doc


def backup_firmware(doc):
    """The firmware version the backup was taken on."""
    if doc["format"] == FORMAT_1:
        return doc.get("firmware_version")
    return (doc.get("device") or {}).get("firmware_version")


def check_document(doc, device, where):
    """``doc`` (already loaded) checked to be a format-2 backup of ``device``'s type; InputError
    naming ``where`` otherwise. Format 1 holds the module shapes only, not the device's answers
    (state=parsed and state=rendered, _offline.py, read the answers)."""
    if not isinstance(doc, dict) or doc.get("format") not in FORMATS:
        raise InputError(["%s: not a backup document of this collection (format %s expected, the content of a"
                          " device_backup file)" % (where, " or ".join(FORMATS))])
    if doc.get("device_type") != device.KIND:
        raise InputError(["%s: a backup of a %s, but this module manages a %s" % (
            where, doc.get("device_type"), device.KIND)])
    if doc["format"] != FORMAT or not isinstance(doc.get("raw"), dict):
        raise InputError(["%s: a backup of format %s does not hold the device's own answers; take a new backup"
                          " with device_backup (format %s)" % (where, doc["format"], FORMAT)])
    return doc

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_backup
short_description: Back up the whole configuration of an analyzer or FM monitor to a file
version_added: 1.0.0
description:
  - Reads every configurable value the device's interface returns into one JSON document and writes it to
    O(dest), whether or not a module of this collection manages it, fields it does not know included.
  - The document records the device's model, serial number and firmware version, the collection's version and a
    format version (C(broadcast.monitoring.backup/2)). The system settings (network, hostname, NTP and timezone)
    are kept in the device-neutral shape; the rest as the device answers (C(raw)). Analyzer, alert profiles,
    inputs (with PID error lists, SCTE-35 and thumbnails), SNMP, converters and log settings. FM monitor, the
    complete C(GET /conf), the tuners as C(GET /tuners/all) shows them (settings, state, mute, stream,
    thresholds, schedules) and log settings. The Disaster recovery guide describes the format.
  - The document also keeps what the device does in operation when it is taken (C(snapshot)), the baseline
    against which the restore role checks the service after a restore. It holds only what says whether each
    input was receiving its stream (analyzer, by input name) and whether each tuner was enabled, tuned and
    streaming (FM monitor), and the firmware version; no bitrate, error or alarm, which change by themselves.
    Give it (or the whole document) to M(broadcast.monitoring.device_snapshot) as O(broadcast.monitoring.device_snapshot#module:compare_to).
    A backup without it, taken by an older release, is restored all the same.
  - Passwords and tokens are never part of a backup. Should the device's answers hold one (a password or token
    in use, a field named like a secret, the user-info of a URL), it is masked in the file as in every output
    (C(********), C(***@)) and the module warns, naming where: a restore cannot bring that value back. Nor is anything that changes by itself (clock,
    measurements, alert logs) or the ids the device assigns; lists whose order means nothing are sorted, so
    backing up an unchanged device rewrites nothing and reports no change.
  - Restore a backup with M(broadcast.monitoring.device_restore).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  dest:
    description:
      - File to write the backup to, where the module runs (the controller with C(connection=local)),
        or a directory, in which the file is named after O(host) (C(<host>.json)). The directory must exist.
      - The file is replaced whole, through a temporary file beside it. A new file is C(0600) (less the umask); a
        file that is replaced keeps its mode. A symlink at the file's place is never read or written through; it is
        replaced by the file, as C(ansible.builtin.copy) replaces one, and the diff shows nothing before.
    type: path
    required: true
notes:
  - The user role may take backups; nothing is written to the device.
  - In check mode the device is read and the file is not written; the result's C(changed) says whether it would be.
"""

EXAMPLES = r"""
- name: Back up one device to a file named after it
  broadcast.monitoring.device_backup:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    dest: "/tmp/{{ inventory_hostname }}.json"
  register: saved
"""

RETURN = r"""
backup:
  description: The backup document that was (or in check mode, would be) written.
  returned: success
  type: dict
  sample: {"format": "broadcast.monitoring.backup/2", "collection_version": "1.0.0", "device_type": "ts_analyzer",
           "device": {"model": "TSA-4", "serial_number": "TSA000000001", "firmware_version": "1.0.0"},
           "system": {"network": {}, "time": {}}, "raw": {"profiles": [], "inputs": [], "snmp": {},
                                                           "converters": [], "log_settings": {}},
           "snapshot": {"device_type": "ts_analyzer", "firmware_version": "1.0.0",
                        "inputs": [{"name": "Mux 1", "receiving": true}]}}
dest:
  description: The file written.
  returned: success
  type: str
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._backup import format as backup_format, take as backup_take
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import differences
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import masked
from ansible_collections.broadcast.monitoring.plugins.module_utils._files import destination, plain_name, write_if_changed
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

ARGUMENT_SPEC = dict(
    dest=dict(type="path", required=True),
)


def write_backup(module):
    dest = destination(module.params["dest"], plain_name("%s.json" % module.params["host"].strip(), "host"))
    taken = backup_take.take(module.client, module.device)
    doc = masked(taken)  # a backup is an output too: no secret in the file
    warnings = []
    if doc != taken:
        warnings.append("the device's configuration holds a secret (%s): the backup holds it masked, so a restore"
                        " does not bring it back; set it again after a restore" % ", ".join(
                            item["path"] for item in differences(taken, doc)))
    text = backup_format.dumps(doc)
    changed, old = write_if_changed(dest, text.encode("utf-8"), module.check_mode)
    return {"changed": changed, "backup": doc, "dest": dest, "warnings": warnings,
            "diff": {"before": (old or b"").decode("utf-8", "replace"), "after": text,
                     "before_header": dest, "after_header": dest}}


def main():
    module = DeviceModule(ARGUMENT_SPEC, reads_only=True)
    module.run(lambda: write_backup(module))


if __name__ == "__main__":
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_restore
short_description: Restore a backup to an analyzer or FM monitor
version_added: 1.0.0
description:
  - Applies a document written by M(broadcast.monitoring.device_backup) to a device of the same type, so that
    the device answers as it did when it was backed up. Only what differs is written; restoring twice changes
    nothing. Backups of format 1 (earlier releases) still load and restore what they hold.
  - First compares the backup's firmware version with the device's (O(firmware_mismatch)); nothing is written
    when it stops there.
  - Analyzer, alert profiles and inputs are made exactly as in the backup, fields this collection does not know
    included (others are deleted, profiles after the inputs that used them), then SNMP, converters, time and log
    settings. FM monitor, its whole configuration in one write when it differs, then tuners, thresholds and
    schedules where they still differ, time and log settings.
  - A difference the device offers no way to write (an analyzer's stopped converter keeps the settings of its
    last start, a profile update cannot remove a field) is left as it is, with a warning naming it; it is not a
    change.
  - A restore that stops halfway reports per section what was written, not written or unknown; run it again to
    complete it.
  - The device keeps its own address and hostname unless O(network=true); restored network settings take effect
    at the next reboot (see M(broadcast.monitoring.device_network) to re-address and reboot in one step).
  - Passwords are not part of a backup; set them with M(broadcast.monitoring.device_password).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  src:
    description: The backup file, where the module runs (the controller with C(connection=local)).
    type: path
    required: true
  network:
    description: Also restore address settings and hostname.
    type: bool
    default: false
  firmware_mismatch:
    description:
      - What to do, before anything is written, when the backup was taken on another firmware version than the
        device runs (a configuration read from one version may not mean the same on another).
      - V(fail) stops and names both versions. Upgrade the device first (M(broadcast.monitoring.device_firmware),
        or the C(restore) role's C(restore_firmware_bundle)), or choose another value.
      - V(warn) restores and warns; V(ignore) restores without a word.
    type: str
    choices: [fail, warn, ignore]
    default: fail
"""

EXAMPLES = r"""
- name: Put a device back as it was backed up
  broadcast.monitoring.device_restore:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    src: "/tmp/{{ inventory_hostname }}.json"
"""

RETURN = r"""
firmware:
  description: The firmware versions compared before the restore.
  returned: success
  type: dict
  sample: {"backup": "2.4.1", "device": "2.4.1"}
changed_sections:
  description: The parts of the configuration that were (or in check mode, would be) written.
  returned: success
  type: list
  elements: str
  sample: ["inputs", "snmp"]
not_planned:
  description:
    - In check mode on an FM monitor whose configuration (C(GET /conf)) differs, the sections after it (tuners,
      thresholds, schedules, time, logging, network). The configuration write sets most of them, so what would
      remain for them cannot be known before that write. Run without check mode to restore them.
  returned: in check mode, when the monitor's configuration differs
  type: list
  elements: str
  sample: ["tuners", "thresholds", "schedules", "time", "logging"]
written:
  description:
    - When a write fails, the sections restored before it (C(changed) says whether each needed a write) and, for
      the section that failed, the objects of it already written. Running the module again completes the restore.
  returned: failure during writes
  type: list
  elements: dict
  sample: [{section: alert_profiles, changed: true}, {section: inputs, written: [{action: create, key: Mux 1}]}]
not_written:
  description: The section that failed (with its objects not written) and the sections not reached.
  returned: failure during writes
  type: list
  elements: dict
lost_answers:
  description:
    - Writes whose answer was lost (the connection dropped), by section. None is sent again blindly; the device is
      read back and the write is sent once more only if it did not land (C(landed=false)).
  returned: when an answer was lost
  type: list
  elements: dict
unknown:
  description: Writes whose answer was lost and whose effect could not be read back (they may have landed).
  returned: failure during writes
  type: list
  elements: dict
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._backup import format as backup_format, restore as backup_restore
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

ARGUMENT_SPEC = dict(
    src=dict(type="path", required=True),
    network=dict(type="bool", default=False),
    firmware_mismatch=dict(type="str", default="fail", choices=["fail", "warn", "ignore"]),
)


def restore(module):
    try:
        with open(module.params["src"], encoding="utf-8") as handle:
            text = handle.read()
    except OSError as err:
        raise InputError(["src: cannot read %s (%s)" % (module.params["src"], err.strerror)]) from None
    doc = backup_format.load(text, module.device)
    return backup_restore.restore(module.client, module.device, doc, module.params["network"], module.check_mode,
                                  module.params["host"], module.params["firmware_mismatch"])


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: restore(module))


if __name__ == "__main__":
    main()

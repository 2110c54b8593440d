#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_restore
short_description: Restore a backup to an analyzer or FM monitor
version_added: 0.1.0
description:
  - Applies a document written by M(broadcast.monitoring.device_backup) to a device of the same type,
    through the same code as the other modules, so only what differs is written and restoring twice changes
    nothing.
  - Analyzer, alert profiles and inputs are made exactly as in the backup (others are deleted, profiles after the
    inputs that used them), then SNMP, converters, time and logging. FM monitor, its whole configuration in one
    write, when it differs.
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
changed_sections:
  description: The parts of the configuration that were (or in check mode, would be) written.
  returned: success
  type: list
  elements: str
  sample: ["inputs", "snmp"]
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

from ansible_collections.broadcast.monitoring.plugins.module_utils import backup
from ansible_collections.broadcast.monitoring.plugins.module_utils.engine import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils.module import DeviceModule

ARGUMENT_SPEC = dict(
    src=dict(type="path", required=True),
    network=dict(type="bool", default=False),
)


def restore(module):
    try:
        with open(module.params["src"], encoding="utf-8") as handle:
            text = handle.read()
    except OSError as err:
        raise InputError(["src: cannot read %s (%s)" % (module.params["src"], err.strerror)]) from None
    doc = backup.load(text, module.device)
    return backup.restore(module, doc, module.params["network"])


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: restore(module))


if __name__ == "__main__":
    main()

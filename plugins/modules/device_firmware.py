#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_firmware
short_description: Install a firmware bundle on an analyzer or FM monitor
version_added: 1.0.0
description:
  - Installs a signed C(.swu) firmware bundle when the device runs another version.
  - The bundle's version is read on the controller from its C(sw-description); nothing is uploaded when the
    device already reports that version.
  - Otherwise the bundle is uploaded (streamed from disk, never read into memory whole) and the module watches
    the device for a moment to learn what it does with it. A device that reboots by itself into the new firmware
    is waited for. A device that installs the bundle and keeps running its old version until it is rebooted
    (the FM monitor, as its interface document says; C(reboot_needed) is true meanwhile) is rebooted when
    O(reboot=true). The module then waits within O(reboot_timeout) and checks that the device reports the new
    version.
  - With O(reboot=false) the module leaves a device that waits for a reboot running, and returns C(changed),
    C(reboot_needed=true) and the installed version as RV(pending_version). The device does not report a
    pending version, so a later run uploads the bundle again until the device has been rebooted (for example
    with M(broadcast.monitoring.device_reboot) and O(broadcast.monitoring.device_reboot#module:only_if_needed=true)).
  - A bundle the device refuses (unsigned, altered) fails with the device's reason; the device keeps its firmware.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  path:
    description: Path of the C(.swu) bundle on the controller.
    type: path
    required: true
  reboot:
    description:
      - Reboot a device that installed the bundle but waits for a reboot to run it.
      - A device that reboots by itself after the upload does so whatever this option says; the module then
        waits for it.
    type: bool
    default: true
  reboot_timeout:
    description:
      - Seconds to wait for the device to come back after the upgrade reboot, at least 1 (the connection option
        O(timeout) bounds each request).
    type: int
    default: 600
  upload_timeout:
    description: Seconds the upload (and the device's check of the bundle) may take, at least 1.
    type: int
    default: 300
notes:
  - In check mode the module reads both versions and reports C(would upgrade from X to Y) without uploading.
  - After an accepted upload the module watches the device for up to 2 seconds before it decides that the device
    stays up and waits for a reboot.
"""

EXAMPLES = r"""
- name: Upgrade when the device runs another version
  broadcast.monitoring.device_firmware:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    path: "{{ firmware_bundle }}"
    reboot_timeout: 300
  register: upgrade

- name: Install now, run it from the next reboot (a maintenance window's)
  broadcast.monitoring.device_firmware:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    path: "{{ firmware_bundle }}"
    reboot: false
  register: staged

- name: Show what happened
  ansible.builtin.debug:
    msg: "{{ upgrade.previous_version }} -> {{ upgrade.current_version }} in {{ upgrade.elapsed }} s"
"""

RETURN = r"""
previous_version:
  description: Firmware version before the module ran.
  returned: success
  type: str
  sample: 1.0.0
current_version:
  description: Firmware version the device reports after the module ran (unchanged in check mode).
  returned: success
  type: str
  sample: 2.4.1
bundle_version:
  description: Version carried by the bundle.
  returned: success
  type: str
pending_version:
  description:
    - The version installed but not yet running, with O(reboot=false) on a device that waits for a reboot;
      null otherwise.
  returned: success
  type: str
  sample: 2.4.1
rebooted:
  description: Whether the device rebooted during the upgrade (by itself, or rebooted by the module).
  returned: success
  type: bool
reboot_needed:
  description: Whether the device reports that a pending change (such as an installed firmware) waits for a reboot.
  returned: success
  type: bool
elapsed:
  description: Seconds from the start of the upload until the device answered again.
  returned: success
  type: float
msg:
  description: What was done, or would be done in check mode.
  returned: success
  type: str
  sample: would upgrade from 1.0.0 to 2.4.1
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils.module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils.system import manage_firmware

ARGUMENT_SPEC = dict(
    path=dict(type="path", required=True),
    reboot=dict(type="bool", default=True),
    reboot_timeout=dict(type="int", default=600),
    upload_timeout=dict(type="int", default=300),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: manage_firmware(module))


if __name__ == "__main__":
    main()

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
  - The bundle's version and target are read on the controller from its C(sw-description); nothing is uploaded
    when the device already reports that version.
  - The target is the list of models the bundle's C(hardware-compatibility) names (SWUpdate's list of that name,
    for example C([ "TSA-4" ]); every such list of the description). Before any upload, in check
    mode too, the module compares it with the model the device reports (the analyzer's C(GET /system/device)
    C(model), the FM monitor's C(GET /status) C(versions.model_name)), whatever their case and spacing. A bundle
    for another model is refused. A bundle that names no model, or a device that reports none, is refused unless
    O(allow_unchecked_target=true).
  - A bundle older than the installed firmware (versions compared by their numeric and alphabetic parts, so
    2.10.0 is newer than 2.9.1), or one whose version cannot be ordered against it, is a downgrade, refused
    before any upload unless O(allow_downgrade=true).
  - The C(sw-description) lists each image of the bundle with its C(sha256) checksum. Before any upload, in check
    mode too, the module reads the whole bundle and refuses it when an image it lists is missing or does not match
    its checksum (a bundle altered after it was made, which the device would refuse after the upload).
  - A refused bundle fails before any upload with a message that begins with the bundle's path; the failure
    returns it as RV(refused_bundle), with the installed firmware as RV(current_version) and RV(device_model).
  - O(path) may name a folder of bundles; the module then takes the bundle for the device's model, of
    O(version) when it is set, else the newest. A folder of every device type's bundles serves a mixed fleet.
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
    description:
      - Path of the C(.swu) bundle on the controller, or of a folder of them (files named C(*.swu); the others are
        not read).
      - From a folder the module takes the bundle whose target names the device's model, of O(version) when it is
        set, else the newest; none, or two of the same version, fail naming the bundles found, before any upload.
    type: path
    required: true
  version:
    description:
      - Version of the bundle to install. With a folder in O(path), picks the bundle of that version; a single
        bundle must carry it (checked before any request).
      - Unset, the newest bundle of the folder for the device's model, or the single bundle whatever it carries.
    type: str
  allow_downgrade:
    description:
      - Install a bundle older than the installed firmware (or one whose version cannot be ordered against it).
      - To go back to an older release, for example after a faulty upgrade; its configuration is the backup taken
        before the upgrade.
    type: bool
    default: false
  allow_unchecked_target:
    description:
      - Install a bundle whose target cannot be compared with the device, because the bundle names no model in a
        C(hardware-compatibility) list or the device reports no model.
      - A bundle that names other models than the device's is refused whatever this option says.
      - With a folder in O(path), bundles that name no model are candidates too when no bundle names the device's
        model.
    type: bool
    default: false
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
  - In check mode the module reads both versions and the device's model, refuses what it would refuse, and reports
    C(would upgrade from X to Y) (or C(would downgrade)) without uploading.
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
  returned: success, and when the bundle is refused
  type: str
  sample: 1.0.0
current_version:
  description: Firmware version the device reports after the module ran (unchanged in check mode).
  returned: success, and when the bundle is refused
  type: str
  sample: 2.4.1
bundle_version:
  description: Version carried by the bundle.
  returned: success
  type: str
bundle_path:
  description: The bundle installed (or found installed); from a folder, the one chosen.
  returned: success
  type: str
  sample: /srv/firmware/analyzer-2.4.1.swu
bundle_target:
  description: The models the bundle's C(hardware-compatibility) names; null when it names none.
  returned: success
  type: list
  elements: str
  sample: [TSA-4]
device_model:
  description: The model the device reports; null when it reports none.
  returned: success, and when the bundle is refused
  type: str
  sample: TSA-4
refused_bundle:
  description:
    - The bundle refused before any upload (for another model, a downgrade, images that do not match its
      C(sw-description)); null when there was no bundle to choose from a folder.
  returned: when the bundle is refused
  type: dict
  contains:
    path:
      description: The bundle's path.
      type: str
    version:
      description: The version its C(sw-description) carries.
      type: str
    target:
      description: The models its C(hardware-compatibility) names; null when it names none.
      type: list
      elements: str
  sample: {path: /srv/firmware/analyzer-2.4.1.swu, version: 2.4.1, target: [TSA-4]}
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

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._firmware import manage_firmware

ARGUMENT_SPEC = dict(
    path=dict(type="path", required=True),
    version=dict(type="str"),
    allow_downgrade=dict(type="bool", default=False),
    allow_unchecked_target=dict(type="bool", default=False),
    reboot=dict(type="bool", default=True),
    reboot_timeout=dict(type="int", default=600),
    upload_timeout=dict(type="int", default=300),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: manage_firmware(module.client, module.device, module.params, module.check_mode))


if __name__ == "__main__":
    main()

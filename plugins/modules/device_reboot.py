#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_reboot
short_description: Reboot or factory-reset an analyzer or FM monitor and wait for it
version_added: 1.0.0
description:
  - Reboots the device and waits, within O(reboot_timeout), until it answers again; returns RV(elapsed).
  - With O(state=factory_reset), erases the device's configuration, passwords and address; this needs
    O(confirm=true). The device comes back at its factory address with factory credentials; give that address
    in O(factory_host) to wait for it there.
  - A reboot is an action, not a state, so it reports a change every time it runs, unless
    O(only_if_needed=true) limits it to devices whose saved settings wait for a reboot.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  state:
    description: V(rebooted) reboots; V(factory_reset) erases everything and reboots.
    type: str
    choices: [rebooted, factory_reset]
    default: rebooted
  confirm:
    description: Must be V(true) with O(state=factory_reset).
    type: bool
    default: false
  only_if_needed:
    description: Reboot only when the device reports that saved settings wait for a reboot.
    type: bool
    default: false
  wait:
    description: Wait until the device answers again.
    type: bool
    default: true
  reboot_timeout:
    description: Seconds to wait for the device to come back, at least 1 (the connection option O(timeout) bounds each request).
    type: int
    default: 300
  factory_host:
    description: Address the device answers at after a factory reset (its factory address). Defaults to O(host).
    type: str
notes:
  - In check mode nothing is sent; the result says a reboot would happen.
"""

EXAMPLES = r"""
- name: Reboot when saved settings wait for it
  broadcast.monitoring.device_reboot:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    only_if_needed: true
    reboot_timeout: 180
  register: rebooted

- name: Report how long it took
  ansible.builtin.debug:
    msg: "back after {{ rebooted.elapsed }} s"
"""

RETURN = r"""
rebooted:
  description: Whether a reboot (or factory reset) was requested.
  returned: success
  type: bool
elapsed:
  description: Seconds waited until the device answered again.
  returned: success
  type: float
host:
  description: The address the device was waited for at.
  returned: success
  type: str
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import manage_reboot

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="rebooted", choices=["rebooted", "factory_reset"]),
    confirm=dict(type="bool", default=False),
    only_if_needed=dict(type="bool", default=False),
    wait=dict(type="bool", default=True),
    reboot_timeout=dict(type="int", default=300),
    factory_host=dict(type="str"),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: manage_reboot(module.client, module.device, module.params, module.check_mode))


if __name__ == "__main__":
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_network
short_description: Manage the network identity of an analyzer or FM monitor
version_added: 1.0.0
description:
  - Sets DHCP or a static address, netmask, gateway, DNS servers and hostname, the same way on both devices.
  - Both devices save these settings and apply them at the next reboot. The module returns RV(reboot_needed);
    with O(reboot=true) it reboots the device and waits until it answers at its new address, which it returns in
    RV(host), so a play can re-address a device and go on with it.
  - Settings that would strand the device are refused before anything is written
    (a gateway outside the subnet, the network or broadcast address, DHCP together with a static address).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  dhcp:
    description: Whether the device takes its address from DHCP. With V(true), leave O(address) out.
    type: bool
  address:
    description: Static IPv4 address.
    type: str
  netmask:
    description: Netmask in dotted form, for example V(255.255.255.0).
    type: str
  gateway:
    description: Default gateway; must be inside the device's subnet.
    type: str
  dns:
    description: DNS servers in order of preference (the order is compared).
    type: list
    elements: str
  hostname:
    description: Hostname, 1 to 63 letters, digits or hyphens.
    type: str
  reboot:
    description:
      - Reboot when the saved settings wait for a reboot (changed now or before), and wait until the device
        answers at its new address.
    type: bool
    default: false
  wait_host:
    description:
      - Where to wait for the device after the reboot. Defaults to the new static address when the change gives the
        device another one, else to O(host), where it was reached (the static address it keeps is not dialled
        instead); with O(dhcp=true), to O(host), so set it when DHCP gives the device another address.
    type: str
  reboot_timeout:
    description: Seconds to wait for the device to come back after the reboot, at least 1.
    type: int
    default: 300
notes:
  - Options you leave out keep the device's saved value.
  - Costs one login, two reads (settings and status) and one write per changed group (address settings,
    hostname).
"""

EXAMPLES = r"""
- name: Static address, DNS and hostname (applied at the next reboot)
  broadcast.monitoring.device_network:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    address: "{{ ansible_host }}"
    netmask: 255.0.0.0
    gateway: 127.0.0.254
    dns: [127.0.0.53]
    hostname: ts-site-a

- name: Re-address the device, reboot, and go on with it at the new address
  broadcast.monitoring.device_network:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    address: "{{ new_address }}"
    netmask: 255.0.0.0
    reboot: true
    reboot_timeout: 120
  register: readdressed

- name: Talk to the device at its new address from now on
  ansible.builtin.set_fact:
    ansible_host: "{{ readdressed.host }}"
"""

RETURN = r"""
before:
  description: Network settings before the module ran.
  returned: success
  type: dict
  sample: {"dhcp": false, "address": "10.0.0.5", "netmask": "255.255.255.0", "gateway": "10.0.0.1",
           "dns": ["10.0.0.53"], "hostname": "ts-site-a"}
after:
  description: Network settings after the module ran (in check mode, what they would be).
  returned: success
  type: dict
reboot_needed:
  description: Whether saved settings wait for a reboot to take effect.
  returned: success
  type: bool
rebooted:
  description: Whether the module rebooted the device.
  returned: success
  type: bool
host:
  description: The address the device answers at after this run (its new address after a re-addressing reboot).
  returned: success
  type: str
elapsed:
  description: Seconds spent waiting for the device after the reboot.
  returned: success
  type: float
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import manage_network

ARGUMENT_SPEC = dict(
    dhcp=dict(type="bool"),
    address=dict(type="str"),
    netmask=dict(type="str"),
    gateway=dict(type="str"),
    dns=dict(type="list", elements="str"),
    hostname=dict(type="str"),
    reboot=dict(type="bool", default=False),
    wait_host=dict(type="str"),
    reboot_timeout=dict(type="int", default=300),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: manage_network(module.client, module.device, module.params, module.check_mode))


if __name__ == "__main__":
    main()

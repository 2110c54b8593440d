#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ts_snmp
short_description: Manage the SNMP agent of a transport-stream analyzer
version_added: 1.0.0
description:
  - Manages the analyzer's SNMP (v2c) agent (off by default), whether it runs, the addresses whose SNMP requests it
    answers, and where it sends traps.
  - Which errors send a trap is set per alert profile entry (M(broadcast.monitoring.ts_alert_profile),
    C(snmp_trap)); the MIB is downloaded with M(broadcast.monitoring.ts_statistics).
  - Options you leave out keep the device's value. The address lists are compared as sets (order and duplicates
    do not matter); O(lists) says whether the given addresses are added to, removed from, or replace the device's.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.offline
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.TS
options:
  state:
    description:
      - V(merged) sets the options you give (the lists as O(lists) says); options you leave out keep the device's
        value.
      - V(gathered) reads the settings and returns them in RV(gathered), in the shape of this module's options
        (O(enabled), O(listen_addresses), O(trap_addresses)). Nothing is written.
      - V(parsed) returns in RV(parsed) the SNMP settings that the backup in O(running_config) holds, in the shape of
        this module's options (O(enabled), O(listen_addresses), O(trap_addresses)), as V(gathered) would have read it
        from the device when the backup was taken. No device is contacted.
      - V(rendered) returns in RV(rendered) the requests that V(merged) would send to a device in the state of the
        backup in O(running_config) for the options you give. No device is contacted, nothing is written.
    type: str
    choices: [merged, gathered, parsed, rendered]
    default: merged
  enabled:
    description: Whether the SNMP agent runs.
    type: bool
  listen_addresses:
    description:
      - Hosts whose SNMP requests the agent answers, as unicast IPv4 addresses; V(0.0.0.0) means any host.
      - At most 16 on the device.
    type: list
    elements: str
  trap_addresses:
    description:
      - Trap destinations, written C(IPv4-address:port) (port 1 to 65535, usually 162).
      - At most 16 on the device.
    type: list
    elements: str
  lists:
    description:
      - How O(listen_addresses) and O(trap_addresses) meet the device's lists. A list you leave out is not touched.
      - V(add) adds the given addresses to the device's (those it has already are kept once).
      - V(remove) removes the given addresses from the device's (absent ones are ignored).
      - V(replace) makes the device's list exactly the given one; an empty list V([]) clears it.
    type: str
    choices: [add, remove, replace]
    default: add
notes:
  - One invocation costs one login, one read and, when something differs, one write of the whole settings and one
    read back.
  - The analyzer takes the settings only whole, so another run (or user) writing them between this module's read
    and write would erase what it set. Each write is therefore read back; when what this module set is missing,
    it is merged into what the device now has and written again (RV(merged_again)), at most three writes in all,
    after which the module fails saying a concurrent change was detected. A change that lands after the read back
    cannot be seen; the analyzer offers no compare-and-set.
  - The device stores the lists sorted as the module writes them; RV(before) and RV(after) show them sorted.
"""

EXAMPLES = r"""
- name: Run the agent for the NMS and send traps to two collectors
  broadcast.monitoring.ts_snmp:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    enabled: true
    listen_addresses: [10.0.0.50]
    trap_addresses: ["10.0.0.100:162", "10.0.0.101:162"]

- name: Retire one collector, keep the rest
  broadcast.monitoring.ts_snmp:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    lists: remove
    trap_addresses: ["10.0.0.101:162"]

- name: Exactly these addresses, whatever the device had
  broadcast.monitoring.ts_snmp:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    lists: replace
    listen_addresses: [0.0.0.0]
    trap_addresses: ["10.0.0.100:162"]

- name: The SNMP settings a backup holds (no device is contacted)
  broadcast.monitoring.ts_snmp:
    state: parsed
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"

- name: For review, the request that would add a trap collector to the analyzer as backed up
  broadcast.monitoring.ts_snmp:
    state: rendered
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"
    trap_addresses: ["10.0.0.102:162"]
"""

RETURN = r"""
before:
  description: The SNMP settings before the module ran.
  returned: when O(state=merged)
  type: dict
  sample: {"enabled": false, "listen_addresses": [], "trap_addresses": []}
after:
  description:
    - The SNMP settings after the module ran, as read back from the device (in check mode, what they would be).
      They include what a concurrent writer added meanwhile.
  returned: when O(state=merged)
  type: dict
  sample: {"enabled": true, "listen_addresses": ["10.0.0.50"], "trap_addresses": ["10.0.0.100:162"]}
not_declared:
  description:
    - With O(lists=add), per list given (O(listen_addresses), O(trap_addresses)), the addresses that RV(after) holds
      and that the list given does not, that is what the device keeps besides them (added by hand, or by another play).
      C(lists=replace) would remove them.
  returned: when O(state=merged) and O(lists=add)
  type: dict
  sample: {"trap_addresses": ["192.0.2.77:162"]}
merged_again:
  description: How many times the write was merged again because the read back found it overwritten.
  returned: when a concurrent change was merged
  type: int
  sample: 1
lost_answers:
  description:
    - Writes whose answer was lost (the connection dropped), with whether the read back found them landed
      (C(landed)). One that did not land is merged and written again like an overwritten one.
  returned: when an answer was lost
  type: list
  elements: dict
  sample: [{landed: true}]
gathered:
  description: The SNMP settings on the device, in the shape of this module's options.
  returned: when O(state=gathered)
  type: dict
  sample: {"enabled": true, "listen_addresses": ["10.0.0.50"], "trap_addresses": ["10.0.0.100:162"]}
parsed:
  description:
    - The SNMP settings that the backup in O(running_config) holds, in the shape of this module's options (O(enabled),
      O(listen_addresses), O(trap_addresses)), read by the code that V(gathered) reads a device with.
    - Given back to a device in the backup's state with V(merged), it changes nothing.
  returned: when O(state=parsed)
  type: dict
rendered:
  description:
    - The requests that V(merged) would send, in the order it sends them, to a device in the state of the backup in
      O(running_config); each with C(method), C(path) and C(body) (V(null) for a request without one).
    - Secrets are hidden (C(********)) and the user-info of an address or URL is masked, as in the module's other
      results.
  returned: when O(state=rendered)
  type: list
  elements: dict
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 2, "write": 1}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import snmp

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="merged", choices=["merged", "gathered", "parsed", "rendered"]),
    enabled=dict(type="bool"),
    listen_addresses=dict(type="list", elements="str"),
    trap_addresses=dict(type="list", elements="str"),
    lists=dict(type="str", default="add", choices=["add", "remove", "replace"]),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    module.run(lambda: snmp(module.client, module.params, module.check_mode, module.working_state))


if __name__ == "__main__":
    main()

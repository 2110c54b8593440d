#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ts_converter
short_description: Manage the ASI-to-IP converters of a transport-stream analyzer
version_added: 1.0.0
description:
  - The analyzer can send the stream of each ASI input port to an IP multicast group. This module manages that
    conversion for both ports in one invocation, as desired state keyed by O(config[].asi_port).
  - The ports are fixed (1 and 2); nothing is created or deleted, and an unknown port fails before any write.
  - A running converter is described by its destination (O(config[].multicast_address),
    O(config[].multicast_port)), O(config[].interface) and O(config[].ttl); a stopped one only by
    O(config[].running=false). Changing a running converter's settings restarts it with the new ones.
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
      - V(merged) changes what you set and keeps the rest; a stopped converter needs all four settings to start.
      - V(replaced) makes each listed converter exactly as given; an unset O(config[].running) means stopped.
        Converters not listed are left alone.
      - V(gathered) reads both converters and returns them in RV(gathered), in the shape O(config) takes.
      - V(parsed) returns in RV(parsed) the converters that the backup in O(running_config) holds, in the shape
        O(config) takes, as V(gathered) would have read it from the device when the backup was taken. No device is
        contacted.
      - V(rendered) returns in RV(rendered) the requests that V(merged) would send to a device in the state of the
        backup in O(running_config) to bring it to O(config). No device is contacted, nothing is written.
    type: str
    choices: [merged, replaced, gathered, parsed, rendered]
    default: merged
  config:
    description: The converters, at most one entry per ASI port.
    type: list
    elements: dict
    default: []
    suboptions:
      asi_port:
        description: The ASI input port whose stream is converted, 1 or 2.
        type: int
        required: true
      running:
        description:
          - Whether the port's stream is sent to the network.
          - The settings below can only be given with V(true) (a stopped converter sends nothing).
        type: bool
      multicast_address:
        description: Destination multicast group (224.0.0.0 to 239.255.255.255).
        type: str
      multicast_port:
        description: Destination UDP port, 1 to 65535.
        type: int
      interface:
        description: The analyzer's network interface to send from.
        type: str
        choices: [eth0, eth1]
      ttl:
        description: Multicast time to live, 1 to 255.
        type: int
notes:
  - One invocation costs one login, one read and one write per converter that differs (a start, which also
    replaces a running converter's settings, or a stop).
"""

EXAMPLES = r"""
- name: Send ASI 1 to the contribution network, keep ASI 2 off
  broadcast.monitoring.ts_converter:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    state: replaced
    config:
      - asi_port: 1
        running: true
        multicast_address: 239.10.0.1
        multicast_port: 5000
        interface: eth1
        ttl: 16
      - asi_port: 2
        running: false

- name: Raise the TTL of the running converter, nothing else
  broadcast.monitoring.ts_converter:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    config:
      - asi_port: 1
        ttl: 32

- name: Read both converters
  broadcast.monitoring.ts_converter:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    state: gathered
  register: converters

- name: The converters a backup holds (no device is contacted)
  broadcast.monitoring.ts_converter:
    state: parsed
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"

- name: For review, the requests that would stop ASI 1 on the analyzer as backed up
  broadcast.monitoring.ts_converter:
    state: rendered
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"
    config:
      - asi_port: 1
        running: false
"""

RETURN = r"""
before:
  description: The converters before the module ran, in the shape of O(config).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"asi_port": 1, "running": false}, {"asi_port": 2, "running": false}]
after:
  description: The converters after the module ran (in check mode, what they would be).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"asi_port": 1, "running": true, "multicast_address": "239.10.0.1", "multicast_port": 5000,
            "interface": "eth1", "ttl": 16}, {"asi_port": 2, "running": false}]
gathered:
  description: Both converters, in the shape of O(config).
  returned: when O(state=gathered)
  type: list
  elements: dict
changes:
  description:
    - What was (or in check mode, would be) written, one entry per converter.
    - Each update carries C(differences), what differs field by field, with C(path) (nested keys joined by dots),
      C(current) and C(declared); lists are compared whole; a field the update drops (a nested object replaced
      whole without it) has C(declared=null), one it adds C(current=null); secrets are hidden and the user-info
      of an address or URL is masked.
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"action": "update", "key": 1, "differences": [{"path": "enabled", "current": false, "declared": true}]}]
parsed:
  description:
    - The converters that the backup in O(running_config) holds, in the shape O(config) takes, read by the code that
      V(gathered) reads a device with.
    - Given back to a device in the backup's state with V(merged), it changes nothing.
  returned: when O(state=parsed)
  type: list
  elements: dict
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
  sample: {"login": 1, "read": 1, "write": 1}
written:
  description: Changes that had been written when a write failed.
  returned: failure during writes
  type: list
  elements: dict
not_written:
  description: Changes not written because an earlier write failed.
  returned: failure during writes
  type: list
  elements: dict
unknown:
  description:
    - A write whose answer was lost (the connection dropped) and whose effect could not be read back either, so
      it may or may not have landed. Read the device (or run again) before assuming either.
  returned: failure during writes
  type: list
  elements: dict
lost_answers:
  description:
    - Writes whose answer was lost (the connection dropped). Such a write is never sent again blindly; the
      device is read back, and the write is sent once more only when it did not land (C(landed=false)).
  returned: when an answer was lost
  type: list
  elements: dict
  sample: [{action: update, key: 1, landed: true}]
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import reconcile
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import Converters

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="merged", choices=["merged", "replaced", "gathered", "parsed", "rendered"]),
    config=dict(type="list", elements="dict", default=[], options=dict(
        asi_port=dict(type="int", required=True),
        running=dict(type="bool"),
        multicast_address=dict(type="str"),
        multicast_port=dict(type="int"),
        interface=dict(type="str", choices=list(api.INTERFACES)),
        ttl=dict(type="int"),
    )),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    params = module.params
    module.run(lambda: reconcile(Converters(module.client), params["config"], module.working_state, module.check_mode))


if __name__ == "__main__":
    main()

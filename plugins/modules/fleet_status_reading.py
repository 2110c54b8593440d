#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fleet_status_reading
short_description: Read one device for the fleet status, recording a device that does not answer
version_added: 1.0.0
description:
  - The fleet status's reading of one device in one task (the P(broadcast.monitoring.fleet_status#role) role runs
    it once per device). Takes a snapshot of what the device is doing with M(broadcast.monitoring.device_snapshot)
    (one login and the reads of a snapshot; nothing is written) and sets the fact C(fleet_status_reading).
  - A device that fails (does not answer, refuses the login, answers in a shape that cannot be read) does not fail
    the task; its reading (RV(ansible_facts.fleet_status_reading)) has no snapshot, and its C(error) says why.
  - The device's connection settings are taken by name, as its device role has them. The device role's
    C(<device_type>_host), C(<device_type>_port), C(<device_type>_protocol), C(<device_type>_validate_certs),
    C(<device_type>_ca_path), C(<device_type>_role) and C(<device_type>_password) (for example C(ts_analyzer_port)),
    else the fleet's C(device_port), C(broadcast_monitoring_protocol), C(broadcast_monitoring_validate_certs),
    C(broadcast_monitoring_ca_path), C(broadcast_monitoring_role) and C(broadcast_monitoring_password); the host,
    else C(ansible_host), else the inventory name. An option set by none of them keeps the module's default and its
    environment fallback (see M(broadcast.monitoring.device_snapshot)).
  - With O(check_role_variables), first checks the variables of the role the task runs in, as
    M(broadcast.monitoring.role_variables) does (a variable with the role's prefix that the role does not know) and
    by type against the role's C(meta/argument_specs.yml), with the messages of Ansible's own argument validation. A
    role that runs it first can skip Ansible's validation (C(rolespec_validate=false)), which costs a task per host.
  - Runs the module in the controller's process where it can, as the collection's other modules do.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
options:
  device_type:
    description:
      - The kind of device; it names the device role whose connection variables are taken (C(<device_type>_host)...).
    type: str
    required: true
    choices: [ts_analyzer, fm_monitor]
  check_role_variables:
    description:
      - Check the variables of the role the task runs in, their names and their types, before any request; a
        problem fails the task and names the variable. Outside a role, the task fails.
    type: bool
    default: false
  play_variables:
    description:
      - With O(check_role_variables), further names with the role's prefix that are not role variables but are
        known to the playbooks that run the role (for example C(fleet_status_hosts)).
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - broadcast.monitoring.attributes.INFO
attributes:
  action:
    description: Runs on the controller as an action plugin, which runs M(broadcast.monitoring.device_snapshot).
    support: full
notes:
  - The reading is data. Text from the device is never templated, and the reading is masked like every output of the
    collection (no password or token in it).
"""

EXAMPLES = r"""
# the one per-device task of the fleet_status role
- name: Read the device
  broadcast.monitoring.fleet_status_reading:
    device_type: "{{ fleet_status_device_type }}"
    check_role_variables: true
    play_variables: [fleet_status_hosts]
"""

RETURN = r"""
ansible_facts:
  description: The fact the reading sets.
  returned: always
  type: dict
  contains:
    fleet_status_reading:
      description:
        - The device's reading. C(device_type); C(groups), the host's groups; C(declared), how many items (an
          analyzer's inputs) the device role declares, or null; C(read_at), when (UTC); C(snapshot), the
          RV(broadcast.monitoring.device_snapshot#module:snapshot) taken, or null when the device failed; C(error), why
          it failed, or empty.
      returned: always
      type: dict
      sample:
        device_type: ts_analyzer
        groups: [studio_north, ts_analyzers]
        declared: 2
        read_at: "2026-11-25T20:15:00Z"
        snapshot: {"device_type": "ts_analyzer", "taken_at": "2026-11-25T20:15:00Z", "firmware_version": "1.0.0",
                   "reboot_needed": false, "model": "TSA-1000", "inputs": []}
        error: ""
unknown:
  description: With O(check_role_variables), the variables with the role's prefix that the role does not know.
  returned: failure
  type: list
  elements: str
  sample: [fleet_status_dri]
argument_errors:
  description: With O(check_role_variables), what the role's argument spec says of its variables' types.
  returned: failure
  type: list
  elements: str
  sample: ["value of fleet_status_device_type must be one of: ts_analyzer, fm_monitor, got: ts"]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.broadcast.monitoring.plugins.module_utils._status_reading import ARGUMENT_SPEC


def main():
    # The action plugin does the work; run as a bare module, say so instead of doing nothing.
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="fleet_status_reading runs as an action plugin of broadcast.monitoring")


if __name__ == "__main__":
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_onboard
short_description: Read an analyzer's or FM monitor's current state as the variables of its role
version_added: 1.0.0
description:
  - Reads the whole state that the C(broadcast.monitoring.ts_analyzer) or C(broadcast.monitoring.fm_monitor) role
    manages, and returns it as that role's variables (RV(variables)), and as the text of a C(host_vars) file
    (RV(content)). C(playbooks/onboard.yml) writes one such file per device; the Onboarding guide shows how.
  - Logs in once (M(broadcast.monitoring.device_login)), then reads each part with the module that writes it, in check
    mode, so nothing is ever written. The resource modules read with C(state=gathered) (their C(gathered) is in the
    shape of their C(config)), the settings modules without any option (their C(before)).
  - "The variables of a V(ts_analyzer): C(ts_analyzer_network), C(ts_analyzer_time), C(ts_analyzer_logging),
    C(ts_analyzer_snmp), C(ts_analyzer_alert_profiles) (the factory profile too, under its name on the analyzer), C(ts_analyzer_inputs),
    C(ts_analyzer_converters)."
  - "The variables of an V(fm_monitor): C(fm_monitor_network), C(fm_monitor_time), C(fm_monitor_logging),
    C(fm_monitor_tuners), C(fm_monitor_thresholds), C(fm_monitor_schedules), each listing every tuner, and
    C(fm_monitor_tuners_all), C(fm_monitor_thresholds_all), C(fm_monitor_schedules_all) set to null, so that no
    group's value mixes into them."
  - The values are the device's as the modules compare them, so the role run with these variables, with its purge
    variables on too, changes nothing, and C(playbooks/audit.yml) finds no drift. With DHCP on, the network variable
    leaves out the address, netmask and gateway DHCP assigns. A tuner whose schedule is active has no
    C(operating_state) (its schedule sets it, and the role refuses both).
  - No password or token is part of the variables or of anything the module returns. Neither device returns a password.
    Should a device return a value under a key named like a secret (C(password), C(token), C(community),
    C(passphrase), C(secret)), or the user-info of an address or URL (C(user:password@)), it is replaced by a
    reference to a vault variable, C({{ vault_<host>_<path> }}), whose name is listed in RV(secrets).
  - What the device holds is data, never code. In RV(content), every value read from the device is tagged C(!unsafe),
    so Ansible, which templates inventory values, reads it as it is (an input named C({{ lookup(...) }}) runs nothing
    on the controller). Only the references to vault variables above are left as templates; in a reference to the
    user-info of an address, the rest of the address is a quoted string literal with its special characters escaped.
  - The V(user) role (O(role)) can read every part.
extends_documentation_fragment:
  - broadcast.monitoring.connection.PASSED_ON
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
attributes:
  action:
    description: Runs on the controller as an action plugin, which runs each part's module where the task runs.
    support: full
  async:
    description: Cannot run asynchronously.
    support: none
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the device.
    support: full
    details: It only reads (every module it runs runs in check mode); it runs the same in check mode and never reports
      a change.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode).
    support: none
    details: Nothing changes, so there is no diff.
  action_group:
    description: Use C(group/broadcast.monitoring.device) or C(group/broadcast.monitoring.all) in C(module_defaults) to
      set connection options once.
    support: full
    membership:
      - broadcast.monitoring.device
      - broadcast.monitoring.all
options:
  device_type:
    description: The kind of device, which picks its role and its parts.
    type: str
    required: true
    choices: [fm_monitor, ts_analyzer]
  password:
    description:
      - The account's password, used once by M(broadcast.monitoring.device_login). Left out, the modules fall back to
        E(BROADCAST_MONITORING_PASSWORD) where they run.
    type: str
  token:
    description: A bearer token instead of a password (no login then).
    type: str
notes:
  - Connection options are passed on as given, so C(module_defaults) for C(group/broadcast.monitoring.all) and the
    E(BROADCAST_MONITORING_*) environment variables work as they do for each module.
  - One login and one module run per part (seven on an analyzer, six on an FM monitor); each module makes the reads
    it makes in check mode, and no write.
seealso:
  - module: broadcast.monitoring.device_state
"""

EXAMPLES = r"""
- name: Read an analyzer's state as the variables of the ts_analyzer role
  broadcast.monitoring.device_onboard:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: ts_analyzer
  register: onboarded

- name: Write them as the analyzer's host_vars file
  ansible.builtin.copy:
    content: "{{ onboarded.content }}"
    dest: "{{ onboard_dir }}/host_vars/{{ inventory_hostname }}.yml"
    mode: "0600"

- name: The same for an FM monitor, as a user that can only read
  broadcast.monitoring.device_onboard:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    device_type: fm_monitor
  register: fm_variables
"""

RETURN = r"""
variables:
  description:
    - The role's variables, by name, in the role's order; what C(playbooks/onboard.yml) writes.
    - Each part's value is what the role's variable takes (the C(config) of the resource modules, the options of the
      settings modules).
  returned: success
  type: dict
  sample: {"ts_analyzer_snmp": {"enabled": true, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["10.0.0.100:162"]},
           "ts_analyzer_converters": [{"asi_port": 1, "running": false}, {"asi_port": 2, "running": false}]}
content:
  description:
    - RV(variables) as the text of a YAML C(host_vars) file, with a header comment naming the host and the role
      (RV(header)).
  returned: success
  type: str
header:
  description: The header comment of RV(content).
  returned: success
  type: str
variable_texts:
  description:
    - Each variable of RV(variables) as YAML text, by name, device text tagged C(!unsafe); the texts of some of them,
      one after the other, make a variables file. C(playbooks/onboard.yml) with C(onboard_group_vars=true) writes
      those that every device of a group shares into the group's file.
  returned: success
  type: dict
  sample: {"ts_analyzer_time": "ts_analyzer_time:\n  ntp: true\n  ntp_servers: [192.0.2.123]\n  timezone: UTC\n"}
secrets:
  description: The vault variables the RV(variables) refer to instead of secrets the device returned (none, as a rule).
  returned: success
  type: list
  elements: str
  sample: []
modules:
  description: The modules the task ran, in order (C(device_login) first, unless O(token) was given).
  returned: always
  type: list
  elements: str
  sample: [device_login, device_network, device_time, device_logging, fm_tuner, fm_thresholds, fm_schedule]
failed_part:
  description: The part whose module failed.
  returned: failure of a part
  type: str
  sample: inputs
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.broadcast.monitoring.plugins.module_utils._device_state import PASSED_ON
from ansible_collections.broadcast.monitoring.plugins.module_utils._onboard import ARGUMENT_SPEC


def main():
    # The action plugin does the work; run as a bare module, say so instead of doing nothing.
    module = AnsibleModule(argument_spec=dict(PASSED_ON, **ARGUMENT_SPEC), supports_check_mode=True)
    module.fail_json(msg="device_onboard runs as an action plugin of broadcast.monitoring; call it as a task")


if __name__ == "__main__":
    main()

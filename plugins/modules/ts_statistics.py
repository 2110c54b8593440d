#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ts_statistics
short_description: Reset statistics and download alert logs and the MIB of a transport-stream analyzer
version_added: 1.0.0
description:
  - Actions on the analyzer's statistics that are not state, one O(operation) per invocation. They run only when
    asked (M(broadcast.monitoring.ts_info) never does any of this).
  - Resets and clears always report a change. Downloads report a change only when the local file's content
    changes.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.TS
attributes:
  check_mode:
    details: In check mode the module sends no action and downloads nothing; it reads only the input list (to
      resolve O(inputs) and O(input)) and says in RV(msg) what would happen, with C(changed=true).
  diff_mode:
    support: none
    details: Actions are not state; the result says what was done (RV(msg)).
options:
  operation:
    description:
      - V(reset_inputs) clears the statistics and the alert log of each input in O(inputs) (not the archive).
      - V(reset_current) sets the current error counts of every input to zero (sums, alert logs and archive stay).
      - V(clear_archive) clears the statistics archive of every input.
      - V(download_alerts) writes the alert log of O(input) (TR 101 290 and IP layer, oldest first) as CSV to O(dest).
      - V(download_mib) writes the analyzer's SNMP MIB (C(DVB-MGTR101290-MIB)) to O(dest).
    type: str
    required: true
    choices: [reset_inputs, reset_current, clear_archive, download_alerts, download_mib]
  inputs:
    description: Names of the inputs to reset, with V(reset_inputs).
    type: list
    elements: str
  input:
    description: Name of the input whose alert log to download, with V(download_alerts).
    type: str
  dest:
    description:
      - With a download, the file to write, or an existing directory to write the device's file name into
        (C(input-<id>-alerts.csv), C(DVB-MGTR101290-MIB.txt)). Its directory must exist.
      - A path on the host the module runs on (the controller with a local connection). The file is streamed to
        disk and replaced only when its content differs.
      - A new file is C(0600) (less the umask); a symlink at its place is replaced, never read or written through.
    type: path
notes:
  - V(reset_inputs) costs one read and one action per input; the other resets one action; a download one request
    (V(download_alerts) one read more, to find the input).
"""

EXAMPLES = r"""
- name: Start the day with clean counters on Mux 1
  broadcast.monitoring.ts_statistics:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    operation: reset_inputs
    inputs: [Mux 1]

- name: Keep the alert log of Mux 1 on the controller
  broadcast.monitoring.ts_statistics:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    operation: download_alerts
    input: Mux 1
    dest: /tmp/mux1-alerts.csv

- name: Fetch the MIB for the NMS
  broadcast.monitoring.ts_statistics:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    operation: download_mib
    dest: /tmp

- name: Clear the archive
  broadcast.monitoring.ts_statistics:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    operation: clear_archive
"""

RETURN = r"""
msg:
  description: What was done, or in check mode what would be done.
  returned: always
  type: str
  sample: reset the statistics and alert log of 'Mux 1'
inputs:
  description: The inputs reset (or in check mode, that would be).
  returned: with O(operation=reset_inputs)
  type: list
  elements: str
file:
  description: The downloaded file, with C(dest), C(size) in bytes and C(sha256).
  returned: with a download, not in check mode
  type: dict
  sample: {"dest": "/tmp/DVB-MGTR101290-MIB.txt", "size": 2310, "sha256": "9b1c..."}
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 1, "write": 1}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.actions import statistics

ARGUMENT_SPEC = dict(
    operation=dict(type="str", required=True,
                   choices=["reset_inputs", "reset_current", "clear_archive", "download_alerts", "download_mib"]),
    inputs=dict(type="list", elements="str"),
    input=dict(type="str"),
    dest=dict(type="path"),
)

REQUIRED_IF = [
    ("operation", "reset_inputs", ["inputs"]),
    ("operation", "download_alerts", ["input", "dest"]),
    ("operation", "download_mib", ["dest"]),
]


def main():
    module = DeviceModule(ARGUMENT_SPEC, api, required_if=REQUIRED_IF)
    module.run(lambda: statistics(module.client, module.params, module.check_mode))


if __name__ == "__main__":
    main()

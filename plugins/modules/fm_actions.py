#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fm_actions
short_description: Alert log, downloads and monitor output of an FM monitoring receiver
version_added: 1.0.0
description:
  - Operations on an FM monitoring receiver that are not tuner configuration, each done only when asked for,
    in this order within one invocation
    1. downloads (O(alerts_csv), O(mib)), so that the alert log can be saved and then cleared in one task;
    2. clearing the alert log (O(clear_alerts));
    3. routing a tuner to the front-panel monitor output (O(monitor)).
  - A download is V(changed) only when the file's content changes; clearing only when the log held alerts;
    the monitor output only when it was routed elsewhere or muted otherwise.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.FM
attributes:
  check_mode:
    support: full
    details:
      - In check mode the module reads (the alert count, the downloads, the monitor output) and writes neither the
        device nor a file; it reports what would change.
options:
  alerts_csv:
    description: Save the whole alert log as CSV (columns C(tuner_id), C(type), C(from), C(till)) to a file.
    type: dict
    suboptions:
      dest:
        description:
          - File to write on the host the module runs on; its folder must exist.
          - A new file is C(0600) (less the umask); a symlink at its place is replaced, never read or written through.
        type: path
        required: true
      order:
        description: Rows by start time, oldest (V(asc)) or newest (V(desc)) first.
        type: str
        choices: [asc, desc]
        default: asc
  mib:
    description: Save the device's SNMP MIB to a file.
    type: dict
    suboptions:
      dest:
        description:
          - File to write on the host the module runs on; its folder must exist.
          - A new file is C(0600) (less the umask); a symlink at its place is replaced, never read or written through.
        type: path
        required: true
  clear_alerts:
    description:
      - Empty the alert log (all tuners, no confirmation). Alerts whose condition persists are recorded again at the next
        measurement.
    type: bool
    default: false
  monitor:
    description: Route a tuner to the front-panel headphone (monitor) output.
    type: dict
    suboptions:
      tuner_id:
        description: Zero-based tuner number.
        type: int
        required: true
      muted:
        description:
          - Mute the monitor output. When left out, the current mute is kept.
          - The device reports the monitor tuner in its status and the mute in its configuration; where it reports
            neither, the module always sends the selection.
        type: bool
notes:
  - Costs one login; a download one read each; clearing one read (the alert count) and one delete when there are
    alerts; the monitor output two reads (status and configuration) and one write when it differs.
  - The user role may do all of this.
"""

EXAMPLES = r"""
- name: Save the alert log, then clear it
  broadcast.monitoring.fm_actions:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    alerts_csv:
      dest: "/tmp/{{ inventory_hostname }}-alerts.csv"
    clear_alerts: true

- name: Fetch the MIB for the SNMP manager
  broadcast.monitoring.fm_actions:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    mib:
      dest: /tmp/FM-MONITOR-MIB.txt

- name: Listen to tuner 3 on the headphones
  broadcast.monitoring.fm_actions:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    monitor:
      tuner_id: 3
      muted: false
"""

RETURN = r"""
downloads:
  description: Per download, C(dest), C(changed), C(size) in bytes, C(checksum) (SHA-256 of the content) and
    C(before) (SHA-256 of the file before, or V(null) when there was none).
  returned: when O(alerts_csv) or O(mib) is given
  type: dict
  sample: {"alerts_csv": {"dest": "/tmp/alerts.csv", "changed": true, "size": 512, "checksum": "9f2c...", "before": null}}
cleared:
  description: How many alerts the log held (and were, or in check mode would be, cleared).
  returned: when O(clear_alerts=true)
  type: int
  sample: 12
monitor:
  description: The monitor output C(before) and C(after) (C(tuner_id), C(muted); V(null) where the device does not say).
  returned: when O(monitor) is given
  type: dict
  sample: {"before": {"tuner_id": 0, "muted": false}, "after": {"tuner_id": 3, "muted": false}}
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 2, "write": 1}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.actions import run_actions
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

ARGUMENT_SPEC = dict(
    alerts_csv=dict(type="dict", options=dict(dest=dict(type="path", required=True),
                                              order=dict(type="str", default="asc", choices=["asc", "desc"]))),
    mib=dict(type="dict", options=dict(dest=dict(type="path", required=True))),
    clear_alerts=dict(type="bool", default=False),
    monitor=dict(type="dict", options=dict(tuner_id=dict(type="int", required=True), muted=dict(type="bool"))),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    module.run(lambda: run_actions(module.client, module.params, module.check_mode))


if __name__ == "__main__":
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_snapshot
short_description: Record what an analyzer or FM monitor is doing, and what stopped working since an earlier record
version_added: 1.0.0
description:
  - Records what the device is doing now, in operation rather than in configuration (RV(snapshot)). An analyzer, per
    input, whether it receives its stream, its bitrate, its TR 101 290 priority-1 status and its active alarms; an FM
    monitor, per tuner, whether it is tuned, its signal OK, its stream enabled and its quality alarms; both, the
    firmware version and whether a reboot is pending.
  - With O(compare_to) (a snapshot taken earlier, before a firmware upgrade, a restore or a configuration change),
    also returns what changed (RV(changes)) and, among the changes, the regressions (RV(regressions)) - what worked
    in the earlier snapshot and does not now, naming the input or tuner. With O(fail_on_regression) the task then
    fails, naming them, each with its check, and the O(ignore) list that would waive them. An input or tuner that
    works again is a change, not a regression.
  - Only what worked can regress. An input that was not receiving its stream, or a tuner that was not enabled and
    tuned (locked onto its frequency), in the earlier snapshot is not checked at all - a tuner that a change enables
    and that raises quality alarms, or an input that starts with priority-1 errors, is a change, not a regression.
  - The earlier snapshot may also be the one a backup keeps (M(broadcast.monitoring.device_backup)), or the whole
    backup document, which records only whether each input was receiving and each tuner enabled, tuned and
    streaming. Its inputs are matched by name (a restore gives them new ids); checks of what it does not record
    (V(bitrate), V(priority1), V(signal_ok), V(alarms)) are not made.
  - It only reads and never changes anything. The V(user) role is enough.
  - Two snapshots already taken are compared without a device by the filter P(broadcast.monitoring.snapshot_compare#filter).
  - The docs guide "Snapshots around a change" shows the pattern (snapshot, change, snapshot with O(compare_to)).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes.INFO
  - broadcast.monitoring.attributes.DEVICE
options:
  compare_to:
    description:
      - A snapshot taken earlier of the same device (RV(snapshot) of an earlier run; the whole registered result is
        taken too), or the snapshot a backup of it keeps (a backup document is taken too). Returns RV(changes) and
        RV(regressions) between it and the snapshot taken now.
      - A snapshot of the other device type is refused.
    type: dict
  confirm_count:
    description:
      - With O(compare_to), when the comparison finds regressions, take up to this many more snapshots, O(confirm_interval)
        seconds apart, and count a regression only when every snapshot shows it. One that clears is listed in
        RV(transient) instead. A live stream has short errors (a continuity error is current for a few seconds) and a
        tuner takes a moment to lock after a reboot; one reading alone would stop a rollout for them.
      - V(0) compares the first snapshot only. Without regressions, no further snapshot is taken, so a change that
        worked costs one snapshot whatever the value.
    type: int
    default: 2
  confirm_interval:
    description:
      - Seconds between the snapshots of O(confirm_count).
    type: float
    default: 5.0
  fail_on_regression:
    description:
      - Fail when O(compare_to) is given and RV(regressions) is not empty; the message names every regression. The
        result still carries RV(snapshot), RV(changes) and RV(regressions).
    type: bool
    default: false
  ignore:
    description:
      - Checks whose regressions are not counted (they are still listed in RV(changes)). V(present) an input or tuner
        that worked and is gone; V(receiving), V(bitrate), V(priority1) an analyzer input; V(tuned), V(signal_ok),
        V(stream_enabled), V(alarms) an FM tuner. A check of the other device type is ignored, so a role can pass one
        list to both.
      - V(priority1) counts a priority-1 error the analyzer reports as current in every snapshot of O(confirm_count);
        on streams whose errors last longer, filter them with the thresholds of the inputs' alert profiles, or ignore
        the check.
    type: list
    elements: str
    choices: [present, receiving, bitrate, priority1, tuned, signal_ok, stream_enabled, alarms]
    default: []
  ignore_variable:
    description:
      - How the failure message of O(fail_on_regression) names the list that waives a check (O(ignore)). A role
        passes its own variable, such as C(restore_snapshot_ignore), so that the message tells the user what to set.
    type: str
    default: ignore
notes:
  - An analyzer input receives when its state is C(ok); C(priority1) is the worst current status of the priority-1
    errors in the current statistics. Paused inputs do not receive; pausing a receiving input is a regression.
  - A bitrate that moved by at most 5 % is not listed as a change.
  - >-
    The failure message names each regression and its check, and ends with the list that would waive them, in
    the variable O(ignore_variable) names, for example - 2 regression(s) since the earlier snapshot (something that
    worked then does not now): input News (id 1): was receiving its stream, now does not (state no_signal) [check
    receiving]; input News (id 1): bitrate fell from 12034000 bit/s to 0 [check bitrate]. If this is expected, waive
    the check(s) with ignore: [receiving, bitrate]
"""

EXAMPLES = r"""
- name: Record what the device is doing before the change
  broadcast.monitoring.device_snapshot:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password if device_type == 'ts_analyzer' else fm_user_password }}"
    device_type: "{{ device_type }}"
  register: before

# ... the change: a firmware upgrade, a restore, site.yml ...

- name: Stop when something that worked before does not now
  broadcast.monitoring.device_snapshot:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password if device_type == 'ts_analyzer' else fm_user_password }}"
    device_type: "{{ device_type }}"
    compare_to: "{{ before.snapshot }}"
    fail_on_regression: true
  register: after

- name: Show what changed in operation
  ansible.builtin.debug:
    msg: "{{ after.changes }}"

- name: Compare two snapshots kept from earlier runs, without the device
  ansible.builtin.set_fact:
    operation: "{{ before.snapshot | broadcast.monitoring.snapshot_compare(after.snapshot) }}"
"""

RETURN = r"""
snapshot:
  description:
    - What the device is doing now. C(device_type), C(taken_at) (UTC, the controller's clock), C(firmware_version),
      C(reboot_needed), C(model) (as the device names it); an analyzer's C(inputs) or an FM monitor's C(tuners),
      ordered by id. No secret is in it.
    - An input - C(id), C(name), C(monitoring), C(state) (as the device reports it), C(receiving), C(bitrate) (bit/s),
      C(priority1) (C(ok), C(warning) or C(critical)), C(priority1_errors) and C(alarms) (the error names whose
      current status is not OK, in the analyzer's error order).
    - A tuner - C(id), C(name), C(state) (C(disabled), C(enabled), C(sleep)), C(frequency) (kHz), C(tuned),
      C(signal_ok), C(stream_enabled), C(rssi) (the signal strength the tuner measures; it moves by itself and is never
      listed in RV(changes)), C(alarms) (the tokens of the tuner's quality alarms, sorted).
  returned: success
  type: dict
  sample:
    device_type: ts_analyzer
    taken_at: "2026-11-25T20:15:00Z"
    firmware_version: 1.0.0
    reboot_needed: false
    model: TSA-1000
    inputs:
      - {"id": 1, "name": "Mux 1", "monitoring": true, "state": "ok", "receiving": true, "bitrate": 12034000,
         "priority1": "ok", "priority1_errors": [], "alarms": []}
changes:
  description:
    - With O(compare_to) - every difference between the two snapshots, in item order. C(item) (C(device), or the input
      or tuner, such as C(input Mux 1 (id 1)), C(tuner 0 (Tuner 1))), C(what) (the field; C(present) for an item
      added or gone), C(before), C(after).
  returned: when compare_to is given
  type: list
  elements: dict
  sample:
    - {"item": "device", "what": "firmware_version", "before": "1.0.0", "after": "2.4.1"}
    - {"item": "input Mux 1 (id 1)", "what": "receiving", "before": true, "after": false}
regressions:
  description:
    - With O(compare_to) - what worked before and does not now, in every snapshot O(confirm_count) took. C(item),
      C(what) (the check, see O(ignore)), C(before), C(after) and C(message).
    - RV(snapshot) and RV(changes) are those of the last snapshot taken.
  returned: when compare_to is given
  type: list
  elements: dict
  sample:
    - {"item": "input Mux 1 (id 1)", "what": "receiving", "before": true, "after": false,
       "message": "input Mux 1 (id 1): was receiving its stream, now does not (state no_signal)"}
transient:
  description:
    - With O(compare_to) - regressions the first snapshot showed that cleared in a later one of O(confirm_count)
      (not counted), as in RV(regressions), with the values of the snapshot that showed them.
  returned: when compare_to is given
  type: list
  elements: dict
  sample:
    - {"item": "input Mux 2 (id 2)", "what": "priority1", "before": "ok", "after": "critical",
       "message": "input Mux 2 (id 2): TR 101 290 priority 1 was ok, now critical (continuity_count_error)"}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._snapshot import ALL_CHECKS, run

ARGUMENT_SPEC = dict(
    compare_to=dict(type="dict"),
    confirm_count=dict(type="int", default=2),
    confirm_interval=dict(type="float", default=5.0),
    fail_on_regression=dict(type="bool", default=False),
    ignore=dict(type="list", elements="str", choices=list(ALL_CHECKS), default=[]),
    ignore_variable=dict(type="str", default="ignore"),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, reads_only=True)
    module.run(lambda: run(module.client, module.device, module.params))


if __name__ == "__main__":
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_state
short_description: Apply the whole declared state of an analyzer or FM monitor in one task
version_added: 1.0.0
description:
  - Logs in once (M(broadcast.monitoring.device_login)) and runs the module of each declared part of O(parts) in a
    fixed order, handing each the token. This is what the C(broadcast.monitoring.ts_analyzer) and
    C(broadcast.monitoring.fm_monitor) roles run.
  - "The parts of a V(ts_analyzer), in order: C(network) (M(broadcast.monitoring.device_network)), C(time)
    (M(broadcast.monitoring.device_time)), C(logging) (M(broadcast.monitoring.device_logging)), C(snmp)
    (M(broadcast.monitoring.ts_snmp)), C(alert_profiles) (M(broadcast.monitoring.ts_alert_profile)), C(inputs)
    (M(broadcast.monitoring.ts_input)), C(converters) (M(broadcast.monitoring.ts_converter))."
  - With O(purge), the alert profiles take two passes around the inputs, as their dependencies require. The
    declared profiles are created and updated first, the inputs then move to them, and only after that are the
    profiles not declared deleted (a second run of M(broadcast.monitoring.ts_alert_profile), made only when there
    is one to delete). So one run can replace a profile and move the inputs that use it. In check mode that
    second pass is planned from the first pass and the inputs part, which have written nothing.
  - In check mode, the inputs part takes inputs that name a profile the alert profiles part would create.
  - "The parts of an V(fm_monitor), in order: C(network), C(time), C(logging), C(schedules) and C(schedules_all)
    (M(broadcast.monitoring.fm_schedule)), C(tuners) and C(tuners_all) (M(broadcast.monitoring.fm_tuner)),
    C(thresholds) and C(thresholds_all) (M(broadcast.monitoring.fm_thresholds))."
  - "The schedules go before the tuners: a schedule that the schedules part writes active puts its tuner in the
    state the schedule gives at the device's time, and the tuners part leaves the state of every tuner whose schedule
    is then active (with purge too, in the plan too: it is given the schedules part's result as
    C(scheduled_tuners))."
  - A part that is left out or null is not managed. Each part's value is what that module takes (C(config) for the
    lists, the options themselves for the dicts, C(all_tuners) for the C(_all) parts).
  - Before the first request (the login included), every part's arguments are checked against its module's argument
    spec and by the checks that module makes without the device (ranges, addresses, names), so a part that would be
    refused stops the task before anything is sent.
  - Then every part is planned before any part is written. Each part's module runs in check mode first, which
    makes every check the module makes, those only the device can answer too (for example a profile name or a
    tuner the device does not have). Only when every part's plan holds are the parts the plan would change run
    again to write. A part the plan refuses stops the task with nothing written on any part, and the message
    says so. A part the plan finds unchanged is not run a second time, so a run that changes nothing costs one
    module run per part, as before.
  - The work is the same as one task per part, with one task per device instead of one per part (Ansible's cost
    per task, docs/performance.md). The modules run where the task runs (C(delegate_to), execution nodes,
    mitogen), in check mode and diff mode when the task is. The diff has one entry per changed settings part
    (network, time, logging, snmp), headed with the part's name, and one per object that differs in a list part,
    headed with the part's and the object's name.
  - "For example C(alert_profiles: Strict) or C(thresholds: tuner 3) heads the diff of one object."
  - What changed (in check mode, what would change) is shown in the default output without C(-v), one line per
    object of a list part and one per settings part, after the host's name; the same lines are in
    RV(changes_summary).
  - "For example C(ts-001: inputs: update MC 01: source.multicast.port 5000 -> 5002)."
  - When a part fails while it is written (the device refuses or fails a write the plan could not foresee), the parts
    after it are not run, and the message names the failed part, the parts applied before it (changed or not) and
    those not applied.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection.PASSED_ON
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  device_type:
    description: The kind of device, which picks its parts.
    type: str
    required: true
    choices: [fm_monitor, ts_analyzer]
  parts:
    description:
      - The declared state, one key per part (see the description). Unknown keys fail before anything runs.
    type: dict
    required: true
  purge:
    description:
      - Remove what is not declared. Analyzer alert profiles and inputs use C(state=overridden) (the factory
        profile, whatever its name, is kept at factory values unless declared; the profiles are deleted after the
        inputs part, see the description),
        converters and the FM monitor's per-tuner parts C(state=replaced), SNMP C(lists=replace).
      - Without purge every part uses C(state=merged) (SNMP C(lists=add)).
    type: bool
    default: false
  purge_parts:
    description:
      - O(purge) for single parts, by part name; a part left out, or set to null, follows O(purge).
      - "The parts it applies to: C(snmp), C(alert_profiles), C(inputs), C(converters) on a V(ts_analyzer);
        C(tuners), C(thresholds), C(schedules) on an V(fm_monitor) (the C(_all) parts go with their part)."
      - For example O(purge=false) with O(purge_parts) C(snmp=true) makes the SNMP address lists exact and leaves
        the undeclared inputs, alert profiles and converters alone.
      - With the alert profiles purged and the inputs not, an undeclared input that uses an undeclared profile stops
        the task before anything is written (the profile cannot be deleted while in use).
    type: dict
    default: {}
  reboot:
    description: Reboot after a network change (C(reboot) of M(broadcast.monitoring.device_network)).
    type: bool
    default: false
  check_role_variables:
    description:
      - Run inside a role, first check the host's variables of that role, before any request. Their types and
        values against the role's argument spec (the checks and messages of the argument validation Ansible makes
        when a role starts, which a playbook may then skip with C(rolespec_validate=false)); then refuse those with
        the role's prefix that the role does not know, as M(broadcast.monitoring.role_variables) does.
      - In a device role of this collection (C(broadcast.monitoring.ts_analyzer), C(broadcast.monitoring.fm_monitor)),
        every option the task does not give is taken from the role's variables by name, as the role's README
        describes them (C(<role>_port), else C(device_port); C(<role>_protocol), else C(broadcast_monitoring_protocol);
        and so on; C(<role>_<part>) for each part of O(parts), C(<role>_purge_<part>) for O(purge_parts)).
      - There, with the role's snapshot gate (C(<role>_reboot) and C(<role>_snapshot)) or revert
        (C(<role>_revert_on_regression)) on, outside check mode, a change the plan finds is not written by this task
        but deferred (RV(deferred)) to the role's tasks that write it between the snapshots or the revert's steps.
        The device roles use this instead of a task of their own, which would cost every device another task.
      - There, the passwords the role declares (C(<role>_passwords)) are set after the state with
        M(broadcast.monitoring.device_password), the user role's first (RV(passwords)); under the snapshot gate or
        the revert, the role's tasks that write a deferred change set them last instead.
      - Outside any role, with O(device_type) one of the device roles' types, the task does the same for the role
        of that name, with the role's defaults where the host's variables set nothing (C(playbooks/site.yml)
        runs it so, then includes the role's C(guarded) tasks only for a device whose change it deferred).
    type: bool
    default: false
  login_once:
    description:
      - Log in once with M(broadcast.monitoring.device_login) and hand the token to every part's module.
      - With V(false) every part's module logs in itself with O(password) (or its environment fallback).
    type: bool
    default: true
  password:
    description:
      - The account's password, used by M(broadcast.monitoring.device_login) (with O(login_once=false), by every
        part's module). Left out, the modules fall back to E(BROADCAST_MONITORING_PASSWORD) where they run.
    type: str
  token:
    description: A bearer token instead of a password, with O(login_once=false).
    type: str
notes:
  - Connection options are passed on as given, so C(module_defaults) for C(group/broadcast.monitoring.all) and the
    E(BROADCAST_MONITORING_*) environment variables work as they do for each module.
attributes:
  action:
    description: Runs on the controller as an action plugin, which runs each part's module where the task runs.
    support: full
  async:
    description: Cannot run asynchronously.
    support: none
"""

EXAMPLES = r"""
- name: Two inputs and the SNMP agent of an analyzer, in one task
  broadcast.monitoring.device_state:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: ts_analyzer
    parts:
      snmp:
        enabled: true
        trap_addresses: ["10.0.0.100:162"]
      inputs:
        - name: Mux 1
          source: {multicast: {address: 239.1.1.1, port: 5000}}
        - name: Mux 2
          source: {multicast: {address: 239.1.1.2, port: 5000}}

- name: Two stations and the same thresholds on every tuner of an FM monitor
  broadcast.monitoring.device_state:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    device_type: fm_monitor
    parts:
      tuners:
        - {tuner_id: 0, name: Station 1, frequency: 88000, operating_state: enabled}
        - {tuner_id: 1, name: Station 2, frequency: 89500, operating_state: enabled}
      thresholds_all:
        rssi: {min: 25, margin: 3}
        snr: {min: 15}
  register: fm_state
"""

RETURN = r"""
parts:
  description:
    - The result of each part's module that ran, by part name (without its diff, which is in C(diff)). A part that
      is not declared is absent; so are the parts after a failed one.
    - The alert profiles' two passes with O(purge) make one result, with the C(changes) of both.
    - Outside check mode, the result of a part that did not change leaves out its C(before) and C(after), the state
      it already had, which an idempotent run of a large fleet would otherwise carry back to the controller for
      every device. In check mode (an audit) every part keeps them.
  returned: always
  type: dict
  sample: {"snmp": {"changed": false, "requests": {"read": 1}}}
modules:
  description:
    - The modules the task ran, in order (C(device_login) first, with O(login_once)). Outside check mode every part's
      module is listed once for the plan, then once more for each part it writes.
    - M(broadcast.monitoring.ts_alert_profile) appears twice when O(purge) deletes profiles after the inputs (in
      check mode, with the inputs part declared, that second pass is planned without running the module, and is
      not listed).
  returned: always
  type: list
  elements: str
  sample: [device_login, ts_snmp, ts_alert_profile, ts_input]
reboot_needed:
  description: Whether a part needs a reboot to take effect (a network change without O(reboot)).
  returned: always
  type: bool
changes_summary:
  description:
    - What the task changed (in check mode, would change), one line per object of a list part (its action, its
      name, and for an update each field that differs, C(current -> declared), a dropped field C((removed))) and
      one per settings part (each field that differs). Secrets are hidden and the user-info of an address or URL
      is masked.
  returned: when the task changed something
  type: list
  elements: str
  sample: ["inputs: update MC 01: source.multicast.port 5000 -> 5002", 'logging: level "info" -> "warning"']
deferred:
  description:
    - "The plan found a change, and the role's snapshot gate or revert is on (O(check_role_variables)): nothing was
      written; the role's tasks write it. RV(parts) holds the plan."
  returned: when the change was deferred
  type: bool
  sample: true
guarded:
  description: The change was written under the role's snapshot gate or revert (O(check_role_variables)).
  returned: on the role's task that writes the change its first task deferred
  type: bool
  sample: true
passwords:
  description:
    - The result of M(broadcast.monitoring.device_password) for each role whose password the role declares
      (C(<role>_passwords), O(check_role_variables)), by role. The passwords themselves are never shown.
  returned: when a device role declares passwords and this task sets them
  type: dict
  sample: {"user": {"changed": true, "target_role": "user"}, "admin": {"changed": false, "target_role": "admin"}}
argument_errors:
  description: What the role's argument spec says of the role's variables (O(check_role_variables)).
  returned: when a role variable has the wrong type or value
  type: list
  elements: str
  sample: ["argument 'ts_analyzer_purge' is of type str and we were unable to convert to bool"]
failed_part:
  description: The part whose module failed.
  returned: failure of a part
  type: str
  sample: inputs
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.broadcast.monitoring.plugins.module_utils._device_state import ARGUMENT_SPEC, PASSED_ON


def main():
    # The action plugin does the work; run as a bare module, say so instead of doing nothing.
    module = AnsibleModule(argument_spec=dict(PASSED_ON, **ARGUMENT_SPEC), supports_check_mode=True)
    module.fail_json(msg="device_state runs as an action plugin of broadcast.monitoring; call it as a task")


if __name__ == "__main__":
    main()

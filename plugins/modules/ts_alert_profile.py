#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ts_alert_profile
short_description: Manage the alert profiles of a transport-stream analyzer
version_added: 1.0.0
description:
  - Manages all alert profiles of one transport-stream analyzer in one invocation, keyed by O(config[].name).
  - A profile says, per error the analyzer detects, whether it is evaluated, how severe an alert is, whether
    an SNMP trap is sent, and the thresholds. Inputs name the profile they use (M(broadcast.monitoring.ts_input)).
  - Reads the profiles once, compares only the entries and fields you set, and writes only the profiles that differ.
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
      - V(merged) creates the listed profiles that do not exist and updates the entries you set on those that do;
        entries and fields you leave out keep the device's value.
      - V(replaced) makes each listed profile exactly as given; entries and fields you leave out take the factory
        values (enabled, no SNMP trap, thresholds 0, alert type V(critical) for TR 101 290 priority 1 errors and
        V(warning) for the others). Profiles not listed are left alone.
      - V(overridden) is V(replaced), and also deletes every profile that is not listed. The factory profile
        cannot be deleted, so list it (or set O(reset_factory_profile)).
      - V(deleted) deletes the listed profiles (only O(config[].name) is needed), or every profile when O(config)
        is empty (which fails, since the factory profile cannot be deleted, see below).
      - V(gathered) reads the profiles and returns them in RV(gathered), in the shape O(config) takes.
      - A profile that an input uses cannot be deleted; the module then fails before any write, naming the inputs.
        The factory profile cannot be deleted either (the analyzer refuses); the module fails before any
        write, whether V(deleted) names it or V(overridden) would delete it because it is not listed.
      - The factory profile is the analyzer's first profile (id 1), named V(Default) at the factory; it may have
        been renamed since, and the module finds it by its id whatever its name (RV(factory_profile)). An input
        created without a profile gets it (M(broadcast.monitoring.ts_input)).
      - Should the analyzer hold two profiles of one name, the states treat them as
        M(broadcast.monitoring.ts_input) treats two inputs of one name. V(overridden) keeps one copy (the one already
        as listed, else the lowest id) and V(deleted) deletes every copy, both listing the copies deleted in
        RV(duplicates_removed); V(merged) and V(replaced) fail before any write; V(gathered) lists every copy in
        RV(duplicates).
      - V(parsed) returns in RV(parsed) the alert profiles that the backup in O(running_config) holds, in the shape
        O(config) takes, as V(gathered) would have read it from the device when the backup was taken. No device is
        contacted.
      - V(rendered) returns in RV(rendered) the requests that V(merged) would send to a device in the state of the
        backup in O(running_config) to bring it to O(config). No device is contacted, nothing is written.
    type: str
    choices: [merged, replaced, overridden, deleted, gathered, parsed, rendered]
    default: merged
  config:
    description:
      - The alert profiles. Names must be unique in the list.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The profile's name, 1 to 64 characters; the key the module finds it by.
        type: str
        required: true
      errors:
        description:
          - Entries by error name. Each key is an error name the analyzer knows, each value a dictionary of the
            fields below (all optional).
          - The names are the analyzer's TR 101 290 ones (for example V(ts_sync_loss), V(continuity_count_error),
            V(pcr_accuracy_error)), its T2-MI ones (V(t2mi_sync_error) and the other C(t2mi_*) names) and its
            IP-layer ones (V(input_mlr_error) and the other C(input_*) names). O(state=gathered) lists every one of
            them; an unknown name fails before any request, with a message that lists every known name.
          - C(enabled) (boolean) whether the error is evaluated at all.
          - C(alert_type) one of V(none), V(warning), V(critical), the severity of its alert records.
          - C(snmp_trap) (boolean) whether an SNMP trap is sent for it (see M(broadcast.monitoring.ts_snmp)).
          - C(threshold) (number >= 0) the count above which an alert is recorded.
          - C(min_value) and C(max_value) (numbers >= 0) the bounds the analyzer stores with the entry.
        type: dict
  reset_factory_profile:
    description:
      - With O(state=replaced) or O(state=overridden), the factory profile, when O(config) does not list it under
        its name on the analyzer, is kept under that name with every entry at factory values (as though listed
        with no O(config[].errors)), instead of being left alone (V(replaced)) or failing the module because it
        cannot be deleted (V(overridden)).
      - Other states ignore it. M(broadcast.monitoring.device_state) and the ts_analyzer role set it with purge.
    type: bool
    default: false
notes:
  - One invocation costs one login and one read (the profiles), one more read (the inputs) only when a profile is
    to be deleted, and one write per profile that differs (an update sends only the entries that changed).
  - RV(before), RV(after) and RV(gathered) list every entry of each profile, in the analyzer's order.
"""

EXAMPLES = r"""
- name: A strict profile for contribution feeds, the rest of its entries at factory values
  broadcast.monitoring.ts_alert_profile:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    state: replaced
    config:
      - name: Contribution
        errors:
          continuity_count_error: {alert_type: critical, snmp_trap: true}
          pcr_accuracy_error: {alert_type: critical, threshold: 2}
          input_mlr_error: {alert_type: critical, snmp_trap: true}
          eit_other_error: {enabled: false}

- name: Trap on sync loss in the factory profile, leave its other entries alone
  broadcast.monitoring.ts_alert_profile:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    config:
      - name: Default
        errors:
          ts_sync_loss: {snmp_trap: true}

- name: Read the profiles as config
  broadcast.monitoring.ts_alert_profile:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    state: gathered
  register: profiles

- name: Remove a profile no input uses any more
  broadcast.monitoring.ts_alert_profile:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    state: deleted
    config:
      - name: Contribution

- name: The alert profiles a backup holds (no device is contacted)
  broadcast.monitoring.ts_alert_profile:
    state: parsed
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"

- name: For review, the requests that would add this profile to the analyzer as backed up
  broadcast.monitoring.ts_alert_profile:
    state: rendered
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"
    config:
      - name: Night shift
        errors:
          ts_sync_loss: {alert_type: warning, snmp_trap: true}
"""

RETURN = r"""
before:
  description: The profiles before the module ran, in the shape of O(config), every entry listed.
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"name": "Default", "errors": {"ts_sync_loss": {"enabled": true, "alert_type": "critical",
            "snmp_trap": false, "threshold": 0, "min_value": 0, "max_value": 0}}}]
after:
  description: The profiles after the module ran (in check mode, what they would be).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
gathered:
  description: The profiles on the device, in the shape of O(config).
  returned: when O(state=gathered)
  type: list
  elements: dict
profile_ids:
  description:
    - Name and id of each profile the analyzer has after the run, except profiles this run created (their id
      would cost another read).
    - In check mode, a profile the run would create is listed with id V(null), so that
      M(broadcast.monitoring.ts_input) in check mode takes inputs that name it.
    - Give it to M(broadcast.monitoring.ts_input) as O(broadcast.monitoring.ts_input#module:alert_profile_ids) to
      save that module reading the profiles again.
  returned: when O(state) is neither V(parsed) nor V(rendered)
  type: dict
  sample: {"Default": 1, "Contribution": 2}
factory_profile:
  description:
    - The name of the factory profile (the analyzer's profile with id 1, which it cannot delete), whatever it has
      been renamed to; null when the analyzer has none.
  returned: when O(state) is neither V(parsed) nor V(rendered)
  type: str
  sample: Default
changes:
  description:
    - What was (or in check mode, would be) written, one entry per profile.
    - The deletion of an extra copy of a duplicated name also carries the copy's device C(id).
    - Each update carries C(differences), what differs field by field, with C(path) (nested keys joined by dots),
      C(current) and C(declared); lists are compared whole; a field the update drops (a nested object replaced
      whole without it) has C(declared=null), one it adds C(current=null); secrets are hidden and the user-info
      of an address or URL is masked.
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"action": "update", "key": "Default", "differences": [{"path": "errors.crc_error.enabled", "current": false, "declared": true}]}]
duplicates:
  description:
    - Every copy of each name the analyzer holds more than once, in the shape of O(config), with its device C(id)
      and C(shown), whether it is the copy RV(gathered) shows.
  returned: when O(state=gathered) and the analyzer holds one name more than once
  type: list
  elements: dict
duplicates_removed:
  description: The extra copies of duplicated names that were (or in check mode, would be) deleted, by name and device id.
  returned: when O(state) is V(overridden) or V(deleted) and the analyzer held a name it manages more than once
  type: list
  elements: dict
  sample: [{"name": "Strict", "id": 7}]
parsed:
  description:
    - The alert profiles that the backup in O(running_config) holds, in the shape O(config) takes, read by the code
      that V(gathered) reads a device with.
    - Given back to a device in the backup's state with V(merged), it changes nothing.
  returned: when O(state=parsed)
  type: list
  elements: dict
rendered:
  description:
    - The requests that V(merged) would send, in the order it sends them, to a device in the state of the backup in
      O(running_config); each with C(method), C(path) and C(body) (V(null) for a request without one).
    - An id the analyzer assigns itself (of an input, of an alert profile) is not part of a backup. Where a
      request holds one, in its C(path) or in the C(input_id) and C(profile_id) fields of its C(body), it names
      the object instead, as C({input:NAME}) or C({profile:NAME}). Send such a request with the id the device has
      for that name at that moment (an object created by an earlier request of the list has one by then).
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
  sample: [{action: create, key: Contribution, landed: true}]
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import STATES, reconcile
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import Profiles

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="merged", choices=list(STATES) + ["parsed", "rendered"]),
    config=dict(type="list", elements="dict", default=[], options=dict(
        name=dict(type="str", required=True),
        errors=dict(type="dict"),
    )),
    reset_factory_profile=dict(type="bool", default=False),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    params = module.params
    profiles = Profiles(module.client, reset_factory=params["reset_factory_profile"])

    def work():
        result = reconcile(profiles, params["config"], module.working_state, module.check_mode)
        return dict(result, profile_ids=profiles.ids(result, module.check_mode), factory_profile=profiles.factory_profile())

    module.run(work)


if __name__ == "__main__":
    main()

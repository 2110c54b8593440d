#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fm_schedule
short_description: Manage the weekly schedules of an FM monitoring receiver's tuners
version_added: 1.0.0
description:
  - Manages the schedules of the tuners of one FM monitoring receiver in one invocation, per tuner
    (O(config[].tuner_id)) or for every tuner (O(all_tuners)).
  - A schedule switches a tuner's operating state at given times of the week, while it is active.
    Times are the device's local time.
  - While a tuner's schedule is active, the schedule owns the tuner's operating state. M(broadcast.monitoring.fm_tuner)
    refuses C(operating_state) for that tuner (the role C(broadcast.monitoring.fm_monitor) refuses declaring both
    before any request), so that a run after an event does not undo it. To set a tuner's state by hand, set the
    schedule's O(config[].active) to V(false) first.
  - The device applies an event only when its day and minute come. So when the module writes a schedule that ends
    active (activates it, or changes its events), it also puts the tuner in the state the schedule gives at the
    device's present time, that of its latest event before now, wrapping around the week (one read of the device's
    date and time, and C(POST /tuner/{id}/state), which needs the admin role; with the user role it warns instead
    and the tuner follows at the next event). RV(scheduled_states) lists those tuners; in check mode, what it would
    set. A schedule that is left as it was is left to its events.
  - The events of a day are compared as a set; their order in your list does not matter, and an event listed twice
    counts once.
  - Reads every tuner with one request and writes only the tuners that differ (only the days that differ are sent);
    the same change for two or more tuners is one request to all tuners.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.offline
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.FM
options:
  state:
    description:
      - V(merged) sets what you give. Each day you list gets exactly the events you list for it (an empty list clears
        the day); days you leave out keep their events, and O(config[].active) keeps its value when left out.
      - V(replaced) makes each listed tuner's schedule exactly as given; days you leave out are cleared and
        O(config[].active) is V(false) when left out. Tuners not listed are left alone.
      - V(gathered) reads the schedule of every tuner and returns them in RV(gathered). Nothing is written.
      - V(parsed) returns in RV(parsed) the tuners' schedules that the backup in O(running_config) holds, in the shape
        O(config) takes, as V(gathered) would have read it from the device when the backup was taken. No device is
        contacted.
      - V(rendered) returns in RV(rendered) the requests that V(merged) would send to a device in the state of the
        backup in O(running_config) to bring it to O(config). No device is contacted, nothing is written.
    type: str
    choices: [merged, replaced, gathered, parsed, rendered]
    default: merged
  all_tuners:
    description:
      - A schedule for every tuner of the device, in the shape of O(config) without O(config[].tuner_id).
      - A tuner's own entry in O(config) overrides it, day by day.
    type: dict
    suboptions: &schedule
      active:
        description: Whether the tuner follows its schedule.
        type: bool
      events:
        description: The events of each day of the week, by lower-case English day name.
        type: dict
        suboptions:
          monday: &day
            description:
              - The day's events, at most 100, each time at most once.
              - O(config[].events.monday[].time) is C(HH:MM) (V(06:30)) or the minute of the day, 0 to 1439 (V(390)).
              - O(config[].events.monday[].state) is the operating state the tuner takes then.
            type: list
            elements: dict
            suboptions:
              time:
                description: Time of day, C(HH:MM) from V(00:00) to V(23:59), or minutes since midnight, 0 to 1439.
                type: raw
                required: true
              state:
                description: The operating state the tuner takes at that time.
                type: str
                required: true
                choices: [disabled, enabled, sleep]
          tuesday: *day
          wednesday: *day
          thursday: *day
          friday: *day
          saturday: *day
          sunday: *day
  config:
    description: Schedules per tuner, each tuner at most once.
    type: list
    elements: dict
    default: []
    suboptions:
      tuner_id:
        description: Zero-based tuner number; the device must have it.
        type: int
        required: true
      <<: *schedule
notes:
  - One invocation costs one login, one read of all tuners and one write per tuner that differs, or a single
    C(POST /tuners/all/schedule) when one change brings two or more tuners where they should be without changing any
    other tuner.
  - Results show every tuner's seven days, with times as C(HH:MM) in time order.
  - The user role may set schedules.
"""

EXAMPLES = r"""
- name: Every tuner monitors on weekdays from 06:00 and sleeps from 22:00
  broadcast.monitoring.fm_schedule:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    all_tuners:
      active: true
      events:
        monday: &weekday
          - {time: "06:00", state: enabled}
          - {time: "22:00", state: sleep}
        tuesday: *weekday
        wednesday: *weekday
        thursday: *weekday
        friday: *weekday

- name: Tuner 2 also on Saturday mornings (minutes since midnight work too)
  broadcast.monitoring.fm_schedule:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    config:
      - tuner_id: 2
        events:
          saturday:
            - {time: 480, state: enabled}
            - {time: 720, state: disabled}

- name: Tuner 7 has no schedule at all
  broadcast.monitoring.fm_schedule:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    state: replaced
    config:
      - tuner_id: 7

- name: The schedules a backup holds (no device is contacted)
  broadcast.monitoring.fm_schedule:
    state: parsed
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"

- name: For review, the requests that would pause tuner 1 on Sunday nights on the monitor as backed up
  broadcast.monitoring.fm_schedule:
    state: rendered
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"
    config:
      - tuner_id: 1
        events:
          sunday: [{time: "23:00", state: sleep}]
"""

RETURN = r"""
before:
  description: Every tuner's schedule before the module ran, in the shape of O(config).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"tuner_id": 0, "active": true,
            "events": {"monday": [{"time": "06:00", "state": "enabled"}, {"time": "22:00", "state": "sleep"}],
                       "tuesday": [], "wednesday": [], "thursday": [], "friday": [], "saturday": [], "sunday": []}}]
after:
  description: Every tuner's schedule after the module ran (in check mode, what it would be).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
gathered:
  description: Every tuner's schedule, in the shape of O(config).
  returned: when O(state=gathered)
  type: list
  elements: dict
changes:
  description:
    - What was (or in check mode, would be) written, one entry per tuner.
    - Each update carries C(differences), what differs field by field, with C(path) (nested keys joined by dots),
      C(current) and C(declared); lists are compared whole; a field the update drops (a nested object replaced
      whole without it) has C(declared=null), one it adds C(current=null); secrets are hidden and the user-info
      of an address or URL is masked.
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"action": "update", "key": 2, "differences": [{"path": "active", "current": false, "declared": true}]}]
parsed:
  description:
    - The tuners' schedules that the backup in O(running_config) holds, in the shape O(config) takes, read by the code
      that V(gathered) reads a device with.
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
scheduled_states:
  description:
    - The tuners whose schedule was written active and whose operating state was not the one the schedule gives at
      the device's time (its latest event before now, wrapping around the week), so the module set it (in check
      mode, would set it), with the device's C(datetime) that the state was taken at. The tuner's entry in
      RV(changes) carries the difference at C(operating_state) too.
  returned: when a tuner's state was (or would be) set
  type: list
  elements: dict
  sample: [{"tuner_id": 0, "before": "disabled", "after": "enabled", "datetime": "2026-11-26T10:31:05+01:00"}]
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
  sample: [{action: update, key: 0, landed: true}]
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.resources import Schedules, follow_schedules, reconcile_tuners
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

EVENTS = dict(type="list", elements="dict", options=dict(
    time=dict(type="raw", required=True),
    state=dict(type="str", required=True, choices=list(api.STATE_NAMES)),
))

SCHEDULE = dict(
    active=dict(type="bool"),
    events=dict(type="dict", options=dict((day, EVENTS) for day in api.DAYS)),
)

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="merged", choices=["merged", "replaced", "gathered", "parsed", "rendered"]),
    all_tuners=dict(type="dict", options=SCHEDULE),
    config=dict(type="list", elements="dict", default=[], options=dict(tuner_id=dict(type="int", required=True), **SCHEDULE)),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    params = module.params
    schedules = Schedules(module.client)

    def work():
        result = reconcile_tuners(schedules, params["config"], params["all_tuners"], module.working_state,
                                  module.check_mode)
        if module.offline or module.working_state == "gathered":
            return result  # a backup has no clock; gathered writes nothing
        return follow_schedules(schedules, result, module.check_mode)

    module.run(work)


if __name__ == "__main__":
    main()

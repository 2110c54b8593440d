#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fm_info
short_description: Read the state of an FM monitoring receiver
version_added: 1.0.0
description:
  - Reads what you choose with O(gather_subset) from one FM monitoring receiver, with one request per subset
    (for alerts with O(alerts.all_pages=true), one per page).
  - Never changes anything.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.attributes.INFO
  - broadcast.monitoring.attributes.FM
options:
  gather_subset:
    description:
      - What to read. V(all) is everything, V(min) is V(status) and V(tuners).
      - V(status) the device status (health, versions, resources, monitor output tuner).
      - V(tuners) every tuner in the shape of M(broadcast.monitoring.fm_tuner), with its thresholds and schedule in the
        shapes of M(broadcast.monitoring.fm_thresholds) and M(broadcast.monitoring.fm_schedule), and what it measures.
      - V(stations) the station list. V(alerts) the alert log, filtered by O(alerts). V(log) the system log, by O(log).
      - V(playlist) the stream playlist. V(valid_bitrates) the stream bitrates the device accepts.
      - V(network), V(datetime) and V(log_config) those settings; V(conf) the whole configuration as the device exports it.
      - A name with C(!) in front leaves that subset out (V(!conf)); only exclusions means everything else.
    type: list
    elements: str
    default: [min]
  alerts:
    description: Which alerts V(alerts) reads.
    type: dict
    default: {}
    suboptions:
      types:
        description: Only these alert types; all types when empty.
        type: list
        elements: str
        default: []
        choices:
          - RFL is low
          - RFL is high
          - SNR is low
          - SNR is high
          - Multipath is high
          - Stereoblend is low
          - Stereoblend is high
          - AudioL level is low
          - AudioL level is high
          - AudioR level is low
          - AudioR level is high
          - RDS synchronization lost
          - RDS buffer overflow
          - RDS error block A (data lost)
          - RDS error block B (data lost)
          - RDS error block C (data lost)
          - RDS error block D (data lost)
      tuner_ids:
        description: Only alerts of these tuners; all tuners when empty.
        type: list
        elements: int
        default: []
      since:
        description: Only alerts that began at or after this time; Unix seconds or ISO 8601 (V(2024-01-31T12:00:00Z)).
        type: raw
      until:
        description: Only alerts that began at or before this time; Unix seconds or ISO 8601.
        type: raw
      sort_by:
        description: Order by start time (V(from)) or by tuner, then start time (V(tuner_id)).
        type: str
        choices: [from, tuner_id]
        default: from
      order:
        description: V(desc) newest (or highest tuner) first, V(asc) oldest first.
        type: str
        choices: [asc, desc]
        default: desc
      limit:
        description: Alerts per page; V(0) means no limit (every match in one answer).
        type: int
        default: 100
      offset:
        description: Matches to skip before the first page.
        type: int
        default: 0
      all_pages:
        description: Read every page from O(alerts.offset) on, instead of one page.
        type: bool
        default: false
      max_pages:
        description:
          - With O(alerts.all_pages=true), the most pages read (one request each). A device that still claims more
            alerts after them, or answers an empty page while it claims more, fails the module with a message
            naming the bound, instead of being asked without end.
          - The default reads up to 100,000 alerts with the default O(alerts.limit); raise it, or O(alerts.limit),
            for more.
        type: int
        default: 1000
  log:
    description: Which system log entries V(log) reads; the device's last 100 when nothing is given.
    type: dict
    default: {}
    suboptions:
      from_id:
        description: Entries with an id at or above this one.
        type: int
      till_id:
        description: Entries with an id below this one.
        type: int
      limit:
        description: At most this many entries (the last ones).
        type: int
notes:
  - The user role may read everything this module reads.
"""

EXAMPLES = r"""
- name: Status and tuners
  broadcast.monitoring.fm_info:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
  register: fm

- name: Low-signal alerts of tuners 0 and 1 since New Year, every page, oldest first
  broadcast.monitoring.fm_info:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    gather_subset: [alerts]
    alerts:
      types: [RFL is low, SNR is low]
      tuner_ids: [0, 1]
      since: "2024-01-01T00:00:00Z"
      order: asc
      all_pages: true

- name: Everything but the full configuration, and the last 20 log entries
  broadcast.monitoring.fm_info:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    gather_subset: [all, "!conf"]
    log: {limit: 20}
"""

RETURN = r"""
failed_subsets:
  description:
    - The subsets whose answer the collection could not read (a device or firmware that names or shapes a field
      differently), each with the reason, naming the request and the field; the other subsets are returned as usual.
    - When every selected subset fails, the module fails with the first reason.
  returned: when a subset could not be read
  type: dict
  sample: {"status": "GET /api/status: the answer has no field 'tuners' (fields present: versions)"}
status:
  description: C(GET /status) (C(hostname), C(health), C(tuners), C(monitor_tuner), C(versions), C(resources), ...).
  returned: when V(status) is gathered
  type: dict
  sample: {"hostname": "fm-001", "health": "ok", "tuners": 8, "reboot_needed": false, "monitor_tuner": 0}
tuners:
  description: Every tuner as M(broadcast.monitoring.fm_tuner) gathers it, plus C(thresholds), C(schedule) and
    C(measured) (C(tuned), C(signal_ok), C(quality), C(rds), C(stream_bitrate)).
  returned: when V(tuners) is gathered
  type: list
  elements: dict
stations:
  description: The station list (C(station_id), C(frequency), C(rssi), C(snr), C(timestamp)).
  returned: when V(stations) is gathered
  type: list
  elements: dict
alerts:
  description: C(total) (matches before paging), C(alerts) (C(tuner_id), C(type), C(from), C(till)) and C(pages) read.
  returned: when V(alerts) is gathered
  type: dict
  sample: {"total": 1, "pages": 1, "alerts": [{"tuner_id": 0, "type": "RFL is low", "from": "2024-01-01T10:00:00Z",
                                               "till": null}]}
log:
  description: System log entries, oldest first (C(id), C(ts), C(pid), C(level), C(msg)).
  returned: when V(log) is gathered
  type: list
  elements: dict
playlist:
  description: C(tracks) (C(title), C(location)) of the tuners that stream, and the C(xspf) text itself.
  returned: when V(playlist) is gathered
  type: dict
valid_bitrates:
  description: Stream bitrates in kbps the device accepts.
  returned: when V(valid_bitrates) is gathered
  type: list
  elements: int
  sample: [64, 96, 128, 192, 256, 320]
network:
  description: The saved network settings.
  returned: when V(network) is gathered
  type: dict
datetime:
  description: Date, time and NTP settings.
  returned: when V(datetime) is gathered
  type: dict
log_config:
  description: The saved log settings.
  returned: when V(log_config) is gathered
  type: dict
conf:
  description: The whole configuration as C(GET /conf) exports it (never passwords).
  returned: when V(conf) is gathered
  type: dict
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 2, "write": 0}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.info import read_info
from ansible_collections.broadcast.monitoring.plugins.module_utils._gather import subset_spec
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

ARGUMENT_SPEC = dict(
    gather_subset=subset_spec(),
    alerts=dict(type="dict", default={}, options=dict(
        types=dict(type="list", elements="str", default=[], choices=list(api.ALERT_TYPES)),
        tuner_ids=dict(type="list", elements="int", default=[]),
        since=dict(type="raw"),
        until=dict(type="raw"),
        sort_by=dict(type="str", default="from", choices=["from", "tuner_id"]),
        order=dict(type="str", default="desc", choices=["asc", "desc"]),
        limit=dict(type="int", default=100),
        offset=dict(type="int", default=0),
        all_pages=dict(type="bool", default=False),
        max_pages=dict(type="int", default=api.ALERTS_PAGES_MAX),
    )),
    log=dict(type="dict", default={}, options=dict(
        from_id=dict(type="int"), till_id=dict(type="int"), limit=dict(type="int"),
    )),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api, reads_only=True)
    module.run(lambda: read_info(module.client, module.params))


if __name__ == "__main__":
    main()

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fm_station
short_description: Scan the FM band for stations, or delete station records, on an FM monitoring receiver
version_added: 1.0.0
description:
  - The device keeps one list of stations for all tuners, filled by band scans. A tuner can then be tuned to a station
    with M(broadcast.monitoring.fm_tuner) (O(broadcast.monitoring.fm_tuner#module:config[].station_id)).
  - O(state=scanned) runs a band scan on one tuner and waits for it to end. Found stations are added to the list;
    a frequency already in the list keeps its id and gets fresh measurements. The result is V(changed) only when
    stations were added.
  - O(state=absent) deletes the station records you name (by id or frequency), or all of them; tuners keep their
    frequency. The result is V(changed) only when a named record existed.
  - A scan is an action, not a state. It runs only when you ask for it, every time you ask for it.
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
      - In check mode the module reads the station list and sends no scan and no delete.
      - A scan in check mode reports V(changed) with a message that a scan would run, since the stations it would find
        cannot be known without scanning.
options:
  state:
    description:
      - V(scanned) scans the band with tuner O(tuner_id).
      - V(absent) deletes the records listed in O(station_ids) and O(frequencies), or every record with O(all_stations=true).
    type: str
    required: true
    choices: [scanned, absent]
  tuner_id:
    description:
      - The tuner that scans (zero-based). Required with O(state=scanned).
      - The tuner answers other requests with HTTP 503 while it scans; other tuners work on.
    type: int
  scan_timeout:
    description:
      - Seconds to wait for the scan to end. A full band scan takes up to 10 seconds; if the tuner is busy when the scan
        is asked for, the request is repeated for up to O(busy_timeout) seconds first.
    type: int
    default: 30
  station_ids:
    description: Ids of the station records to delete with O(state=absent). Ids that do not exist are ignored.
    type: list
    elements: int
  frequencies:
    description: Frequencies in kHz whose station records to delete with O(state=absent). Frequencies not in the list are ignored.
    type: list
    elements: int
  all_stations:
    description: With O(state=absent), delete every station record (one request; new scans number from 0 again).
    type: bool
    default: false
notes:
  - A scan costs one login, two reads (the status, to check the tuner exists, and the station list) and one request
    that lasts as long as the scan.
  - Deleting costs one read and one request per record deleted (one in all for O(all_stations=true)).
  - The user role may scan and delete stations.
"""

EXAMPLES = r"""
- name: Scan the band with tuner 0
  broadcast.monitoring.fm_station:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    state: scanned
    tuner_id: 0
  register: scan

- name: Tune tuner 1 to the first station found
  broadcast.monitoring.fm_tuner:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    config:
      - tuner_id: 1
        station_id: "{{ scan.stations[0].station_id }}"
        operating_state: enabled

- name: Forget the station on that frequency
  broadcast.monitoring.fm_station:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    state: absent
    frequencies: ["{{ scan.stations[0].frequency }}"]

- name: Forget every station
  broadcast.monitoring.fm_station:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    state: absent
    all_stations: true
"""

RETURN = r"""
stations:
  description: The station list after the module ran (in check mode, what it would be; after a scan in check mode,
    the list as it is).
  returned: success
  type: list
  elements: dict
  sample: [{"station_id": 0, "frequency": 88200, "rssi": 61, "snr": 42, "timestamp": "2024-01-01T10:00:00Z"}]
found:
  description: Every station the scan found.
  returned: O(state=scanned)
  type: list
  elements: dict
added:
  description: The stations the scan found that were not in the list before.
  returned: O(state=scanned)
  type: list
  elements: dict
deleted:
  description: The station records deleted (in check mode, that would be deleted).
  returned: O(state=absent)
  type: list
  elements: dict
msg:
  description: What the scan did, or in check mode, that a scan would run.
  returned: O(state=scanned)
  type: str
  sample: tuner 0 found 12 station(s), 12 new
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 2, "write": 1}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.actions import station
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

ARGUMENT_SPEC = dict(
    state=dict(type="str", required=True, choices=["scanned", "absent"]),
    tuner_id=dict(type="int"),
    scan_timeout=dict(type="int", default=30),
    station_ids=dict(type="list", elements="int"),
    frequencies=dict(type="list", elements="int"),
    all_stations=dict(type="bool", default=False),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api, required_if=[("state", "scanned", ["tuner_id"])])
    module.run(lambda: station(module.client, module.params, module.check_mode))


if __name__ == "__main__":
    main()

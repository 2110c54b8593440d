#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ts_info
short_description: Read monitoring data and settings of a transport-stream analyzer
version_added: 1.0.0
description:
  - Reads what the analyzer measures and how it is set up, in the subsets O(gather_subset) names. It only reads and
    never changes anything (resets and downloads are M(broadcast.monitoring.ts_statistics)).
  - "Each subset is returned under its own name (for example RV(inputs), RV(statistics)). Data about inputs is keyed
    by input name (C(name #id) when two inputs share a name); O(inputs) narrows it to some inputs."
  - Works with the V(user) role.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.attributes.INFO
  - broadcast.monitoring.attributes.TS
options:
  gather_subset:
    description:
      - The subsets to read. V(all) is every subset; V(min) is V(system_status), V(system_device) and V(inputs)
        (four requests). A name with C(!) in front removes it (V([all, "!system_log"])); only exclusions mean
        everything else.
      - Per input (O(inputs)), one or more requests per input each; V(pids), V(tables) (PSI/SI tables as XML, or only
        those changed since O(known_tables)), V(epg) (events, see O(epg)), V(epg_parameters), V(alerts)
        (TR 101 290 alert log) and V(ip_alerts) (IP-layer alert log), see O(alerts).
      - One request each, narrowed to O(inputs); V(inputs) (state, status, error counts and metrics, one more
        request for profile names), V(statistics) (current counts per error and PID), V(statistics_archive) (see
        O(archive)), V(cas) (conditional access systems per active input), V(metrics) (time series, see O(metrics);
        one request per input with O(inputs) or O(metrics.pid)).
      - One request each; V(rf_metrics), V(metric_ranges), V(snmp), V(converter), V(sdcard) (two requests, status
        and files), V(system_status), V(system_device), V(system_network), V(system_datetime), V(system_timezone),
        V(system_warnings), V(system_log) (see O(system_log)).
    type: list
    elements: str
    default: [min]
  inputs:
    description: Names of the inputs whose data to read; all inputs when empty. An unknown name fails.
    type: list
    elements: str
    default: []
  known_tables:
    description:
      - For V(tables), the tables you already have; only tables not listed, or whose revision differs, are
        returned. Inputs without an entry return all their tables.
    type: list
    elements: dict
    suboptions:
      input:
        description: Input name.
        type: str
        required: true
      table_id:
        description: Table id, 0 to 255.
        type: int
        required: true
      table_id_extension:
        description: Table id extension, 0 to 65535.
        type: int
        required: true
      revision:
        description: The revision you have.
        type: int
        required: true
  epg:
    description: The EPG query of V(epg).
    type: dict
    suboptions:
      eit_type:
        description: V(eit) present and following events, V(eit_sched) the schedule; C(_other) for other streams.
        type: str
        choices: [eit, eit_other, eit_sched, eit_sched_other]
        default: eit
      service_ids:
        description: Only these services.
        type: list
        elements: int
      transport_stream_id:
        description: Only this transport stream id.
        type: int
      original_network_id:
        description: Only this original network id.
        type: int
      start_time:
        description: Start of the schedule window, ISO 8601 (default now).
        type: str
      end_time:
        description: End of the schedule window, ISO 8601 (default start + 24 h, at most 8 days after it).
        type: str
  archive:
    description: The period of V(statistics_archive).
    type: dict
    suboptions:
      period:
        description: Length of the period; V(total) counts everything since the archive was cleared.
        type: str
        choices: [min, 10min, hour, day, total]
        default: total
      time:
        description: A time inside the period, ISO 8601 (default now).
        type: str
  alerts:
    description: Filter and paging of V(alerts) and V(ip_alerts).
    type: dict
    suboptions:
      period:
        description: Only records overlapping this period (containing O(alerts.time)); V(total) means all.
        type: str
        choices: [min, 10min, hour, day, total]
        default: total
      time:
        description: A time inside the period, ISO 8601 (default now).
        type: str
      error_names:
        description: Only these errors (names as in M(broadcast.monitoring.ts_alert_profile)).
        type: list
        elements: str
      pid:
        description: Only records of this PID, 0 to 8191.
        type: int
      page:
        description: Return only this page (from 1), as C(page), C(per_page), C(total), C(items). Without it, every
          page is gathered and returned as C(total) and C(items).
        type: int
      per_page:
        description: Records per page with O(alerts.page), 1 to 1000.
        type: int
        default: 20
      max_pages:
        description:
          - Without O(alerts.page), the most pages of 1000 records read per input (one request each). A device that
            still claims more records after them, or answers an empty page while it claims more, fails the module
            with a message naming the bound, instead of being asked without end.
          - The default reads up to 1,000,000 records per input; raise it for more.
        type: int
        default: 1000
  metrics:
    description: The series of V(metrics).
    type: dict
    suboptions:
      range_id:
        description: Range id as V(metric_ranges) lists them (sample length and count).
        type: int
        default: 1
      from_time:
        description: Start, Unix seconds (default as far back as the range holds).
        type: int
      to_time:
        description: End, Unix seconds (default now).
        type: int
      pid:
        description: The series of this PID only (one request per input).
        type: int
  system_log:
    description: Which entries of V(system_log) (default the last 100).
    type: dict
    suboptions:
      from_id:
        description: First entry id.
        type: int
      till_id:
        description: Last entry id.
        type: int
      limit:
        description: At most this many entries.
        type: int
notes:
  - Options are checked before the first request. The input list is read once, and only when a subset needs it.
"""

EXAMPLES = r"""
- name: The cheap overview (status, device, inputs)
  broadcast.monitoring.ts_info:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
  register: analyzer

- name: Everything but the logs
  broadcast.monitoring.ts_info:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    gather_subset: [all, "!alerts", "!ip_alerts", "!system_log"]

- name: Critical continuity errors of Mux 1 in the current hour, one page
  broadcast.monitoring.ts_info:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    gather_subset: [alerts]
    inputs: [Mux 1]
    alerts:
      period: hour
      error_names: [continuity_count_error]
      page: 1
      per_page: 50
"""

RETURN = r"""
failed_subsets:
  description:
    - The subsets whose answer the collection could not read (a device or firmware that names or shapes a field
      differently), each with the reason, naming the request and the field; the other subsets are returned as usual.
    - When every selected subset fails, the module fails with the first reason.
  returned: when a subset could not be read
  type: dict
  sample: {"system_device": "GET /api/system/device: the answer has no field 'firmware_version' (fields present: model)"}
gathered_subsets:
  description: The subsets read, in the order O(gather_subset) documents them.
  returned: always
  type: list
  elements: str
  sample: [system_status, system_device, inputs]
system_status:
  description: CPU load (percent), memory and storage (bytes), uptime (s) and whether a reboot is needed.
  returned: when selected
  type: dict
  sample: {"cpu_load": 9.5, "memory": {"total": 4294967296, "used": 994050048}, "uptime": 120, "reboot_needed": false}
system_device:
  description: Serial number, firmware version and model.
  returned: when selected
  type: dict
  sample: {"serial_number": "TSA000123456", "firmware_version": "1.0.0", "model": "TSA-4"}
inputs:
  description: The inputs in the shape M(broadcast.monitoring.ts_input) takes, with C(id), C(state)
    (V(ok), V(no_signal), V(paused)), C(status) (V(ok), V(warning), V(critical)), C(errors) (current counts per
    TR 101 290 priority) and C(metrics) (bitrate, IPAT, DF, MLR, DPC, CCE).
  returned: when selected
  type: list
  elements: dict
pids:
  description: Per input, its PIDs with type, service name, whether it carries the PCR, and bitrate.
  returned: when selected
  type: dict
tables:
  description: Per input, its PSI/SI tables (name, ids, PID, revision, bitrate, repetition rate, XML).
  returned: when selected
  type: dict
epg:
  description: Per input, the EPG events the query of O(epg) selects.
  returned: when selected
  type: dict
epg_parameters:
  description: Per input, the service, transport stream and original network ids an EPG query can name.
  returned: when selected
  type: dict
rf_metrics:
  description: RF metrics of the active RF input (C(input) names it, null when there is none).
  returned: when selected
  type: dict
statistics:
  description: Per input, status, IP metrics, per error name C(count), C(sum) and C(status), and per PID counts.
  returned: when selected
  type: dict
statistics_archive:
  description: The archive period (C(period), C(start), C(end)) and per input the count of each error in it.
  returned: when selected
  type: dict
cas:
  description: Per active input, its conditional access systems (id, name, ECM and EMM PIDs, services).
  returned: when selected
  type: dict
alerts:
  description: Per input, TR 101 290 alert records (service, error, start and end time, count, severity, PID),
    newest first; C(total) and C(items), plus C(page) and C(per_page) with O(alerts.page).
  returned: when selected
  type: dict
ip_alerts:
  description: Per input, IP-layer alert records, as RV(alerts).
  returned: when selected
  type: dict
metric_ranges:
  description: The series ranges (C(id), C(sample_duration) in seconds, C(max_samples)).
  returned: when selected
  type: list
  elements: dict
metrics:
  description: The range and window, and per input its samples (bitrate, payload bitrate, jitter, IPAT, DF, MLR,
    CCE, CNR; null where they do not apply).
  returned: when selected
  type: dict
snmp:
  description: SNMP settings, as M(broadcast.monitoring.ts_snmp) takes them.
  returned: when selected
  type: dict
converter:
  description: Both ASI-to-IP converters, as M(broadcast.monitoring.ts_converter) takes them.
  returned: when selected
  type: list
  elements: dict
sdcard:
  description: SD card status, sizes in MB, the running recording, and C(files) (as M(broadcast.monitoring.ts_recording)
    lists them).
  returned: when selected
  type: dict
system_network:
  description: Saved network settings, MAC address, active and pending hostname.
  returned: when selected
  type: dict
system_datetime:
  description: NTP settings and the device's current time.
  returned: when selected
  type: dict
system_timezone:
  description: The device's timezone.
  returned: when selected
  type: str
  sample: UTC
system_warnings:
  description: Whether the input, bitrate and service limits are exceeded, and the limits.
  returned: when selected
  type: dict
system_log:
  description: System log entries (C(id), C(ts), C(pid), C(level), C(msg)), oldest first.
  returned: when selected
  type: list
  elements: dict
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: always
  type: dict
  sample: {"login": 1, "read": 4, "write": 0}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._gather import subset_spec
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.info import read_info

PERIODS = list(api.ARCHIVE_PERIODS)


def _ints(*names):
    return {name: dict(type="int") for name in names}


ARGUMENT_SPEC = dict(
    gather_subset=subset_spec(),
    inputs=dict(type="list", elements="str", default=[]),
    known_tables=dict(type="list", elements="dict", options=dict(
        input=dict(type="str", required=True),
        **{key: dict(type="int", required=True) for key in ("table_id", "table_id_extension", "revision")})),
    epg=dict(type="dict", options=dict(
        eit_type=dict(type="str", choices=list(api.EIT_TYPES), default="eit"),
        service_ids=dict(type="list", elements="int"),
        start_time=dict(type="str"), end_time=dict(type="str"),
        **_ints("transport_stream_id", "original_network_id"))),
    archive=dict(type="dict", options=dict(period=dict(type="str", choices=PERIODS, default="total"),
                                           time=dict(type="str"))),
    alerts=dict(type="dict", options=dict(
        period=dict(type="str", choices=PERIODS, default="total"), time=dict(type="str"),
        error_names=dict(type="list", elements="str"), per_page=dict(type="int", default=20),
        max_pages=dict(type="int", default=api.ALERTS_PAGES_MAX),
        **_ints("pid", "page"))),
    metrics=dict(type="dict", options=dict(range_id=dict(type="int", default=1),
                                           **_ints("from_time", "to_time", "pid"))),
    system_log=dict(type="dict", options=_ints("from_id", "till_id", "limit")),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api, reads_only=True)
    module.run(lambda: read_info(module.client, module.params))


if __name__ == "__main__":
    main()

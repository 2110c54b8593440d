#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_time
short_description: Manage NTP, timezone and clock of an analyzer or FM monitor
version_added: 1.0.0
description:
  - Sets NTP on or off and its servers, the timezone, and (with NTP off) the device clock. Takes effect at once.
  - The analyzer takes an IANA timezone name, checked against the device's own list; the FM monitor takes a
    UTC offset in whole hours.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  ntp:
    description: Whether the device keeps its clock with NTP.
    type: bool
  ntp_servers:
    description: NTP servers in order of preference (the order is compared). At least one with O(ntp=true).
    type: list
    elements: str
  timezone:
    description:
      - Analyzer, an IANA name such as V(Europe/Berlin); FM monitor, a UTC offset in hours such as V(2) or V(-5)
        (-12 to 14).
    type: str
  datetime:
    description:
      - Set the device clock, only with NTP off. An ISO 8601 date and time, or V(now) for the controller's clock.
      - The clock is written only when it is more than O(max_clock_drift) seconds off, so V(now) is idempotent;
        a fixed time is written again on every run that comes later than O(max_clock_drift) seconds after it.
    type: str
  max_clock_drift:
    description: Seconds the device clock may differ from O(datetime) before it is set; 0 or more.
    type: int
    default: 5
"""

EXAMPLES = r"""
- name: NTP with two servers, Berlin time (analyzer)
  broadcast.monitoring.device_time:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: ts_analyzer
    ntp: true
    ntp_servers: [0.pool.ntp.org, 1.pool.ntp.org]
    timezone: Europe/Berlin

- name: No NTP at an isolated site; keep the clock within 5 s of the controller's (analyzer)
  broadcast.monitoring.device_time:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: ts_analyzer
    ntp: false
    datetime: now
"""

RETURN = r"""
before:
  description: NTP flag, servers and timezone before the module ran, and the device's clock when O(datetime) sets it.
  returned: success
  type: dict
  sample: {"ntp": false, "ntp_servers": [], "timezone": "UTC"}
after:
  description: >-
    NTP flag, servers and timezone after the module ran (in check mode, what they would be), and the clock
    set (to the second, UTC) when O(datetime) sets it.
  returned: success
  type: dict
clock_drift:
  description: Seconds between the device clock and O(datetime) when it was read; null without O(datetime).
  returned: success
  type: float
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import manage_time

ARGUMENT_SPEC = dict(
    ntp=dict(type="bool"),
    ntp_servers=dict(type="list", elements="str"),
    timezone=dict(type="str"),
    datetime=dict(type="str"),
    max_clock_drift=dict(type="int", default=5),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: manage_time(module.client, module.device, module.params, module.check_mode))


if __name__ == "__main__":
    main()

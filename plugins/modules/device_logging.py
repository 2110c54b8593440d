#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_logging
short_description: Manage log level and remote syslog of an analyzer or FM monitor
version_added: 1.0.0
description:
  - Sets the device's log level and forwarding to a remote syslog server.
  - Both devices apply these at the next reboot; the module returns RV(reboot_needed)
    (reboot with M(broadcast.monitoring.device_reboot) and O(broadcast.monitoring.device_reboot#module:only_if_needed=true)).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  level:
    description: Least severity the device logs.
    type: str
    choices: [trace, debug, info, warning, error, critical]
  remote_syslog:
    description: Forwarding to a remote syslog server. Suboptions you leave out keep the device's value.
    type: dict
    suboptions:
      enabled:
        description: Whether log entries are forwarded.
        type: bool
      server:
        description:
          - Address or hostname of the syslog server; required when forwarding is enabled.
          - On the FM monitor it may be followed by C(:port) (for example V(192.0.2.10:1514)); that device keeps the
            port in this one field, as it gives it back. On the analyzer the port is O(remote_syslog.port).
        type: str
      port:
        description: UDP port of the syslog server, analyzer only (the FM monitor takes it in O(remote_syslog.server)).
        type: int
"""

EXAMPLES = r"""
- name: Forward warnings and worse to the site syslog server
  broadcast.monitoring.device_logging:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    level: warning
    remote_syslog:
      enabled: true
      server: 192.0.2.10
"""

RETURN = r"""
before:
  description: Log settings before the module ran.
  returned: success
  type: dict
  sample: {"level": "info", "remote_syslog": {"enabled": false, "server": ""}}
after:
  description: Log settings after the module ran (in check mode, what they would be).
  returned: success
  type: dict
reboot_needed:
  description: Whether saved settings wait for a reboot to take effect.
  returned: success
  type: bool
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import manage_logging

ARGUMENT_SPEC = dict(
    level=dict(type="str", choices=["trace", "debug", "info", "warning", "error", "critical"]),
    remote_syslog=dict(type="dict", options=dict(
        enabled=dict(type="bool"),
        server=dict(type="str"),
        port=dict(type="int"),
    )),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: manage_logging(module.client, module.device, module.params, module.check_mode))


if __name__ == "__main__":
    main()

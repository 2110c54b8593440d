#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_login
short_description: Log in to an analyzer or FM monitor once and return its bearer token
version_added: 1.0.0
description:
  - Logs in with O(role) and O(password) and returns the device's bearer token, so that a play logs in once per
    device and hands the token to every other module through C(module_defaults) (option O(token)).
  - "The returned token is a secret: B(the task must set C(no_log: true)), and the registered variable should only
    be passed on as O(token)."
  - Writes nothing to the device, so it runs in check mode too (the token is real, so later tasks can read the
    device in check mode).
  - Needs O(password). A token given in O(token) is secret to Ansible, so it could not be returned (without a
    password the module fails before any request).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options: {}
"""

EXAMPLES = r"""
- name: Log in once (the token is a secret)
  broadcast.monitoring.device_login:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: ts_analyzer
  register: login
  no_log: true

- name: Use the token instead of the password
  broadcast.monitoring.device_time:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    token: "{{ login.token }}"
    device_type: ts_analyzer
    timezone: UTC
"""

RETURN = r"""
token:
  description: The bearer token of O(role) on the device. Secret; use C(no_log) on the task.
  returned: success
  type: str
device_type:
  description: The device type the module talked to (detected with O(device_type=auto)).
  returned: success
  type: str
  sample: ts_analyzer
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

ARGUMENT_SPEC = dict()


def login(module):
    """The token of a fresh login with the password."""
    if module.params.get("password") is None:
        module.fail_json(msg="password: device_login logs in with a password (a given token cannot be returned)")
    token = module.client.login()
    return dict(changed=False, token=token, device_type=module.device.KIND)


def main():
    module = DeviceModule(ARGUMENT_SPEC, reads_only=True, returns_secrets=("token",))
    module.run(lambda: login(module))


if __name__ == "__main__":
    main()

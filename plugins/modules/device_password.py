#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_password
short_description: Set the password of a role on an analyzer or FM monitor, idempotently
version_added: 1.0.0
description:
  - Sets the password of O(target_role).
  - First tries to log in as O(target_role) with O(new_password); when that works nothing is written and the
    result is not changed. Otherwise the password is changed with the module's own credentials (admin role),
    and the new password is checked by logging in with it.
  - Tokens issued before the change stay valid on both devices; changing a password does not log anybody out.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.DEVICE
options:
  target_role:
    description: The role whose password is set.
    type: str
    choices: [admin, user]
    required: true
  new_password:
    description:
      - The password O(target_role) should have. Never shown in output, diffs or errors.
      - 1 to 128 characters, not only spaces (checked before any request).
      - If not set, the environment variable E(BROADCAST_MONITORING_NEW_PASSWORD) is used (so that the value need not
        be a module argument at all, which matters where module arguments are traced, as with C(ANSIBLE_DEBUG=1)).
    type: str
    required: true
notes:
  - Costs one login attempt with O(new_password), and when it fails, one login, one write and one login to check.
  - No diff is shown, since the values are secret; the result's C(changed) says whether the password was (or would be) set.
"""

EXAMPLES = r"""
- name: Fleet password for admin, from factory credentials
  broadcast.monitoring.device_password:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    device_type: "{{ device_type }}"
    target_role: admin
    new_password: "{{ fleet_admin_password }}"
"""

RETURN = r"""
target_role:
  description: The role whose password was checked or set.
  returned: success
  type: str
  sample: admin
"""

from ansible.module_utils.basic import env_fallback

from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import manage_password

ARGUMENT_SPEC = dict(
    target_role=dict(type="str", required=True, choices=["admin", "user"]),
    new_password=dict(type="str", required=True, no_log=True, fallback=(env_fallback, ["BROADCAST_MONITORING_NEW_PASSWORD"])),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC)
    module.run(lambda: manage_password(module.client, module.device, module.params, module.check_mode))


if __name__ == "__main__":
    main()

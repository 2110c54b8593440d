# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The options of device_state: the action plugin validates them, the module file documents them."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._connection import CONNECTION_SPEC
from ansible_collections.broadcast.monitoring.plugins.module_utils._devices import NAMES

#: the registered device types (_devices.py), as the documentation lists them
DEVICE_TYPES = sorted(NAMES)

# The connection options go to the part modules as given: their defaults and their environment
# fallbacks apply where those modules run, not on the controller.
PASSED_ON = {name: {"type": spec["type"], "no_log": spec.get("no_log", False)} for name, spec in CONNECTION_SPEC.items()}

# the module's own options (the connection options are PASSED_ON)
ARGUMENT_SPEC = dict(
    device_type=dict(type="str", required=True, choices=DEVICE_TYPES),
    parts=dict(type="dict", required=True),
    purge=dict(type="bool", default=False),
    purge_parts=dict(type="dict", default={}),
    reboot=dict(type="bool", default=False),
    login_once=dict(type="bool", default=True),
    check_role_variables=dict(type="bool", default=False),
)

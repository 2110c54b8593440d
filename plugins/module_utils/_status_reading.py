# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The options of fleet_status_reading: the action plugin validates them, the module file documents them."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._devices import NAMES

ARGUMENT_SPEC = dict(
    device_type=dict(type="str", required=True, choices=sorted(NAMES)),
    check_role_variables=dict(type="bool", default=False),
    play_variables=dict(type="list", elements="str", default=[]),
)

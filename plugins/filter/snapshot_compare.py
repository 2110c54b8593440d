# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The snapshot_compare filter: two device_snapshot snapshots compared without a device."""

from __future__ import annotations

# The documentation lives here, in the plugin's own file (a snapshot_compare.yml beside it made
# galaxy-importer list the filter twice, once per file).
DOCUMENTATION = r"""
name: snapshot_compare
short_description: What changed, and what stopped working, between two device snapshots
version_added: 1.0.0
description:
  - Compares two snapshots of one device taken by M(broadcast.monitoring.device_snapshot), without contacting the
    device, as the module does with its O(broadcast.monitoring.device_snapshot#module:compare_to) option.
  - Returns C(changes) (every difference) and C(regressions) (what worked in the earlier snapshot and does not in
    the later one, naming the input or tuner). Only what worked can regress - an input that was not receiving, or a
    tuner that was not enabled and tuned, in the earlier snapshot is not checked.
  - The earlier snapshot may be the one a backup keeps (its C(snapshot)), or the whole backup document; inputs are
    then matched by name, and only what the backup records is checked.
  - Snapshots of different device types, or a value that is not a snapshot, are refused with an error naming the
    argument (C(compare_to) for the earlier one, C(snapshot) for the later one).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
positional: _input, after
options:
  _input:
    description: The earlier snapshot (RV(broadcast.monitoring.device_snapshot#module:snapshot) of a registered result,
      or a backup's).
    type: dict
    required: true
  after:
    description: The later snapshot of the same device.
    type: dict
    required: true
  ignore:
    description: Checks whose regressions are not counted, as O(broadcast.monitoring.device_snapshot#module:ignore).
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: What changed in operation between the snapshots before and after the upgrade
  ansible.builtin.set_fact:
    operation: "{{ before.snapshot | broadcast.monitoring.snapshot_compare(after.snapshot) }}"

- name: The same, not counting priority-1 errors as regressions
  ansible.builtin.set_fact:
    operation: "{{ before.snapshot | broadcast.monitoring.snapshot_compare(after.snapshot, ignore=['priority1']) }}"
"""

RETURN = r"""
_value:
  description:
    - C(changes) and C(regressions), as RV(broadcast.monitoring.device_snapshot#module:changes) and
      RV(broadcast.monitoring.device_snapshot#module:regressions) of the module.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._snapshot import compare


def snapshot_compare(before, after, ignore=None):
    """``{"regressions", "changes"}`` between the snapshots ``before`` and ``after``."""
    try:
        return compare(before, after, ignore or ())
    except InputError as err:
        raise AnsibleFilterError("snapshot_compare: %s" % "; ".join(err.problems)) from None


class FilterModule:
    def filters(self):
        return {"snapshot_compare": snapshot_compare}

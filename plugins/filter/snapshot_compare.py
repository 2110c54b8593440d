# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The snapshot_compare filter: two device_snapshot snapshots compared without a device
(documentation: snapshot_compare.yml beside this file)."""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.broadcast.monitoring.plugins.module_utils.engine import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils.snapshot import compare


def snapshot_compare(before, after, ignore=None):
    """``{"regressions", "changes"}`` between the snapshots ``before`` and ``after``."""
    try:
        return compare(before, after, ignore or ())
    except InputError as err:
        raise AnsibleFilterError("snapshot_compare: %s" % "; ".join(err.problems)) from None


class FilterModule:
    def filters(self):
        return {"snapshot_compare": snapshot_compare}

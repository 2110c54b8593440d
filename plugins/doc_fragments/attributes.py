# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """The attributes every module documents the same way."""

    DOCUMENTATION = r"""
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the device.
    support: full
    details: In check mode the module reads the device and sends no write request at all.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode).
    support: full
"""

    INFO = r"""
attributes:
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the device.
    support: full
    details: The module only reads; it runs the same in check mode and never reports a change.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode).
    support: none
    details: Nothing changes, so there is no diff.
"""

    TS = r"""
attributes:
  action_group:
    description: Use C(group/broadcast.monitoring.ts) or C(group/broadcast.monitoring.all) in C(module_defaults) to set connection options once.
    support: full
    membership:
      - broadcast.monitoring.ts
      - broadcast.monitoring.all
"""

    FM = r"""
attributes:
  action_group:
    description: Use C(group/broadcast.monitoring.fm) or C(group/broadcast.monitoring.all) in C(module_defaults) to set connection options once.
    support: full
    membership:
      - broadcast.monitoring.fm
      - broadcast.monitoring.all
"""

    DEVICE = r"""
attributes:
  action_group:
    description: Use C(group/broadcast.monitoring.device) or C(group/broadcast.monitoring.all) in C(module_defaults) to set connection options once.
    support: full
    membership:
      - broadcast.monitoring.device
      - broadcast.monitoring.all
"""

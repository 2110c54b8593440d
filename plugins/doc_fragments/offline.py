# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """state=parsed and state=rendered of the resource modules: a backup instead of a device."""

    DOCUMENTATION = r"""
options:
  running_config:
    description:
      - With O(state=parsed) and O(state=rendered), where it is required (and refused with any other state), the
        content of a file that M(broadcast.monitoring.device_backup) wrote, for example
        C("{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"), as its text (JSON, or
        YAML) or as the loaded dictionary.
      - A backup of the module's device type, of format C(broadcast.monitoring.backup/2), which holds the device's
        own answers; anything else fails naming this option, before anything is done.
    type: raw
  rendered_state:
    description:
      - With O(state=rendered), the state whose requests are rendered - one of the module's own states that write,
        such as V(replaced), V(overridden) or V(deleted) where the module has them. The plan is the one that state
        makes; for V(overridden) it deletes what the configuration given does not declare.
      - When not given, V(merged). Refused with any other O(state), and with a state the module does not have, before
        anything is done.
    type: str
notes:
  - With O(state=parsed) and O(state=rendered) the module contacts no device, sends no request and logs in
    nowhere, so no connection option is needed (O(host), O(password) and the others are not used; RV(requests) counts
    zero). The module runs its own code against the backup, the read that V(gathered) makes of a device for
    V(parsed), and for V(rendered) the read, the comparison and the writes of O(rendered_state) (V(merged) unless
    given), the writes recorded instead of sent. Check mode changes nothing about either.
  - V(rendered) is for reviewing a change before it is made (an approval step in AWX); the requests it returns are
    those the module sends to a device in the backup's state. A device that changed since the backup gets what its
    own state calls for instead; the module compares again when it runs.
  - What a backup does not hold is taken from the interface documents; that is the FM monitor's list of valid stream
    bitrates, which the monitor's own list may narrow.
"""

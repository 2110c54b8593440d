#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: role_variables
short_description: Refuse variables with a role's prefix that the role does not know
version_added: 1.0.0
description:
  - Run as the first task of a role. Fails when the host has a variable named C(<role>_...) (the role's name and
    an underscore) that the role does not know, naming each such variable and the closest known name. Without it
    a misspelt variable, for example C(fm_monitor_tuner) for C(fm_monitor_tuners), would manage nothing and report
    ok.
  - The known names are the options of every entry point in the role's C(meta/argument_specs.yml), and the names the
    role's own tasks register or set as facts (its results). A name with two underscores after the role's name
    (C(<role>__name)) is private to the role and not judged.
  - Runs on the controller and sends nothing to any device. Each role of this collection runs it first, so a
    misspelt variable stops the role before any request.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
options:
  play_variables:
    description:
      - Further names with the role's prefix that are not role variables but are known to the playbooks that run
        the role (for example C(backup_hosts), the hosts of C(playbooks/backup.yml)).
    type: list
    elements: str
    default: []
attributes:
  action:
    description: Runs on the controller as an action plugin.
    support: full
  check_mode:
    description: Can run in check mode and return changed status prediction without modifying the device.
    support: full
    details: It only reads the variables; it runs the same in check mode and never reports a change.
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check mode).
    support: none
    details: Nothing changes, so there is no diff.
"""

EXAMPLES = r"""
# the first task of a role's tasks/main.yml
- name: Refuse variables the role does not know
  broadcast.monitoring.role_variables:
"""

RETURN = r"""
unknown:
  description: The variables with the role's prefix that the role does not know.
  returned: failure
  type: list
  elements: str
  sample: [fm_monitor_tuner]
"""

from ansible.module_utils.basic import AnsibleModule

ARGUMENT_SPEC = dict(play_variables=dict(type="list", elements="str", default=[]))


def main():
    # The action plugin does the work; run as a bare module, say so instead of doing nothing.
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    module.fail_json(msg="role_variables runs as an action plugin of broadcast.monitoring, as a task of a role")


if __name__ == "__main__":
    main()

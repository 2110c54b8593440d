# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action of every module of this collection but device_state (which has its own):
Ansible's plain module action, with the module run in the controller's process where it
can be (plugin_utils/_direct_execution.py).

meta/runtime.yml routes each module here (``action_plugin``). The file carries
device_login's name only because ansible-test wants every action plugin to share a module's
name; nothing in it is particular to device_login."""

from __future__ import annotations

from ansible.plugins.action.normal import ActionModule as ModuleAction

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._direct_execution import DirectExecutionAction


class ActionModule(DirectExecutionAction, ModuleAction):
    pass

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The outside_data lookup: the one way an EDA event or a job's artifacts enter a playbook."""

from __future__ import annotations

DOCUMENTATION = r"""
name: outside_data
short_description: Variables that hold text from outside (an EDA event, job artifacts), as data that is never templated
version_added: 1.0.0
description:
  - Returns the value of each variable named, exactly as it was given (from C(-e @file), an AWX extra variable or an
    ansible-rulebook C(run_playbook)), with every string in it marked unsafe, so that Ansible never evaluates a
    template a device, an event or an artifact carries, wherever the value is used afterwards.
  - C(ansible.builtin.vars), and naming such a variable in a template, evaluate the template text the value holds
    (an EDA event carries names a device chose, and ansible-core trusts C(-e @file) data as a template).
    The collection's playbooks read C(ansible_eda) and the C(broadcast_monitoring_*) artifacts through this lookup
    only (tests/unit/test_outside_data.py keeps it so).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
options:
  _terms:
    description: Names of the variables to return.
    type: list
    elements: str
    required: true
  default:
    description: The value returned for a variable that is not defined. Without it, an undefined variable fails,
      naming it.
    type: raw
"""

EXAMPLES = r"""
- name: The object of the EDA event this playbook runs for, as data
  ansible.builtin.set_fact:
    eda_object: "{{ lookup('broadcast.monitoring.outside_data', 'ansible_eda').event.object }}"

- name: An artifact of an earlier job, or an empty one
  ansible.builtin.set_fact:
    audit_artifact: "{{ lookup('broadcast.monitoring.outside_data', 'broadcast_monitoring_audit', default={}) }}"
"""

RETURN = r"""
_raw:
  description: The value of each variable named, every string in it marked unsafe (never templated).
  type: list
  elements: raw
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible.utils.unsafe_proxy import wrap_var

_MISSING = object()


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        unknown = sorted(set(kwargs) - {"default"})
        if unknown:
            raise AnsibleLookupError("outside_data: unknown option %s: it takes default only" % ", ".join(unknown))
        default = kwargs.get("default", _MISSING)
        values = []
        for term in terms:
            if not isinstance(term, str):
                raise AnsibleLookupError("outside_data: a variable name must be a string, got %s" % type(term).__name__)
            # the raw value, as given: ansible.builtin.vars would template it first
            value = (variables or {}).get(term, default)
            if value is _MISSING:
                raise AnsibleLookupError("outside_data: no variable named %r was given" % term)
            values.append(wrap_var(value))
        return values

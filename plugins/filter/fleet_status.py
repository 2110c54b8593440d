# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_status filter: the fleet status role's readings as a document, metrics or a page."""

from __future__ import annotations

DOCUMENTATION = r"""
name: fleet_status
short_description: The fleet's status as one document, Prometheus metrics or a self-contained HTML page
version_added: 1.0.0
description:
  - V(document) - from each device's reading (what the P(broadcast.monitoring.fleet_status#role) role records) and
    the latest audit, validation and rollout results, the fleet status document (C(fleet-status.json)), its devices
    problems first. Its schema is in the guide "The fleet at a glance".
  - V(metrics) - a document in the Prometheus text exposition format, for node_exporter's textfile collector;
    gauges named C(broadcast_monitoring_*) with the labels C(device), C(type) and C(input) or C(tuner); written with
    the Python library C(prometheus_client), which the controller needs for this kind only.
  - V(page) - a document as one self-contained HTML page (no external script, style, font or image; its own
    Content-Security-Policy allows only its inline style and script, by hash). Every text of a device or an
    artifact is escaped.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
positional: _input, kind
options:
  _input:
    description:
      - V(document) - inventory name to reading, a dictionary with C(device_type), C(groups), C(declared) (the number
        of inputs the inventory declares, or null), C(read_at), and C(snapshot) (the result of
        M(broadcast.monitoring.device_snapshot)) or C(error) (why there is none).
      - V(metrics), V(page) - a document this filter made.
    type: dict
    required: true
  kind:
    description: What to make.
    type: str
    choices: [document, metrics, page]
    required: true
  audit:
    description:
      - V(document) - the latest audit, as its artifact (inventory name to result) or its report (C(audit-report.json)).
    type: dict
  validation:
    description: V(document) - the latest validation results (inventory name to result, as C(validate.json)).
    type: dict
  rollout:
    description:
      - V(document) - the latest firmware rollout, as its artifact (inventory name to device) or its report
        (C(firmware_rollout.json)).
    type: dict
  sources:
    description: V(document) - where the results came from (files, artifact names), kept in the document as given.
    type: dict
"""

EXAMPLES = r"""
- name: The status document of the devices that ran
  ansible.builtin.set_fact:
    status_document: >-
      {{ dict(ansible_play_hosts_all | zip(ansible_play_hosts_all | map('extract', hostvars, 'fleet_status_reading')))
         | broadcast.monitoring.fleet_status('document') }}

- name: Its page
  ansible.builtin.copy:
    content: "{{ status_document | broadcast.monitoring.fleet_status('page') }}"
    dest: status/fleet-status.html
    mode: "0644"
"""

RETURN = r"""
_value:
  description: V(document) - the document (a dictionary); V(metrics), V(page) - the text.
  type: raw
"""

import json

from ansible.errors import AnsibleFilterError
from ansible_collections.broadcast.monitoring.plugins.plugin_utils import _fleet_status as status
from ansible_collections.broadcast.monitoring.plugins.plugin_utils import _fleet_status_page as page


def _plain(value):
    """Ansible's tagged and lazy containers as plain JSON data."""
    return json.loads(json.dumps(value, default=str)) if value is not None else None


def _audit_results(value):
    """{host: result} of an audit artifact, or of an audit report (audit-report.json)."""
    value = _plain(value) or {}
    if isinstance(value.get("drift"), dict) and "audited" in value:
        out = dict((host, {"drift": entries}) for host, entries in value["drift"].items())
        out.update((host, {"failed": why}) for host, why in (value.get("failed") or {}).items())
        return out
    return value


def _rollout_results(value):
    """{host: device} of a rollout artifact, or of a rollout report (firmware_rollout.json)."""
    value = _plain(value) or {}
    if isinstance(value.get("devices"), list):
        return dict((d.get("host"), d) for d in value["devices"] if isinstance(d, dict))
    return value


def fleet_status(data, kind, audit=None, validation=None, rollout=None, sources=None):
    if not isinstance(data, dict):
        raise AnsibleFilterError("fleet_status: the input must be a dictionary, got %s" % type(data).__name__)
    if kind == "document":
        return status.document(_plain(data), _audit_results(audit), _plain(validation) or {},
                               _rollout_results(rollout), _plain(sources))
    if kind not in ("metrics", "page"):
        raise AnsibleFilterError("fleet_status: kind must be document, metrics or page, got %r" % (kind,))
    doc = _plain(data)
    if doc.get("format") != status.FORMAT:
        raise AnsibleFilterError("fleet_status: %s needs a document made by fleet_status('document') (format %s)"
                                 % (kind, status.FORMAT))
    if kind == "metrics":
        try:
            return status.metrics(doc)
        except ImportError as err:
            raise AnsibleFilterError("fleet_status: %s" % err) from err
    return page.page(doc, status.page_views(), status.STATES)


class FilterModule:
    def filters(self):
        return {"fleet_status": fleet_status}

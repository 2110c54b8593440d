#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: device_compatibility
short_description: Report how an analyzer's or FM monitor's answers meet what the collection reads
version_added: 1.0.0
description:
  - The first thing to run against a device type or firmware the collection has not met. It reads every answer the
    collection reads (one GET each) and reports, per answer, the fields the collection reads that the device confirms,
    those it lacks (required or optional), those it names otherwise (a name the vendor's notes give, such as
    C(xcast_uptime)), and the fields the collection does not read (RV(endpoints)).
  - RV(compatible) is true when every answer was read and none lacks a required field. A required field that is
    missing would stop the modules that read it with an error naming the request and the field; an optional one
    is read with a meaning for absent (an absent list as empty). Extra fields are ignored when reading and are not
    written back, except where a module writes a whole object back as it was read.
  - It only reads and never changes anything. Works with the V(user) role; an answer the role may not read is
    reported in RV(summary) (C(not_read)) and makes RV(compatible) false.
  - The docs guide "First contact with a real device" explains how to read the report and where a difference is
    handled in the collection.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.connection.DEVICE_TYPE
  - broadcast.monitoring.attributes.INFO
  - broadcast.monitoring.attributes.DEVICE
options: {}
"""

EXAMPLES = r"""
- name: Check a unit with new firmware before the first site.yml
  broadcast.monitoring.device_compatibility:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    device_type: ts_analyzer
  register: compatibility

- name: Stop when the collection cannot read this unit
  ansible.builtin.assert:
    that: compatibility.compatible
    fail_msg: "missing: {{ compatibility.summary.missing_required }}; not read: {{ compatibility.summary.not_read }}"
"""

RETURN = r"""
compatible:
  description: Every answer was read and none lacks a field the collection requires.
  returned: success
  type: bool
device:
  description:
    - The unit's C(model), C(serial_number) and C(firmware_version), as the collection reads them from the answers
      above (no further request); each null when its answer could not be read or lacks it. Give the model and the
      firmware version when you report a difference.
  returned: success
  type: dict
  sample: {"model": "TS-ANALYZER", "serial_number": "TS000001", "firmware_version": "1.0.0"}
endpoints:
  description:
    - One entry per answer the collection reads, in the order the device file declares them.
    - C(path), and either C(error) (why it could not be read) or C(confirmed), C(missing_required),
      C(missing_optional) (lists of field names), C(aliases) (declared name to the name the device used) and C(extra)
      (fields the collection does not read); for a list answer, C(elements) (how many objects were looked at; a field
      counts as present when every one has it).
  returned: success
  type: list
  elements: dict
  sample:
    - {"path": "/api/inputs", "confirmed": ["id", "name", "config", "alerts_config", "monitoring"], "missing_required": [],
       "missing_optional": [], "aliases": {}, "extra": ["vendor_extension"], "elements": 2}
summary:
  description: C(endpoints) (how many answers), C(missing_required) and C(not_read) (what makes RV(compatible) false),
    C(aliases) and C(extra_fields) (how many fields the collection does not read, over all answers).
  returned: success
  type: dict
  sample: {"endpoints": 10, "missing_required": [], "not_read": [], "aliases": [], "extra_fields": 3}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._compatibility import report
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

ARGUMENT_SPEC = dict()


def main():
    module = DeviceModule(ARGUMENT_SPEC, reads_only=True)
    module.run(lambda: report(module.device, module.client))


if __name__ == "__main__":
    main()

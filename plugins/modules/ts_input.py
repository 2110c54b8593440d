#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ts_input
short_description: Manage the monitored inputs of a transport-stream analyzer
version_added: 1.0.0
description:
  - Manages all inputs of one transport-stream analyzer in one invocation, keyed by O(config[].name).
  - Reads the device once (inputs and alert profiles), compares what you set with what the
    device has, and writes only the inputs that differ.
  - Input ids are the device's; you name inputs, the module finds their ids.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.offline
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.TS
options:
  state:
    description:
      - V(merged) creates the listed inputs that do not exist and updates the options you set on those that do;
        options you leave out keep the device's value.
      - V(replaced) makes each listed input exactly as given; options you leave out take their defaults
        (O(config[].alert_profile) the factory profile, O(config[].monitoring=started), SCTE-35 monitoring and
        thumbnails off).
        Inputs not listed are left alone.
      - V(overridden) is V(replaced), and also deletes every input that is not listed.
      - V(deleted) deletes the listed inputs (only O(config[].name) is needed), or every input when O(config) is empty.
      - V(gathered) reads the inputs and returns them in RV(gathered), in the shape O(config) takes. Nothing is written.
      - The analyzer allows two inputs of one name (two runs creating it at once leave them). V(overridden) keeps one
        of each listed name, the one already as listed or else the one with the lowest id, and deletes the other
        copies; V(deleted) deletes every copy of the names it deletes; both list the copies deleted in
        RV(duplicates_removed). V(merged) and V(replaced) cannot tell the copies apart and fail, before any write,
        when a listed name is held twice; V(gathered) shows the copy with the lowest id and lists every copy in
        RV(duplicates). Duplicated names a state does not touch are left alone, with a warning.
      - V(parsed) returns in RV(parsed) the inputs that the backup in O(running_config) holds, in the shape O(config)
        takes, as V(gathered) would have read it from the device when the backup was taken. No device is contacted.
      - V(rendered) returns in RV(rendered) the requests that V(merged) would send to a device in the state of the
        backup in O(running_config) to bring it to O(config). No device is contacted, nothing is written.
    type: str
    choices: [merged, replaced, overridden, deleted, gathered, parsed, rendered]
    default: merged
  config:
    description:
      - The inputs. Names must be unique in the list.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The input's label on the device; the key the module finds the input by.
        type: str
        required: true
      source:
        description:
          - Where the transport stream comes from; exactly one of the suboptions.
          - Required to create an input, and with O(state=replaced) or O(state=overridden).
          - The source is compared and replaced as a whole.
        type: dict
        suboptions:
          multicast:
            description: An IP multicast stream.
            type: dict
            suboptions:
              address:
                description: Multicast group address (224.0.0.0 to 239.255.255.255).
                type: str
                required: true
              port:
                description: UDP port, 1 to 65535.
                type: int
                required: true
              source_address:
                description: Source address for source-specific multicast; leave out for any source.
                type: str
          unicast:
            description: An IP unicast stream received on a local address.
            type: dict
            suboptions:
              address:
                description: Local address to listen on; V(0.0.0.0) (all) when left out.
                type: str
              port:
                description: UDP port, 1 to 65535.
                type: int
                required: true
          asi:
            description: An ASI input port of the analyzer.
            type: dict
            suboptions:
              port:
                description: ASI port number, 1 or 2.
                type: int
                required: true
          t2mi:
            description: A T2-MI stream carried inside another stream.
            type: dict
            suboptions:
              stream_id:
                description: T2-MI stream id.
                type: int
                required: true
              service_id:
                description: Service carrying the T2-MI stream.
                type: int
                required: true
              pid:
                description: Elementary stream PID of the T2-MI stream, 0 to 8191.
                type: int
                required: true
              plp_id:
                description: Physical layer pipe id.
                type: int
                required: true
              manual:
                description: Whether the T2-MI parameters are set by hand rather than detected.
                type: bool
                default: false
          rf:
            description: The analyzer's RF front end.
            type: dict
            suboptions:
              mode:
                description: Demodulator mode number as the device defines it.
                type: int
                required: true
              frequency:
                description: Centre frequency as the device expects it.
                type: int
                required: true
              bandwidth:
                description: Channel bandwidth as the device expects it.
                type: int
                required: true
              plp_id:
                description: Physical layer pipe id.
                type: int
                required: true
      alert_profile:
        description:
          - Name of the alert profile the input uses; must exist on the analyzer.
          - A new input without one gets the analyzer's factory profile (its first profile, id 1), named V(Default)
            at the factory, whatever it has been renamed to since.
        type: str
      pid_error_list:
        description:
          - The input's C(alerts_config.pid_error_list), as the analyzer takes it. The interface document does
            not show the shape of its elements, so they are passed to the device unchanged and compared as they
            are (order included); on the analyzers this collection is tested against they are PID numbers.
          - A new input without it, or a replaced one, has an empty list. RV(gathered), RV(before) and RV(after)
            show it only when it is not empty.
        type: list
        elements: raw
      monitoring:
        description:
          - Whether the analyzer monitors the input (V(started)) or keeps it configured but paused (V(stopped)).
          - A new input without one is V(started).
        type: str
        choices: [started, stopped]
      scte35:
        description:
          - Whether the analyzer logs the input's SCTE-35 splice markers (read them with
            M(broadcast.monitoring.ts_info)).
          - A new input without it, or a replaced one, has it off. RV(gathered), RV(before) and RV(after)
            show it only when it is on.
        type: bool
      thumbnails:
        description:
          - Video thumbnails of the input, decoded from one PID.
          - "V({pid: 256}) turns them on for PID 256 (or moves them to it); V({enabled: false}) turns them off."
          - A new input without it, or a replaced one, has them off. RV(gathered), RV(before) and RV(after)
            show them only when they are on.
        type: dict
        suboptions:
          enabled:
            description: Whether thumbnails are decoded. V(true) needs O(config[].thumbnails.pid).
            type: bool
            default: true
          pid:
            description: The video PID to decode, 0 to 8191. Only with O(config[].thumbnails.enabled=true).
            type: int
  alert_profile_ids:
    description:
      - The analyzer's alert profiles as names and ids, as M(broadcast.monitoring.ts_alert_profile) returned them
        (its RV(broadcast.monitoring.ts_alert_profile#module:profile_ids)) earlier in the same play, to save reading them again.
      - They are used only when they name every profile the inputs on the device use and every profile
        O(config) asks for; otherwise the module reads the profiles as it does without this option.
      - The P(broadcast.monitoring.ts_analyzer#role) role passes them. Give ids from the same play only; an id
        the device has since given to another profile would assign that profile.
      - In check mode, M(broadcast.monitoring.ts_alert_profile) gives a profile it would create with id V(null), and
        inputs may then name it (in check mode only; a real run refuses a V(null) id before any request).
      - Not used with O(state=parsed) and O(state=rendered), which take the profiles from O(running_config).
    type: dict
notes:
  - One invocation costs one login, two reads (inputs and profiles; one, the inputs, when
    O(alert_profile_ids) names every profile needed) and one write per input that differs, plus one for each
    of its monitoring state, SCTE-35 monitoring and thumbnails that changes; never a read per input.
  - Writes are made in the order updates, creations, deletions, so nothing is removed before what replaces it
    is in place. When a write fails, the result lists the changes written before it (RV(written)) and those not
    written (RV(not_written)).
"""

EXAMPLES = r"""
- name: Inputs of one analyzer, nothing else
  broadcast.monitoring.ts_input:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    state: overridden
    config:
      - name: Mux 1
        source:
          multicast: {address: 239.1.1.1, port: 5000, source_address: 10.0.0.7}
        alert_profile: Default
        monitoring: started
        scte35: true
        thumbnails: {pid: 256}
      - name: ASI backup
        source:
          asi: {port: 2}
        monitoring: stopped

- name: Pause one input, leave the rest as they are
  broadcast.monitoring.ts_input:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    config:
      - name: Mux 1
        monitoring: stopped

- name: Read the inputs as config
  broadcast.monitoring.ts_input:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ ts_user_password }}"
    state: gathered
  register: inputs

- name: Remove one input
  broadcast.monitoring.ts_input:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    state: deleted
    config:
      - name: ASI backup

- name: The inputs a backup holds (no device is contacted)
  broadcast.monitoring.ts_input:
    state: parsed
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"

- name: For review, the requests that would bring the analyzer from its backup to these inputs
  broadcast.monitoring.ts_input:
    state: rendered
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"
    config:
      - name: Mux 1
        source:
          multicast: {address: 239.1.1.1, port: 5002}
"""

RETURN = r"""
before:
  description: The inputs before the module ran, in the shape of O(config).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}},
            "alert_profile": "Default", "monitoring": "started"}]
after:
  description: The inputs after the module ran (in check mode, what they would be).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5000}},
            "alert_profile": "Default", "monitoring": "stopped"}]
gathered:
  description: The inputs on the device, in the shape of O(config).
  returned: when O(state=gathered)
  type: list
  elements: dict
changes:
  description:
    - What was (or in check mode, would be) written, one entry per input.
    - The deletion of an extra copy of a duplicated name also carries the copy's device C(id).
    - Each update carries C(differences), what differs field by field, with C(path) (nested keys joined by dots),
      C(current) and C(declared); lists are compared whole; a field the update drops (a nested object replaced
      whole without it) has C(declared=null), one it adds C(current=null); secrets are hidden and the user-info
      of an address or URL is masked.
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample:
    - {"action": "update", "key": "Mux 1", "differences": [{"path": "source.multicast.port", "current": 5000, "declared": 5002}]}
    - {"action": "delete", "key": "Mux 1", "id": 7}
duplicates:
  description:
    - Every copy of each name the analyzer holds more than once, in the shape of O(config), with its device C(id)
      and C(shown), whether it is the copy RV(gathered) shows.
  returned: when O(state=gathered) and the analyzer holds one name more than once
  type: list
  elements: dict
  sample: [{"name": "Mux 1", "id": 3, "shown": true, "source": {"asi": {"port": 1}}, "alert_profile": "Default",
            "monitoring": "started"},
           {"name": "Mux 1", "id": 7, "shown": false, "source": {"asi": {"port": 2}}, "alert_profile": "Default",
            "monitoring": "started"}]
duplicates_removed:
  description: The extra copies of duplicated names that were (or in check mode, would be) deleted, by name and device id.
  returned: when O(state) is V(overridden) or V(deleted) and the analyzer held a name it manages more than once
  type: list
  elements: dict
  sample: [{"name": "Mux 1", "id": 7}]
parsed:
  description:
    - The inputs that the backup in O(running_config) holds, in name order (a backup keeps them so), in the shape
      O(config) takes, read by the code that V(gathered) reads a device with.
    - Given back to a device in the backup's state with V(merged), it changes nothing.
  returned: when O(state=parsed)
  type: list
  elements: dict
rendered:
  description:
    - The requests that V(merged) would send, in the order it sends them, to a device in the state of the backup in
      O(running_config); each with C(method), C(path) and C(body) (V(null) for a request without one).
    - An id the analyzer assigns itself (of an input, of an alert profile) is not part of a backup. Where a
      request holds one, in its C(path) or in the C(input_id) and C(profile_id) fields of its C(body), it names
      the object instead, as C({input:NAME}) or C({profile:NAME}). Send such a request with the id the device has
      for that name at that moment (an object created by an earlier request of the list has one by then).
    - Secrets are hidden (C(********)) and the user-info of an address or URL is masked, as in the module's other
      results.
  returned: when O(state=rendered)
  type: list
  elements: dict
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 2, "write": 1}
written:
  description: Changes that had been written when a write failed.
  returned: failure during writes
  type: list
  elements: dict
not_written:
  description: Changes not written because an earlier write failed.
  returned: failure during writes
  type: list
  elements: dict
unknown:
  description:
    - A write whose answer was lost (the connection dropped) and whose effect could not be read back either, so
      it may or may not have landed. Read the device (or run again) before assuming either.
  returned: failure during writes
  type: list
  elements: dict
lost_answers:
  description:
    - Writes whose answer was lost (the connection dropped). Such a write is never sent again blindly; the
      device is read back, and the write is sent once more only when it did not land (C(landed=false)).
  returned: when an answer was lost
  type: list
  elements: dict
  sample: [{action: create, key: Mux 1, landed: true}]
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import STATES, reconcile
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import Inputs


def _fields(*names):
    return {name: dict(type="int", required=True) for name in names}


SOURCES = dict(
    multicast=dict(type="dict", options=dict(address=dict(type="str", required=True),
                                             port=dict(type="int", required=True),
                                             source_address=dict(type="str"))),
    unicast=dict(type="dict", options=dict(address=dict(type="str"), port=dict(type="int", required=True))),
    asi=dict(type="dict", options=_fields("port")),
    t2mi=dict(type="dict", options=dict(_fields("stream_id", "service_id", "pid", "plp_id"),
                                        manual=dict(type="bool", default=False))),
    rf=dict(type="dict", options=_fields("mode", "frequency", "bandwidth", "plp_id")),
)

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="merged", choices=list(STATES) + ["parsed", "rendered"]),
    config=dict(type="list", elements="dict", default=[], options=dict(
        name=dict(type="str", required=True),
        source=dict(type="dict", options=SOURCES, mutually_exclusive=[list(SOURCES)],
                    required_one_of=[list(SOURCES)]),
        alert_profile=dict(type="str"),
        pid_error_list=dict(type="list", elements="raw"),
        monitoring=dict(type="str", choices=["started", "stopped"]),
        scte35=dict(type="bool"),
        thumbnails=dict(type="dict", options=dict(enabled=dict(type="bool", default=True), pid=dict(type="int")),
                        required_if=[("enabled", True, ["pid"])]),
    )),
    alert_profile_ids=dict(type="dict"),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    params = module.params
    inputs = Inputs(module.client, None if module.offline else params["alert_profile_ids"])
    module.run(lambda: reconcile(inputs, params["config"], module.working_state, module.check_mode))


if __name__ == "__main__":
    main()

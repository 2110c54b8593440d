#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fm_thresholds
short_description: Manage the alert thresholds of an FM monitoring receiver's tuners
version_added: 1.0.0
description:
  - Manages the alert thresholds of the tuners of one FM monitoring receiver in one invocation, per tuner
    (O(config[].tuner_id)) or for every tuner (O(all_tuners)).
  - Each measurement has a lower bound (O(config[].rssi.min)), an upper bound (O(config[].rssi.max)) and a
    hysteresis O(config[].rssi.margin); an alert opens when the measurement crosses a bound and closes once it is
    back by the margin.
  - To turn one alert off, set its bound to V(disabled); the module writes the value the device reads as
    I(off) (0, or 100 for the multipath maximum) and shows such bounds as V(disabled) in its results.
  - Reads every tuner with one request and writes only the tuners that differ; the same change for two or more
    tuners is one request to all tuners.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.offline
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.FM
options:
  state:
    description:
      - V(merged) sets the values you give; values you leave out keep the device's.
      - V(replaced) makes the thresholds of each listed tuner exactly as given; values you leave out take the factory
        values (RSSI threshold 20, interval 10, rssi min 20, snr min 10, every other bound disabled or at its
        maximum, margins 2 (multipath 5), RDS alerts off). Tuners not listed are left alone.
      - V(gathered) reads the thresholds of every tuner and returns them in RV(gathered). Nothing is written.
      - V(parsed) returns in RV(parsed) the tuners' thresholds that the backup in O(running_config) holds, in the
        shape O(config) takes, as V(gathered) would have read it from the device when the backup was taken. No device
        is contacted.
      - V(rendered) returns in RV(rendered) the requests that V(merged) would send to a device in the state of the
        backup in O(running_config) to bring it to O(config). No device is contacted, nothing is written.
    type: str
    choices: [merged, replaced, gathered, parsed, rendered]
    default: merged
  all_tuners:
    description:
      - Thresholds for every tuner of the device, in the shape of O(config) without O(config[].tuner_id).
      - A tuner's own entry in O(config) overrides them, value by value.
    type: dict
    suboptions: &thresholds
      rssi_threshold:
        description: Signal strength at or above which the tuner reports C(signal_ok), 0 to 127.
        type: int
      rssi_interval:
        description: Measurement interval in seconds, 1 to 3600.
        type: int
      rssi:
        description:
          - Bounds of the signal strength (RSSI), 0 to 127 (alerts C(RFL is low), C(RFL is high)).
          - O(config[].rssi.min) and O(config[].rssi.max) take a number or V(disabled); the margin takes a number.
          - When both bounds are on, the minimum must not exceed the maximum.
        type: dict
        suboptions: &bounds
          min:
            description: Lower bound, or V(disabled).
            type: raw
          max:
            description: Upper bound, or V(disabled).
            type: raw
          margin:
            description: Hysteresis; how far back over the bound the measurement must come to close the alert.
            type: int
      snr:
        type: dict
        suboptions: *bounds
        description:
          - Bounds of the signal-to-noise ratio in dB, 0 to 127 (alerts C(SNR is low), C(SNR is high)).
          - Bounds take a number or V(disabled).
      multipath:
        type: dict
        suboptions: *bounds
        description:
          - Bounds of multipath in percent, 0 to 100 (alert C(Multipath is high)).
          - O(config[].multipath.max) takes a number or V(disabled). No alert uses O(config[].multipath.min);
            it takes a number only.
      stereo_blend:
        type: dict
        suboptions: *bounds
        description:
          - Bounds of the stereo blend, 0 to 127 (alerts C(Stereoblend is low), C(Stereoblend is high)).
          - Bounds take a number or V(disabled).
      audio_left:
        type: dict
        suboptions: *bounds
        description:
          - Bounds of the left audio level, 0 to 127 (alerts C(AudioL level is low), C(AudioL level is high)).
          - Bounds take a number or V(disabled).
      audio_right:
        type: dict
        suboptions: *bounds
        description:
          - Bounds of the right audio level, 0 to 127 (alerts C(AudioR level is low), C(AudioR level is high)).
          - Bounds take a number or V(disabled).
      rds:
        description: Which RDS alerts are on.
        type: dict
        suboptions:
          block_a:
            description: Alert on lost data in RDS error block A.
            type: bool
          block_b:
            description: Alert on lost data in RDS error block B.
            type: bool
          block_c:
            description: Alert on lost data in RDS error block C.
            type: bool
          block_d:
            description: Alert on lost data in RDS error block D.
            type: bool
          group_lost:
            description: Alert C(RDS buffer overflow).
            type: bool
          sync_lost:
            description: Alert C(RDS synchronization lost).
            type: bool
          margin:
            description: RDS margin, 0 to 127.
            type: int
  config:
    description: Thresholds per tuner, each tuner at most once.
    type: list
    elements: dict
    default: []
    suboptions:
      tuner_id:
        description: Zero-based tuner number; the device must have it.
        type: int
        required: true
      <<: *thresholds
notes:
  - One invocation costs one login, one read of all tuners and one write per tuner that differs (only the values that
    differ are sent), or a single C(POST /tuners/all/thresholds) when one change brings two or more tuners where
    they should be without changing any other tuner.
  - The user role may set thresholds.
"""

EXAMPLES = r"""
- name: The same thresholds everywhere, a tighter multipath limit on tuner 3
  broadcast.monitoring.fm_thresholds:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    all_tuners:
      rssi_interval: 5
      rssi: {min: 25, margin: 3}
      snr: {min: 15}
      rds: {sync_lost: true}
    config:
      - tuner_id: 3
        multipath: {max: 40}

- name: No low-SNR alerts from tuner 5 (the user role may do this)
  broadcast.monitoring.fm_thresholds:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    config:
      - tuner_id: 5
        snr: {min: disabled}

- name: Read every tuner's thresholds
  broadcast.monitoring.fm_thresholds:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    state: gathered
  register: thresholds

- name: The thresholds a backup holds (no device is contacted)
  broadcast.monitoring.fm_thresholds:
    state: parsed
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"

- name: For review, the requests that would raise every tuner's SNR alarm on the monitor as backed up
  broadcast.monitoring.fm_thresholds:
    state: rendered
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"
    all_tuners:
      snr: {min: 15}
"""

RETURN = r"""
before:
  description: Every tuner's thresholds before the module ran, in the shape of O(config).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"tuner_id": 0, "rssi_threshold": 20, "rssi_interval": 10,
            "rssi": {"min": 20, "max": 127, "margin": 2}, "snr": {"min": 10, "max": 127, "margin": 2},
            "multipath": {"min": 0, "max": "disabled", "margin": 5},
            "stereo_blend": {"min": "disabled", "max": 127, "margin": 2},
            "audio_left": {"min": "disabled", "max": 127, "margin": 2},
            "audio_right": {"min": "disabled", "max": 127, "margin": 2},
            "rds": {"block_a": false, "block_b": false, "block_c": false, "block_d": false,
                    "group_lost": false, "sync_lost": false, "margin": 2}}]
after:
  description: Every tuner's thresholds after the module ran (in check mode, what they would be).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
gathered:
  description: Every tuner's thresholds, in the shape of O(config).
  returned: when O(state=gathered)
  type: list
  elements: dict
changes:
  description:
    - What was (or in check mode, would be) written, one entry per tuner.
    - Each update carries C(differences), what differs field by field, with C(path) (nested keys joined by dots),
      C(current) and C(declared); lists are compared whole; a field the update drops (a nested object replaced
      whole without it) has C(declared=null), one it adds C(current=null); secrets are hidden and the user-info
      of an address or URL is masked.
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"action": "update", "key": 3, "differences": [{"path": "snr.min", "current": 10, "declared": 15}]}]
parsed:
  description:
    - The tuners' thresholds that the backup in O(running_config) holds, in the shape O(config) takes, read by the
      code that V(gathered) reads a device with.
    - Given back to a device in the backup's state with V(merged), it changes nothing.
  returned: when O(state=parsed)
  type: list
  elements: dict
rendered:
  description:
    - The requests that V(merged) would send, in the order it sends them, to a device in the state of the backup in
      O(running_config); each with C(method), C(path) and C(body) (V(null) for a request without one).
    - Secrets are hidden (C(********)) and the user-info of an address or URL is masked, as in the module's other
      results.
  returned: when O(state=rendered)
  type: list
  elements: dict
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 1, "write": 1}
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
  sample: [{action: update, key: 0, landed: true}]
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.resources import Thresholds, reconcile_tuners
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule


def _bounds():
    return dict(type="dict", options=dict(min=dict(type="raw"), max=dict(type="raw"), margin=dict(type="int")))


THRESHOLDS = dict(
    rssi_threshold=dict(type="int"),
    rssi_interval=dict(type="int"),
    rds=dict(type="dict", options=dict(
        dict((name, dict(type="bool")) for name, unused_key in api.RDS_FLAGS),
        margin=dict(type="int"),
    )),
    **dict((metric[0], _bounds()) for metric in api.METRICS)
)

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="merged", choices=["merged", "replaced", "gathered", "parsed", "rendered"]),
    all_tuners=dict(type="dict", options=THRESHOLDS),
    config=dict(type="list", elements="dict", default=[],
                options=dict(tuner_id=dict(type="int", required=True), **THRESHOLDS)),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    params = module.params
    module.run(lambda: reconcile_tuners(Thresholds(module.client), params["config"], params["all_tuners"],
                                        module.working_state, module.check_mode))


if __name__ == "__main__":
    main()

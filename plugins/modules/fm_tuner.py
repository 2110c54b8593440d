#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: fm_tuner
short_description: Manage the tuners of an FM monitoring receiver
version_added: 1.0.0
description:
  - Manages all tuners of one FM monitoring receiver in one invocation, keyed by O(config[].tuner_id)
    (name, frequency or stored station, hardware settings, operating state, mute and IP streaming).
  - The device has a fixed set of tuners (0 to 7 on an eight-channel model); nothing is created or deleted.
  - Reads every tuner with one request, compares only what you set, and writes only what differs.
  - Alert thresholds and schedules have their own modules, M(broadcast.monitoring.fm_thresholds) and
    M(broadcast.monitoring.fm_schedule); band scans are M(broadcast.monitoring.fm_station).
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
      - V(merged) sets the options you give on the listed tuners; options you leave out keep the device's value.
      - V(replaced) makes each listed tuner exactly as given; options you leave out take the factory values
        (name C(Tuner N), 87500 kHz, disabled, not muted, AGC on, channel filter 0, 50 µs, LNA gain 0,
        lock threshold 20, streaming off to C(udp://239.1.1.N:1234), mp3, 128 kbps). Tuners not listed are left alone.
      - V(gathered) reads the tuners and returns them in RV(gathered), in the shape O(config) takes. Nothing is written.
      - V(parsed) returns in RV(parsed) the tuners that the backup in O(running_config) holds, in the shape O(config)
        takes, as V(gathered) would have read it from the device when the backup was taken. No device is contacted.
      - V(rendered) returns in RV(rendered) the requests that V(merged) would send to a device in the state of the
        backup in O(running_config) to bring it to O(config). No device is contacted, nothing is written.
    type: str
    choices: [merged, replaced, gathered, parsed, rendered]
    default: merged
  all_tuners:
    description:
      - Options for every tuner of the device, in the shape of O(config) without O(config[].tuner_id).
      - A tuner's own entry in O(config) overrides them, option by option.
      - When the same hardware settings go to two or more tuners, they are written with one request
        to all tuners instead of one per tuner.
    type: dict
    suboptions: &tuner
      name:
        description: Display label, 1 to 32 characters.
        type: str
      frequency:
        description:
          - Frequency in kHz, in the FM band 87500 to 108000.
          - Changing it makes the tuner switch; the device answers requests to that tuner with HTTP 503 for a moment,
            which the module waits out.
        type: int
      station_id:
        description:
          - Tune to this station of the device's station list (found by a band scan, see
            M(broadcast.monitoring.fm_station)); the tuner takes the station's frequency.
          - Nothing is sent when the tuner already reports this station. Needs O(role=admin).
          - With O(config[].frequency) too, both must name the same frequency.
        type: int
      operating_state:
        description:
          - V(enabled) monitors, V(sleep) pauses with the configuration kept, V(disabled) turns the tuner off.
          - Changing it needs O(role=admin).
          - A tuner whose schedule is active (M(broadcast.monitoring.fm_schedule)) has its operating state set by the
            schedule. Giving this option for such a tuner fails before any write, with a message saying so. Leave it
            out for that tuner, or deactivate its schedule first. With O(state=replaced), a scheduled tuner keeps the
            state its schedule gave it.
        type: str
        choices: [disabled, enabled, sleep]
      muted:
        description: Whether the tuner is muted on the monitor output.
        type: bool
      hw_settings:
        description: Receiver hardware settings.
        type: dict
        suboptions:
          agc:
            description: Automatic gain control on or off.
            type: bool
          channel_filter:
            description: IF channel filter bandwidth, 0 to 4.
            type: int
          deemphasis:
            description: De-emphasis time constant in microseconds (50 in Europe, 75 in the Americas).
            type: int
            choices: [50, 75]
          lna_gain:
            description: Low-noise amplifier gain, 0 to 15.
            type: int
          rssi_threshold:
            description: Minimum signal strength (RSSI) for the tuner to lock, 0 to 127.
            type: int
      stream:
        description: Streaming of the tuner's audio over IP.
        type: dict
        suboptions:
          enabled:
            description: Whether the tuner streams.
            type: bool
          url:
            description: Destination, C(udp://ADDRESS:PORT) with an IPv4 unicast or multicast address.
            type: str
          codec:
            description: Audio codec.
            type: str
            choices: [mp3, aac]
          bitrate:
            description:
              - Bitrate in kbps; one of the device's valid bitrates (64, 96, 128, 192, 256 or 320 on the documented model).
              - When a bitrate is given, the module reads the valid bitrates from the device and checks it before any write.
            type: int
  config:
    description:
      - The tuners to manage, each at most once.
    type: list
    elements: dict
    default: []
    suboptions:
      tuner_id:
        description: Zero-based tuner number; the device must have it.
        type: int
        required: true
      <<: *tuner
  scheduled_tuners:
    description:
      - The tuners whose schedule is active once the schedules are applied, when that differs from what the device
        reports now; left out, the tuners whose schedule the device reports active.
      - The operating state of these tuners is their schedule's to set, so O(config[].operating_state) is refused
        for them and V(replaced) leaves their state alone; the other tuners' state is this module's to set.
      - The P(broadcast.monitoring.fm_monitor#role) role passes the schedules M(broadcast.monitoring.fm_schedule)
        leaves active earlier in the same task, so that a purge that re-activates a schedule does not first switch
        its tuner off.
    type: list
    elements: int
notes:
  - One invocation costs one login and one read of all tuners (C(GET /tuners/all)); it also reads the station list when
    a frequency or station changes, and the valid bitrates when a bitrate is given. Each tuner that differs costs one
    write per part that differs (state, mute, stream, settings, station), in that order, so that the tuner switches
    frequency last.
  - When a write fails, the result lists the tuners written before it (RV(written)) and those not written (RV(not_written)).
  - A tuner busy with a band scan answers HTTP 503; the module retries for up to O(busy_timeout) seconds, then fails saying the tuner is busy.
  - With O(role=user) every option can be set except O(config[].operating_state) and O(config[].station_id), which need
    O(role=admin); asking a user login for them fails before any write.
"""

EXAMPLES = r"""
- name: Two tuners on air, streaming, the same hardware settings for all
  broadcast.monitoring.fm_tuner:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    all_tuners:
      hw_settings: {agc: true, deemphasis: 50, channel_filter: 2}
    config:
      - tuner_id: 0
        name: Radio One
        frequency: 94800
        operating_state: enabled
        stream: {enabled: true, url: "udp://239.10.0.1:5004", codec: aac, bitrate: 192}
      - tuner_id: 1
        name: Radio Two
        frequency: 101300
        operating_state: enabled

- name: Mute a tuner and rename it (the user role may do this)
  broadcast.monitoring.fm_tuner:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    config:
      - tuner_id: 1
        name: Radio Two (backup)
        muted: true

- name: Read the tuners as config
  broadcast.monitoring.fm_tuner:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    role: user
    password: "{{ fm_user_password }}"
    state: gathered
  register: tuners

- name: Tuner 1 back to its factory settings
  broadcast.monitoring.fm_tuner:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ fm_admin_password }}"
    state: replaced
    config:
      - tuner_id: 1

- name: The tuners a backup holds (no device is contacted)
  broadcast.monitoring.fm_tuner:
    state: parsed
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"

- name: For review, the requests that would retune tuner 0 of the monitor as backed up
  broadcast.monitoring.fm_tuner:
    state: rendered
    running_config: "{{ lookup('ansible.builtin.file', 'backups/' ~ inventory_hostname ~ '.json') }}"
    config:
      - tuner_id: 0
        frequency: 101000
"""

RETURN = r"""
before:
  description: Every tuner before the module ran, in the shape of O(config), with C(station_id) the stored station the
    tuner reports (or V(null)).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
  sample: [{"tuner_id": 0, "name": "Tuner 1", "frequency": 87500, "station_id": null, "operating_state": "disabled",
            "muted": false, "hw_settings": {"agc": true, "channel_filter": 0, "deemphasis": 50, "lna_gain": 0,
                                            "rssi_threshold": 20},
            "stream": {"enabled": false, "url": "udp://239.1.1.1:1234", "codec": "mp3", "bitrate": 128}}]
after:
  description: Every tuner after the module ran (in check mode, what it would be).
  returned: when O(state) is neither V(gathered), V(parsed) nor V(rendered)
  type: list
  elements: dict
gathered:
  description: The tuners on the device, in the shape of O(config).
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
  sample: [{"action": "update", "key": 0, "differences": [{"path": "frequency", "current": 99900, "declared": 101100}]}]
parsed:
  description:
    - The tuners that the backup in O(running_config) holds, in the shape O(config) takes, read by the code that
      V(gathered) reads a device with.
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
  sample: {"login": 1, "read": 1, "write": 2}
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
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.resources import Tuners, reconcile_tuners
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule

TUNER = dict(
    name=dict(type="str"),
    frequency=dict(type="int"),
    station_id=dict(type="int"),
    operating_state=dict(type="str", choices=list(api.STATE_NAMES)),
    muted=dict(type="bool"),
    hw_settings=dict(type="dict", options=dict(
        agc=dict(type="bool"),
        channel_filter=dict(type="int"),
        deemphasis=dict(type="int", choices=sorted(api.DEEMPHASIS)),
        lna_gain=dict(type="int"),
        rssi_threshold=dict(type="int"),
    )),
    stream=dict(type="dict", options=dict(
        enabled=dict(type="bool"),
        url=dict(type="str"),
        codec=dict(type="str", choices=list(api.CODECS)),
        bitrate=dict(type="int"),
    )),
)

ARGUMENT_SPEC = dict(
    state=dict(type="str", default="merged", choices=["merged", "replaced", "gathered", "parsed", "rendered"]),
    all_tuners=dict(type="dict", options=TUNER),
    config=dict(type="list", elements="dict", default=[], options=dict(tuner_id=dict(type="int", required=True), **TUNER)),
    scheduled_tuners=dict(type="list", elements="int"),
)


def main():
    module = DeviceModule(ARGUMENT_SPEC, api)
    params = module.params
    tuners = Tuners(module.client, params["scheduled_tuners"])
    module.run(lambda: reconcile_tuners(tuners, params["config"], params["all_tuners"], module.working_state,
                                        module.check_mode))


if __name__ == "__main__":
    main()

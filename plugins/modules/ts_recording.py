#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: ts_recording
short_description: Capture transport streams to the SD card of a transport-stream analyzer
version_added: 1.0.0
description:
  - Records an input's stream to the analyzer's SD card, stops the recording, lists, downloads and deletes the
    capture files, and prepares the card. One O(operation) per invocation.
  - The card records one input at a time. Operations are idempotent where they can be; see O(operation).
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
extends_documentation_fragment:
  - broadcast.monitoring.connection
  - broadcast.monitoring.attributes
  - broadcast.monitoring.attributes.TS
attributes:
  check_mode:
    details: In check mode the module makes the reads that say what would happen, and never starts, stops, deletes,
      prepares or downloads anything.
  diff_mode:
    support: none
    details: Operations are not state; the result says what was done (RV(msg)).
options:
  operation:
    description:
      - V(start) records O(input), bounded by O(duration) and O(size) when given. Unchanged when O(input) is
        already recording; fails when another input is, or when O(input) has no stream (monitoring stopped, no
        signal).
      - V(stop) ends the recording (of O(input) when given). Unchanged when nothing (or another input) records.
      - V(list) returns the card's status (RV(card)) and capture files (RV(files)).
      - V(download) writes capture file O(filename) to O(dest) on the host the module runs on, streamed to disk
        (never held in memory), and returns its SHA-256 (RV(file)). Unchanged when O(dest) already has a file of
        the same size (O(force=true) downloads anyway, and then reports a change only if the content differs).
      - V(delete) deletes capture file O(filename); unchanged when the card has no such file.
      - V(delete_all) deletes every capture file; needs O(confirm=true).
      - V(init) initialises the card (files are kept); V(format) formats it, deleting every file. Both need
        O(confirm=true), and wait up to O(wait_timeout) seconds until the card is ready.
      - A file being recorded can be neither downloaded nor deleted, and nothing can be recorded, deleted or
        prepared while the card is being prepared; the module fails before any write in those cases.
    type: str
    required: true
    choices: [start, stop, list, download, delete, delete_all, init, format]
  input:
    description: Name of the input to record (V(start), required) or whose recording to stop (V(stop)).
    type: str
  duration:
    description: With V(start), stop after this many seconds (at least 1). Unlimited when left out.
    type: int
  size:
    description: With V(start), stop at this size in MB (10^6 bytes, at least 1). Unlimited when left out.
    type: int
  filename:
    description:
      - The capture file, as RV(files) names it, for V(download) and V(delete).
      - It must be a plain file name (no C(/) or backslash, not C(..), no NUL or control character), checked before
        any request, since the card holds no other kind; with V(download) a file is so never written outside the
        directory O(dest).
    type: str
  dest:
    description:
      - With V(download), the file to write, or an existing directory to write O(filename) into. Its directory
        must exist.
      - A new file is C(0600) (less the umask); a symlink at its place is replaced, never read or written through.
    type: path
  force:
    description: With V(download), download even when O(dest) already has a file of the same size.
    type: bool
    default: false
  confirm:
    description: Must be V(true) for V(delete_all), V(init) and V(format), which cannot be undone.
    type: bool
    default: false
  wait_timeout:
    description: With V(init) and V(format), seconds to wait until the card is ready; V(0) returns at once.
    type: int
    default: 120
notes:
  - O(dest) is a path on the host the module runs on; with the usual local connection (or
    C(delegate_to=localhost)) that is the controller.
  - The download uses a one-time token that the module obtains just before; the token is never returned or logged.
  - Files are named by the analyzer, C(input<id>_<YYYYmmdd_HHMMSS>.ts) (start time, UTC).
"""

EXAMPLES = r"""
- name: Record Mux 1 for ten minutes, at most 20 MB
  broadcast.monitoring.ts_recording:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    operation: start
    input: Mux 1
    duration: 600
    size: 20
  register: capture

- name: Stop it, if it has not ended yet
  broadcast.monitoring.ts_recording:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    operation: stop
    input: Mux 1

- name: Fetch the capture to the controller
  broadcast.monitoring.ts_recording:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    operation: download
    filename: "{{ capture.recording.filename }}"
    dest: /tmp
  register: fetched

- name: Then remove it from the card
  broadcast.monitoring.ts_recording:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    operation: delete
    filename: "{{ capture.recording.filename }}"

- name: Format the card (erases every capture)
  broadcast.monitoring.ts_recording:
    host: "{{ ansible_host }}"
    port: "{{ device_port | default(80) }}"
    password: "{{ ts_admin_password }}"
    operation: format
    confirm: true
"""

RETURN = r"""
msg:
  description: What was done, or in check mode what would be done.
  returned: always
  type: str
  sample: recording input 'Mux 1' to input1_20261121_101500.ts
card:
  description: The card's status, sizes in MB, and the running recording (or null).
  returned: with O(operation) V(start), V(stop), V(list), V(delete_all), V(init), V(format)
  type: dict
  sample: {"status": "recording", "total_mb": 31914, "used_mb": 12, "recording": {"input": "Mux 1",
           "filename": "input1_20261121_101500.ts", "started": "2026-11-21T10:15:00Z", "duration": 600, "size_mb": 500}}
recording:
  description: The recording that runs (after V(start)).
  returned: with O(operation=start)
  type: dict
files:
  description: The capture files, oldest first; a running capture last, with C(recording=true). Sizes in bytes.
  returned: with O(operation=list)
  type: list
  elements: dict
  sample: [{"filename": "input1_20261121_101500.ts", "size": 1880000, "timestamp": "2026-11-21T10:15:00Z",
            "recording": false}]
file:
  description: The downloaded file (V(download)), with C(dest), C(size) in bytes and C(sha256); or the finished
    capture (V(stop)).
  returned: with O(operation) V(download) or V(stop)
  type: dict
  sample: {"filename": "input1_20261121_101500.ts", "dest": "/tmp/input1_20261121_101500.ts", "size": 1880000,
           "sha256": "3f0a..."}
requests:
  description: HTTP requests this invocation sent, by kind.
  returned: success
  type: dict
  sample: {"login": 1, "read": 2, "write": 1}
"""

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import DeviceModule
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.actions import recording

ARGUMENT_SPEC = dict(
    operation=dict(type="str", required=True,
                   choices=["start", "stop", "list", "download", "delete", "delete_all", "init", "format"]),
    input=dict(type="str"),
    duration=dict(type="int"),
    size=dict(type="int"),
    filename=dict(type="str"),
    dest=dict(type="path"),
    force=dict(type="bool", default=False),
    confirm=dict(type="bool", default=False),
    wait_timeout=dict(type="int", default=120),
)

REQUIRED_IF = [
    ("operation", "start", ["input"]),
    ("operation", "download", ["filename", "dest"]),
    ("operation", "delete", ["filename"]),
]


def main():
    module = DeviceModule(ARGUMENT_SPEC, api, required_if=REQUIRED_IF)
    module.run(lambda: recording(module.client, module.params, module.check_mode))


if __name__ == "__main__":
    main()

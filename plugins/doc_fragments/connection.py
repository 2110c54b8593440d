# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Connection options shared by every module of the collection."""

    DEVICE_TYPE = r"""
options:
  device_type:
    description:
      - The kind of device, which picks its paths and shapes. Set it once per inventory group
        through C(module_defaults).
      - V(auto) asks the device with one unauthenticated request.
      - Falls back to E(BROADCAST_MONITORING_DEVICE_TYPE).
    type: str
    choices: [auto, ts_analyzer, fm_monitor]
    default: auto
"""

    DOCUMENTATION = r"""
options:
  host:
    description:
      - Management address or hostname of the device.
      - Falls back to the environment variable E(BROADCAST_MONITORING_HOST).
      - Required, except with O(ignore:state=parsed) and O(ignore:state=rendered) of the resource modules, which
        contact no device and take no connection option.
    type: str
  port:
    description:
      - TCP port of the device's HTTP interface. Defaults to the protocol's port (80 or 443).
      - Falls back to E(BROADCAST_MONITORING_PORT).
    type: int
  protocol:
    description:
      - V(http) or V(https). Falls back to E(BROADCAST_MONITORING_PROTOCOL).
    type: str
    choices: [http, https]
    default: http
  validate_certs:
    description:
      - With O(protocol=https), whether the device's certificate is verified.
      - Falls back to E(BROADCAST_MONITORING_VALIDATE_CERTS).
    type: bool
    default: true
  ca_path:
    description:
      - A CA bundle file (PEM) or a directory of hashed CA certificates (as C(openssl rehash) makes) to verify the
        device's certificate with, instead of the system's CA certificates.
      - Falls back to E(BROADCAST_MONITORING_CA_PATH).
    type: path
  timeout:
    description:
      - Seconds one request may take as a whole, connecting, sending and receiving the complete answer, however
        slowly the device sends it (a device that sends one byte at a time cannot hold a module up for longer).
      - The body of a file download (capture files, alert logs, the MIB) is the exception, so that a large file
        is never cut off while it flows. Once the answer has begun, each piece of 64 KiB of it must arrive within
        O(timeout); a transfer that stalls or trickles more slowly fails.
      - A module option for a longer request (C(upload_timeout) of M(broadcast.monitoring.device_firmware),
        C(scan_timeout) of M(broadcast.monitoring.fm_station)) bounds that request instead.
      - Falls back to E(BROADCAST_MONITORING_TIMEOUT).
    type: int
    default: 10
  busy_timeout:
    description:
      - Seconds to keep retrying, with growing pauses, while the device answers HTTP 503 (busy, for example a
        tuner during a band scan). The device did not act on a 503, so any request is retried.
      - Falls back to E(BROADCAST_MONITORING_BUSY_TIMEOUT).
    type: int
    default: 30
  max_answer_mb:
    description:
      - The largest answer, in MiB (1 MiB is 1,048,576 bytes), read from the device as a whole (JSON, a playlist,
        the body of an error). The default is hundreds of times any real answer.
      - An answer is read in pieces and refused as soon as it is larger, or before any of it is read when its
        C(Content-Length) says so; the module fails naming the request and the size, without retrying, so that a
        broken or hostile device cannot exhaust the controller's memory.
      - The body of a file download streamed to disk (capture files, alert logs, the MIB, backups) is not bounded
        by this option.
      - Falls back to E(BROADCAST_MONITORING_MAX_ANSWER_MB).
    type: int
    default: 32
  role:
    description:
      - Role to log in as. V(user) can only read.
      - Falls back to E(BROADCAST_MONITORING_ROLE).
    type: str
    choices: [admin, user]
    default: admin
  password:
    description:
      - Password of O(role). Used to log in when no O(token) is given, and once more if the
        device rejects the token.
      - Falls back to E(BROADCAST_MONITORING_PASSWORD).
      - One of O(password) and O(token) is required; without either, the module fails and names both ways to give
        a password (this option, or E(BROADCAST_MONITORING_PASSWORD)).
    type: str
  token:
    description:
      - Bearer token issued by the device's login, used instead of logging in again.
      - Falls back to E(BROADCAST_MONITORING_TOKEN).
    type: str
notes:
  - An environment variable that is set but empty counts as unset (an AWX credential injects an empty string for
    an input it leaves out), so the option keeps its default.
  - A module logs in at most once per invocation. A request the device answers with HTTP 503
    (busy) is retried with growing pauses for up to O(busy_timeout) seconds; a read that meets a
    connection error is retried twice; a write is never sent twice.
  - An answer the collection cannot read (not JSON where JSON is expected, nested deeper than 100 levels, in a
    charset Python does not know) fails naming the request. An HTTP redirect (3xx) is never followed and never
    retried; the module fails naming the request and the redirect's C(Location).
  - Passwords and tokens are never part of a message, a diff or a return value.
"""

    # device_state and device_onboard run other modules, which take these as they are given
    PASSED_ON = r"""
options:
  host:
    description: Management address of the device (passed on to each module; its fallback applies there).
    type: str
  port:
    description: HTTP port of the device (passed on).
    type: int
  protocol:
    description: V(http) or V(https) (passed on; the modules' default is V(http)).
    type: str
  validate_certs:
    description: Check the device's TLS certificate (passed on; the modules' default is V(true)).
    type: bool
  ca_path:
    description: CA bundle for the device's certificate (passed on).
    type: path
  timeout:
    description: Seconds to wait for one answer (passed on).
    type: int
  busy_timeout:
    description: Seconds to retry while the device answers 503 (passed on).
    type: int
  max_answer_mb:
    description: The largest answer read as a whole, in MiB (passed on; the modules' default is V(32)).
    type: int
  role:
    description: The device account to log in as (passed on; the modules' default is V(admin)).
    type: str
"""

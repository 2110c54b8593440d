# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Connection options every module takes, with the environment variables they fall back to
(so an AWX credential can inject them), and the client built from them."""

from __future__ import annotations

import ipaddress
import os

from ansible.module_utils.errors import AnsibleFallbackNotFound

from ansible_collections.broadcast.monitoring.plugins.module_utils._client import Client
from ansible_collections.broadcast.monitoring.plugins.module_utils._devices import NAMES as DEVICE_TYPES
from ansible_collections.broadcast.monitoring.plugins.module_utils._transport import MAX_ANSWER, MIB
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import quoted

ENV = "BROADCAST_MONITORING_"


def set_env_fallback(*names):
    """The first of the environment variables ``names`` that is set and not empty. An empty
    one counts as unset: an AWX credential injects an empty string for an input it leaves
    out, which must leave the option at its default, not give it the value ""."""
    for name in names:
        if os.environ.get(name):
            return os.environ[name]
    raise AnsibleFallbackNotFound


def _env(name):
    return (set_env_fallback, [ENV + name])


CONNECTION_SPEC = dict(
    # required, except by state=parsed and state=rendered, which contact no device (check_connection)
    host=dict(type="str", fallback=_env("HOST")),
    port=dict(type="int", fallback=_env("PORT")),
    protocol=dict(type="str", default="http", choices=["http", "https"], fallback=_env("PROTOCOL")),
    validate_certs=dict(type="bool", default=True, fallback=_env("VALIDATE_CERTS")),
    ca_path=dict(type="path", fallback=_env("CA_PATH")),
    timeout=dict(type="int", default=10, fallback=_env("TIMEOUT")),
    busy_timeout=dict(type="int", default=30, fallback=_env("BUSY_TIMEOUT")),
    max_answer_mb=dict(type="int", default=MAX_ANSWER // MIB, fallback=_env("MAX_ANSWER_MB")),
    role=dict(type="str", default="admin", choices=["admin", "user"], fallback=_env("ROLE")),
    password=dict(type="str", no_log=True, fallback=_env("PASSWORD")),
    token=dict(type="str", no_log=True, fallback=_env("TOKEN")),
)

#: what a module says when it has neither a password nor a token, wherever they were to come from
NO_PASSWORD = ("password: no password to log in with; give the password option (in this collection's roles, the "
               "variable broadcast_monitoring_password) or set the environment variable " + ENV + "PASSWORD (an AWX "
               "credential of the type in extensions/awx/credential_type.yml sets it), or give a token")

#: modules that manage what both devices have take the device type (or detect it)
DEVICE_TYPE_SPEC = dict(
    device_type=dict(type="str", default="auto", choices=["auto"] + list(DEVICE_TYPES),
                     fallback=_env("DEVICE_TYPE")),
)


def check_connection(params):
    """Problems with the connection options that the argument spec cannot express."""
    problems = []
    if params.get("host") is None:
        problems.append("host: required: give the device's address or hostname, or set the environment variable "
                        + ENV + "HOST")
    if not params.get("password") and not params.get("token"):
        problems.append(NO_PASSWORD)
    if params.get("port") is not None and not 1 <= params["port"] <= 65535:
        problems.append("port: must be between 1 and 65535, got %d" % params["port"])
    if params["timeout"] <= 0:
        problems.append("timeout: must be a positive number of seconds, got %d" % params["timeout"])
    if params["busy_timeout"] < 0:
        problems.append("busy_timeout: must be 0 or more seconds, got %d" % params["busy_timeout"])
    if params.get("max_answer_mb") is not None and params["max_answer_mb"] < 1:
        problems.append("max_answer_mb: must be 1 or more MiB, got %d" % params["max_answer_mb"])
    ca_path = params.get("ca_path")
    if ca_path and not os.path.exists(ca_path):
        problems.append("ca_path: no such file or directory: %s" % ca_path)
    problem = host_problem(params["host"].strip()) if params.get("host") is not None else None
    if problem:
        problems.append("host: %s, got %s" % (problem, quoted(params["host"])))
    return problems


def host_problem(host):
    """Why ``host`` is not a bare IPv4 or IPv6 address or host name, or None. Said before any
    request, so that neither a URL nor an address with a port or user-info reaches the
    client (where it would end in an error that repeats it)."""
    if not host:
        return "give the device's address or hostname"
    if "@" in host:
        return "give a bare address or hostname without user-info (user:password@); the password goes in password"
    if "/" in host or any(char.isspace() or not char.isprintable() for char in host):
        return "give a bare address or hostname (no scheme, path, space or control character)"
    if ":" in host:
        try:
            ipaddress.IPv6Address(host.strip("[]"))
        except ValueError:
            return "give a bare address or hostname; the port goes in port (not host: address:port)"
        return None
    if not all(char.isalnum() or char in "-._" for char in host) or ".." in host:
        return "give a bare address or hostname (letters, digits, '-', '_' and '.' between labels)"
    return None


def client_from_params(params, api):
    """A Client for the device whose API layer is ``api`` (its LOGIN) from the module's params."""
    client = Client(
        host=params["host"].strip(),
        login=api.LOGIN,
        port=params.get("port"),
        protocol=params["protocol"],
        validate_certs=params["validate_certs"],
        ca_path=params.get("ca_path"),
        timeout=params["timeout"],
        role=params["role"],
        password=params.get("password"),
        token=params.get("token"),
        max_answer=(params.get("max_answer_mb") or MAX_ANSWER // MIB) * MIB,
    )
    client.busy_budget = float(params["busy_timeout"])
    return client

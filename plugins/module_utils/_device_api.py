# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What both device API files (_ts/api.py, _fm/api.py) do the same way: the one shape of a
request they build for the code that sends it, and the requests and answers that are alike on
both devices (password, liveness, log query, network settings, firmware upload). Where the devices differ only
in a path or a field list, a function here takes the device API module (``api``) and reads
it there; this file is part of the device API layer (paths and bodies are built here too)."""

from __future__ import annotations


class Request:
    """One request a device API file builds: ``method`` (POST, or GET for the device's writes
    by GET), ``path`` and ``body``. A settings object a device writes in several requests
    also says which of its settings each request writes (``keys``: the request is needed when
    one of them changes) or that it is needed always (``forced``). The device files build
    them; the rest of the collection compares and sends them (``send``)."""

    def __init__(self, path, body=None, keys=(), forced=False, method="POST"):
        self.method, self.path, self.body, self.keys, self.forced = method, path, body, keys, forced

    def __eq__(self, other):
        return isinstance(other, Request) and vars(self) == vars(other)

    def __repr__(self):  # without the body, which may hold what is not for a log
        return "Request(%s %s)" % (self.method, self.path)


def send(client, request):
    """Send ``request``: a GET that writes is never retried blindly on a connection error."""
    if request.method == "GET":
        return client.get(request.path, idempotent=False)
    return client.post(request.path, request.body)


def send_all(client, requests):
    """Send ``requests`` in their order."""
    for request in requests:
        send(client, request)


def network_requests(api, after):
    """The requests that write the network settings ``after`` (device-neutral shape, see
    _system.py): the interface settings when one of ``api.NETWORK_KEYS`` changes, the hostname
    on its own path when it changes."""
    keys = api.NETWORK_KEYS
    return [Request(api.NETWORK, {key: after[key] for key in keys if after.get(key) is not None}, keys),
            Request(api.HOSTNAME, {"hostname": after.get("hostname")}, ("hostname",))]


def set_password(client, api, role, password):
    client.post(api.PASSWORD, {"role": role, "password": password})


def upload_firmware(client, api, bundle, timeout):
    """POST a firmware ``bundle`` (a multipart body that streams the file, _swu.py) to
    ``api.UPGRADE``; never resent blindly."""
    client.request("POST", api.UPGRADE, data=bundle, headers={"Content-Type": bundle.content_type},
                   idempotent=False, timeout=timeout)


def alive_uptime(answer):
    """Seconds since boot in the answer to ``GET api.ALIVE`` (a reboot is seen when it falls);
    None when the answer does not give it."""
    return answer.get("system_uptime")


def system_log_query(options):
    """Query string of ``GET api.SYSTEM_LOG``: the bounds given."""
    return {k: v for k, v in options.items() if v is not None}

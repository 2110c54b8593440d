# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one HTTP client every module talks to a device through.

Transport and authentication live here and nowhere else: base URL, TLS, login on the
device's own path, bearer token, bounded retries, and turning every failure into one
``DeviceError`` whose message never carries a password or token.
"""

from __future__ import annotations

import copy
import time

from ansible_collections.broadcast.monitoring.plugins.module_utils import _controller as controller, _transport as transport
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    ABANDONED,
    BUSY,
    CREDENTIALS,
    DEVICE,
    NOT_FOUND,
    PERMISSION,
    REFUSED,
    SHAPE_HINT,
    TLS,
    UNREACHABLE,
    UNSAFE,
    AnswerTooLarge,
    DeviceError,
    TransportError,
    UndecodableAnswer,
    UnreadableAnswer,
    register_secret,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import answer_hook, mark_top

#: what to do about an answer larger than the limit
TOO_LARGE_HINT = ("if the device really answers with this much, raise max_answer_mb (or the environment variable"
                  " BROADCAST_MONITORING_MAX_ANSWER_MB); otherwise check the device's firmware, and that host names"
                  " the device meant")
#: what to do about a redirect
REDIRECT_HINT = ("the collection follows no redirect: check host, port and protocol (a device that wants https may"
                 " redirect http to it), and that host names the device, not a proxy or login portal; after a write,"
                 " read the device (state=gathered) to see whether it was applied")


class Shorthands:
    """``get``, ``post`` and ``delete``: the shorthands of ``request`` the collection's code
    calls, shared by the client and its stand-in (_offline.Recorder)."""

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.request("POST", path, body=body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request("DELETE", path, **kwargs)


class Client(Shorthands):
    """Talks JSON over HTTP(S) to one device.

    ``login`` is the device's login Request (its path, and what the body holds besides role
    and password). Pass ``password`` (with ``role``) to log in, or ``token`` to use one issued
    before; with both, the token is used and the password serves once to log in again if the
    device rejects the token.
    """

    #: seconds to keep retrying while the device answers 503 (it did not act)
    busy_budget = 30.0
    #: attempts for a read that meets a connection error
    read_attempts = 3
    #: first backoff; doubles up to ``max_backoff``
    backoff = 0.5
    max_backoff = 4.0

    def __init__(self, host, login, port=None, protocol="http", validate_certs=True, ca_path=None,
                 timeout=10, role="admin", password=None, token=None, sleep=None, clock=time.monotonic,
                 max_answer=transport.MAX_ANSWER):
        self.protocol = protocol
        self.port = port
        self.base_url = _base_url(protocol, host, port)
        self.login_path, self.login_extra = login.path, login.body
        self.timeout = timeout
        self.role = role
        self._password = password
        self._token = token
        register_secret(password)  # masked in every output of this process from now on (_errors.masked)
        register_secret(token)
        self._clock = clock
        self.session = transport.Session(verify=(ca_path or True) if validate_certs else False,
                                         max_answer=max_answer)
        self._sleep = sleep or self._pause
        self.session.headers["Accept"] = "application/json"
        self.counts = {"login": 0, "read": 0, "write": 0}
        #: the processes up to the controller as they were at start (checked before each write)
        self.lineage = controller.Lineage()

    def at(self, host):
        """The same device and credentials at another address (after re-addressing); tokens
        survive a reboot on both devices. Shares the session and request counts."""
        other = copy.copy(self)
        other.base_url = _base_url(self.protocol, host, self.port)
        return other

    def as_role(self, role, password):
        """The same device with other credentials (no token yet). Shares session and counts."""
        other = copy.copy(self)
        other.role, other._password, other._token = role, password, None
        register_secret(password)
        return other

    def _pause(self, seconds):
        """The wait between two tries: cut short by session.abort() (time.sleep would not be)."""
        self.session.pause(seconds)

    # -- authentication ---------------------------------------------------------------------
    def token(self):
        """The bearer token, logging in first when none is held (one login per client)."""
        if self._token is None:
            self.login()
        return self._token

    def login(self):
        if self._password is None:
            raise DeviceError(CREDENTIALS, "no password to log in with as role %s" % self.role)
        body = dict(self.login_extra, role=self.role, password=self._password)
        self.counts["login"] += 1
        response = self._send("POST", self.login_path, json=body, token=None, idempotent=False)
        if response.status_code != 200:
            error = self._error(response, "login as role %s failed" % self.role)
            if response.status_code in (401, 403, 405):
                error.kind = CREDENTIALS
                # Ansible masks a no_log value wherever it appears: with a password equal to the
                # role's name (a factory password) the role would read "********".
                error.message = "login as %s was refused" % (
                    "the role in option role" if self.role == self._password else "role %s" % self.role)
            raise error
        token = _json(response).get("token") if isinstance(_json(response), dict) else None
        register_secret(token)  # issued: masked in every output of this process from now on
        if not token:
            raise DeviceError(DEVICE, "login answered without a token", status=200)
        self._token = token
        return token

    # -- requests ---------------------------------------------------------------------------
    def request(self, method, path, body=None, params=None, idempotent=None, raw=False,
                stream=False, timeout=None, data=None, headers=None):
        """Send one authenticated request and return its JSON (or the response with raw=True).

        ``idempotent`` says whether a connection error may be retried; it defaults to
        True for GET only (a write that may have landed is never sent twice blindly).
        """
        if idempotent is None:
            idempotent = method == "GET"
        if not idempotent:
            gone = self.lineage.gone()
            if gone:
                raise DeviceError(ABANDONED, "%s %s not sent: %s" % (method, path, gone))
        self.counts["read" if idempotent else "write"] += 1
        relogged = False
        while True:
            response = self._send(method, path, json=body, params=params, token=self.token(),
                                  idempotent=idempotent, stream=stream, timeout=timeout, data=data,
                                  headers=headers)
            if response.status_code == 401 and self._password is not None and not relogged:
                # The token was refused: log in once more (never in a loop), then retry.
                relogged = True
                self._token = None
                continue
            break
        if response.status_code == 401:
            raise self._error(response, "the device refused the %s token for %s %s" % (self.role, method, path),
                              kind=PERMISSION if relogged else CREDENTIALS)
        if response.status_code >= 400:
            raise self._error(response, "%s %s failed" % (method, path))
        if raw:
            return response
        return _json(response, "%s %s" % (method, path))

    def text(self, path):
        """The text of ``GET path`` (a document that is not JSON), decoded by its charset."""
        response = self.request("GET", path, raw=True)
        try:
            return response.text
        except UndecodableAnswer as err:
            raise _unreadable("GET %s" % path, str(err)) from None

    def try_get(self, path, timeout):
        """One unauthenticated GET, no retries: its JSON, or None when nothing (or an error)
        answered. For wait loops, which do their own bounded polling."""
        try:
            response = self.session.get(self.base_url + path, timeout=timeout)
        except TransportError:
            return None
        except AnswerTooLarge as err:
            raise _too_large("GET %s" % path, err) from None
        if response.status_code != 200:
            return None
        body = _json(response)
        return body if isinstance(body, dict) else None

    def probe(self, path):
        """HTTP status of an unauthenticated GET (to tell device types apart); retried like a read."""
        return self._send("GET", path, token=None, idempotent=True).status_code

    def _send(self, method, path, token, idempotent, json=None, params=None, stream=False, timeout=None,
              data=None, headers=None):
        """One logical request: retries 503 for any method within the busy budget, and
        connection errors for idempotent requests only; returns the final response."""
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = "Bearer %s" % token
        url = self.base_url + path
        deadline = self._clock() + self.busy_budget
        delay = self.backoff
        attempt = 0
        while True:
            attempt += 1
            if hasattr(data, "seek"):
                data.seek(0)  # a retried upload starts over
            try:
                response = self.session.request(method, url, json=json, params=params, data=data,
                                                headers=headers, timeout=timeout or self.timeout, stream=stream)
            except TransportError as err:
                if idempotent and attempt < self.read_attempts:
                    self._sleep(delay)
                    delay = min(delay * 2, self.max_backoff)
                    continue
                raise DeviceError(TLS if err.kind == transport.TLS_VERIFY else UNREACHABLE, "%s %s: %s" % (
                    method, path, _transport_reason(err, self, timeout))) from None
            except AnswerTooLarge as err:  # never retried: it would come as large again
                raise _too_large("%s %s" % (method, path), err) from None
            if 300 <= response.status_code < 400:
                # never followed, never sent again: a write may have landed before the redirect
                location = response.headers.get("Location")
                raise _unreadable("%s %s" % (method, path), "the device answered HTTP %d, a redirect %s, which the"
                                  " collection does not follow; the request was not sent again" % (
                                      response.status_code, "to %r" % location[:200] if location else
                                      "without a Location"), status=response.status_code, hint=REDIRECT_HINT)
            if response.status_code == 503 and self._clock() + delay <= deadline:
                self._sleep(delay)
                delay = min(delay * 2, self.max_backoff)
                continue
            if response.status_code == 503:
                raise self._error(response, "%s %s: device busy for more than %d s" % (method, path, self.busy_budget),
                                  kind=BUSY)
            return response

    def _error(self, response, message, kind=None):
        body = _json(response)
        code = device_message = None
        if isinstance(body, dict):
            code, device_message = body.get("code"), body.get("message")
        if kind is None:
            status = response.status_code
            kind = {401: CREDENTIALS, 403: PERMISSION, 404: NOT_FOUND, 503: BUSY}.get(status)
            if kind is None:
                kind = DEVICE if status >= 500 else REFUSED
        return DeviceError(kind, "%s (HTTP %d)" % (message, response.status_code), status=response.status_code,
                           code=code, device_message=device_message)


def _base_url(protocol, host, port):
    if ":" in host and not host.startswith("["):
        host = "[%s]" % host  # IPv6 literal
    return "%s://%s" % (protocol, host if port is None else "%s:%d" % (host, port))


def _json(response, where=None):
    """The answer's JSON ({} for an empty body, which the devices give for "done"); with
    ``where`` (the request), its objects are shapes.Answer, which name the request when a
    needed field is missing, and a body that is not JSON is a ShapeError naming the request.
    Without ``where`` (a login or error answer, read for what it may tell) such a body is None."""
    if where is None:
        try:
            return response.json() if response.content else {}
        except (ValueError, AnswerTooLarge):  # an error body of a stream is bounded too
            return None
    if not response.content:
        return answer_hook(where)(())
    try:
        return mark_top(response.json(object_hook=answer_hook(where)))
    except UndecodableAnswer as err:
        raise _unreadable(where, "the answer cannot be read: %s" % err) from None


def _unreadable(where, reason, status=None, hint=None):
    """UnreadableAnswer: an answer to ``where`` the collection cannot read at all."""
    return UnreadableAnswer(where, reason, status=status, hint=hint or SHAPE_HINT)


def _too_large(where, err):
    """The DeviceError for an answer to ``where`` larger than the client reads (AnswerTooLarge)."""
    limit = "%g MiB" % (err.limit / transport.MIB)
    came = ("its Content-Length announces %d bytes" % err.size if err.announced else
            "more than %d bytes came before reading stopped" % err.limit)
    return DeviceError(UNSAFE, "%s: the answer is larger than the %s the client reads (max_answer_mb): %s;"
                       " it was not read further" % (where, limit, came), hint=TOO_LARGE_HINT)


#: why a certificate was refused, in words (the hint of TLS says what to do)
CERT_WHY = {
    transport.CERT_EXPIRED: "it has expired (or the controller's clock is wrong); renew it on the device",
    transport.CERT_NOT_YET_VALID: "it is not valid yet (the device's or the controller's clock is wrong)",
    transport.CERT_WRONG_HOST: "it is not issued for the host name or address in host; set host to one it names",
    transport.CERT_UNKNOWN_CA: "it is not signed by a CA the controller trusts (self-signed or a private CA);"
                               " give that CA's certificate in ca_path",
}


def _transport_reason(err, client, timeout):
    """Why a request got no answer, in words that carry no URL (query strings may hold
    one-time tokens)."""
    if err.kind == transport.TLS_VERIFY:
        return "the certificate of %s was refused: %s (%s)" % (client.base_url, CERT_WHY.get(err.why, "it did not verify"), err)
    if err.kind == transport.TLS:
        return "%s at %s" % (err, client.base_url)
    seconds = timeout or client.timeout
    option = "" if timeout else " (timeout=%s bounds each whole request)" % seconds
    if err.kind == transport.CONNECT_TIMEOUT:
        return "no connection to %s within %s s%s" % (client.base_url, seconds, option)
    if err.kind == transport.READ_TIMEOUT:
        return "%s accepted the connection but did not answer within %s s%s" % (client.base_url, seconds, option)
    return "cannot connect to %s, or it closed the connection (%s)" % (client.base_url, err)

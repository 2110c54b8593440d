# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP/1.1 over the standard library's ``http.client``: what the client sends its requests with.

Why not requests: every module invocation is a new Python process, and importing requests
(with urllib3 and charset_normalizer) cost about 70 ms of a 0.4 s invocation, more than the
module's own work; http.client costs about 11 ms (ssl a few more). The fleet
benchmark (docs/performance.md) measures it. What the devices need is small: JSON bodies,
one streamed upload, streamed downloads, keep-alive, TLS with or without verification.
Retries, auth and error wording stay in ``_client.py``; this file only moves bytes.
Devices are reached directly: proxy environment variables (HTTP_PROXY...) are not used, and
redirects are not followed (the devices send none).

``timeout`` bounds a whole request: connecting, sending and the complete answer, however
slowly its bytes come (a socket timeout alone bounds one read, and a device that sends one
byte every half second never meets it). The body of a streamed download is the exception:
there the deadline is renewed with every piece of ``CHUNK`` bytes, so a large file that
keeps flowing is never cut off, while one that stalls or trickles is.

``max_answer`` bounds the size of every other answer (JSON, text, the body of an error): it
is read in pieces and refused (AnswerTooLarge) as soon as it is larger, or at once when its
Content-Length says so; a streamed download is bounded by nothing but its deadline.
"""

from __future__ import annotations

import codecs
import io
import json as jsonlib
import os
import select
import socket
import sys
import threading
import time
from urllib.parse import urlencode, urlsplit

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    AnswerTooLarge,
    TransportError,
    UndecodableAnswer,
)

USER_AGENT = "broadcast.monitoring"
CHUNK = 64 * 1024
MIB = 1024 * 1024
#: the largest JSON or text answer read, by default: hundreds of times any real answer (the
#: largest, pages of 1000 alerts and EPG schedules, are a few hundred KiB to a few MiB)
MAX_ANSWER = 32 * MIB
#: the deepest nesting of objects and arrays read in a JSON answer (real answers: under 10)
MAX_DEPTH = 100

#: Why a certificate was refused (TransportError.why), by OpenSSL's X509_V_ERR_* code
CERT_EXPIRED, CERT_NOT_YET_VALID, CERT_WRONG_HOST, CERT_UNKNOWN_CA = "expired", "not_yet_valid", "wrong_host", "unknown_ca"
CERT_WHY = {10: CERT_EXPIRED, 9: CERT_NOT_YET_VALID, 62: CERT_WRONG_HOST, 64: CERT_WRONG_HOST,
            2: CERT_UNKNOWN_CA, 18: CERT_UNKNOWN_CA, 19: CERT_UNKNOWN_CA, 20: CERT_UNKNOWN_CA, 21: CERT_UNKNOWN_CA}

# What went wrong without an HTTP answer (TransportError.kind).
TLS_VERIFY = "tls_verify"  # the device's certificate was not trusted
TLS = "tls"  # any other TLS problem (handshake, unusable CA certificates)
CONNECT_TIMEOUT = "connect_timeout"
READ_TIMEOUT = "read_timeout"
CONNECTION = "connection"


class Deadline:
    """When the request in progress on a connection must be complete (``time.monotonic``)."""

    def __init__(self):
        self.seconds = None
        self.at = None

    def start(self, seconds):
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self):
        """Seconds left, for the next socket operation; socket.timeout when none are."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise socket.timeout("the request took longer than %s s" % self.seconds)
        return left


class _TimedReader(io.RawIOBase):
    """What ``http.client`` reads an answer from: the socket, with its timeout shrunk to
    the time left before every read, so that the answer as a whole is bounded."""

    def __init__(self, sock, deadline):
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)  # like http.client's own: the socket stays open until closed
        self._deadline = deadline

    def readable(self):
        return True

    def readinto(self, buffer):
        self._sock.settimeout(self._deadline.left())
        return self._raw.readinto(buffer)

    def close(self):
        self._raw.close()
        super().close()


class _TimedSocket:
    """The socket as ``http.client.HTTPResponse`` sees it: it only makes a reader of it."""

    def __init__(self, sock, deadline):
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode, *unused_args, **unused_kwargs):
        return io.BufferedReader(_TimedReader(self._sock, self._deadline))


class _TimedBody:
    """A file-like request body (an upload) read in blocks, each sent within the time left."""

    def __init__(self, body, connection, deadline):
        self._body = body
        self._connection = connection
        self._deadline = deadline

    def read(self, size=-1):
        self._connection.sock.settimeout(self._deadline.left())
        return self._body.read(size)


class Response:
    """The parts of an HTTP answer the client uses. Without ``stream`` the body is read at
    once, up to ``limit`` bytes (the connection is then free for the next request)."""

    def __init__(self, raw, connection, stream, limit=MAX_ANSWER):
        self.status_code = raw.status
        self.headers = raw.headers  # an email.message.Message: get() ignores case
        self._raw = raw
        self._connection = connection
        self._limit = limit
        self._content = None if stream else self._read_all()

    @property
    def content(self):
        """The whole body (of a stream too: what is not streamed to a file is bounded)."""
        if self._content is None:
            self._content = self._read_all()
        return self._content

    @property
    def text(self):
        charset = self.headers.get_content_charset() or "utf-8"
        try:
            codecs.lookup(charset)
        except LookupError:
            raise UndecodableAnswer("its charset %r is not one Python knows" % charset[:40]) from None
        return self.content.decode(charset, "replace")

    def json(self, object_hook=None):
        """The body as JSON; UndecodableAnswer (a ValueError) when it is not, or when it is
        nested deeper than MAX_DEPTH."""
        too_deep = UndecodableAnswer("its JSON is nested deeper than %d levels" % MAX_DEPTH)
        try:
            body = jsonlib.loads(self.content.decode("utf-8"), object_hook=object_hook)
        except RecursionError:
            raise too_deep from None
        except ValueError as err:
            raise UndecodableAnswer("it is not JSON (%s)" % _json_problem(err)) from None
        if _deeper_than(body, MAX_DEPTH):
            raise too_deep
        return body

    def iter_content(self, size=CHUNK):
        """The body in pieces of at most ``size`` bytes (and at most CHUNK), each of which
        must come within the request's timeout (a streamed download)."""
        if self._content is not None:
            yield self._content
            return
        deadline = self._connection.deadline
        while True:
            deadline.start(deadline.seconds)
            chunk = _read(self._raw, self._connection, min(size, CHUNK))
            if not chunk:
                return
            yield chunk

    def close(self):
        if self._content is None:  # a stream not read to its end: the connection cannot be reused
            self._raw.close()
            self._connection.close()

    def _read_all(self):
        """The body, read in pieces; AnswerTooLarge (the connection closed) as soon as it is
        larger than the limit, before any of it when its Content-Length says so."""
        if self._raw.length is not None and self._raw.length > self._limit:
            self._drop()
            raise AnswerTooLarge(self._raw.length, self._limit, announced=True)
        pieces, size = [], 0
        while True:
            piece = _read(self._raw, self._connection, CHUNK)
            if not piece:
                return b"".join(pieces)
            size += len(piece)
            if size > self._limit:
                self._drop()
                raise AnswerTooLarge(size, self._limit, announced=False)
            pieces.append(piece)

    def _drop(self):
        self._raw.close()
        self._connection.close()


class Session:
    """Sends requests, keeping one open connection per scheme, host and port.

    ``verify``: True checks the device's certificate against the system's CA certificates,
    a path names a CA file or directory instead, False accepts any certificate.
    """

    def __init__(self, verify=True, max_answer=MAX_ANSWER):
        self.verify = verify
        #: the largest answer read as a whole (bytes); see Response
        self.max_answer = max_answer
        self.headers = {"User-Agent": USER_AGENT}
        self._connections = {}
        self._tls_context = None
        self._stopped = threading.Event()

    # -- ending a request from another thread (the EDA source's deadlines and its cancellation) --
    def abort(self):
        """End the request in progress now, from any thread: its socket is shut down, so a
        read or send waiting on it returns at once; every later request and every ``pause``
        end at once too (TransportError), until ``resume``. A connection still being opened
        has no socket yet: it ends at its own timeout, then fails the same way."""
        self._stopped.set()
        for connection in list(self._connections.values()):
            sock = connection.sock
            if sock is not None:
                try:
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the bare socket's, TLS or not
                except (OSError, ValueError):  # closed meanwhile
                    pass

    def resume(self):
        """Accept requests again after ``abort``, on new connections."""
        self.close()
        self._stopped.clear()

    def pause(self, seconds):
        """Wait ``seconds`` (between retries), or less when ``abort`` comes."""
        self._stopped.wait(seconds)

    def close(self):
        """Close every kept connection (the next request opens a new one)."""
        for connection in list(self._connections.values()):
            connection.close()
        self._connections.clear()

    def _check_stopped(self):
        if self._stopped.is_set():
            raise TransportError(CONNECTION, "the request was abandoned")

    def get(self, url, timeout):
        return self.request("GET", url, timeout=timeout)

    def request(self, method, url, json=None, params=None, data=None, headers=None, timeout=10, stream=False):
        """Send one request and return its Response; TransportError when no answer came.

        ``data`` is bytes or a file-like body read in blocks (its ``len`` attribute, when it
        has one, becomes the Content-Length)."""
        parts = urlsplit(url)
        target = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        params = {k: v for k, v in (params or {}).items() if v is not None}  # None: not sent
        if params:
            target += ("&" if parts.query else "?") + urlencode(params)
        sent_headers = dict(self.headers)
        sent_headers.update(headers or {})
        body = data
        if json is not None:
            body = jsonlib.dumps(json).encode("utf-8")
            sent_headers["Content-Type"] = "application/json"
        elif hasattr(data, "len"):
            sent_headers["Content-Length"] = str(data.len)
        self._check_stopped()
        connection = self._connection(parts, timeout)
        if hasattr(body, "read"):
            body = _TimedBody(body, connection, connection.deadline)
        try:
            connection.sock.settimeout(connection.deadline.left())
            connection.request(method, target, body=body, headers=sent_headers)
            raw = connection.getresponse()
        except BaseException as err:
            connection.close()
            raise _failure(err) from None
        return Response(raw, connection, stream, self.max_answer)

    def _connection(self, parts, timeout):
        """An open connection to the URL's host: the kept one unless the device closed it."""
        key = (parts.scheme, parts.hostname, parts.port)
        connection = self._connections.get(key)
        if connection is not None and connection.sock is not None and _closed_by_peer(connection.sock):
            connection.close()  # it closed an idle keep-alive connection: open a new one
        if connection is None:
            # imported at the first connection, not with this file: the device_state action
            # imports the modules on the controller only to check arguments (and http.client
            # brings email and ssl along, about 10 ms)
            import http.client

            if parts.scheme == "https":
                connection = http.client.HTTPSConnection(parts.hostname, parts.port, context=self._tls())
            else:
                connection = http.client.HTTPConnection(parts.hostname, parts.port)
            deadline = connection.deadline = Deadline()
            connection.response_class = lambda sock, *args, **kwargs: http.client.HTTPResponse(
                _TimedSocket(sock, deadline), *args, **kwargs)
            self._connections[key] = connection
        connection.deadline.start(timeout)
        if connection.sock is None:
            connection.timeout = timeout
            try:
                connection.connect()
            except BaseException as err:
                connection.close()
                failure = _failure(err)
                if failure.kind == READ_TIMEOUT:
                    failure.kind = CONNECT_TIMEOUT
                raise failure from None
        if self._stopped.is_set():  # aborted while the connection was being opened
            connection.close()
            self._check_stopped()
        return connection

    def _tls(self):
        if self._tls_context is None:
            try:
                self._tls_context = _tls_context(self.verify)
            except (OSError, ValueError) as err:  # ssl.SSLError is an OSError
                raise TransportError(TLS, "cannot use the CA certificates of ca_path (%s)" % type(err).__name__) from None
        return self._tls_context


def _tls_context(verify):
    """An SSL context that verifies against ``verify`` (see Session), or not at all."""
    import ssl  # only https needs it (a few milliseconds of every start-up otherwise)

    if verify is False:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    if isinstance(verify, str) and os.path.isdir(verify):
        return ssl.create_default_context(capath=verify)
    if isinstance(verify, str):
        return ssl.create_default_context(cafile=verify)
    return ssl.create_default_context()


def _read(raw, connection, size=None):
    try:
        return raw.read() if size is None else raw.read(size)
    except BaseException as err:
        raw.close()
        connection.close()
        raise _failure(err) from None


def _json_problem(err):
    """What is wrong with a body that is not JSON, in words that quote none of it."""
    if isinstance(err, UnicodeDecodeError):
        return "not UTF-8 at byte %d" % err.start
    if isinstance(err, jsonlib.JSONDecodeError):
        return "%s at byte %d" % (err.msg, err.pos)
    return type(err).__name__


def _deeper_than(body, depth):
    """True when ``body`` nests lists or dicts more than ``depth`` levels (walked without
    recursion, so that what Python's JSON reader could build, nothing here fails on)."""
    # level by level, each a flat list: a device's statistics hold thousands of objects per answer
    level, current = 1, [body]
    while True:
        containers = [value for value in current if isinstance(value, (dict, list))]
        if not containers:
            return False
        if level > depth:
            return True
        current = [item for value in containers for item in (value.values() if isinstance(value, dict) else value)]
        level += 1


def _closed_by_peer(sock):
    """True when an idle connection has something to read: the device closed it (or sent
    what nobody asked for); either way it cannot carry the next request."""
    try:
        readable, unused_w, unused_x = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)


def _failure(err):
    """The TransportError for an exception raised while connecting, sending or reading."""
    if isinstance(err, TransportError):
        return err
    if isinstance(err, (KeyboardInterrupt, SystemExit)):
        raise err
    ssl = sys.modules.get("ssl")  # imported by _tls_context when a device is reached over https
    if ssl is not None and isinstance(err, ssl.SSLCertVerificationError):
        # verify_message is OpenSSL's own short text (no URL): "certificate has expired" and the like
        return TransportError(TLS_VERIFY, "certificate verification failed: %s" % (err.verify_message or err.reason),
                              why=CERT_WHY.get(err.verify_code))
    if ssl is not None and isinstance(err, ssl.SSLError):
        return TransportError(TLS, "TLS handshake failed (%s)" % type(err).__name__)
    if isinstance(err, (socket.timeout, TimeoutError)):
        return TransportError(READ_TIMEOUT, "timed out")
    return TransportError(CONNECTION, type(err).__name__)

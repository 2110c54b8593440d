"""Unit tests of the HTTP client: retries, re-login, error mapping, no secrets in messages.

The transport is replaced by a scripted fake session (the one place mocks are used);
everything above it is the real client.
"""

from __future__ import annotations

import json

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils import _errors as errors, _transport as transport
from ansible_collections.broadcast.monitoring.plugins.module_utils._client import Client
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import Request
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import DeviceError

PASSWORD = "s3cret-pass"


class FakeResponse:
    def __init__(self, status, body=None):
        self.status_code = status
        self._body = body
        self.content = b"" if body is None else b"x"

    def json(self, object_hook=None):
        if isinstance(self._body, Exception):
            raise self._body
        # as json.loads would: the hook makes every object of the answer
        return json.loads(json.dumps(self._body), object_hook=object_hook)


class FakeSession:
    """Answers requests from a script: a list of (method, path suffix, answer) where the
    answer is a FakeResponse or an exception to raise."""

    def __init__(self, script):
        self.script = list(script)
        self.sent = []
        self.verify = True
        self.headers = {}

    def request(self, method, url, **kwargs):
        self.sent.append((method, url, kwargs))
        expected_method, suffix, answer = self.script.pop(0)
        assert method == expected_method and url.endswith(suffix), (method, url, expected_method, suffix)
        if isinstance(answer, Exception):
            raise answer
        return answer


def make(script, password=PASSWORD, token=None, **kwargs):
    sleeps = []
    clock = [0.0]

    def sleep(seconds):
        sleeps.append(seconds)
        clock[0] += seconds

    client = Client("192.0.2.10", Request("/api/user/login", {}), password=password, token=token, sleep=sleep,
                    clock=lambda: clock[0], **kwargs)
    client.session = FakeSession(script)
    client.sleeps = sleeps
    return client


LOGIN_OK = ("POST", "/api/user/login", FakeResponse(200, {"role": "admin", "token": "tok-1"}))


def test_logs_in_once_and_sends_bearer_token():
    client = make([LOGIN_OK, ("GET", "/api/inputs", FakeResponse(200, [])),
                   ("GET", "/api/profiles", FakeResponse(200, []))])
    assert client.get("/api/inputs") == []
    assert client.get("/api/profiles") == []
    sent = client.session.sent
    assert sent[0][2]["json"] == {"role": "admin", "password": PASSWORD}
    assert sent[1][2]["headers"] == {"Authorization": "Bearer tok-1"}
    assert client.counts == {"login": 1, "read": 2, "write": 0}


def test_base_url_from_host_port_protocol():
    client = make([], port=8443, protocol="https")
    assert client.base_url == "https://192.0.2.10:8443"
    ipv6 = Client("2001:db8::1", Request("/login", {}), password="x")
    assert ipv6.base_url == "http://[2001:db8::1]"


def test_503_is_retried_for_writes_within_the_budget():
    client = make([LOGIN_OK,
                   ("POST", "/api/inputs", FakeResponse(503, {"code": 503, "message": "busy"})),
                   ("POST", "/api/inputs", FakeResponse(503, {"code": 503, "message": "busy"})),
                   ("POST", "/api/inputs", FakeResponse(200, {"id": 1}))])
    assert client.post("/api/inputs", {"name": "a"}) == {"id": 1}
    assert client.sleeps == [0.5, 1.0]


def test_503_beyond_the_budget_fails_as_busy():
    script = [LOGIN_OK] + [("GET", "/api/inputs", FakeResponse(503, {"code": 503, "message": "Tuner 3 is busy"}))] * 20
    client = make(script)
    with pytest.raises(DeviceError) as caught:
        client.get("/api/inputs")
    assert caught.value.kind == errors.BUSY
    assert "Tuner 3 is busy" in caught.value.describe()
    assert sum(client.sleeps) <= client.busy_budget


def test_connection_errors_retry_reads_but_never_writes():
    refused = errors.TransportError(transport.CONNECTION, "ConnectionRefusedError")
    client = make([LOGIN_OK, ("GET", "/api/inputs", refused), ("GET", "/api/inputs", FakeResponse(200, []))])
    assert client.get("/api/inputs") == []
    assert client.sleeps == [0.5]

    client = make([LOGIN_OK, ("POST", "/api/inputs", refused)])
    with pytest.raises(DeviceError) as caught:
        client.post("/api/inputs", {"name": "a"})
    assert caught.value.kind == errors.UNREACHABLE
    assert caught.value.describe().startswith("POST /api/inputs: cannot connect to http://192.0.2.10")
    assert client.session.script == []  # the write was sent exactly once


def test_rejected_token_relogs_in_once_then_reports_permission():
    client = make([("GET", "/api/status", FakeResponse(401, {"code": 401, "message": "bad token"})),
                   LOGIN_OK,
                   ("GET", "/api/status", FakeResponse(401, {"code": 401, "message": "needs admin"}))],
                  token="old-token")
    with pytest.raises(DeviceError) as caught:
        client.get("/api/status")
    assert caught.value.kind == errors.PERMISSION
    assert client.session.script == []  # exactly one re-login, no loop


def test_rejected_token_without_password_is_a_credentials_error():
    client = make([("GET", "/api/status", FakeResponse(401, {"code": 401, "message": "bad token"}))],
                  password=None, token="given-token")
    with pytest.raises(DeviceError) as caught:
        client.get("/api/status")
    assert caught.value.kind == errors.CREDENTIALS
    assert "given-token" not in caught.value.describe()


@pytest.mark.parametrize("status", [401, 405])
def test_wrong_password_is_a_credentials_error_without_the_password(status):
    client = make([("POST", "/api/user/login", FakeResponse(status, {"code": status, "message": "Wrong credentials"}))])
    with pytest.raises(DeviceError) as caught:
        client.get("/api/inputs")
    err = caught.value
    assert err.kind == errors.CREDENTIALS
    assert err.status == status and err.code == status and err.device_message == "Wrong credentials"
    assert PASSWORD not in err.describe() and PASSWORD not in repr(err.details())


@pytest.mark.parametrize("status, kind", [(400, errors.REFUSED), (404, errors.NOT_FOUND),
                                          (403, errors.PERMISSION), (500, errors.DEVICE)])
def test_error_statuses_map_to_kinds_with_device_code_and_message(status, kind):
    client = make([LOGIN_OK, ("POST", "/api/inputs/4", FakeResponse(status, {"code": 77, "message": "why"}))])
    with pytest.raises(DeviceError) as caught:
        client.post("/api/inputs/4", {})
    err = caught.value
    assert (err.kind, err.status, err.code, err.device_message) == (kind, status, 77, "why")
    assert "POST /api/inputs/4 failed (HTTP %d): why" % status in err.describe()


def test_tls_options_reach_the_session():
    real = Client("h", Request("/login", {}), password="x", protocol="https", ca_path="/etc/ca.pem")
    assert real.session.verify == "/etc/ca.pem"
    assert Client("h", Request("/login", {}), password="x", validate_certs=False).session.verify is False


def test_untrusted_certificate_says_how_to_fix_it():
    refused = errors.TransportError(transport.TLS_VERIFY, "x", why=transport.CERT_UNKNOWN_CA)
    client = make([LOGIN_OK] + [("GET", "/api/inputs", refused)] * 3, protocol="https")
    with pytest.raises(DeviceError) as caught:
        client.get("/api/inputs")
    assert caught.value.kind == errors.TLS
    text = caught.value.describe()
    assert "the certificate of https://192.0.2.10 was refused: it is not signed by a CA" in text
    assert text.index("ca_path") < text.index("validate_certs=false")


def test_abort_ends_a_request_in_progress_from_another_thread_and_every_wait_until_resumed():
    """Session.abort (the EDA source's deadline and cancellation): a request waiting for an
    answer that never comes fails at once, so do the waits between retries, until resume."""
    import socket
    import threading
    import time

    with socket.socket() as listener:  # accepts (the kernel does) and never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        url = "http://127.0.0.1:%d/api/inputs" % listener.getsockname()[1]
        session = transport.Session()
        timer = threading.Timer(0.3, session.abort)
        timer.start()
        started = time.monotonic()
        with pytest.raises(errors.TransportError):
            session.request("GET", url, timeout=30)
        assert time.monotonic() - started < 5  # not the 30 s of its timeout
        started = time.monotonic()
        session.pause(30)
        with pytest.raises(errors.TransportError, match="abandoned"):
            session.request("GET", url, timeout=30)
        assert time.monotonic() - started < 1
        session.resume()
        with pytest.raises(errors.TransportError) as err:
            session.request("GET", url, timeout=0.2)
        assert err.value.kind == transport.READ_TIMEOUT  # sent again, and waited for its answer
        client = Client("127.0.0.1", Request("/api/user/login", {}), password=PASSWORD)
        client.session.abort()
        started = time.monotonic()
        client._sleep(30)  # the client's waits between retries are the session's
        assert time.monotonic() - started < 1

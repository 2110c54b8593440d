"""The transport against a small HTTP server on loopback (real sockets, no mocks; here
rather than in tests/unit, whose tests need no network): keep-alive, a connection the server
closed, streamed bodies, uploads, timeouts, dropped answers and TLS verification."""

from __future__ import annotations

import datetime
import ipaddress
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ansible_collections.broadcast.monitoring.plugins.module_utils import _errors as errors, _transport as transport


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive

    def log_message(self, *args):  # quiet
        pass

    def _answer(self, status, body, close=False):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.server.seen.append((self.command, self.path, self.client_address[1], dict(self.headers)))
        if self.path.startswith("/slow"):
            time.sleep(1.0)
        if self.path.startswith("/drop"):
            self.close_connection = True
            return
        if self.path.startswith("/drip"):  # a complete answer, one byte every 0.1 s (2 s in all)
            data = b'{"slow": "dripping"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.flush()
            for byte in data:
                time.sleep(0.1)
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            return
        if self.path.startswith("/flow"):  # 8 pieces of 64 KiB, one every 0.2 s (1.6 s in all)
            self.send_response(200)
            self.send_header("Content-Length", str(8 * 65536))
            self.end_headers()
            for index in range(8):
                time.sleep(0.2)
                self.wfile.write(bytes([index]) * 65536)
                self.wfile.flush()
            return
        if self.path.startswith("/big"):
            data = bytes(range(256)) * 1000
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self._answer(200, {"path": self.path}, close=self.path.startswith("/close"))

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(length)
        self.server.seen.append((self.command, self.path, self.client_address[1], dict(self.headers)))
        self._answer(201, {"received": len(body), "body": body.decode("latin-1")})


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.seen = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def url(httpd, path, scheme="http"):
    return "%s://127.0.0.1:%d%s" % (scheme, httpd.server_address[1], path)


def test_json_round_trip_on_one_kept_connection(server):
    session = transport.Session()
    first = session.request("POST", url(server, "/api/inputs"), json={"name": "mux 1"}, timeout=5)
    second = session.request("GET", url(server, "/api/inputs"), params={"order": "asc", "n": 2, "unset": None},
                             timeout=5)
    assert first.status_code == 201 and first.json() == {"received": 17, "body": '{"name": "mux 1"}'}
    assert second.json() == {"path": "/api/inputs?order=asc&n=2"}
    assert server.seen[0][3]["Content-Type"] == "application/json"
    assert server.seen[0][2] == server.seen[1][2]  # same client port: the connection was kept


def test_a_connection_the_server_closed_is_replaced_before_the_next_request(server):
    session = transport.Session()
    assert session.get(url(server, "/close"), timeout=5).status_code == 200
    assert session.get(url(server, "/after"), timeout=5).json() == {"path": "/after"}
    assert server.seen[0][2] != server.seen[1][2]


def test_streamed_body_comes_in_pieces_and_the_connection_is_not_reused_half_read(server):
    session = transport.Session()
    response = session.request("GET", url(server, "/big"), stream=True, timeout=5)
    pieces = list(response.iter_content(4096))
    assert b"".join(pieces) == bytes(range(256)) * 1000 and max(map(len, pieces)) <= 4096
    assert response.headers.get("content-length") == "256000"
    response.close()
    half = session.request("GET", url(server, "/big"), stream=True, timeout=5)
    next(half.iter_content(1024))
    half.close()
    assert session.get(url(server, "/next"), timeout=5).json() == {"path": "/next"}


class Upload:
    """A file-like body with a ``len``, read in blocks (like the firmware bundle)."""

    def __init__(self, data):
        self.data, self.pos, self.len = data, 0, len(data)

    def read(self, size=-1):
        chunk = self.data[self.pos:self.pos + (size if size and size > 0 else 1024)]
        self.pos += len(chunk)
        return chunk


def test_file_like_upload_is_sent_with_its_length(server):
    body = b"x" * 100000
    answer = transport.Session().request("POST", url(server, "/upload"), data=Upload(body),
                                         headers={"Content-Type": "application/octet-stream"}, timeout=5)
    assert answer.json()["received"] == len(body)
    assert server.seen[0][3]["Content-Length"] == str(len(body))


def test_no_answer_in_time_is_a_read_timeout(server):
    with pytest.raises(errors.TransportError) as caught:
        transport.Session().get(url(server, "/slow"), timeout=0.2)
    assert caught.value.kind == transport.READ_TIMEOUT


def test_an_answer_that_trickles_in_is_bounded_by_the_timeout_as_a_whole(server):
    """Every read gets a byte within 0.1 s, so a per-read timeout of 0.5 s never fires; the
    whole answer (2 s) must not outlast it."""
    started = time.monotonic()
    with pytest.raises(errors.TransportError) as caught:
        transport.Session().get(url(server, "/drip"), timeout=0.5)
    assert caught.value.kind == transport.READ_TIMEOUT
    assert time.monotonic() - started < 1.9  # a hang guard: the whole drip would take 2 s


def test_a_streamed_download_that_keeps_flowing_outlasts_the_timeout(server):
    """The deadline of a streamed body is renewed with every piece that arrives."""
    response = transport.Session().request("GET", url(server, "/flow"), stream=True, timeout=0.6)
    data = b"".join(response.iter_content(1024 * 1024))
    assert data == b"".join(bytes([index]) * 65536 for index in range(8))


def test_a_streamed_download_that_trickles_is_bounded_per_piece(server):
    response = transport.Session().request("GET", url(server, "/drip"), stream=True, timeout=0.5)
    with pytest.raises(errors.TransportError) as caught:
        b"".join(response.iter_content(1024 * 1024))
    assert caught.value.kind == transport.READ_TIMEOUT


def test_the_deadline_starts_again_for_each_request_on_a_kept_connection(server):
    session = transport.Session()
    for path in ("/a", "/b", "/c"):
        time.sleep(0.3)
        assert session.get(url(server, path), timeout=0.5).json() == {"path": path}
    assert len({seen[2] for seen in server.seen}) == 1


def test_a_dropped_answer_is_a_connection_error_without_the_url(server):
    with pytest.raises(errors.TransportError) as caught:
        transport.Session().get(url(server, "/drop?token=secret-one-time"), timeout=5)
    assert caught.value.kind == transport.CONNECTION
    assert "secret" not in str(caught.value)


def test_refused_connection_is_a_connection_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        with pytest.raises(errors.TransportError) as caught:
            transport.Session().get("http://127.0.0.1:%d/api" % port, timeout=2)
    assert caught.value.kind == transport.CONNECTION


@pytest.fixture
def tls_server(server, tmp_path):
    """The same server behind TLS with a self-signed certificate for 127.0.0.1."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test device")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.seen = []
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd, str(cert_file)
    httpd.shutdown()
    httpd.server_close()


def test_tls_verification(tls_server):
    httpd, ca_file = tls_server
    with pytest.raises(errors.TransportError) as caught:
        transport.Session(verify=True).get(url(httpd, "/a", "https"), timeout=5)
    assert caught.value.kind == transport.TLS_VERIFY
    assert transport.Session(verify=ca_file).get(url(httpd, "/b", "https"), timeout=5).json() == {"path": "/b"}
    assert transport.Session(verify=False).get(url(httpd, "/c", "https"), timeout=5).json() == {"path": "/c"}


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to hash a CA directory")
def test_tls_verification_with_a_ca_directory(tls_server, tmp_path):
    httpd, ca_file = tls_server
    folder = tmp_path / "cas"
    folder.mkdir()
    shutil.copy(ca_file, folder / "device-ca.pem")
    subprocess.run(["openssl", "rehash", str(folder)], check=True)
    assert transport.Session(verify=str(folder)).get(url(httpd, "/d", "https"), timeout=5).json() == {"path": "/d"}


def test_unusable_ca_certificates_are_a_tls_error(tls_server, tmp_path):
    httpd, unused = tls_server
    not_pem = tmp_path / "not-a-ca.pem"
    not_pem.write_text("not a certificate")
    with pytest.raises(errors.TransportError) as caught:
        transport.Session(verify=str(not_pem)).get(url(httpd, "/e", "https"), timeout=5)
    assert caught.value.kind == transport.TLS and "ca_path" in str(caught.value)

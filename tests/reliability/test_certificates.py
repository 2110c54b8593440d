"""A refused TLS certificate says why (issue 24, item 9): expired, issued for another host,
or signed by a CA the controller does not trust each get their own message, which suggests
``ca_path`` first and ``validate_certs=false`` only as a last resort.

Real TLS on loopback: a fake analyzer (fake_devices) behind certificates made for the test.
"""

import ssl

import pytest

from tests.reliability import fake_devices
from tests.reliability.inprocess import run_module


@pytest.fixture
def pki(tmp_path):
    return tmp_path, fake_devices.make_ca(tmp_path)


def tls_analyzer(cert_file, key_file, address):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    start = fake_devices.app_server(lambda served: fake_devices.hostile_analyzer_app(served, ["capture.ts"], 7),
                                    ssl_context=context)
    return fake_devices.serving(start, address=address)


def list_files(served, **options):
    return run_module("ts_recording", dict(host=served.address, port=served.port, password="admin", protocol="https",
                                           operation="list", **options))


def refusal(result, served):
    assert result.get("failed") is True, result
    msg = result["msg"]
    assert "the certificate of https://%s:%d was refused" % (served.address, served.port) in msg, msg
    assert "unexpected" not in msg
    assert msg.index("ca_path") < msg.index("validate_certs=false"), msg
    assert "last resort" in msg
    assert result["error"]["kind"] == "tls"
    assert served.requests == []  # nothing reached the application behind TLS
    return msg


def test_a_certificate_signed_by_the_ca_in_ca_path_is_accepted(pki):
    tmp, ca = pki
    address = fake_devices.loopback_address()
    with tls_analyzer(*fake_devices.make_device_cert(tmp, ca, address), address) as served:
        result = list_files(served, ca_path=ca[2])
    assert result.get("failed") is not True, result
    assert [f["filename"] for f in result["files"]] == ["capture.ts"]


def test_an_expired_certificate_says_it_has_expired(pki):
    tmp, ca = pki
    address = fake_devices.loopback_address()
    with tls_analyzer(*fake_devices.make_device_cert(tmp, ca, address, expired=True), address) as served:
        msg = refusal(list_files(served, ca_path=ca[2]), served)
    assert "it has expired" in msg and "certificate has expired" in msg
    assert "not issued for" not in msg and "not signed by a CA" not in msg


def test_a_certificate_for_another_host_says_so(pki):
    tmp, ca = pki
    address = fake_devices.loopback_address()
    other = address.rsplit(".", 1)[0] + (".1" if not address.endswith(".1") else ".2")
    with tls_analyzer(*fake_devices.make_device_cert(tmp, ca, other), address) as served:
        msg = refusal(list_files(served, ca_path=ca[2]), served)
    assert "it is not issued for the host name or address in host" in msg
    assert "expired" not in msg and "not signed by a CA" not in msg


def test_a_certificate_from_an_unknown_ca_says_so_and_suggests_ca_path(pki):
    tmp, ca = pki
    address = fake_devices.loopback_address()
    with tls_analyzer(*fake_devices.make_device_cert(tmp, ca, address), address) as served:
        msg = refusal(list_files(served), served)  # no ca_path: the system's CAs do not know the test CA
    assert "it is not signed by a CA the controller trusts" in msg and "give that CA's certificate in ca_path" in msg
    assert "expired" not in msg and "not issued for" not in msg

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._connection import check_connection
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import Checker
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import masked, quoted


@pytest.mark.parametrize("value,shown", [
    ("udp://bob:secret@239.1.1.1:1234", "udp://***@239.1.1.1:1234"),
    ("bob:secret@ntp.example", "***@ntp.example"),
    ("udp://bob:se/cr@t@239.1.1.1:1234", "udp://***@239.1.1.1:1234"),  # '@' and '/' in the password
    ("http://user@host/path", "http://***@host/path"),
    ("udp://239.1.1.1:1234", "udp://239.1.1.1:1234"),
    ("10.0.0.1:162", "10.0.0.1:162"),
    ("not a host!", "not a host!"),
])
def test_masked_hides_the_user_info_of_urls_and_addresses(value, shown):
    assert masked(value) == shown
    assert quoted(value) == repr(shown)


def test_masked_reaches_into_lists_and_dictionaries():
    assert masked({"url": ["udp://a:b@1.2.3.4:5", 3]}) == {"url": ["udp://***@1.2.3.4:5", 3]}
    assert masked(70000) == 70000


@pytest.mark.parametrize("call", [
    lambda check: check.udp_url("stream.url", "udp://bob:secret@239.1.1.1"),
    lambda check: check.host("ntp_servers[0]", "bob:secret@ntp.example"),
    lambda check: check.ipv4_port("trap_addresses[0]", "bob:secret@10.0.0.1:162"),
    lambda check: check.multicast("address", "bob:secret@10.0.0.1"),
    lambda check: check.unicast_ipv4("listen_addresses[0]", "bob:secret@239.1.1.1"),
    lambda check: check.choice("codec", "bob:secret@flac", ["mp3", "aac"]),
])
def test_checker_messages_never_repeat_a_password_in_a_value(call):
    check = Checker()
    call(check)
    assert check.problems and "***@" in check.problems[0]
    assert "secret" not in check.problems[0]


def connection_params(host):
    return {"host": host, "port": None, "timeout": 10, "busy_timeout": 30, "ca_path": None, "password": "pw"}


@pytest.mark.parametrize("host,says", [
    ("10.0.0.1:8080", "the port goes in port"),
    ("admin:secret@10.0.0.1", "without user-info"),
    ("http://10.0.0.1", "no scheme, path"),
    ("10.0.0.1/api", "no scheme, path"),
    ("ana lyzer", "no scheme, path, space"),
    ("..", "letters, digits"),
    ("", "give the device's address"),
])
def test_host_must_be_a_bare_address_or_name(host, says):
    problems = check_connection(connection_params(host))
    assert len(problems) == 1 and problems[0].startswith("host: ") and says in problems[0], problems
    assert "secret" not in problems[0]


@pytest.mark.parametrize("host", ["10.0.0.1", "analyzer-1.site.example", "::1", "[fe80::1]", "my_device"])
def test_bare_addresses_and_names_are_accepted(host):
    assert check_connection(connection_params(host)) == []

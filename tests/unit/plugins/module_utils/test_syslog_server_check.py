"""A remote syslog server is checked by the rule of the device it goes to: the FM monitor
keeps the port in the server's text (host:port), the analyzer in a field of its own."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_api
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_api
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import check_logging


@pytest.mark.parametrize("device, server, problem", [
    (fm_api, "192.0.2.10:1514", None),
    (fm_api, "syslog.example.net:514", None),
    (fm_api, "syslog.example.net", None),
    (fm_api, "192.0.2.10:0", "remote_syslog.server: must be an IPv4 address or a host name, optionally followed by"
     " :port (port 1 to 65535; no scheme or path), got '192.0.2.10:0'"),
    (fm_api, ":514", "remote_syslog.server: must be an IPv4 address or a host name, optionally followed by :port"),
    (fm_api, "udp://192.0.2.10", "remote_syslog.server: must be an IPv4 address or a host name, optionally followed"
     " by :port (port 1 to 65535; no scheme or path), got 'udp://192.0.2.10'"),
    (fm_api, "192.0.2.10/24", "remote_syslog.server: must be an IPv4 address or a host name (optionally followed"),
    (ts_api, "192.0.2.10", None),
    (ts_api, "192.0.2.10:1514", "remote_syslog.server: this device (ts_analyzer) takes the port in remote_syslog.port,"
     " not in the server; got '192.0.2.10:1514'"),
    # user-info is no port, and stays masked in the message
    (ts_api, "bob:S3cret@192.0.2.10", "remote_syslog.server: must be an IPv4 address or a host name (no scheme, port"
     " or path), got '***@192.0.2.10'"),
    (fm_api, "bob:S3cret@192.0.2.10", "remote_syslog.server: must be an IPv4 address or a host name, optionally"
     " followed by :port (port 1 to 65535; no scheme or path), got '***@192.0.2.10'"),
])
def test_the_syslog_server_follows_the_rule_of_its_device(device, server, problem):
    problems = check_logging({"remote_syslog": {"enabled": True, "server": server}}, device)
    assert problems == ([] if problem is None else problems[:1]) and (problem is None or problems[0].startswith(
        problem)), problems

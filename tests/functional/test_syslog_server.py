"""The FM monitor's remote syslog server (fm-monitor-api.md, log configuration: ``rsyslog_server``,
"address or hostname") is one string, which the device takes and gives back with a port too
(``host:port``): it has no port field of its own. Such a value, read by onboarding, is written
back unchanged, so site.yml after onboarding changes nothing; what is really invalid is refused
before any write, naming the parameter. The analyzer keeps its port in a field of its own
(``remote_syslog.port``): a server given there as ``host:port`` is refused, saying where the port goes."""

import json
import os

import pytest

from bm_simulator.fleet import running_fleet

from .conftest import ROOT, ansible_playbook, recap
from .device_api import Api
from .tasks import task, writes
from .test_onboard import load_vars

SERVER = "syslog.example.net:1514"


def test_device_logging_writes_host_port_as_given_and_reads_it_back_unchanged(play, sim, fresh):
    fm = fresh("fm-001")
    wanted = {"level": "warning", "remote_syslog": {"enabled": True, "server": SERVER}}
    out = play.run([task("device_logging", fm, **wanted), task("device_logging", fm, **wanted)], fm.name)
    assert out[0].get("failed") is not True and out[0]["changed"] is True, out[0]
    assert out[1].get("failed") is not True and out[1]["changed"] is False, out[1]
    assert Api(fm).get("/conf/log") == {"level": "warning", "enable_rsyslog": True, "rsyslog_server": SERVER}
    assert out[1]["before"]["remote_syslog"]["server"] == SERVER


@pytest.mark.parametrize("name, remote_syslog, message", [
    ("fm-001", {"enabled": True, "server": "192.0.2.10:99999"}, "remote_syslog.server: must be an IPv4 address or a"
     " host name, optionally followed by :port (port 1 to 65535"),
    ("fm-001", {"enabled": True, "server": "udp://192.0.2.10:514"}, "remote_syslog.server: must be an IPv4 address"),
    ("fm-001", {"enabled": True, "server": "192.0.2.300:514"}, "remote_syslog.server: must be an IPv4 address"),
    ("fm-001", {"enabled": True, "server": "192.0.2.10", "port": 514}, "remote_syslog.port: this device"
     " (fm_monitor) has no port field; give the port in remote_syslog.server (host:port)"),
    ("ts-001", {"enabled": True, "server": "192.0.2.10:1514"}, "remote_syslog.server: this device (ts_analyzer)"
     " takes the port in remote_syslog.port, not in the server"),
])
def test_an_invalid_server_is_refused_naming_the_parameter_before_any_write(play, sim, fresh, name, remote_syslog,
                                                                            message):
    device = fresh(name)
    result = play.run([task("device_logging", device, remote_syslog=remote_syslog)], name)[0]
    assert result.get("failed") is True and message in result["msg"], result
    assert writes(sim, device) == []


def test_a_unit_forwarding_to_host_port_is_onboarded_and_site_yml_changes_nothing(collections_path, tmp_path):
    with running_fleet(ts=1, fm=1, time_scale=0.02) as fleet:
        Api(fleet.fleet.by_name("fm-001")).post("/conf/log", {"level": "debug", "enable_rsyslog": True,
                                                              "rsyslog_server": SERVER})
        Api(fleet.fleet.by_name("ts-001")).post("/system/log/settings", {"level": "warning", "remote_syslog": {
            "enabled": True, "server": "syslog.example.net", "port": 1514}})
        inventory = tmp_path / "inventory"
        (inventory / "group_vars").mkdir(parents=True)
        (inventory / "group_vars" / "all.yml").write_text("broadcast_monitoring_password: admin\n")
        fleet.write_inventory(str(inventory / "hosts.yml"))

        def playbook(name, *args):
            proc = ansible_playbook(fleet, collections_path, tmp_path, ["-i", str(inventory), os.path.join(
                ROOT, "playbooks", name)] + list(args), cwd=str(tmp_path))
            return proc.returncode, proc.output, recap(proc.stdout)

        code, output, unused = playbook("onboard.yml", "-e", "onboard_dir=%s" % inventory)
        assert code == 0, output
        onboarded = load_vars(inventory / "host_vars" / "fm-001.yml")
        assert onboarded["fm_monitor_logging"]["remote_syslog"] == {"enabled": True, "server": SERVER}
        for device in fleet.fleet.devices:
            fleet.call(device.requests.clear)
        code, output, counts = playbook("site.yml", "-e", "ts_analyzer_purge=true", "-e", "fm_monitor_purge=true")
        assert code == 0, output
        assert {name: (c["changed"], c["failed"]) for name, c in counts.items()} == {
            "ts-001": (0, 0), "fm-001": (0, 0)}, output
        for device in fleet.fleet.devices:
            assert fleet.call(device.writes) == [], device.name

        # the role refuses what is really invalid, naming its variable, before the device is written
        bad = {"fm_monitor_logging": {"remote_syslog": {"enabled": True, "server": "192.0.2.10:99999"}}}
        code, output, counts = playbook("site.yml", "--limit", "fm-001", "-e", json.dumps(bad))
        assert code != 0 and "fm_monitor_logging: remote_syslog.server: must be an IPv4 address" in output, output
        assert fleet.call(fleet.fleet.by_name("fm-001").writes) == []
        assert Api(fleet.fleet.by_name("fm-001")).get("/conf/log")["rsyslog_server"] == SERVER

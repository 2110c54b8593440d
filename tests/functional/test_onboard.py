"""Onboarding (issue 23): a fleet set by hand, each device differently, through the devices'
own HTTP API; playbooks/onboard.yml writes one host_vars file per device with no secret in
it; right after, site.yml with those variables and purge on changes nothing on any device and
writes nothing, and audit.yml finds no drift."""

import os
import random
import subprocess
import sys

import pytest
import yaml

from bm_simulator.fleet import running_fleet

from .conftest import EXAMPLE_VARS, ROOT, ansible_playbook, module_examples, recap
from .device_api import Api

TS, FM = 3, 2
#: the fleet's admin password after the hand configuration (not the factory one)
FLEET_PASSWORD = "Onb0ard-fleet-%06d" % random.Random(23).randrange(10 ** 6)
VAULT_PASSWORD = "vault-pass-for-the-test"


@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=TS, fm=FM, time_scale=0.02) as runner:
        yield runner


def _pick(rng, *choices):
    return rng.choice(choices)


def hand_configure_analyzer(api, rng, index):
    """Network, time, logging, SNMP, profiles, inputs and converters, each drawn at random."""
    own = api.device.address
    if index == 1:
        api.call("POST", "/system/network", {"dhcp": True})
    else:
        dns = ["192.0.2.%d" % rng.randint(1, 254) for unused in range(rng.randint(0, 3))]
        api.call("POST", "/system/network", {"dhcp": False, "address": own, "netmask": "255.0.0.0",
                                             "gateway": "127.0.0.1", "dns": dns})
    api.call("POST", "/system/hostname", {"hostname": "analyzer-%s-%d" % (_pick(rng, "north", "south", "studio"), index)})
    ntp = rng.random() < 0.5
    servers = ["ntp%d.example.net" % n for n in range(rng.randint(1, 3))]
    api.call("POST", "/system/datetime", {"enable_ntp": ntp, "ntp_servers": servers})
    api.call("POST", "/system/timezone", {"timezone": _pick(rng, "Europe/Berlin", "America/New_York", "Asia/Tokyo")})
    enabled = rng.random() < 0.5
    api.call("POST", "/system/log/settings", {
        "level": _pick(rng, "debug", "info", "warning", "error"),
        "remote_syslog": {"enabled": enabled, "server": "192.0.2.%d" % rng.randint(1, 254) if enabled else "",
                          "port": _pick(rng, 514, 1514)}})
    api.call("POST", "/snmp/settings", {
        "enabled": rng.random() < 0.7,
        "listen_addresses": ["10.%d.0.%d" % (index, n) for n in range(1, rng.randint(1, 4))],
        "trap_addresses": ["192.0.2.%d:%d" % (rng.randint(1, 254), _pick(rng, 162, 1162))
                           for unused in range(rng.randint(0, 3))]})
    names = ["Default"]
    errors = ["ts_sync_loss", "pat_error2", "continuity_count_error", "crc_error", "pts_error", "input_mlr_error"]
    for number in range(rng.randint(1, 2)):
        name = "Profile %d-%d" % (index, number)
        entries = [{"error_name": error, "enabled": rng.random() < 0.8, "snmp_trap": rng.random() < 0.5,
                    "alert_type": _pick(rng, "none", "warning", "critical"), "threshold": rng.randint(0, 5)}
                   for error in rng.sample(errors, 3)]
        api.call("POST", "/profiles", {"name": name, "entries": entries})
        names.append(name)
    profiles = {profile["name"]: profile["id"] for profile in api.call("GET", "/profiles")}
    sources = [
        lambda n: {"eth": {"stream_protocol": 0, "multicast": {
            "multicast_address": "239.%d.0.%d" % (index, n), "multicast_port": 5000 + n}}},
        lambda n: {"eth": {"stream_protocol": 0, "multicast": {
            "multicast_address": "232.1.%d.%d" % (index, n), "multicast_port": 6000, "source_address": "10.9.0.%d" % n}}},
        lambda n: {"eth": {"stream_protocol": 0, "unicast": {"listen_address": "0.0.0.0", "listen_port": 7000 + n}}},
        lambda n: {"asi": {"port": 1 + n % 2}},
        lambda n: {"t2mi": {"stream_id": n, "service_id": 100 + n, "elementary_stream_pid": 4000 + n, "plp_id": 0,
                            "manual": rng.random() < 0.5}},
        lambda n: {"rf": {"mode": 1, "frequency": 474000 + 8000 * n, "bandwidth": 8, "plp_id": n}},
    ]
    for number in range(rng.randint(2, 4)):
        made = api.call("POST", "/inputs", {
            "name": "%s %d" % (_pick(rng, "Mux", "Feed", "Backup"), number),
            "config": rng.choice(sources)(number),
            "alerts_config": {"profile_id": profiles[rng.choice(names)],
                              "pid_error_list": sorted(rng.sample(range(32, 8000), rng.randint(0, 2)))}})
        if rng.random() < 0.3:
            api.call("GET", "/inputs/%d/stop" % made["id"])
        if rng.random() < 0.3:
            api.call("POST", "/inputs/%d/scte/toggle" % made["id"], {"enabled": True})
        if rng.random() < 0.3:
            api.call("POST", "/inputs/%d/thumbnails/enable" % made["id"], {"pid": 256 + number})
    for port in (1, 2):
        if rng.random() < 0.6:
            api.call("POST", "/converter/%d/start" % port, {
                "multicast_address": "239.200.%d.%d" % (index, port), "multicast_port": 5500 + port,
                "interface": _pick(rng, "eth0", "eth1"), "ttl": rng.randint(1, 64)})
            if rng.random() < 0.4:
                api.call("GET", "/converter/%d/stop" % port)  # stopped, its settings kept
    api.call("POST", "/user/password", {"role": "admin", "password": FLEET_PASSWORD})


def hand_configure_monitor(api, rng, index):
    """Network, time, logging, and each tuner's settings, state, stream, thresholds and schedule."""
    api.call("POST", "/conf/network", {"dhcp": False, "address": api.device.address, "netmask": "255.0.0.0",
                                       "gateway": "127.0.0.1", "dns": ["192.0.2.%d" % (60 + index)]})
    api.call("POST", "/conf/hostname", {"hostname": "fm-site-%d" % index})
    api.call("POST", "/conf/datetime", {"enable_ntp": rng.random() < 0.5, "datetime": "2026-11-24T12:00:00+00:00",
                                        "timezone": rng.randint(-5, 5), "ntp_servers": ["ntp.example.org"]})
    enabled = rng.random() < 0.5
    api.call("POST", "/conf/log", {"level": _pick(rng, "info", "warning", "error"), "enable_rsyslog": enabled,
                                   "rsyslog_server": "192.0.2.%d" % rng.randint(1, 254) if enabled else ""})
    for tuner in range(8):
        api.call("POST", "/tuner/%d/settings" % tuner, {
            "name": "Radio %d-%d" % (index, tuner), "frequency": rng.randrange(87500, 108000, 100),
            "hw_settings": {"agc_state": rng.randint(0, 1), "channel_filter": rng.randint(0, 4),
                            "deemphasis": rng.randint(1, 2), "lna_gain": rng.randint(0, 15)}})
        api.call("POST", "/tuner/%d/state" % tuner, {"state": rng.randint(0, 2)})
        api.call("POST", "/tuner/%d/muted" % tuner, {"muted": rng.random() < 0.3})
        api.call("POST", "/tuner/%d/stream" % tuner, {
            "enabled": rng.random() < 0.5,
            "stream": {"url": "udp://239.30.%d.%d:%d" % (index, tuner, 5000 + tuner), "codec": _pick(rng, "mp3", "aac"),
                       "bitrate": _pick(rng, 64, 128, 192, 320)}})
        api.call("POST", "/tuner/%d/thresholds" % tuner, {
            "rssi_interval": rng.randint(5, 60),
            "thresholds": {"rssi": {"min": rng.randint(10, 30)}, "snr": {"min": rng.randint(5, 20), "margin": 3},
                           "rds": {"blocka": rng.random() < 0.5}}})
        if rng.random() < 0.4:  # an active schedule sets the tuner's state itself
            api.call("POST", "/tuner/%d/schedule" % tuner, {
                "active": rng.random() < 0.5,
                "events": {"monday": [{"minute": 360, "state": 1}, {"minute": 1320, "state": 2}],
                           "saturday": [{"minute": rng.randint(0, 1439), "state": 0}]}})
    api.call("POST", "/conf/password", {"role": "admin", "password": FLEET_PASSWORD})


@pytest.fixture(scope="module")
def hand_configured(fleet):
    """Every device of the fleet set to its own random state, by hand, through its own API."""
    for index, device in enumerate(fleet.fleet.devices):
        rng = random.Random(2300 + index)
        api = Api(device)
        if device.kind == "ts_analyzer":
            hand_configure_analyzer(api, rng, index)
        else:
            hand_configure_monitor(api, rng, index)
    return fleet


@pytest.fixture(scope="module")
def inventory(hand_configured, tmp_path_factory):
    """An inventory directory as a user keeps it: the hosts, and the fleet password in a vault."""
    directory = tmp_path_factory.mktemp("onboard") / "inventory"
    (directory / "group_vars" / "all").mkdir(parents=True)
    hand_configured.write_inventory(str(directory / "hosts.yml"))
    vault_password = directory.parent / "vault-password"
    vault_password.write_text(VAULT_PASSWORD + "\n")
    encrypted = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-vault"), "encrypt_string", "--vault-password-file",
         str(vault_password), "--stdin-name", "broadcast_monitoring_password"],
        input=FLEET_PASSWORD, capture_output=True, text=True, check=True).stdout
    (directory / "group_vars" / "all" / "vault.yml").write_text(encrypted)
    return directory


def run(fleet, collections_path, inventory, playbook, *args):
    proc = ansible_playbook(fleet, collections_path, inventory.parent,
                            ["-i", str(inventory), "--vault-password-file", str(inventory.parent / "vault-password"),
                             os.path.join(ROOT, "playbooks", playbook)] + list(args))
    return proc.returncode, proc.output


def requests_of(fleet):
    return {device.name: [r["kind"] for r in fleet.call(lambda d=device: list(d.requests))] for device in fleet.fleet.devices}


def clear(fleet):
    for device in fleet.fleet.devices:
        fleet.call(device.requests.clear)


PURGE = ["-e", "ts_analyzer_purge=true", "-e", "fm_monitor_purge=true"]


class VarsLoader(yaml.SafeLoader):
    """A host_vars file as plain data: the !unsafe tag (device text) read as the value it tags."""


VarsLoader.add_constructor("!unsafe", lambda loader, node: (
    loader.construct_mapping(node, deep=True) if isinstance(node, yaml.MappingNode) else
    loader.construct_sequence(node, deep=True) if isinstance(node, yaml.SequenceNode) else
    loader.construct_scalar(node)))


def load_vars(path):
    return yaml.load(path.read_text(), Loader=VarsLoader)


def test_onboarded_fleet_is_converged_and_without_drift(hand_configured, collections_path, inventory):
    fleet = hand_configured
    names = [device.name for device in fleet.fleet.devices]
    clear(fleet)
    code, output = run(fleet, collections_path, inventory, "onboard.yml", "-e", "onboard_dir=%s" % inventory)
    assert code == 0, output
    # onboarding only reads: one login per device, no write or action
    for name, kinds in requests_of(fleet).items():
        assert kinds.count("login") == 1 and "write" not in kinds and "action" not in kinds, (name, kinds)

    # one file per device, named after it, in the roles' variables
    files = sorted(os.listdir(inventory / "host_vars"))
    assert files == sorted(name + ".yml" for name in names)
    onboarded = {}
    for name in names:
        text = (inventory / "host_vars" / (name + ".yml")).read_text()
        assert FLEET_PASSWORD not in text and VAULT_PASSWORD not in text
        onboarded[name] = yaml.load(text, Loader=VarsLoader)
        assert not _secret_keys(onboarded[name]), (name, _secret_keys(onboarded[name]))
        role = "ts_analyzer" if name.startswith("ts-") else "fm_monitor"
        assert all(key.startswith(role + "_") for key in onboarded[name]), onboarded[name].keys()
    # the hand configuration reached the files: every device different, and purge would matter
    assert len({yaml.safe_dump(dict(v, ts_analyzer_network=None, fm_monitor_network=None))
                for v in onboarded.values()}) == len(names)
    for name in names[:TS]:
        assert len(onboarded[name]["ts_analyzer_inputs"]) >= 2
        assert len(onboarded[name]["ts_analyzer_alert_profiles"]) >= 2
    # DHCP assigns the address: only dhcp, dns and hostname are declared
    assert onboarded["ts-002"]["ts_analyzer_network"]["dhcp"] is True
    assert "address" not in onboarded["ts-002"]["ts_analyzer_network"]
    # a tuner whose schedule is active has its state set by it: the role refuses both
    scheduled = [(t["tuner_id"], "operating_state" in t, s["active"]) for name in names[TS:]
                 for t, s in zip(onboarded[name]["fm_monitor_tuners"], onboarded[name]["fm_monitor_schedules"])]
    assert all(declared != active for unused, declared, active in scheduled), scheduled
    assert any(active for unused, unused_declared, active in scheduled), scheduled

    # site.yml with these variables and purge on: nothing to change, nothing written
    clear(fleet)
    code, output = run(fleet, collections_path, inventory, "site.yml", *PURGE)
    assert code == 0, output
    counts = recap(output)
    assert set(counts) == set(names), output
    assert all(counts[name]["changed"] == 0 and counts[name]["failed"] == 0 for name in names), output
    for name, kinds in requests_of(fleet).items():
        assert "write" not in kinds and "action" not in kinds, (name, kinds)

    # the audit (purge on too): no drift on any device
    report = inventory.parent / "drift.json"
    code, output = run(fleet, collections_path, inventory, "audit.yml", "-e", "audit_report=%s" % report, *PURGE)
    assert code == 0, output
    drift = yaml.safe_load(report.read_text())
    assert drift["devices_with_drift"] == [], output
    assert "0 of %d device(s) differ" % len(names) in output

    # The audit reads these files: an input left out of one is drift (purge deletes it).
    first = onboarded["ts-001"]["ts_analyzer_inputs"]
    edited = dict(onboarded["ts-001"], ts_analyzer_inputs=first[1:])
    (inventory / "host_vars" / "ts-001.yml").write_text(yaml.safe_dump(edited))
    code, output = run(fleet, collections_path, inventory, "audit.yml", "-e", "audit_report=%s" % report, *PURGE)
    assert code == 0, output
    assert yaml.safe_load(report.read_text())["devices_with_drift"] == ["ts-001"], output
    assert "delete %s" % first[0]["name"] in output

    # Onboarding again puts the device's state back in the file, keeping the edited one beside it.
    code, output = run(fleet, collections_path, inventory, "onboard.yml", "-e", "onboard_dir=%s" % inventory)
    assert code == 0, output
    assert load_vars(inventory / "host_vars" / "ts-001.yml") == onboarded["ts-001"]
    assert len([f for f in os.listdir(inventory / "host_vars") if f.startswith("ts-001.yml.")]) == 1
    counts = recap(output)
    assert counts["ts-001"]["changed"] == 1 and counts["ts-002"]["changed"] == 0, output


def _secret_keys(value, path=""):
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("password", "token", "community", "passphrase", "secret"):
                found.append(path + key)
            found.extend(_secret_keys(item, path + str(key) + "."))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_secret_keys(item, "%s%d." % (path, index)))
    return found


def test_onboard_without_a_directory_reads_nothing(hand_configured, collections_path, inventory):
    clear(hand_configured)
    code, output = run(hand_configured, collections_path, inventory, "onboard.yml")
    assert code != 0
    assert "onboard_dir: give the directory" in output
    assert all(kinds == [] for kinds in requests_of(hand_configured).values()), requests_of(hand_configured)


def test_documented_examples_run_as_written(play, sim, tmp_path):
    """device_onboard's EXAMPLES against the session fleet (factory passwords): the analyzer's
    variables, its file, and an FM monitor's variables read as the user role."""
    (tmp_path / "host_vars").mkdir()
    for device in ("ts-001", "fm-001"):
        sim.call(sim.fleet.by_name(device).requests.clear)
    read, write, fm_read = module_examples("device_onboard")
    ts_results = play.run([read, write], "ts-001", extra_vars=dict(EXAMPLE_VARS, onboard_dir=str(tmp_path)))
    assert ts_results[0].get("failed") is not True and ts_results[1].get("failed") is not True, ts_results.results
    assert ts_results[0]["changed"] is False and ts_results[0]["secrets"] == []
    written = load_vars(tmp_path / "host_vars" / "ts-001.yml")
    assert written == ts_results[0]["variables"] and "ts_analyzer_inputs" in written
    fm_result = play.run([fm_read], "fm-001", extra_vars=EXAMPLE_VARS)[0]
    assert fm_result.get("failed") is not True, fm_result
    assert [t["tuner_id"] for t in fm_result["variables"]["fm_monitor_tuners"]] == list(range(8))
    assert fm_result["modules"] == ["device_login", "device_network", "device_time", "device_logging", "fm_schedule",
                                    "fm_tuner", "fm_thresholds"]  # the role's order: schedules set scheduled tuners
    writes = [w for device in ("ts-001", "fm-001") for w in sim.call(sim.fleet.by_name(device).writes)]
    assert writes == [], writes


def test_device_text_in_the_onboarded_files_is_never_a_template(collections_path, tmp_path):
    """An analyzer input and an FM tuner named with a template that would create a file on the
    controller: onboarding writes the names as data (!unsafe), so neither site.yml --check nor
    site.yml runs them, the names come back unchanged, and site.yml has nothing to change."""
    marker = tmp_path / "marker"
    hostile = "{{lookup('pipe','touch $M')}}"  # a tuner's name is at most 32 characters
    with running_fleet(ts=1, fm=1, time_scale=0.02) as fleet:
        analyzer, monitor = fleet.fleet.devices
        ts_api, fm_api = Api(analyzer), Api(monitor)
        default = {p["name"]: p["id"] for p in ts_api.call("GET", "/profiles")}["Default"]
        ts_api.call("POST", "/inputs", {"name": hostile, "config": {"asi": {"port": 1}},
                                        "alerts_config": {"profile_id": default, "pid_error_list": []}})
        fm_api.call("POST", "/tuner/3/settings", {"name": hostile, "frequency": 94800})
        inventory = tmp_path / "inventory"
        (inventory / "group_vars").mkdir(parents=True)
        fleet.write_inventory(str(inventory / "hosts.yml"))
        (inventory / "group_vars" / "all.yml").write_text(yaml.safe_dump({"broadcast_monitoring_password": "admin"}))

        def playbook(name, *args):
            proc = ansible_playbook(fleet, collections_path, tmp_path,
                                    ["-i", str(inventory), os.path.join(ROOT, "playbooks", name)] + list(args),
                                    cwd=str(tmp_path), env={"M": str(marker)})
            return proc.returncode, proc.output

        umask = os.umask(0o022)  # the usual umask, under which new files would be 0644
        try:
            code, output = playbook("onboard.yml", "-e", "onboard_dir=%s" % inventory)
        finally:
            os.umask(umask)
        assert code == 0, output
        for host in ("ts-001", "fm-001"):
            text = (inventory / "host_vars" / (host + ".yml")).read_text()
            assert load_vars(inventory / "host_vars" / (host + ".yml")) and "!unsafe" in text, text
            assert os.stat(inventory / "host_vars" / (host + ".yml")).st_mode & 0o777 == 0o600
        clear(fleet)
        for args in (["--check"], []):
            code, output = playbook("site.yml", *(PURGE + args))
            assert code == 0, output
            counts = recap(output)
            assert counts["ts-001"]["changed"] == 0 and counts["fm-001"]["changed"] == 0, output
            assert not marker.exists(), output
        assert load_vars(inventory / "host_vars" / "ts-001.yml")["ts_analyzer_inputs"][0]["name"] == hostile
        assert load_vars(inventory / "host_vars" / "fm-001.yml")["fm_monitor_tuners"][3]["name"] == hostile
        assert [i["name"] for i in ts_api.call("GET", "/inputs")] == [hostile]
        assert fm_api.call("GET", "/tuner/3")["name"] == hostile
        assert [fleet.call(device.writes) for device in (analyzer, monitor)] == [[], []]


def test_onboarding_can_lift_what_a_group_shares_into_its_group_vars(hand_configured, collections_path, inventory,
                                                                     tmp_path):
    """Issue 43: with onboard_group_vars=true, a variable every device of a group has alike goes once
    into group_vars/<group>/onboarded.yml (device text still !unsafe) and out of the host_vars files;
    each device's variables are those of a plain onboarding, and site.yml changes nothing."""
    fleet = hand_configured
    names = [device.name for device in fleet.fleet.devices]
    for device in fleet.fleet.devices:  # one setting alike on every device of each group
        if device.kind == "ts_analyzer":
            Api(device, FLEET_PASSWORD).call("POST", "/system/log/settings", {"level": "warning", "remote_syslog": {
                "enabled": True, "server": "192.0.2.10", "port": 514}})
        else:
            Api(device, FLEET_PASSWORD).call("POST", "/conf/log", {"level": "warning", "enable_rsyslog": True,
                                                                   "rsyslog_server": "192.0.2.10"})
    plain, grouped = tmp_path / "plain" / "inventory", tmp_path / "grouped" / "inventory"
    for directory in (plain, grouped):
        (directory / "group_vars" / "all").mkdir(parents=True)
        (directory / "hosts.yml").write_text((inventory / "hosts.yml").read_text())
        (directory / "group_vars" / "all" / "vault.yml").write_text((inventory / "group_vars" / "all" / "vault.yml").read_text())
        (directory.parent / "vault-password").write_text(VAULT_PASSWORD + "\n")
    code, output = run(fleet, collections_path, plain, "onboard.yml", "-e", "onboard_dir=%s" % plain)
    assert code == 0, output
    assert not (plain / "group_vars" / "ts_analyzers").exists()  # only when asked
    code, output = run(fleet, collections_path, grouped, "onboard.yml", "-e", "onboard_dir=%s" % grouped,
                       "-e", "onboard_group_vars=true")
    assert code == 0, output
    shared = {group: load_vars(grouped / "group_vars" / group / "onboarded.yml") for group in ("ts_analyzers", "fm_monitors")}
    assert {"ts_analyzer_logging"} <= set(shared["ts_analyzers"]) and {"fm_monitor_logging"} <= set(shared["fm_monitors"])
    assert "ts_analyzer_inputs" not in shared["ts_analyzers"]  # each analyzer has its own
    assert "!unsafe" in (grouped / "group_vars" / "ts_analyzers" / "onboarded.yml").read_text()
    for name in names:
        group = shared["ts_analyzers" if name.startswith("ts-") else "fm_monitors"]
        own = load_vars(grouped / "host_vars" / (name + ".yml"))
        assert not set(own) & set(group), (name, set(own) & set(group))
        assert dict(group, **own) == load_vars(plain / "host_vars" / (name + ".yml")), name
    clear(fleet)
    code, output = run(fleet, collections_path, grouped, "site.yml", *PURGE)
    assert code == 0, output
    assert all(counts["changed"] == 0 and counts["failed"] == 0 for counts in recap(output).values()), output
    code, output = run(fleet, collections_path, grouped, "onboard.yml", "-e", "onboard_dir=%s" % grouped,
                       "-e", "onboard_group_vars=true")
    assert code == 0 and all(counts["changed"] == 0 for counts in recap(output).values()), output

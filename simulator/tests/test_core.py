"""What both simulated devices share: CLI, faults, reboot, persistence, firmware, request log."""

import signal
import subprocess
import time

import pytest
import requests
import yaml

from bm_simulator import swu
from bm_simulator.fleet import Fleet, loopback_addresses, running_fleet
from bm_simulator.fm import FmMonitor
from bm_simulator.ts import TsAnalyzer

from sim_api import COMMAND_ENV, Api, command


def wait_alive(api, up=True, limit=10.0):
    """Poll /system/alive until the device answers (up) or stops answering; bounded."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            answered = api.get("/system/alive", token=None, timeout=0.5).status_code == 200
        except requests.ConnectionError:
            answered = False
        if answered == up:
            return True
        time.sleep(0.02)
    return False


# -- command line --------------------------------------------------------------------------

def start_cli(tmp_path, *args):
    inventory = tmp_path / "inv.yml"
    proc = subprocess.Popen(
        command("fleet", "--inventory", str(inventory), *args),
        env=COMMAND_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    return proc, inventory


def test_cli_starts_fleet_writes_inventory_and_stops_on_sigterm(tmp_path):
    """No document sentence: the simulator's command line (README,
    Running a fleet)."""
    proc, inventory = start_cli(tmp_path, "--ts", "2", "--fm", "1", "--address", "127.0.77.1", "--port", "0",
                                "--time-scale", "0.01")
    try:
        assert proc.stdout.readline().strip() == "ready: 3 devices"
        inv = yaml.safe_load(inventory.read_text())
        ts_hosts = inv["all"]["children"]["ts_analyzers"]["hosts"]
        fm_hosts = inv["all"]["children"]["fm_monitors"]["hosts"]
        assert sorted(ts_hosts) == ["ts-001", "ts-002"] and list(fm_hosts) == ["fm-001"]
        assert [h["ansible_host"] for h in ts_hosts.values()] == ["127.0.77.1", "127.0.77.2"]
        assert fm_hosts["fm-001"]["ansible_host"] == "127.0.77.3"
        assert fm_hosts["fm-001"]["device_type"] == "fm_monitor"
        host = ts_hosts["ts-001"]
        base = "http://%s:%d/api" % (host["ansible_host"], host["device_port"])
        token = requests.post(base + "/user/login", json={"role": "admin", "password": "admin"}, timeout=5).json()["token"]
        assert requests.get(base + "/system/log", headers={"Authorization": "Bearer " + token}, timeout=5).status_code == 200
        assert requests.get(base + "/system/log", timeout=5).status_code == 401
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0


def test_cli_refuses_non_loopback_address(tmp_path):
    """GUIDE and README: never a non-loopback address; the documents' factory addresses
    (172.16.112.1, 192.168.112.1) are refused."""
    proc = start_cli(tmp_path, "--ts", "1", "--address", "172.16.112.1")[0]
    assert proc.wait(10) == 2
    assert "refusing non-loopback address 172.16.112.1" in proc.stderr.read()


def test_cli_rejects_bad_fault_spec(tmp_path):
    """No document sentence: the simulator's fault rules (README, Faults)."""
    proc = start_cli(tmp_path, "--ts", "1", "--address", "127.0.78.1", "--port", "0", "--faults", "ts-001:explode")[0]
    assert proc.wait(10) == 2
    assert "fault kind must be one of" in proc.stderr.read()


def test_cli_ts_role_denied_picks_the_analyzer_variant(tmp_path):
    """Open choice (README, analyzer "Status codes not given"): a user token on an admin route
    gets 403 or 401; ts-analyzer-api.md names 401 only for "a missing or invalid token"."""
    proc, inventory = start_cli(tmp_path, "--ts", "1", "--fm", "1", "--address", "127.0.76.1", "--port", "0",
                                "--time-scale", "0.01", "--ts-role-denied", "401")
    try:
        assert proc.stdout.readline().startswith("ready: 2 devices")
        hosts = yaml.safe_load(inventory.read_text())["all"]["children"]["ts_analyzers"]["hosts"]
        base = "http://%s:%d/api" % (hosts["ts-001"]["ansible_host"], hosts["ts-001"]["device_port"])
        token = requests.post(base + "/user/login", json={"role": "user", "password": "user"}, timeout=5).json()
        refused = requests.post(base + "/system/reboot", headers={"Authorization": "Bearer " + token["token"]},
                                timeout=5)
        assert refused.status_code == 401 and refused.json() == {"code": 401,
                                                                 "message": "This operation needs the admin role"}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    bad = start_cli(tmp_path, "--ts", "1", "--address", "127.0.76.1", "--ts-role-denied", "404")[0]
    assert bad.wait(10) == 2 and "--ts-role-denied" in bad.stderr.read()


def test_addresses_are_consecutive_and_loopback_only():
    """No document sentence: loopback addresses only (README, Running a fleet)."""
    assert loopback_addresses("127.0.10.253", 3) == ["127.0.10.253", "127.0.10.254", "127.0.11.1"]
    with pytest.raises(ValueError):
        loopback_addresses("10.0.0.1", 1)


# -- auth and request log ----------------------------------------------------------------

def test_request_log_counts_kinds_and_never_holds_query_strings(ts):
    """No document sentence: the control path's request log (README);
    query strings may carry the one-time download token of ts-analyzer-api.md, Authentication 9."""
    ts.get("/system/log", params={"limit": 5, "token": "one-time-secret"})
    ts.get("/system/log", token="forged")
    log = ts.sim("GET", "/requests").json()
    paths = [r["path"] for r in log["requests"]]
    assert paths == ["/api/user/login", "/api/system/log", "/api/system/log"]
    assert [r["status"] for r in log["requests"]] == [200, 200, 401]
    assert log["counters"]["login"] == 1 and log["counters"]["read"] == 2
    assert "one-time-secret" not in str(log)
    assert ts.token not in str(log) and "admin" not in str([r["path"] for r in log["requests"]])


def test_system_log_paging(ts):
    """ts-analyzer-api.md, Limits: "`GET /system/log` returns the last 100 entries by default"; fm-monitor-api.md:
    `from_id` (id >= value), `till_id` (id < value), `limit` (the same code serves both devices)."""
    device = ts.device
    for n in range(150):
        device.log("info", "entry %d" % n)
    entries = ts.get("/system/log").json()
    assert len(entries) == 100 and entries[-1]["msg"] == "entry 149"
    first_id = entries[0]["id"]
    window = ts.get("/system/log", params={"from_id": first_id, "till_id": first_id + 3}).json()
    assert [e["id"] for e in window] == [first_id, first_id + 1, first_id + 2]
    assert len(ts.get("/system/log", params={"limit": 7}).json()) == 7
    assert ts.get("/system/log", params={"limit": "x"}).status_code == 400


# -- faults --------------------------------------------------------------------------------

def set_faults(api, rules):
    response = api.sim("POST", "/faults", json=rules)
    assert response.status_code == 200, response.text
    return response.json()


def test_fault_503_for_a_number_of_requests(ts):
    """fm-monitor-api.md, Errors: "503 temporarily unavailable, retry after a short delay" -
    injected (README, Faults)."""
    set_faults(ts, [{"kind": "unavailable", "count": 2}])
    statuses = [ts.get("/system/log").status_code for attempt in range(3)]
    assert statuses == [503, 503, 200]
    assert ts.sim("GET", "/faults").json()["faults"] == []
    assert ts.sim("GET", "/requests").json()["counters"]["fault"] == 2


def test_fault_503_for_seconds_and_500_for_writes_only(ts):
    """No document sentence: injected faults (README, Faults)."""
    set_faults(ts, [{"kind": "unavailable", "seconds": 0.3}])
    assert ts.get("/system/log").status_code == 503
    time.sleep(0.35)
    assert ts.get("/system/log").status_code == 200
    set_faults(ts, [{"kind": "error", "count": 1, "method": "write"}])
    assert ts.get("/system/log").status_code == 200
    assert ts.post("/system/reboot").status_code == 500


def test_fault_drop_before_and_after_acting(ts):
    """No document sentence: injected faults (README, Faults)."""
    set_faults(ts, [{"kind": "drop", "count": 1, "path": "/api/system/log"}])
    with pytest.raises(requests.ConnectionError):
        ts.get("/system/log")
    assert ts.get("/system/log").status_code == 200
    # drop_response: the device acts (here: it reboots) but the answer is lost
    set_faults(ts, [{"kind": "drop_response", "count": 1}])
    with pytest.raises(requests.ConnectionError):
        ts.post("/system/reboot")
    assert wait_alive(ts, up=False, limit=2) and wait_alive(ts, up=True, limit=5)


def test_fault_latency_and_bad_rules(ts):
    """No document sentence: injected faults (README, Faults)."""
    set_faults(ts, [{"kind": "latency", "seconds": 0.2}])
    started = time.monotonic()
    assert ts.get("/system/log").status_code == 200
    assert time.monotonic() - started >= 0.2
    for bad in ([{"kind": "explode"}], [{"kind": "unavailable"}], [{"kind": "error", "rate": 2}],
                [{"kind": "drop", "count": 1, "colour": "red"}]):
        assert ts.sim("POST", "/faults", json=bad).status_code == 400


def test_seeded_error_rate_is_deterministic():
    """No document sentence: faults repeat per `--seed` (README)."""
    def pattern(seed):
        fleet = Fleet(ts=1, address="127.0.79.1", port=0, seed=seed)
        device = fleet.devices[0]
        device.faults.add({"kind": "error", "rate": 0.5})
        return [device.faults.match("GET", "/api/x") is not None for attempt in range(40)]

    assert pattern(3) == pattern(3)
    assert pattern(3) != pattern(4)
    assert 5 < sum(pattern(3)) < 35


# -- reboot, persistence, factory reset --------------------------------------------------

def test_reboot_takes_the_device_away_for_the_scaled_gap(ts):
    """fm-monitor-api.md, Limits: "Restart after reboot | device unreachable about 60
    seconds"; ts-analyzer-api.md: `/system/reboot` "reboot immediately"."""
    started = time.monotonic()
    assert ts.post("/system/reboot").status_code == 200
    assert wait_alive(ts, up=False, limit=2)
    assert wait_alive(ts, up=True, limit=5)
    assert time.monotonic() - started >= 60 * 0.01  # fixture time scale 0.01
    assert ts.get("/system/log").status_code == 200  # tokens survive a reboot


def test_reboot_and_factory_reset_asked_together_make_one_reboot_into_factory_state(ts):
    """Both documents: reboot and factory reset "run immediately on request"; a unit already going
    down reboots once, and a factory reset asked for meanwhile is not lost."""
    assert ts.post("/user/password", {"role": "user", "password": "changed-1"}).status_code == 200
    assert ts.post("/system/reboot").status_code == 200
    assert ts.post("/system/factory_reset").status_code == 200
    assert wait_alive(ts, up=False, limit=2) and wait_alive(ts, up=True, limit=5)
    assert not wait_alive(ts, up=False, limit=0.3)  # one reboot, not two
    assert Api(ts.device).login("user", password="user").status_code == 200  # factory password back


def test_reboot_gap_fault_and_never_return(fleet):
    """No document sentence: injected reboot faults (README, Faults)."""
    api = Api(fleet.fleet.of_kind("ts_analyzer")[1])
    api.reset()
    api.login()
    set_faults(api, [{"kind": "reboot_gap", "seconds": 1.0}])
    started = time.monotonic()
    api.post("/system/reboot")
    assert wait_alive(api, up=False, limit=2) and wait_alive(api, up=True, limit=5)
    assert time.monotonic() - started >= 1.0
    set_faults(api, [{"kind": "never_return"}])
    api.post("/system/reboot")
    assert wait_alive(api, up=False, limit=2)
    assert not wait_alive(api, up=True, limit=1.5)
    # bring it back for the other tests: an operator power-cycles it
    fleet.call(api.device.power_cycle)
    assert wait_alive(api, up=True, limit=2)


def test_state_persists_across_simulator_restart_and_factory_reset_wipes_it(tmp_path):
    """fm-monitor-api.md, System: factory reset "wipes all
    configuration"; Events: alerts "persist across reboots" (here across a simulator restart, README)."""
    address = "127.0.81.1"
    with running_fleet(ts=0, fm=1, address=address, state_dir=str(tmp_path), time_scale=0.005) as first:
        api = Api(first.devices[0])
        api.login()
        old_token = api.token
        assert api.post("/conf/password", {"role": "admin", "password": "fleet-pw"}).status_code == 200
        first.call(first.devices[0].log, "info", "kept across restarts")
    assert (tmp_path / "fm-001.json").exists()
    with running_fleet(ts=0, fm=1, address=address, state_dir=str(tmp_path), time_scale=0.005) as second:
        api = Api(second.devices[0])
        assert api.login("admin", "admin").status_code == 401
        assert api.login("admin", "fleet-pw").status_code == 200
        assert api.get("/system/log", token=old_token).status_code == 200
        assert "kept across restarts" in [e["msg"] for e in api.get("/system/log").json()]
        assert api.post("/system/factory_reset").status_code == 200
        assert wait_alive(api, up=False, limit=2) and wait_alive(api, up=True, limit=5)
        assert api.get("/system/log", token=old_token).status_code == 401
        assert api.login("admin", "admin").status_code == 200
        assert "kept across restarts" not in [e["msg"] for e in api.get("/system/log").json()]


def test_network_change_moves_device_to_new_loopback_address_at_reboot():
    """fm-monitor-api.md, Configuration: `POST /conf/network`
    "effective after reboot" (the unit answers at its new address only after it)."""
    with running_fleet(ts=0, fm=1, address="127.0.82.1", time_scale=0.005) as runner:
        device = runner.devices[0]
        runner.call(lambda: device.state["network"].update(address="127.0.82.50"))
        api = Api(device)
        api.login()
        api.post("/system/reboot")
        old = "http://127.0.82.1:%d/api/system/alive" % device.port
        deadline = time.monotonic() + 5
        while device.address != "127.0.82.50" or device.down:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert requests.get(device.base_url + "/api/system/alive", timeout=2).status_code == 200
        with pytest.raises(requests.ConnectionError):
            requests.get(old, timeout=1)


# -- firmware --------------------------------------------------------------------------------

def upload(api, blob):
    return api.request("POST", "/system/upgrade", files={"file": ("fw.swu", blob, "application/octet-stream")})


@pytest.mark.parametrize("bad, reason", [
    ({"unsigned": True}, "not signed"),
    ({"wrong_key": True}, "does not verify"),
    ({"tamper": True}, "altered bundle"),
])
def test_firmware_bad_bundles_are_refused_and_nothing_changes(fm, bad, reason):
    """fm-monitor-api.md, System: `POST /system/upgrade` "unsigned or altered
    packages are rejected"; NOTES.md: "an unsigned or altered bundle is refused and nothing is installed"."""
    before = fm.get("/status").json()["versions"]["package_ver"]
    response = upload(fm, swu.build("9.9.9", **bad))
    assert response.status_code == 400
    assert reason in response.json()["message"]
    assert upload(fm, b"not a cpio archive").status_code == 400
    assert fm.get("/status").json()["versions"]["package_ver"] == before
    assert fm.get("/status").json()["reboot_needed"] is False


def test_fm_upgrade_pending_until_reboot(fm):
    """fm-monitor-api.md: POST /system/upgrade "installs at once"; the state table: "reboot_needed false
    -> firmware upgrade -> true", "Change takes effect after reboot"; POST /system/reboot "reboots at once"."""
    user = Api(fm.device)
    user.login("user")
    assert upload(user, swu.build("2.4.1")).status_code == 401  # admin only
    assert upload(fm, swu.build("2.4.1")).status_code == 200
    # Installed at once, but the monitor stays up on its old firmware until it is rebooted.
    assert not wait_alive(fm, up=False, limit=1.0)
    status = fm.get("/status").json()
    assert (status["versions"]["package_ver"], status["reboot_needed"]) == ("1.0.0", True)
    assert fm.post("/system/reboot").status_code == 200
    assert wait_alive(fm, up=False, limit=2) and wait_alive(fm, up=True, limit=5)
    status = fm.get("/status").json()
    assert (status["versions"]["package_ver"], status["reboot_needed"]) == ("2.4.1", False)


@pytest.mark.parametrize("behaviour, expected", [("kept", "2.4.1"), ("factory", "1.0.0")])
def test_factory_reset_keeps_the_firmware_or_goes_back_to_the_factory_version(behaviour, expected):
    """ts-analyzer-api.md, Behaviour 8: "Factory reset returns the device to its static default address
    and default credentials"; fm-monitor-api.md: `POST /system/factory_reset` "wipes all configuration and
    reboots", Behaviour 7: "Factory reset restores default credentials". Neither says what becomes of the
    installed firmware: both are offered (factory_reset_firmware), kept by default. An FM monitor's
    upgrade installed and waiting for its reboot is the firmware the reset's reboot boots."""
    assert Fleet(ts=1, fm=1, address="127.0.84.1").devices[0].factory_reset_firmware == "kept"
    with running_fleet(ts=1, fm=1, address="127.0.84.1", time_scale=0.005,
                       factory_reset_firmware=behaviour) as runner:
        for device in runner.devices:
            api = Api(device)
            api.login()
            assert upload(api, swu.build("2.4.1")).status_code == 200
            wait_alive(api, up=False, limit=0.5)  # an analyzer reboots into it; the monitor waits (pending)
            assert wait_alive(api, up=True, limit=5)
            api.login()
            assert api.post("/system/factory_reset").status_code == 200
            assert wait_alive(api, up=False, limit=2) and wait_alive(api, up=True, limit=5)
            assert api.login("admin", "admin").status_code == 200
            assert runner.call(lambda d=device: d.state["firmware_version"]) == expected, device.name
            assert runner.call(lambda d=device: d.info())["factory_reset_firmware"] == behaviour
    with pytest.raises(ValueError, match="factory_reset_firmware 'newest'"):
        Fleet(ts=1, address="127.0.84.1", factory_reset_firmware="newest")


def test_upgrade_behaviour_is_checked_per_model():
    """Only the analyzer's document leaves the upgrade's reboot open; the FM monitor's decides it."""
    with pytest.raises(ValueError, match="upgrade behaviour 'reboots'"):
        Fleet(fm=1, ts_upgrade=None).devices[0].__class__("fm-x", "127.0.83.1", 0, upgrade="reboots")
    fleet = Fleet(ts=1, fm=1, address="127.0.83.1", ts_upgrade="pending")
    assert [d.upgrade for d in fleet.devices] == ["pending", "pending"]
    assert Fleet(ts=1, address="127.0.83.1").devices[0].upgrade == "reboots"


def test_swu_tool_builds_bundles_and_reads_their_version(tmp_path):
    """NOTES.md, Firmware bundles: a `newc` cpio archive whose first member
    is `sw-description` carrying the `version`, optionally followed by `sw-description.sig`."""
    good, bad = tmp_path / "good.swu", tmp_path / "bad.swu"
    for path, extra in ((good, []), (bad, ["--tamper"])):
        subprocess.run(command("bundle", "--version", "3.1.0", "--out", str(path), *extra), env=COMMAND_ENV,
                       check=True)
    assert swu.read_version(good.read_bytes()) == "3.1.0"
    assert swu.cpio_unpack(good.read_bytes())[0][0] == "sw-description"
    shown = subprocess.run(command("show-bundle", str(bad)), env=COMMAND_ENV,
                           capture_output=True, text=True, check=False)
    assert shown.returncode == 1 and "altered" in shown.stdout


def test_swu_tool_builds_bundles_for_a_model(tmp_path):
    """Test bundles name their target as SWUpdate's hardware-compatibility list: every simulated
    model by default, the ones asked for with --model (a device type stands for its model), none
    with --no-target."""
    built = {}
    for label, extra in (("any", []), ("ts", ["--model", "ts_analyzer"]), ("named", ["--model", "XYZ-1"]),
                         ("bare", ["--no-target"])):
        path = tmp_path / ("%s.swu" % label)
        subprocess.run(command("bundle", "--version", "3.1.0", "--out", str(path), *extra), env=COMMAND_ENV,
                       check=True)
        built[label] = swu.read_target(path.read_bytes())
    assert built == {"any": ["TSA-4", "FMM-8 FM Monitoring Receiver"], "ts": ["TSA-4"], "named": ["XYZ-1"],
                     "bare": []}
    assert swu.MODELS == {"ts_analyzer": TsAnalyzer.MODEL, "fm_monitor": FmMonitor.MODEL}
    shown = subprocess.run(command("show-bundle", str(tmp_path / "ts.swu")), env=COMMAND_ENV,
                           capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "version 3.1.0, for TSA-4, accepted"


@pytest.mark.parametrize("check", ["ignored", "checked"])
def test_bundle_target_variants(fm, check):
    """No document says whether a device checks a bundle's target (NOTES.md, Firmware bundles, names
    only the signature check): both variants. "checked" refuses a bundle naming other models and
    installs one naming none; "ignored" installs any signed bundle."""
    fm.device.bundle_target = check
    try:
        wrong = upload(fm, swu.build("2.4.1", model="ts_analyzer"))
        if check == "checked":
            assert wrong.status_code == 400, wrong.text
            assert "bundle is for TSA-4, not for this FMM-8 FM Monitoring Receiver" in wrong.json()["message"]
            assert fm.get("/status").json()["reboot_needed"] is False
            assert upload(fm, swu.build("2.4.1", model=[])).status_code == 200
        else:
            assert wrong.status_code == 200, wrong.text
        assert upload(fm, swu.build("2.4.1", model="fm_monitor")).status_code == 200
    finally:
        fm.device.bundle_target = "ignored"
    with pytest.raises(ValueError, match="bundle_target 'maybe'"):
        Fleet(fm=1, address="127.0.83.1", bundle_target="maybe")


# -- scale -----------------------------------------------------------------------------------

def test_two_hundred_devices_in_one_process():
    """No document sentence: the fleet's scale (README, Measured)."""
    with running_fleet(ts=100, fm=100, time_scale=0.01) as runner:
        assert len({d.address for d in runner.devices}) == 200
        session = requests.Session()
        for device in runner.devices:
            assert session.get(device.base_url + "/api/system/alive", timeout=5).json()["alive"] is True

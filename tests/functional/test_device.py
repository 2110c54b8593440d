"""device_* modules end to end, on both device types, against the simulated fleet."""

import pytest
import requests

from bm_simulator import swu

from .conftest import EXAMPLE_VARS, connection, module_examples
from .device_api import Api, login
from .tasks import ok, task, write_log

BOTH = ["ts-001", "fm-001"]


# -- device_type ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", BOTH)
def test_device_type_is_detected_with_one_request(play, sim, fresh, name):
    device = fresh(name)
    result = play.run([task("device_logging", device, level="warning")], name)[0]
    assert result.get("failed") is not True, result
    assert result["changed"] is True
    probes = [r for r in sim.call(lambda: list(device.requests)) if r["status"] in (401, 404) and r["kind"] != "login"]
    assert len(probes) <= 1


# -- network --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", BOTH)
def test_network_settings_wait_for_reboot_and_are_idempotent(play, sim, fresh, name):
    device = fresh(name)
    settings = dict(address=device.address, netmask="255.0.0.0", gateway="127.0.0.1", dns=["127.0.0.53"],
                    hostname="site-a-%s" % device.kind.replace("_", "-"))
    checked = play.run([task("device_network", device, **settings)], name, check=True, diff=True)[0]
    assert write_log(sim, device) == []
    assert checked["changed"] is True and checked["diff"]["after"]["dns"] == ["127.0.0.53"]
    out = play.run([task("device_network", device, **settings), task("device_network", device, **settings)],
                   name, diff=True)
    assert out[0]["changed"] is True and out[0]["reboot_needed"] is True
    assert out[0]["diff"] == checked["diff"]
    assert out[1]["changed"] is False and out[1]["reboot_needed"] is True
    assert len(write_log(sim, device)) == 2  # address settings and hostname, once


@pytest.mark.parametrize("name", BOTH)
def test_readdress_with_reboot_and_continue_at_the_new_address(play, sim, fresh, name):
    device = fresh(name)
    old = device.address
    new = old.rsplit(".", 1)[0] + ".77"
    tasks = [
        task("device_network", device, address=new, netmask="255.0.0.0", gateway="127.0.0.1", reboot=True,
             reboot_timeout=30),
        {"name": "continue there", "ansible.builtin.set_fact": {"ansible_host": "{{ result_0.host }}"}},
        dict(task("device_network", device, address=new, netmask="255.0.0.0", gateway="127.0.0.1"),
             **{"broadcast.monitoring.device_network": dict(connection(device), host="{{ ansible_host }}",
                                                            address=new, netmask="255.0.0.0", gateway="127.0.0.1")}),
    ]
    out = play.run(tasks, name)
    assert out[0].get("failed") is not True, out[0]
    assert out[0]["rebooted"] is True and out[0]["host"] == new and out[0]["elapsed"] > 0
    assert out[0]["reboot_needed"] is False
    assert out[2]["changed"] is False and out[2]["reboot_needed"] is False
    assert device.address == new
    # the inventory still names the old address: the task says where the device is now
    assert out[0]["warnings"] == ["address: the device now answers at %s instead of %s; set ansible_host (or host) "
                                  "to %s in the inventory so that later plays reach it" % (new, old, new)]
    assert not out[2].get("warnings"), out[2]
    with pytest.raises(requests.ConnectionError):
        requests.get("http://%s:%d/api/system/alive" % (old, device.port), timeout=1)


@pytest.mark.parametrize("options, message", [
    ({"address": "10.0.0.5", "netmask": "255.255.255.0", "gateway": "10.0.1.1"}, "gateway: 10.0.1.1 is outside"),
    ({"dhcp": True, "address": "10.0.0.5"}, "address: not with dhcp=true"),
    ({"address": "10.0.0.0", "netmask": "255.255.255.0", "gateway": "10.0.0.1"}, "network or broadcast address"),
    ({"netmask": "255.0.255.0"}, "netmask: must be a contiguous IPv4 netmask"),
    ({"address": "10.0.0.300"}, "address: must be an IPv4 address"),
    ({"dns": ["8.8.8.8", "dns.example"]}, "dns[1]: must be an IPv4 address"),
    ({"hostname": "-bad-"}, "hostname: must be 1 to 63 letters"),
])
def test_network_settings_that_would_strand_the_device_are_refused(play, sim, fresh, options, message):
    device = fresh("ts-002")
    result = play.run([task("device_network", device, **options)], device.name)[0]
    assert result["failed"] is True and message in result["msg"], result["msg"]
    assert write_log(sim, device) == []


# -- firmware -------------------------------------------------------------------------------

@pytest.fixture
def bundles(tmp_path):
    paths = {}
    for label, extra in (("good", {}), ("unsigned", {"unsigned": True}), ("tampered", {"tamper": True})):
        paths[label] = tmp_path / ("%s.swu" % label)
        paths[label].write_bytes(swu.build("2.4.1", **extra))
    return {k: str(v) for k, v in paths.items()}


# What an analyzer does after an accepted upload is open in its document: the simulator
# offers both; the FM monitor's document says it keeps running until rebooted.
UPGRADE_CASES = [("ts-001", "reboots"), ("ts-001", "pending"), ("fm-001", "pending")]


@pytest.fixture
def upgrading(sim, fresh):
    """A factory-fresh device by name whose firmware upload behaves as asked; restored after."""
    changed = []

    def prepare(name, behaviour):
        device = fresh(name)
        changed.append((device, device.upgrade))
        sim.call(setattr, device, "upgrade", behaviour)
        return device
    yield prepare
    for device, behaviour in changed:
        sim.call(setattr, device, "upgrade", behaviour)


def reboots(sim, device):
    return [w for w in write_log(sim, device) if w["path"] == "/api/system/reboot"]


@pytest.mark.parametrize("name, behaviour", UPGRADE_CASES)
def test_firmware_upgrade_verified_then_nothing_to_do(play, sim, upgrading, bundles, name, behaviour):
    device = upgrading(name, behaviour)
    checked = play.run([task("device_firmware", device, path=bundles["good"])], name, check=True)[0]
    assert checked["msg"] == "would upgrade from 1.0.0 to 2.4.1" and checked["changed"] is True
    assert checked["diff"] == {"before": {"firmware_version": "1.0.0"}, "after": {"firmware_version": "2.4.1"}}
    assert write_log(sim, device) == []
    out = play.run([task("device_firmware", device, path=bundles["good"], reboot_timeout=30),
                    task("device_firmware", device, path=bundles["good"], reboot_timeout=30)], name)
    assert out[0].get("failed") is not True, out[0]
    assert (out[0]["previous_version"], out[0]["current_version"]) == ("1.0.0", "2.4.1")
    assert (out[0]["rebooted"], out[0]["reboot_needed"], out[0]["pending_version"]) == (True, False, None)
    assert out[0]["elapsed"] > 0
    assert out[1]["changed"] is False and out[1]["msg"] == "firmware 2.4.1 is already installed"
    uploads = [w for w in write_log(sim, device) if w["path"] == "/api/system/upgrade"]
    assert len(uploads) == 1
    # The module reboots only a device that waits for it.
    assert len(reboots(sim, device)) == (1 if behaviour == "pending" else 0)
    assert Api(device).firmware_version() == "2.4.1"


@pytest.mark.parametrize("name, behaviour", UPGRADE_CASES)
def test_firmware_without_reboot_leaves_the_new_version_pending(play, sim, upgrading, bundles, name, behaviour):
    device = upgrading(name, behaviour)
    checked = play.run([task("device_firmware", device, path=bundles["good"], reboot=False)], name, check=True)[0]
    assert checked["msg"] == "would upgrade from 1.0.0 to 2.4.1 (running it from the next reboot)"
    result = play.run([task("device_firmware", device, path=bundles["good"], reboot=False, reboot_timeout=30),
                       task("device_reboot", device, only_if_needed=True, reboot_timeout=30)], name)
    staged, rebooted = result
    assert staged.get("failed") is not True, staged
    assert staged["changed"] is True
    # The only reboot request is device_reboot's, for the device that waited for one.
    assert len(reboots(sim, device)) == (1 if behaviour == "pending" else 0)
    if behaviour == "pending":
        # Installed, still running the old version until the reboot the module was told not to do.
        assert (staged["current_version"], staged["pending_version"]) == ("1.0.0", "2.4.1")
        assert (staged["rebooted"], staged["reboot_needed"]) == (False, True)
        assert "runs 1.0.0 until its next reboot" in staged["msg"]
        assert rebooted["changed"] is True and rebooted["rebooted"] is True
    else:
        # A device that reboots by itself does so whatever the module says; the module waits.
        assert (staged["current_version"], staged["pending_version"], staged["rebooted"]) == ("2.4.1", None, True)
        assert rebooted["changed"] is False
    assert Api(device).firmware_version() == "2.4.1"


def test_firmware_refused_bundle_leaves_the_device_unchanged(play, sim, fresh, bundles):
    """An unsigned bundle: only the device can tell (the controller has no key); it refuses it."""
    device = fresh("fm-002")
    result = play.run([task("device_firmware", device, path=bundles["unsigned"], reboot_timeout=10)], device.name)[0]
    assert result["failed"] is True
    assert "the device refused the bundle" in result["msg"] and "not signed" in result["msg"]
    assert "as the vendor signed it" in result["msg"] and "correct the parameter" not in result["msg"]
    assert Api(device).firmware_version() == "1.0.0"


@pytest.mark.parametrize("check", [True, False])
def test_firmware_refuses_an_altered_bundle_before_any_upload(play, sim, fresh, bundles, tmp_path, check):
    """Issue 43: an image that does not match the sha256 its sw-description lists, or one it lists and
    the bundle lacks, is refused on the controller, in check mode too: nothing reaches the device."""
    device = fresh("ts-002")
    good = swu.cpio_unpack(open(bundles["good"], "rb").read())
    lacking = tmp_path / "lacking.swu"
    lacking.write_bytes(swu.cpio_pack(good[:-1]))  # sw-description and its signature, no image
    for path, problem in ((bundles["tampered"], "its image rootfs.img does not match the sha256 its sw-description"
                           " lists (altered after it was made)"),
                          (str(lacking), "it lacks the image rootfs.img its sw-description lists")):
        result = play.run([task("device_firmware", device, path=path, reboot_timeout=10)], device.name,
                          check=check)[0]
        assert result["failed"] is True, result
        assert result["msg"].startswith("bundle %s refused, nothing was uploaded: path: the bundle %s (version 2.4.1):"
                                        " %s" % (path, path, problem)), result["msg"]
        assert result["refused_bundle"] == {"path": path, "version": "2.4.1", "target": list(swu.MODELS.values())}
        assert result["current_version"] == "1.0.0" and result["device_model"] == device.MODEL
    assert uploads(sim, device) == [] and write_log(sim, device) == []
    ok(play.run([task("device_firmware", device, path=bundles["good"], reboot_timeout=30)], device.name,
                check=check)[0])  # the same bundle unaltered goes through


@pytest.mark.parametrize("name", ["ts-002", "fm-002"])  # rebooting by itself / rebooted by the module
def test_firmware_device_that_never_returns_fails_within_the_timeout(play, sim, fresh, bundles, name):
    device = fresh(name)
    sim.call(device.faults.add, {"kind": "never_return"})
    result = play.run([task("device_firmware", device, path=bundles["good"], reboot_timeout=3)], device.name)[0]
    sim.call(device.power_cycle)
    assert result["failed"] is True
    assert "did not come back" in result["msg"] and "within 3 s" in result["msg"]


def uploads(sim, device):
    return [r for r in sim.call(lambda: list(device.requests)) if r["path"] == "/api/system/upgrade"]


OTHER_TYPE = {"ts_analyzer": "fm_monitor", "fm_monitor": "ts_analyzer"}


@pytest.mark.parametrize("check", [True, False])
@pytest.mark.parametrize("name", BOTH)
def test_firmware_refuses_a_bundle_for_another_model_before_any_upload(play, sim, fresh, tmp_path, name, check):
    """Issue 30: an analyzer's bundle given to an FM monitor (and the reverse) is refused, in check mode too,
    before any upload; the simulated device itself would install it (its bundle target check is "ignored")."""
    device = fresh(name)
    assert device.bundle_target == "ignored"
    wrong = tmp_path / "other.swu"
    wrong.write_bytes(swu.build("2.4.1", model=OTHER_TYPE[device.kind]))
    result = play.run([task("device_firmware", device, path=str(wrong), reboot_timeout=30)], name, check=check)[0]
    assert result["failed"] is True, result
    assert "is for %s, and this device is a %s" % (swu.MODELS[OTHER_TYPE[device.kind]], device.MODEL) in result["msg"]
    assert "nothing was uploaded" in result["msg"]
    assert uploads(sim, device) == [] and write_log(sim, device) == []
    assert Api(device).firmware_version() == "1.0.0"


def test_firmware_bundle_naming_no_model_needs_the_opt_in(play, sim, fresh, tmp_path):
    device = fresh("fm-001")
    bare = tmp_path / "bare.swu"
    bare.write_bytes(swu.build("2.4.1", model=[]))
    refused = play.run([task("device_firmware", device, path=str(bare))], device.name, check=True)[0]
    assert refused["failed"] is True and "names no model" in refused["msg"], refused
    assert "allow_unchecked_target=true" in refused["msg"]
    allowed = play.run([task("device_firmware", device, path=str(bare), allow_unchecked_target=True)],
                       device.name, check=True)[0]
    assert allowed.get("failed") is not True, allowed
    assert allowed["msg"] == "would upgrade from 1.0.0 to 2.4.1" and allowed["bundle_target"] is None
    assert uploads(sim, device) == []


def test_firmware_refuses_a_downgrade_unless_allowed(play, sim, fresh, tmp_path):
    """Issue 30: a bundle older than the installed firmware is refused before any upload, in check
    mode too; allow_downgrade goes back to it."""
    device = fresh("ts-002")
    new, old = tmp_path / "new.swu", tmp_path / "old.swu"
    new.write_bytes(swu.build("3.10.0", model="ts_analyzer"))
    old.write_bytes(swu.build("3.9.2", model="ts_analyzer"))
    ok(play.run([task("device_firmware", device, path=str(new), reboot_timeout=30)], device.name)[0])
    assert Api(device).firmware_version() == "3.10.0"
    sim.call(device.requests.clear)
    for check in (True, False):
        refused = play.run([task("device_firmware", device, path=str(old), reboot_timeout=30)], device.name,
                           check=check)[0]
        assert refused["failed"] is True, refused
        assert "carries firmware 3.9.2, older than the installed 3.10.0: a downgrade" in refused["msg"]
        assert "allow_downgrade=true" in refused["msg"]
    assert uploads(sim, device) == [] and write_log(sim, device) == []
    back = [task("device_firmware", device, path=str(old), allow_downgrade=True, reboot_timeout=30)]
    checked_back = ok(play.run(back, device.name, check=True)[0])
    assert checked_back["msg"] == "would downgrade from 3.10.0 to 3.9.2" and uploads(sim, device) == []
    done = ok(play.run(back, device.name)[0])
    assert done["changed"] is True and done["msg"] == "downgraded from 3.10.0 to 3.9.2"
    assert Api(device).firmware_version() == "3.9.2" and len(uploads(sim, device)) == 1


def test_firmware_from_a_folder_takes_the_bundle_for_the_model_and_version(play, sim, fresh, tmp_path):
    """Issue 30: one folder for a mixed fleet; each device gets its model's bundle, of the version
    asked for, else the newest; none fits: a clear error before any upload."""
    folder = tmp_path / "firmware"
    folder.mkdir()
    for kind, version in (("ts_analyzer", "2.4.1"), ("ts_analyzer", "2.10.0"), ("fm_monitor", "3.1.0"),
                          ("fm_monitor", "2.4.1")):
        (folder / ("%s-%s.swu" % (kind, version))).write_bytes(swu.build(version, model=kind))
    (folder / "notes.txt").write_text("not a bundle")
    ts, fm = fresh("ts-001"), fresh("fm-001")
    picked = {}
    for device, version in ((ts, None), (ts, "2.4.1"), (fm, None), (fm, "2.4.1")):
        options = {"version": version} if version else {}
        result = ok(play.run([task("device_firmware", device, path=str(folder), **options)], device.name,
                             check=True)[0])
        picked[(device.name, version)] = (result["bundle_path"].rsplit("/", 1)[1], result["device_model"])
    assert picked == {("ts-001", None): ("ts_analyzer-2.10.0.swu", "TSA-4"),
                      ("ts-001", "2.4.1"): ("ts_analyzer-2.4.1.swu", "TSA-4"),
                      ("fm-001", None): ("fm_monitor-3.1.0.swu", swu.MODELS["fm_monitor"]),
                      ("fm-001", "2.4.1"): ("fm_monitor-2.4.1.swu", swu.MODELS["fm_monitor"])}
    missing = play.run([task("device_firmware", ts, path=str(folder), version="3.1.0")], ts.name)[0]
    assert missing["failed"] is True and "no bundle in %s for model TSA-4, version 3.1.0" % folder in missing["msg"]
    assert "fm_monitor-3.1.0.swu (version 3.1.0, for %s)" % swu.MODELS["fm_monitor"] in missing["msg"]
    assert uploads(sim, ts) == [] and uploads(sim, fm) == []


def test_firmware_single_bundle_of_another_version_fails_before_any_request(play, sim, fresh, tmp_path):
    device = fresh("ts-002")
    bundle = tmp_path / "fw.swu"
    bundle.write_bytes(swu.build("2.4.1", model="ts_analyzer"))
    result = play.run([task("device_firmware", device, path=str(bundle), version="2.5.0")], device.name)[0]
    assert result["failed"] is True and "version: the bundle %s carries version 2.4.1, not 2.5.0" % bundle in result["msg"]
    assert sim.call(lambda: list(device.requests)) == []


def test_firmware_bad_path_fails_before_any_request(play, sim, fresh, tmp_path):
    device = fresh("ts-002")
    junk = tmp_path / "junk.swu"
    junk.write_bytes(b"not a bundle at all")
    result = play.run([task("device_firmware", device, path=str(junk))], device.name)[0]
    assert result["failed"] is True and "path: " in result["msg"] and "no newc cpio header" in result["msg"]
    assert sim.call(lambda: list(device.requests)) == []


# -- time and logging -------------------------------------------------------------------------

def test_time_on_both_devices(play, sim, fresh):
    ts, fm = fresh("ts-001"), fresh("fm-001")
    ts_time = dict(ntp=True, ntp_servers=["0.pool.ntp.org", "1.pool.ntp.org"], timezone="Europe/Berlin")
    out = play.run([task("device_time", ts, **ts_time), task("device_time", ts, **ts_time),
                    task("device_time", ts, timezone="Mars/Olympus")], ts.name)
    assert [r.get("changed") for r in out.results[:2]] == [True, False]
    assert "timezone: the device does not know 'Mars/Olympus'" in out[2]["msg"]
    assert Api(ts).get("/system/timezone") == {"timezone": "Europe/Berlin"}
    fm_time = dict(ntp=False, timezone="2", datetime="now")
    checked = play.run([task("device_time", fm, **fm_time)], fm.name, check=True)[0]
    assert write_log(sim, fm) == [] and checked["changed"] is True
    out = play.run([task("device_time", fm, **fm_time), task("device_time", fm, **fm_time),
                    task("device_time", fm, timezone="Europe/Berlin"), task("device_time", fm, ntp=True, datetime="now")],
                   fm.name)
    assert [r.get("changed") for r in out.results[:2]] == [True, False]
    assert out[1]["clock_drift"] <= 5
    assert "timezone: this device takes a UTC offset in whole hours" in out[2]["msg"]
    assert "datetime: only with ntp=false" in out[3]["msg"]
    assert Api(fm).get("/conf/datetime")["timezone"] == 2


def test_logging_on_both_devices(play, sim, fresh):
    ts, fm = fresh("ts-001"), fresh("fm-001")
    wanted = dict(level="warning", remote_syslog={"enabled": True, "server": "192.0.2.10"})
    with_port = dict(level="warning", remote_syslog={"enabled": True, "server": "192.0.2.10", "port": 1514})
    out = play.run([task("device_logging", ts, **with_port), task("device_logging", ts, **wanted)], ts.name, diff=True)
    assert out[0]["changed"] is True and out[0]["reboot_needed"] is True
    assert out[0]["diff"]["after"]["remote_syslog"] == {"enabled": True, "server": "192.0.2.10", "port": 1514}
    assert out[1]["changed"] is False
    out = play.run([task("device_logging", fm, **wanted), task("device_logging", fm, **wanted),
                    task("device_logging", fm, remote_syslog={"port": 514})], fm.name)
    assert [r.get("changed") for r in out.results[:2]] == [True, False]
    assert "remote_syslog.port: this device (fm_monitor) has no port field" in out[2]["msg"]
    assert Api(fm).get("/conf/log") == {"level": "warning", "enable_rsyslog": True, "rsyslog_server": "192.0.2.10"}


# -- passwords and reboot ---------------------------------------------------------------------

@pytest.mark.parametrize("name", BOTH)
def test_password_is_idempotent_and_never_shown(play, sim, fresh, name):
    device = fresh(name)
    secret = "Fleet-pw-%s" % name
    set_it = task("device_password", device, target_role="user", new_password=secret)
    checked = play.run([set_it], name, check=True)[0]
    assert checked["changed"] is True and write_log(sim, device) == []
    out = play.run([set_it, set_it], name, verbosity=3)
    assert [r["changed"] for r in out.results] == [True, False]
    assert len(write_log(sim, device)) == 1
    assert secret not in out.output
    assert login(device, secret, role="user").status_code == 200


@pytest.mark.parametrize("name", BOTH)
def test_reboot_and_factory_reset(play, sim, fresh, name):
    device = fresh(name)
    out = play.run([
        task("device_reboot", device, only_if_needed=True),
        task("device_reboot", device, reboot_timeout=30),
        task("device_reboot", device, state="factory_reset"),
        task("device_password", device, target_role="admin", new_password="changed-pw"),
        dict(task("device_reboot", device), **{"broadcast.monitoring.device_reboot": dict(
            connection(device, password="changed-pw"), state="factory_reset", confirm=True, reboot_timeout=30)}),
        task("device_password", device, target_role="admin", new_password="admin"),
    ], name)
    assert out[0]["changed"] is False and out[0]["rebooted"] is False
    assert out[1]["changed"] is True and out[1]["rebooted"] is True and out[1]["elapsed"] > 0
    assert out[2]["failed"] is True and "confirm: must be true to factory-reset" in out[2]["msg"]
    assert out[4].get("failed") is not True, out[4]
    assert out[5]["changed"] is False  # factory credentials are back
    checked = play.run([task("device_reboot", device)], name, check=True)[0]
    assert checked["changed"] is True and checked["rebooted"] is False


def test_documented_examples_run_as_written(play, sim, fresh, bundles):
    device = fresh("ts-001")
    extra = dict(EXAMPLE_VARS, new_address=device.address.rsplit(".", 1)[0] + ".88", firmware_bundle=bundles["good"],
                 fleet_admin_password="Fleet-pw-examples")
    for module in ("device_network", "device_firmware", "device_time", "device_logging", "device_reboot",
                   "device_password"):
        examples = module_examples(module)
        out = play.run(examples, device.name, extra_vars=extra)
        for example, result in zip(examples, out.results):
            assert result.get("failed") is not True, (module, example["name"], result)
        if module == "device_password":
            extra["ts_admin_password"] = "Fleet-pw-examples"


@pytest.mark.parametrize("name", BOTH)
def test_check_mode_sends_no_write_or_action_for_any_device_module(play, sim, fresh, bundles, name):
    device = fresh(name)
    timezone = "Europe/Berlin" if device.kind == "ts_analyzer" else "2"
    tasks = [
        task("device_network", device, address=device.address.rsplit(".", 1)[0] + ".99", netmask="255.0.0.0",
             gateway="127.0.0.1", hostname="checked", reboot=True),
        task("device_time", device, ntp=False, datetime="2020-01-01T00:00:00Z", timezone=timezone),
        task("device_logging", device, level="debug", remote_syslog={"enabled": True, "server": "192.0.2.1"}),
        task("device_password", device, target_role="admin", new_password="never-set"),
        task("device_reboot", device, reboot_timeout=5),
        task("device_reboot", device, state="factory_reset", confirm=True),
        task("device_firmware", device, path=bundles["good"]),
    ]
    out = play.run(tasks, name, check=True, diff=True)
    for spec, result in zip(tasks, out.results):
        assert result.get("failed") is not True, (spec["name"], result)
        assert result["changed"] is True, spec["name"]
    assert sim.call(device.writes) == []
    assert out[0]["host"] == device.address.rsplit(".", 1)[0] + ".99" and out[0]["rebooted"] is False
    assert "answers after its next reboot at %s" % out[0]["host"] in out[0]["warnings"][0], out[0]

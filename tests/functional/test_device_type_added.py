"""Issue 45, the proof that adding a device type is adding a folder: a copy of the collection
gets a third device type, a probe (``xx_probe``, folder ``_xx``, the files of
``device_type_added/``) and its one entry in the registry of device types (``_devices.py``),
nothing else. A fake probe served here over HTTP has two parts (time, logging) and two
channels; device_state, auto-detection, a snapshot, a backup and its restore, onboarding, the
validation_result filter and the event source then work for it.

(The copy is made once per run, in a temporary folder: tests never rewrite tracked files.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import yaml
from aiohttp import web

from tests.reliability import fake_devices

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOLDER = os.path.join(os.path.dirname(__file__), "device_type_added")
TOKEN = "xx-token-0123456789abcdef"
PASSWORD = "Probe-Secret-42"
#: the registry entry of the new type: a loader with its import written out, and its line in TYPES
LOADER = '''

def _xx():
    from ansible_collections.broadcast.monitoring.plugins.module_utils._xx import device_type
    return device_type
'''
TYPES_LINE = '    "xx_probe": _xx,\n'


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """A collections path holding a copy of the collection with the probe registered."""
    base = tmp_path_factory.mktemp("third-type")
    copy = base / "ansible_collections" / "broadcast" / "monitoring"
    for name in ("galaxy.yml", "meta", "plugins", "extensions"):
        source = os.path.join(ROOT, name)
        if os.path.isdir(source):
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            copy.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, copy / name)
    folder = copy / "plugins" / "module_utils" / "_xx"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name in os.listdir(FOLDER):
        if name.endswith(".py.txt"):
            shutil.copy(os.path.join(FOLDER, name), folder / name[:-len(".txt")])
    registry = copy / "plugins" / "module_utils" / "_devices.py"
    text = registry.read_text()
    anchor = "\n\n#: the registered device types"
    assert anchor in text and '    "fm_monitor": _fm,\n' in text, "the registry changed its layout: update this test"
    text = text.replace(anchor, LOADER.rstrip("\n") + "\n" + anchor, 1)
    text = text.replace('    "fm_monitor": _fm,\n', '    "fm_monitor": _fm,\n' + TYPES_LINE, 1)
    registry.write_text(text)
    return str(base)


class Probe:
    """The fake probe's state: settings, channels, alerts."""

    def __init__(self):
        self.time = {"ntp": True, "servers": ["192.0.2.123"], "utc_offset": 0, "now": "2026-01-01T00:00:00Z"}
        self.log = {"level": "info", "syslog": False, "syslog_server": ""}
        self.network = {"dhcp": False, "address": "192.0.2.50", "netmask": "255.255.255.0", "gateway": "192.0.2.1",
                        "dns": [], "hostname": "probe-1"}
        self.channels = [{"id": 1, "name": "Ch 1", "locked": True}, {"id": 2, "name": "Ch 2", "locked": True}]
        self.alerts = []


def probe_app(probe):
    def authorised(request):
        if request.headers.get("Authorization") != "Bearer %s" % TOKEN:
            raise web.HTTPUnauthorized()

    async def login(request):
        body = await request.json()
        if body.get("password") != PASSWORD:
            return web.json_response({"error": "bad password"}, status=401)
        return web.json_response({"token": TOKEN})

    async def alive(request):  # answered without a token, as the real devices do
        return web.json_response({"uptime": 1000})

    def getter(read):
        async def handler(request):
            authorised(request)
            return web.json_response(read())
        return handler

    def setter(target):
        async def handler(request):
            authorised(request)
            body = await request.json()
            target.update(body)
            return web.json_response(target)
        return handler

    async def identify(request):
        return web.json_response({"kind": "probe"})

    app = web.Application()
    app.router.add_get("/xx/identify", identify)
    app.router.add_post("/xx/login", login)
    app.router.add_get("/xx/alive", alive)
    app.router.add_get("/xx/status", getter(lambda: {"model": "XX-1", "serial": "S1", "firmware": "1.2.3",
                                                     "reboot_needed": False}))
    app.router.add_get("/xx/time", getter(lambda: probe.time))
    app.router.add_post("/xx/time", setter(probe.time))
    app.router.add_get("/xx/log", getter(lambda: probe.log))
    app.router.add_post("/xx/log", setter(probe.log))
    app.router.add_get("/xx/network", getter(lambda: probe.network))
    app.router.add_get("/xx/channels", getter(lambda: probe.channels))
    app.router.add_get("/xx/alerts", getter(lambda: probe.alerts))
    return app


@pytest.fixture
def probe():
    state = Probe()
    with fake_devices.serving(fake_devices.app_server(lambda served: probe_app(state))) as served:
        state.address, state.port = served.address, served.port
        yield state


def run_play(collection, tmp_path, probe, tasks, name="play"):
    """The tasks' results (each registered), run against the probe with the copy of the collection."""
    inventory = {"all": {"hosts": {"probe-1": {"ansible_connection": "local",
                                               "ansible_python_interpreter": sys.executable}}}}
    connection = {"host": probe.address, "port": probe.port, "password": PASSWORD}
    wrapped = [dict({key: dict(args, **connection) if key.startswith("broadcast.") else args for key, args in task.items()},
                    register="r%d" % index, ignore_errors=True) for index, task in enumerate(tasks)]
    out = tmp_path / ("%s.json" % name)
    wrapped.append({"name": "Save", "ansible.builtin.copy": {
        "content": "{{ [%s] | to_json }}" % ", ".join("r%d" % i for i in range(len(tasks))), "dest": str(out)}})
    play = [{"hosts": "probe-1", "gather_facts": False, "tasks": wrapped}]
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / ("%s.yml" % name)).write_text(yaml.safe_dump(play, sort_keys=False))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collection, ANSIBLE_NOCOLOR="1")
    env.pop("PYTHONPATH", None)  # the copy only
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                           str(tmp_path / "inventory.yml"), str(tmp_path / ("%s.yml" % name))],
                          capture_output=True, text=True, env=env, timeout=300, check=False, cwd=str(tmp_path))
    assert out.exists(), proc.stdout + proc.stderr
    assert PASSWORD not in proc.stdout + proc.stderr and TOKEN not in proc.stdout + proc.stderr
    return json.loads(out.read_text())


def ok(result):
    assert result.get("failed") is not True, result
    return result


def test_the_registered_probe_is_managed_like_any_device(collection, probe, tmp_path):
    declared = {"time": {"ntp": False, "timezone": "2"},
                "logging": {"level": "warning", "remote_syslog": {"enabled": True, "server": "192.0.2.9:514"}}}
    backup = str(tmp_path / "probe-backup.json")
    results = run_play(collection, tmp_path, probe, [
        {"broadcast.monitoring.device_time": {"device_type": "auto", "ntp": True}},
        {"broadcast.monitoring.device_snapshot": {"device_type": "xx_probe"}},
        {"broadcast.monitoring.device_backup": {"device_type": "xx_probe", "dest": backup}},
        {"broadcast.monitoring.device_state": {"device_type": "xx_probe", "parts": declared}},
        {"broadcast.monitoring.device_state": {"device_type": "xx_probe", "parts": declared}},
        {"broadcast.monitoring.device_onboard": {"device_type": "xx_probe"}},
        {"broadcast.monitoring.device_restore": {"device_type": "xx_probe", "src": backup}},
        {"broadcast.monitoring.device_restore": {"device_type": "xx_probe", "src": backup}},
        {"ansible.builtin.set_fact": {"validation": "{{ [{'snapshot': r1.snapshot}] | broadcast.monitoring."
                                                    "validation_result({'device_type': 'xx_probe', 'channels': [1, 2, 3]}) }}"}},
        {"broadcast.monitoring.device_state": {"device_type": "xx_probe", "parts": {"clock": {}}}},
        {"ansible.builtin.set_fact": {"status": "{{ {'probe-1': {'device_type': 'xx_probe', 'snapshot': r1.snapshot}}"
                                                " | broadcast.monitoring.fleet_status('document') }}"}},
        {"ansible.builtin.set_fact": {"page": "{{ r10.ansible_facts.status | broadcast.monitoring.fleet_status('page') }}"}},
    ])
    detected, snap, backed_up, first, second, onboarded, restored, again, validation, unknown_part, status, page = results
    assert ok(detected)["changed"] is False  # auto found the probe: its NTP was on already
    assert ok(snap)["snapshot"]["channels"] == [
        {"id": 1, "name": "Ch 1", "locked": True}, {"id": 2, "name": "Ch 2", "locked": True}]
    assert snap["snapshot"]["device_type"] == "xx_probe" and snap["snapshot"]["firmware_version"] == "1.2.3"
    ok(backed_up)
    with open(backup, encoding="utf-8") as handle:
        document = json.load(handle)
    assert document["device_type"] == "xx_probe" and document["raw"]["log_settings"]["level"] == "info"
    assert document["snapshot"]["channels"] == [{"id": 1, "name": "Ch 1", "locked": True},
                                                {"id": 2, "name": "Ch 2", "locked": True}]
    assert ok(first)["changed"] is True and ok(second)["changed"] is False
    assert ok(onboarded)["variables"]["xx_probe_logging"]["level"] == "warning"
    assert onboarded["variables"]["xx_probe_time"]["timezone"] in (2, "2")
    assert ok(restored)["changed"] is True and ok(again)["changed"] is False
    assert probe.log == {"level": "info", "syslog": False, "syslog_server": ""}  # as backed up
    checks = {c["id"]: c["status"] for c in ok(validation)["ansible_facts"]["validation"]["checks"]}
    assert checks == {"device_answers": "passed", "channel_locked[1]": "passed", "channel_locked[2]": "passed",
                      "channel_locked[3]": "failed"}
    assert unknown_part.get("failed") is True and "clock" in unknown_part["msg"]
    device, = ok(status)["ansible_facts"]["status"]["devices"]
    assert (device["type_label"], device["working"], device["in_use"], device["state"]) == ("XX probe", 2, 2, "ok")
    assert [item["name"] for item in device["items"]] == ["Ch 1", "Ch 2"]
    assert "2 of 2 channels locked" in ok(page)["ansible_facts"]["page"]


def test_an_unknown_type_names_every_registered_one(collection, probe, tmp_path):
    result, = run_play(collection, tmp_path, probe, [
        {"broadcast.monitoring.device_snapshot": {"device_type": "dvb_probe"}}])
    assert result["failed"] is True
    for name in ("ts_analyzer", "fm_monitor", "xx_probe"):
        assert name in result["msg"]


EVENTS = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from ansible_collections.broadcast.monitoring.extensions.eda.plugins.event_source import device_events as source
settings = source.parse_args({"devices": [{"name": "probe-1", "host": sys.argv[2], "port": int(sys.argv[3]),
                                           "device_type": "xx_probe"}], "password": sys.argv[4]})
entry = settings["devices"][0]
poller = source.DevicePoller(entry["name"], entry["device_type"], entry["params"])
print(json.dumps(poller.poll()))
sys.stdin.readline()  # the test unlocks a channel meanwhile
print(json.dumps(poller.poll()))
"""


def test_the_event_source_reports_the_probe(collection, probe):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([sys.executable, "-c", EVENTS, collection, probe.address, str(probe.port), PASSWORD],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = json.loads(proc.stdout.readline() or "null")
        probe.channels[1]["locked"] = False
        probe.alerts.append({"channel": 2, "at": "2026-01-01T00:00:01Z", "severity": "critical", "type": "unlocked"})
        proc.stdin.write("\n")
        proc.stdin.flush()
        second = json.loads(proc.stdout.readline() or "null")
    finally:
        stderr = proc.communicate(timeout=60)[1]
    assert first == [], stderr
    assert [(e["kind"], e["object"]) for e in second] == [
        ("lock_lost", {"type": "channel", "id": 2, "name": "Ch 2"}),
        ("alert_record", {"type": "channel", "id": 2, "name": "Ch 2"})], stderr
    assert second[0]["device_type"] == "xx_probe" and second[0]["severity"] == "critical"

"""state=parsed and state=rendered of the seven resource modules (issue 23), against the
simulator over real HTTP.

A device is configured through its own API and backed up (device_backup). ``parsed`` of the
backup must equal what ``gathered`` reads from the live device, and fed back with the module's
normal state it must change nothing. ``rendered`` must give the requests the module sends: the
module is run against the device, the rendered requests are replayed against a second device
restored from the same backup, and both devices must end alike (their backups' raw answers).
Neither state may send a request or need a connection option.
"""

import copy
import json
import re

import pytest

from .conftest import connection, module_examples
from .device_api import Api
from .fm_common import seed_stations
from .tasks import factory_fresh
from .test_backup import configure_fm, configure_ts

#: a module's config that changes the backup's state: updates, creates, starts, objects named by id
CHANGES = {
    "ts_input": {"config": [
        {"name": "Mux 1", "source": {"multicast": {"address": "239.1.1.1", "port": 5002}}, "monitoring": "started",
         "alert_profile": "Default"},
        {"name": "Mux 9", "source": {"asi": {"port": 1}}, "alert_profile": "Strict", "scte35": True,
         "monitoring": "stopped"},
    ]},
    "ts_alert_profile": {"config": [
        {"name": "Strict", "errors": {"pcr_accuracy_error": {"alert_type": "warning"}}},
        {"name": "Loose", "errors": {"ts_sync_loss": {"alert_type": "warning", "snmp_trap": True}}},
    ]},
    "ts_snmp": {"trap_addresses": ["10.0.0.101:162"], "listen_addresses": ["10.0.0.50"]},
    "ts_converter": {"config": [
        {"asi_port": 2, "running": True, "multicast_address": "239.9.9.10", "multicast_port": 6002,
         "interface": "eth1", "ttl": 4},
        {"asi_port": 1, "running": False},
    ]},
    "fm_tuner": {"all_tuners": {"hw_settings": {"lna_gain": 3}}, "config": [
        {"tuner_id": 2, "name": "Radio Two b", "muted": True},
        {"tuner_id": 0, "frequency": 101000, "stream": {"enabled": True, "bitrate": 256}},
    ]},
    "fm_thresholds": {"all_tuners": {"rssi_interval": 30}, "config": [
        {"tuner_id": 1, "snr": {"min": 15}}, {"tuner_id": 5, "rds": {"sync_lost": True}}]},
    "fm_schedule": {"config": [
        {"tuner_id": 3, "active": False},
        {"tuner_id": 4, "events": {"friday": [{"time": "22:30", "state": "sleep"}]}},
    ]},
}
TS = ("ts_input", "ts_alert_profile", "ts_snmp", "ts_converter")
FM = ("fm_tuner", "fm_thresholds", "fm_schedule")
PLACEHOLDER = re.compile(r"\{(input|profile):([^{}]*)\}")


def task(module, **options):
    return {"name": module, "broadcast.monitoring.%s" % module: options}


def online(module, device, **options):
    return task(module, **dict(connection(device), **options))


def ok(result):
    assert result.get("failed") is not True, result
    return result


def backup(play, device, dest):
    ok(play.run([online("device_backup", device, dest=str(dest))], device.name)[0])
    return json.loads(dest.read_text())


def restore(play, device, src):
    ok(play.run([online("device_restore", device, src=str(src), firmware_mismatch="ignore")], device.name)[0])


def configured(sim, name):
    device = factory_fresh(sim, name)
    if device.kind == "ts_analyzer":
        configure_ts(device)
    else:
        configure_fm(device)
        # a stored station at a tuner's frequency: the tuner reports it as its station_id
        stations = seed_stations(sim, device)
        Api(device).post("/tuner/4/settings", {"frequency": stations[1]["frequency"]})
    return device


def configuration(doc):
    """What the resource modules manage of a backup: the device's raw answers without what is
    the device's own (address, hostname, clock, log settings)."""
    raw = copy.deepcopy(doc["raw"])
    if doc["device_type"] == "ts_analyzer":
        raw.pop("log_settings")
        return raw
    # a tuner whose schedule is active is in the state its latest event gives at the device's
    # time (fm_schedule), which is the clock's, not the configuration's
    tuners = [{k: v for k, v in t.items() if k != "state" or not (t.get("schedule") or {}).get("active")}
              for t in raw["tuners"]]
    return {"tuners": tuners, "stations": raw["conf"]["stations"]}


def replay(device, rendered):
    """Send the rendered requests to ``device`` as they are, each ``{kind:name}`` replaced by
    the id the device has for that name at that moment."""
    api = Api(device)

    def lookup(kind, name):
        listed = api.get("/inputs" if kind == "input" else "/profiles")
        found = [item["id"] for item in listed if item["name"] == name]
        assert len(found) == 1, (kind, name, listed)
        return found[0]

    def resolve(value):
        if isinstance(value, dict):
            return {key: resolve(item) for key, item in value.items()}
        if isinstance(value, list):
            return [resolve(item) for item in value]
        match = PLACEHOLDER.fullmatch(value) if isinstance(value, str) else None
        return lookup(*match.groups()) if match else value

    for request in rendered:
        path = PLACEHOLDER.sub(lambda m: str(lookup(*m.groups())), request["path"])
        api.call(request["method"], path.replace("/api", "", 1), resolve(request["body"]))


def path_on(device, path):
    """A rendered path with each ``{kind:name}`` as the id ``device`` has for that name."""
    api = Api(device)

    def lookup(match):
        listed = api.get("/inputs" if match.group(1) == "input" else "/profiles")
        return str(next(item["id"] for item in listed if item["name"] == match.group(2)))
    return PLACEHOLDER.sub(lookup, path)


def module_options(module, parsed, doc):
    """``parsed`` as the module takes it back: ts_snmp's options, the others' config. A tuner
    whose schedule is active gets its operating state from the schedule: fm_tuner refuses to be
    given it (as with gathered; onboarding leaves it out the same way)."""
    if module == "ts_snmp":
        return dict(parsed, lists="replace")
    if module == "fm_tuner":
        scheduled = {t["tuner_id"] for t in doc["raw"]["tuners"] if t["schedule"]["active"]}
        parsed = [{k: v for k, v in t.items() if not (k == "operating_state" and t["tuner_id"] in scheduled)}
                  for t in parsed]
    return {"config": parsed}


def by_key(objects):
    """A list of objects keyed by name (or tuner_id, asi_port), in no order: its order means nothing."""
    if not isinstance(objects, list):
        return objects
    key = next(k for k in ("name", "tuner_id", "asi_port") if k in objects[0])
    return {obj[key]: obj for obj in objects}


@pytest.mark.parametrize("kind", ["ts", "fm"])
def test_parsed_is_gathered_and_rendered_replays_as_the_module_writes(play, sim, tmp_path, kind):
    modules = TS if kind == "ts" else FM
    first, second = configured(sim, "%s-001" % kind), factory_fresh(sim, "%s-002" % kind)
    saved = tmp_path / "backup.json"
    doc = backup(play, first, saved)
    restore(play, second, saved)
    assert configuration(backup(play, second, tmp_path / "restored.json")) == configuration(doc)

    # parsed: the backup's content (the file as read, and the loaded document) gives what gathered reads live
    sim.call(first.requests.clear)
    text = "{{ lookup('ansible.builtin.file', '%s') }}" % saved
    steps = []
    for module in modules:
        steps += [task(module, state="parsed", running_config=text), task(module, state="parsed", running_config=doc)]
    out = play.run(steps, first.name)
    assert sim.call(first.counters)["total"] == 0
    parsed = {}
    for index, module in enumerate(modules):
        parsed[module] = ok(out[2 * index])["parsed"]
        assert ok(out[2 * index + 1])["parsed"] == parsed[module], module
        assert out[2 * index]["changed"] is False and out[2 * index]["requests"] == {"login": 0, "read": 0, "write": 0}
    out = play.run([online(module, first, state="gathered") for module in modules], first.name)
    for index, module in enumerate(modules):
        assert by_key(parsed[module]) == by_key(ok(out[index])["gathered"]), module
    # ... and fed back with the module's normal state, it changes nothing
    out = play.run([online(module, first, **module_options(module, parsed[module], doc)) for module in modules],
                   first.name)
    for index, module in enumerate(modules):
        assert ok(out[index])["changed"] is False, (module, out[index])
    assert sim.call(first.writes) == []

    # rendered: the requests each module sends to a device in the backup's state
    out = play.run([task(module, state="rendered", running_config=doc, **CHANGES[module]) for module in modules],
                   first.name)
    rendered = []
    for index, module in enumerate(modules):
        assert ok(out[index])["changed"] is False and out[index]["rendered"], (module, out[index])
        assert all(set(r) == {"method", "path", "body"} for r in out[index]["rendered"])
        rendered += out[index]["rendered"]
    assert sim.call(first.writes) == []
    out = play.run([online(module, first, **CHANGES[module]) for module in modules], first.name)
    assert all(ok(result)["changed"] for result in out.results)
    sent = [(w["method"], w["path"]) for w in sim.call(first.writes)]
    expected = [(r["method"], path_on(first, r["path"])) for r in rendered]
    # A schedule the change writes active also sets its tuner to the state of its latest event at
    # the device's time: rendered takes the backup's clock, the run the device's a moment later
    # (the simulated clock runs fast), so that one request may differ between the two.
    follows = {("POST", "/api/tuner/4/state")}
    assert [r for r in sent if r not in follows] == [r for r in expected if r not in follows], (sent, rendered)
    assert {r for r in sent + expected if r[1].endswith("/state")} <= follows, (sent, rendered)
    replay(second, rendered)
    written = configuration(backup(play, first, tmp_path / "written.json"))
    assert configuration(backup(play, second, tmp_path / "replayed.json")) == written
    assert written != configuration(doc)


def test_rendered_names_ids_and_hides_secrets(play, sim, tmp_path):
    """Ids the analyzer assigns are named ({input:NAME}, {profile:NAME}); a secret the device holds
    in a field the collection does not know is sent back by an update, and shown hidden."""
    device = factory_fresh(sim, "ts-001")
    sim.call(lambda: setattr(device, "unknown_fields", "keep"))  # a firmware with fields of its own
    try:
        api = Api(device)
        strict = api.post("/profiles", {"name": "Strict", "entries": []})
        api.post("/inputs", {"name": "SRT feed", "password": "S3cret-srt", "config": {"eth": {"stream_protocol": 0,
                 "unicast": {"listen_address": "0.0.0.0", "listen_port": 7000}}}, "alerts_config": {"profile_id": 1}})
        doc = backup(play, device, tmp_path / "backup.json")
    finally:
        sim.call(lambda: setattr(device, "unknown_fields", "refuse"))
    assert "S3cret-srt" in json.dumps(doc)  # the device's own field, kept as the device answers it
    change = [{"name": "SRT feed", "source": {"unicast": {"port": 7001}}, "alert_profile": "Strict"}]
    out = ok(play.run([task("ts_input", state="rendered", running_config=doc, config=change)], device.name)[0])
    assert out["rendered"] == [{
        "method": "POST", "path": "/api/inputs/{input:SRT feed}",
        "body": {"name": "SRT feed", "password": "********", "input_id": "{input:SRT feed}",
                 "config": {"eth": {"stream_protocol": 0, "unicast": {"listen_address": "0.0.0.0", "listen_port": 7001}}},
                 "alerts_config": {"profile_id": "{profile:Strict}", "pid_error_list": []}},
    }], out["rendered"]
    assert strict["id"] != 1
    assert "S3cret-srt" not in json.dumps(out)


def test_no_connection_options_and_no_request(play, sim, tmp_path):
    """parsed and rendered need no host or password, and send nothing even when given an
    address (one nothing listens on)."""
    ts, fm = configured(sim, "ts-001"), configured(sim, "fm-001")
    ts_doc, fm_doc = backup(play, ts, tmp_path / "ts.json"), backup(play, fm, tmp_path / "fm.json")
    for device in (ts, fm):
        sim.call(device.requests.clear)
    nowhere = {"host": "127.0.0.1", "port": 9, "password": "not-used"}
    tasks = []
    for module in TS + FM:
        doc = ts_doc if module in TS else fm_doc
        tasks += [task(module, state="parsed", running_config=doc),
                  task(module, state="rendered", running_config=doc, **CHANGES[module]),
                  task(module, state="rendered", running_config=doc, **dict(nowhere, **CHANGES[module]))]
    out = play.run(tasks, ts.name, env={"BROADCAST_MONITORING_HOST": "", "BROADCAST_MONITORING_PASSWORD": ""})
    for index, result in enumerate(out.results):
        ok(result)
        assert result["requests"] == {"login": 0, "read": 0, "write": 0}, (tasks[index], result)
    for device in (ts, fm):
        assert sim.call(device.counters)["total"] == 0


def test_bad_running_config_is_named(play, sim, tmp_path):
    ts, fm = factory_fresh(sim, "ts-001"), factory_fresh(sim, "fm-001")
    ts_doc = backup(play, ts, tmp_path / "ts.json")
    fm_doc = backup(play, fm, tmp_path / "fm.json")
    format_1 = {"format": "broadcast.monitoring.backup/1", "device_type": "ts_analyzer", "config": {}}
    for device in (ts, fm):
        sim.call(device.requests.clear)
    out = play.run([
        task("ts_input", state="parsed", running_config="hello: [not a backup"),
        task("ts_input", state="parsed", running_config={"some": "dict"}),
        task("ts_input", state="parsed", running_config=fm_doc),
        task("fm_tuner", state="rendered", running_config=ts_doc, config=[{"tuner_id": 0, "muted": True}]),
        task("ts_snmp", state="parsed", running_config=format_1),
        task("ts_converter", state="parsed"),
        online("ts_snmp", ts, enabled=True, running_config=ts_doc),
        task("ts_input", state="rendered", running_config=ts_doc, config=[{"name": "x" * 70, "source": {"asi": {"port": 1}}}]),
        task("ts_snmp", enabled=True, password="admin"),
        task("ts_input", state="parsed", running_config=ts_doc, rendered_state="overridden"),
        task("ts_converter", state="rendered", running_config=ts_doc, rendered_state="overridden", config=[]),
        task("ts_input", state="rendered", running_config=ts_doc, rendered_state="gathered"),
    ], ts.name)
    messages = [result.get("msg", "") for result in out.results]
    assert all(result.get("failed") for result in out.results), messages
    assert "running_config: not a backup document" in messages[0], messages[0]
    assert "running_config: not a backup document of this collection" in messages[1], messages[1]
    assert "running_config: a backup of a fm_monitor, but this module manages a ts_analyzer" in messages[2]
    assert "running_config: a backup of a ts_analyzer, but this module manages a fm_monitor" in messages[3]
    assert "running_config: a backup of format broadcast.monitoring.backup/1" in messages[4]
    assert "running_config" in messages[5] and "parsed" in messages[5], messages[5]
    assert "running_config: only with state=parsed or state=rendered" in messages[6], messages[6]
    assert "config[0].name" in messages[7], messages[7]
    assert "host: required" in messages[8], messages[8]  # every state that contacts a device needs it
    assert "rendered_state: only with state=rendered (got state=parsed)" in messages[9], messages[9]
    assert "rendered_state: one of merged, replaced, the states this module writes with (got overridden)" in messages[10]
    assert "rendered_state: one of merged, replaced, overridden, deleted," in messages[11], messages[11]
    assert sim.call(ts.counters)["total"] == 0 and sim.call(fm.counters)["total"] == 0


#: per device kind: modules rendered with another state than merged, and the config they take
OTHER_STATES = {
    "ts": [("ts_input", "overridden", CHANGES["ts_input"]), ("ts_converter", "replaced", CHANGES["ts_converter"])],
    "fm": [(module, "replaced", CHANGES[module]) for module in FM],
}


@pytest.mark.parametrize("kind", ["ts", "fm"])
def test_rendered_state_replays_as_the_module_writes_with_that_state(play, sim, tmp_path, kind):
    """rendered_state renders the plan of another state: an overridden ts_input deletes the inputs
    config does not declare, named; replayed on a unit restored from the backup, the requests
    leave it as the module with that state leaves the original."""
    first, second = configured(sim, "%s-001" % kind), factory_fresh(sim, "%s-002" % kind)
    saved = tmp_path / "backup.json"
    doc = backup(play, first, saved)
    restore(play, second, saved)
    cases = OTHER_STATES[kind]
    out = play.run([task(module, state="rendered", rendered_state=state, running_config=doc, **options)
                    for module, state, options in cases], first.name)
    rendered = []
    for index, (module, state, options) in enumerate(cases):
        assert ok(out[index])["rendered"] and out[index]["requests"] == {"login": 0, "read": 0, "write": 0}
        rendered += out[index]["rendered"]
    if kind == "ts":
        kept = {c["name"] for c in CHANGES["ts_input"]["config"]}
        gone = sorted(i["name"] for i in doc["raw"]["inputs"] if i["name"] not in kept)
        assert gone and [r["path"] for r in rendered if r["method"] == "DELETE"] == [
            "/api/inputs/{input:%s}" % name for name in gone], rendered
    # the ids the device has before the change (an input the change deletes is no longer listed after it)
    known = {}
    if kind == "ts":
        api = Api(first)
        known = {(what, item["name"]): item["id"] for what, path in (("input", "/inputs"), ("profile", "/profiles"))
                 for item in api.get(path)}
    sim.call(first.requests.clear)
    out = play.run([online(module, first, state=state, **options) for module, state, options in cases], first.name)
    assert all(ok(result)["changed"] for result in out.results)
    sent = [(w["method"], w["path"]) for w in sim.call(first.writes)]
    expected = [(r["method"], PLACEHOLDER.sub(lambda m: str(known[m.groups()]) if m.groups() in known
                                              else path_on(first, m.group(0)), r["path"])) for r in rendered]
    assert sent == expected, (sent, rendered)
    replay(second, rendered)
    written = configuration(backup(play, first, tmp_path / "written.json"))
    assert configuration(backup(play, second, tmp_path / "replayed.json")) == written
    assert written != configuration(doc)


@pytest.mark.parametrize("kind", ["ts", "fm"])
def test_documented_examples_run_as_written(play, sim, tmp_path, kind):
    """The parsed and rendered examples of every resource module, with the backup where they
    look for it (backups/<inventory_hostname>.json beside the playbook)."""
    device = configured(sim, "%s-001" % kind)
    (tmp_path / "backups").mkdir()
    backup(play, device, tmp_path / "backups" / ("%s.json" % device.name))
    sim.call(device.requests.clear)
    names = [name for name in TS + FM if name.startswith(kind)]
    examples = [example for name in names for example in module_examples(name, offline=True)]
    assert len(examples) == 2 * len(names)
    out = play.run(examples, device.name)
    for example, result in zip(examples, out.results):
        state = next(args for key, args in example.items() if key.startswith("broadcast."))["state"]
        assert ok(result)[state], (example["name"], result)
    assert sim.call(device.counters)["total"] == 0

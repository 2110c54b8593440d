"""Idempotency at scale: random valid desired states (hypothesis), per device type.

Each example starts from a factory-reset device, applies the desired state with the
modules (in process, over real HTTP, see inprocess.py), applies it again and reads it
back. Properties:

- the first run reports ``changed`` exactly when the desired state differs from the factory;
- the second run reports ``changed: false`` and sends no write (simulator request log);
- a fresh read (``state: gathered`` / ts_info) equals the desired state, completed with the
  documented defaults. The expected state is computed here from the documentation and the
  simulator's factory tables, not with the collection's own normalisation code.

Examples are derandomized (seeded by the test, repeatable, no example database).
"""

import copy
import datetime
import ipaddress
import json
import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reliability import figures
from tests.functional.conftest import connection
from tests.reliability.inprocess import run_module
from bm_simulator import ts as ts_sim

EXAMPLES = 200
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

NAME_CHARS = string.ascii_letters + string.digits + "-_ .éü"


def label(max_size):
    # the devices refuse blank names; names that only differ by outer spaces are not what is tested here
    return st.text(alphabet=NAME_CHARS, min_size=1, max_size=max_size).filter(lambda s: s.strip() == s)


def optional(strategy):
    return st.one_of(st.none(), strategy)


def partial(**fields):
    """A dict with any subset of ``fields`` (each a strategy)."""
    return st.fixed_dictionaries({}, optional=fields)


def ipv4(first, last):
    return st.integers(int(ipaddress.IPv4Address(first)), int(ipaddress.IPv4Address(last))).map(
        lambda n: str(ipaddress.IPv4Address(n)))


UNICAST = st.one_of(ipv4("10.0.0.1", "10.255.255.254"), ipv4("192.168.0.1", "192.168.255.254"))
MULTICAST = ipv4("224.0.0.0", "239.255.255.255")
PORT = st.integers(1, 65535)


class Counter:
    """What the examples of one test did, recorded as figures at the end."""

    def __init__(self):
        self.applied = self.second_run_changes = self.second_run_writes = self.mismatches = 0
        self.first_run_wrong = self.first_run_writes = self.objects = 0

    def read_back(self, got, expected):
        """The device read back after both runs must hold exactly the expected state."""
        self.mismatches += got != expected
        assert got == expected
        self.applied += 1


def run_examples(example, kind, count):
    """Run the hypothesis test ``example``; record its figures even when it fails."""
    try:
        example()
    finally:
        record(kind, count)
    assert count.applied >= EXAMPLES


def apply_twice(sim, device, calls, count):
    """Run each (module, args) of ``calls`` (the first run), then all of them again (the
    second run); returns the first results, the second results and the second run's writes."""
    first = []
    for name, args in calls:
        first.append(run_module(name, args))
        assert not first[-1].get("failed"), (name, first[-1].get("msg"))
        # the result agrees with the requests sent: a change no request carries is no change
        writes = sim.call(device.writes)
        assert first[-1]["changed"] == bool(writes), (name, first[-1].get("changes"), writes)
        count.first_run_writes += len(writes)  # the reset cleared the log
        sim.call(device.requests.clear)
    second = [run_module(name, args) for name, args in calls]
    writes = sim.call(device.writes)
    for (name, unused_args), result in zip(calls, second):
        assert not result.get("failed"), (name, result.get("msg"))
        count.second_run_changes += bool(result["changed"])
    count.second_run_writes += len(writes)
    changed = [name for (name, unused_args), result in zip(calls, second) if result["changed"]]
    assert changed == [], "the second run reported changes: %s" % changed
    return first, second, writes


# -- transport-stream analyzer -------------------------------------------------------------
ENTRY = partial(enabled=st.booleans(), snmp_trap=st.booleans(), alert_type=st.sampled_from(ts_sim.ALERT_TYPES),
                threshold=st.one_of(st.integers(0, 10 ** 6), st.floats(0, 1e6, allow_nan=False, allow_infinity=False)),
                min_value=st.integers(0, 1000), max_value=st.one_of(st.integers(0, 1000), st.just(2.5)))
ERRORS = st.dictionaries(st.sampled_from(ts_sim.ERROR_NAMES), ENTRY, max_size=6)

SOURCE = st.one_of(
    st.builds(lambda a, p, s: {"multicast": dict({"address": a, "port": p}, **({"source_address": s} if s else {}))},
              MULTICAST, PORT, optional(UNICAST)),
    st.builds(lambda a, p: {"unicast": dict({"port": p}, **({"address": a} if a else {}))},
              optional(st.one_of(st.just("0.0.0.0"), UNICAST)), PORT),
    st.builds(lambda p: {"asi": {"port": p}}, st.sampled_from([1, 2])),
    st.builds(lambda s, v, p, plp, m: {"t2mi": dict({"stream_id": s, "service_id": v, "pid": p, "plp_id": plp},
                                                    **({} if m is None else {"manual": m}))},
              st.integers(0, 2 ** 31 - 1), st.integers(0, 65535), st.integers(0, 8191), st.integers(0, 255),
              optional(st.booleans())),
    st.builds(lambda m, f, b, plp: {"rf": {"mode": m, "frequency": f, "bandwidth": b, "plp_id": plp}},
              st.integers(0, 2 ** 31 - 1), st.integers(0, 2 ** 31 - 1), st.integers(0, 2 ** 31 - 1), st.integers(0, 255)),
)
THUMBNAILS = st.one_of(st.builds(lambda p: {"pid": p}, st.integers(0, 8191)),
                       st.builds(lambda p: {"enabled": True, "pid": p}, st.integers(0, 8191)),
                       st.just({"enabled": False}))


@st.composite
def ts_desired(draw):
    profile_names = draw(st.lists(label(24).filter(lambda n: n != "Default"), max_size=3, unique=True))
    profiles = [{"name": name, "errors": draw(ERRORS)} for name in profile_names]
    profile_state = draw(st.sampled_from(["merged", "replaced", "overridden"]))
    if profile_state == "overridden" or draw(st.booleans()):
        # overridden must list the factory profile, which cannot be deleted
        profiles.insert(draw(st.integers(0, len(profiles))), {"name": "Default", "errors": draw(ERRORS)})
    inputs = []
    for name in draw(st.lists(label(32), max_size=5, unique=True)):
        entry = {"name": name, "source": draw(SOURCE)}
        entry.update(draw(partial(alert_profile=st.sampled_from(["Default"] + profile_names),
                                  monitoring=st.sampled_from(["started", "stopped"]),
                                  scte35=st.booleans(), thumbnails=THUMBNAILS)))
        inputs.append(entry)
    snmp = draw(partial(enabled=st.booleans(),
                        listen_addresses=st.lists(st.one_of(st.just("0.0.0.0"), UNICAST), max_size=16, unique=True),
                        trap_addresses=st.lists(st.builds("{}:{}".format, UNICAST, PORT), max_size=16, unique=True)))
    converters = []
    for port in draw(st.lists(st.sampled_from([1, 2]), max_size=2, unique=True)):
        running = draw(st.booleans())
        conv = {"asi_port": port, "running": running}
        if running:
            conv.update(multicast_address=draw(MULTICAST), multicast_port=draw(PORT),
                        interface=draw(st.sampled_from(["eth0", "eth1"])), ttl=draw(st.integers(1, 255)))
        converters.append(conv)
    return {
        "profiles": {"state": profile_state, "config": profiles},
        "inputs": {"state": draw(st.sampled_from(["merged", "replaced", "overridden"])), "config": inputs},
        "snmp": dict(snmp, lists=draw(st.sampled_from(["add", "replace"]))),
        "converters": {"state": draw(st.sampled_from(["merged", "replaced"])), "config": converters},
    }


def factory_entry(name):
    return {"enabled": True, "snmp_trap": False, "alert_type": "critical" if name in ts_sim.PRIORITY_1 else "warning",
            "threshold": 0, "min_value": 0, "max_value": 0}


def expected_profiles(config):
    """Every profile with all its entries: factory values, then what the desired state sets."""
    out = {"Default": {name: factory_entry(name) for name in ts_sim.ERROR_NAMES}}
    for profile in config:
        entries = {name: factory_entry(name) for name in ts_sim.ERROR_NAMES}
        for name, fields in profile["errors"].items():
            entries[name].update(fields)
        out[profile["name"]] = entries
    return out


def expected_inputs(config):
    """The documented defaults: profile Default, monitoring started, SCTE-35 and thumbnails
    off (shown only when on), unicast address 0.0.0.0, t2mi not manual."""
    out = {}
    for entry in config:
        obj = {"name": entry["name"], "alert_profile": entry.get("alert_profile", "Default"),
               "monitoring": entry.get("monitoring", "started"), "source": copy.deepcopy(entry["source"])}
        if entry.get("scte35"):
            obj["scte35"] = True
        thumbs = entry.get("thumbnails")
        if thumbs and thumbs.get("enabled", True):
            obj["thumbnails"] = {"enabled": True, "pid": thumbs["pid"]}
        source = obj["source"]
        if "unicast" in source:
            source["unicast"].setdefault("address", "0.0.0.0")
        if "t2mi" in source:
            source["t2mi"].setdefault("manual", False)
        out[entry["name"]] = obj
    return out


def address_order(address):
    host, unused_colon, port = address.partition(":")
    return (int(ipaddress.IPv4Address(host)), int(port or 0))


def expected_snmp(snmp):
    return {"enabled": snmp.get("enabled", False),
            "listen_addresses": sorted(set(snmp.get("listen_addresses", [])), key=address_order),
            "trap_addresses": sorted(set(snmp.get("trap_addresses", [])), key=address_order)}


def expected_converters(config):
    out = {port: {"asi_port": port, "running": False} for port in (1, 2)}
    for conv in config:
        out[conv["asi_port"]] = dict(conv)
    return out


def ts_expected(desired):
    return {"profiles": expected_profiles(desired["profiles"]["config"]),
            "inputs": expected_inputs(desired["inputs"]["config"]),
            "snmp": expected_snmp(desired["snmp"]),
            "converters": expected_converters(desired["converters"]["config"])}


def ts_read(device):
    """A fresh read of everything the example set, in the shape ts_expected gives."""
    conn = connection(device)
    profiles = run_module("ts_alert_profile", dict(conn, state="gathered"))
    inputs = run_module("ts_input", dict(conn, state="gathered"))
    converters = run_module("ts_converter", dict(conn, state="gathered"))
    info = run_module("ts_info", dict(conn, gather_subset=["snmp"]))
    for result in (profiles, inputs, converters, info):
        assert not result.get("failed"), result
    return {"profiles": {p["name"]: p["errors"] for p in profiles["gathered"]},
            "inputs": {i["name"]: i for i in inputs["gathered"]},
            "snmp": info["snmp"],
            "converters": {c["asi_port"]: c for c in converters["gathered"]}}


TS_FACTORY = ts_expected({"profiles": {"config": []}, "inputs": {"config": []}, "snmp": {}, "converters": {"config": []}})


def ts_calls(device, desired):
    conn = connection(device)
    return [("ts_alert_profile", dict(conn, **desired["profiles"])),
            ("ts_input", dict(conn, **desired["inputs"])),
            ("ts_snmp", dict(conn, **desired["snmp"])),
            ("ts_converter", dict(conn, **desired["converters"]))]


def test_ts_analyzer_idempotent_at_scale(sim):
    device = sim.fleet.by_name("ts-002")  # its own device: the fixtures' ts-001 is reset by other tests
    count = Counter()

    @SETTINGS
    @given(desired=ts_desired())
    def example(desired):
        sim.call(device.reset)
        expected = ts_expected(desired)
        count.objects += sum(len(desired[part]["config"]) for part in ("profiles", "inputs", "converters"))
        first, unused_second, writes = apply_twice(sim, device, ts_calls(device, desired), count)
        for part, result in zip(("profiles", "inputs", "snmp", "converters"), first):
            if result["changed"] != (expected[part] != TS_FACTORY[part]):
                count.first_run_wrong += 1
                raise AssertionError("first run of %s: changed=%s, expected %s" % (part, result["changed"], not result["changed"]))
        assert writes == [], "the second run wrote: %s" % writes
        got = ts_read(device)
        count.read_back(got, expected)

    run_examples(example, "ts_analyzer", count)


RESTORE_EXAMPLES = 40
RESTORE_SETTINGS = settings(SETTINGS, max_examples=RESTORE_EXAMPLES)


def restore_agrees_with_requests(sim, device, conn, saved):
    """device_restore of ``saved``: check mode sends no write and plans what the real run
    reports; the real run reports a change exactly when it sent a write (a difference no
    request can carry is a warning, not a change); a second restore changes nothing. Returns
    the real run's result."""
    restore = dict(conn, src=str(saved))
    sim.call(device.requests.clear)
    checked = run_module("device_restore", restore, check=True)
    assert not checked.get("failed"), checked.get("msg")
    assert sim.call(device.writes) == [], "check mode wrote"
    applied = run_module("device_restore", restore)
    assert not applied.get("failed"), applied.get("msg")
    writes = sim.call(device.writes)
    assert applied["changed"] == bool(writes), (applied["changed_sections"], applied.get("warnings"), writes)
    for key in ("changed", "warnings"):
        assert checked.get(key) == applied.get(key), (key, checked.get(key), applied.get(key))
    if not checked.get("not_planned"):
        assert checked["changed_sections"] == applied["changed_sections"]
    sim.call(device.requests.clear)
    again = run_module("device_restore", restore)
    assert not again.get("failed"), again.get("msg")
    assert again["changed"] is False and sim.call(device.writes) == [], (again["changed_sections"], again["diff"])
    assert again.get("warnings") == applied.get("warnings")
    return applied


def without_kept_converter_settings(doc):
    """A backup's converters without the settings of the stopped ones (the analyzer keeps
    them after a stop and has no way to clear them)."""
    for conv in doc["raw"]["converters"]:
        if not conv["running"]:
            for key in ("multicast_address", "multicast_port", "interface", "ttl"):
                conv.pop(key, None)
    return doc


def test_ts_analyzer_restore_reports_what_it_writes(sim, tmp_path):
    """Backup of one random state, another random state (its converters sometimes stopped
    after they ran, so that they keep settings), restore: see restore_agrees_with_requests;
    a backup after the restore equals the first one, but for the kept settings of stopped converters."""
    device = sim.fleet.by_name("ts-002")
    conn = connection(device)
    saved, again = tmp_path / "saved.json", tmp_path / "again.json"
    count = Counter()

    @RESTORE_SETTINGS
    @given(kept=ts_desired(), other=ts_desired(), stop=st.lists(st.sampled_from([1, 2]), max_size=2, unique=True))
    def example(kept, other, stop):
        sim.call(device.reset)
        for name, args in ts_calls(device, kept):
            assert not run_module(name, args).get("failed"), name
        assert not run_module("device_backup", dict(conn, dest=str(saved))).get("failed")
        # whatever of the other state the device takes (a profile the kept inputs use stays)
        for name, args in ts_calls(device, other) + [("ts_converter", dict(conn, config=[
                {"asi_port": port, "running": False} for port in stop]))]:
            run_module(name, args)
        applied = restore_agrees_with_requests(sim, device, conn, saved)
        count.first_run_writes += applied["changed"]
        assert not run_module("device_backup", dict(conn, dest=str(again))).get("failed")
        count.read_back(without_kept_converter_settings(json.loads(again.read_text())),
                        without_kept_converter_settings(json.loads(saved.read_text())))

    try:
        example()
    finally:
        figures.add("idempotency", "ts_analyzer restores checked against the request log", count.applied)
    assert count.applied >= RESTORE_EXAMPLES


# -- FM monitor --------------------------------------------------------------------------------
FREQUENCY = st.integers(875, 1080).map(lambda n: n * 100)  # the FM band on its 100 kHz grid
STATE = st.sampled_from(["disabled", "enabled", "sleep"])
TUNER = dict(
    name=label(32), frequency=FREQUENCY, operating_state=STATE, muted=st.booleans(),
    hw_settings=partial(agc=st.booleans(), channel_filter=st.integers(0, 4), deemphasis=st.sampled_from([50, 75]),
                        lna_gain=st.integers(0, 15), rssi_threshold=st.integers(0, 127)),
    stream=partial(enabled=st.booleans(),
                   url=st.builds("udp://{}:{}".format, st.one_of(MULTICAST, UNICAST), PORT),
                   codec=st.sampled_from(["mp3", "aac"]), bitrate=st.sampled_from([64, 96, 128, 192, 256, 320])),
)


def level(low, high):
    """A bound: a number (sometimes as digits), or disabled. Lower bounds are drawn below
    every upper bound (and the factory ones), so that any mix is a valid state."""
    number = st.integers(low, high)
    return st.one_of(number, number.map(str), st.just("disabled"))


BOUNDS = partial(min=level(0, 60), max=st.one_of(level(61, 127), st.just(0)), margin=st.integers(0, 127))
THRESHOLDS = dict(
    rssi_threshold=st.integers(0, 127), rssi_interval=st.integers(1, 3600),
    rssi=BOUNDS, snr=BOUNDS, stereo_blend=BOUNDS, audio_left=BOUNDS, audio_right=BOUNDS,
    multipath=partial(min=st.integers(0, 100), max=st.one_of(st.integers(0, 100), st.just("disabled")),
                      margin=st.integers(0, 100)),
    rds=partial(block_a=st.booleans(), block_b=st.booleans(), block_c=st.booleans(), block_d=st.booleans(),
                group_lost=st.booleans(), sync_lost=st.booleans(), margin=st.integers(0, 127)),
)
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def day_events():
    minutes = st.lists(st.integers(0, 1439), max_size=4, unique=True)
    as_time = st.sampled_from(["clock", "minute"])
    return minutes.flatmap(lambda ms: st.tuples(*[st.tuples(st.just(m), STATE, as_time) for m in ms])).map(
        lambda events: [{"time": "%02d:%02d" % divmod(m, 60) if how == "clock" else m, "state": s}
                        for m, s, how in events])


def minute_of(time):
    """Minutes since midnight of an event time as given: ``HH:MM`` or a minute."""
    return time if isinstance(time, int) else int(time[:2]) * 60 + int(time[3:])


def away_from_now(desired):
    """The schedules of ``desired`` with no event in the next 20 minutes: an active schedule
    acts when the device's clock (real time, UTC at the factory) reaches an event, which would
    change a tuner's state between the runs of an example. Such events move 12 hours on (or
    are dropped when that time is taken); the examples themselves stay the same whenever run."""
    now = datetime.datetime.now(datetime.timezone.utc)
    start = now.weekday() * 1440 + now.hour * 60 + now.minute - 2
    busy = {(start + offset) % (7 * 1440) for offset in range(22)}
    params = desired["fm_schedule"]
    for obj in [params.get("all_tuners") or {}] + params["config"]:
        for day, events in (obj.get("events") or {}).items():
            kept = {}
            for event in events:
                minute = minute_of(event["time"])
                if DAYS.index(day) * 1440 + minute in busy:
                    minute = (minute + 720) % 1440
                    event = dict(event, time=minute)
                kept.setdefault(minute, event)
            obj["events"][day] = list(kept.values())
    return desired


SCHEDULE = dict(active=st.booleans(),
                events=partial(**{day: day_events() for day in DAYS}))


def per_tuner(fields):
    """(all_tuners, config) for one tuner module: either may be absent."""
    common = optional(partial(**fields))
    own = st.lists(st.integers(0, 7), max_size=4, unique=True).flatmap(
        lambda ids: st.tuples(*[partial(**fields).map(lambda obj, tid=tid: dict(obj, tuner_id=tid)) for tid in ids]))
    return st.tuples(common, own.map(list), st.sampled_from(["merged", "replaced"]))


@st.composite
def fm_desired(draw):
    out = {}
    for module, fields in (("fm_thresholds", THRESHOLDS), ("fm_schedule", SCHEDULE), ("fm_tuner", TUNER)):
        common, own, state = draw(per_tuner(fields))
        out[module] = dict({"state": state, "config": own}, **({} if common is None else {"all_tuners": common}))
    return without_scheduled_states(out)


def without_scheduled_states(desired):
    """``desired`` without an operating_state for a tuner whose schedule ends up active: the
    schedule sets that state, and fm_tuner refuses to set it too (guide_fleet_rollouts.rst)."""
    schedules = desired["fm_schedule"]
    common = (schedules.get("all_tuners") or {}).get("active", False)
    own = {obj["tuner_id"]: obj["active"] for obj in schedules["config"] if "active" in obj}
    active = {tid for tid in range(8) if own.get(tid, common)}
    tuners = desired["fm_tuner"]
    if active and "operating_state" in (tuners.get("all_tuners") or {}):
        tuners["all_tuners"] = {k: v for k, v in tuners["all_tuners"].items() if k != "operating_state"}
    tuners["config"] = [{k: v for k, v in obj.items() if k != "operating_state" or obj["tuner_id"] not in active}
                        for obj in tuners["config"]]
    return desired


def deep_merge(base, extra):
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def fm_factory(module, tid):
    """A tuner's factory values in each module's shape (fm_tuner, fm_thresholds, fm_schedule docs)."""
    if module == "fm_tuner":
        return {"tuner_id": tid, "name": "Tuner %d" % (tid + 1), "frequency": 87500, "station_id": None,
                "operating_state": "disabled", "muted": False,
                "hw_settings": {"agc": True, "channel_filter": 0, "deemphasis": 50, "lna_gain": 0, "rssi_threshold": 20},
                "stream": {"enabled": False, "url": "udp://239.1.1.%d:1234" % (tid + 1), "codec": "mp3", "bitrate": 128}}
    if module == "fm_thresholds":
        bound = {"min": "disabled", "max": 127, "margin": 2}
        return {"tuner_id": tid, "rssi_threshold": 20, "rssi_interval": 10,
                "rssi": dict(bound, min=20), "snr": dict(bound, min=10), "multipath": {"min": 0, "max": "disabled", "margin": 5},
                "stereo_blend": dict(bound), "audio_left": dict(bound), "audio_right": dict(bound),
                "rds": {"block_a": False, "block_b": False, "block_c": False, "block_d": False,
                        "group_lost": False, "sync_lost": False, "margin": 2}}
    return {"tuner_id": tid, "active": False, "events": {day: [] for day in DAYS}}


def fm_normalised(module, obj):
    """What the device shows for what was set: bounds at their disabling value (0; 100 for
    multipath.max) are ``disabled``, digits are numbers; events sorted, times as HH:MM."""
    obj = copy.deepcopy(obj)
    if module == "fm_thresholds":
        for name in ("rssi", "snr", "multipath", "stereo_blend", "audio_left", "audio_right"):
            for bound in ("min", "max"):
                value = obj[name][bound]
                value = int(value) if isinstance(value, str) and value.isdigit() else value
                off = 100 if name == "multipath" else 0
                if value == off and (name, bound) != ("multipath", "min"):
                    value = "disabled"
                obj[name][bound] = value
    if module == "fm_schedule":
        for day, events in obj["events"].items():
            minutes = sorted((minute_of(e["time"]), e["state"]) for e in events)
            obj["events"][day] = [{"time": "%02d:%02d" % divmod(m, 60), "state": s} for m, s in minutes]
    return obj


def fm_expected(desired):
    out = {}
    for module, params in desired.items():
        own = {obj["tuner_id"]: obj for obj in params["config"]}
        out[module] = {tid: fm_normalised(module, deep_merge(deep_merge(fm_factory(module, tid), params.get("all_tuners", {})),
                                                             own.get(tid, {})))
                       for tid in range(8)}
    return out


def after_schedules(expected):
    """``expected`` as the device reads back: a tuner whose schedule fm_schedule wrote active is
    in the state of that schedule's latest event (fm_tuner's own run changes nothing of it)."""
    out = copy.deepcopy(expected)
    for tid, schedule in out["fm_schedule"].items():
        state = scheduled_state(schedule) if schedule != fm_factory("fm_schedule", tid) else None
        if state is not None:
            out["fm_tuner"][tid]["operating_state"] = state
    return out


def scheduled_state(schedule):
    """The state a schedule written active puts its tuner in at once: that of its latest event
    before the device's time (real time, UTC at the factory), wrapping around the week; None
    when it is not active or has no event (fm_schedule)."""
    if not schedule.get("active"):
        return None
    now = datetime.datetime.now(datetime.timezone.utc)
    minute = now.weekday() * 1440 + now.hour * 60 + now.minute
    events = sorted((DAYS.index(day) * 1440 + minute_of(event["time"]), event["state"])
                    for day, day_events in (schedule.get("events") or {}).items() for event in day_events)
    if not events:
        return None
    earlier = [event for event in events if event[0] <= minute]
    return (earlier or events)[-1][1]


FM_FACTORY = {module: {tid: fm_factory(module, tid) for tid in range(8)} for module in ("fm_thresholds", "fm_schedule", "fm_tuner")}


def test_fm_monitor_idempotent_at_scale(sim):
    device = sim.fleet.by_name("fm-002")
    count = Counter()

    @SETTINGS
    @given(desired=fm_desired())
    def example(desired):
        sim.call(device.reset)
        desired = away_from_now(copy.deepcopy(desired))
        expected = fm_expected(desired)
        count.objects += sum(len(params["config"]) + 8 * ("all_tuners" in params) for params in desired.values())
        conn = connection(device)
        # tuners last: a frequency change makes the tuner answer 503 for a moment
        calls = [(module, dict(conn, **desired[module])) for module in ("fm_thresholds", "fm_schedule", "fm_tuner")]
        first, unused_second, writes = apply_twice(sim, device, calls, count)
        for (module, unused_args), result in zip(calls, first):
            if result["changed"] != (expected[module] != FM_FACTORY[module]):
                count.first_run_wrong += 1
                raise AssertionError("first run of %s: changed=%s" % (module, result["changed"]))
        assert writes == [], "the second run wrote: %s" % writes
        got = {}
        for module in ("fm_thresholds", "fm_schedule", "fm_tuner"):
            result = run_module(module, dict(conn, state="gathered"))
            assert not result.get("failed"), result
            got[module] = {obj["tuner_id"]: obj for obj in result["gathered"]}
        count.read_back(got, after_schedules(expected))

    run_examples(example, "fm_monitor", count)


def test_fm_monitor_restore_reports_what_it_writes(sim, tmp_path):
    """As test_ts_analyzer_restore_reports_what_it_writes, on the FM monitor."""
    device = sim.fleet.by_name("fm-002")
    conn = connection(device)
    saved, again = tmp_path / "saved.json", tmp_path / "again.json"
    count = Counter()

    @RESTORE_SETTINGS
    @given(kept=fm_desired(), other=fm_desired())
    def example(kept, other):
        sim.call(device.reset)
        for desired, required in ((kept, True), (other, False)):
            desired = away_from_now(copy.deepcopy(desired))
            for module in ("fm_thresholds", "fm_schedule", "fm_tuner"):
                result = run_module(module, dict(conn, **desired[module]))
                assert not (required and result.get("failed")), (module, result.get("msg"))
            if required:
                assert not run_module("device_backup", dict(conn, dest=str(saved))).get("failed")
        applied = restore_agrees_with_requests(sim, device, conn, saved)
        count.first_run_writes += applied["changed"]
        assert not run_module("device_backup", dict(conn, dest=str(again))).get("failed")
        count.read_back(json.loads(again.read_text()), json.loads(saved.read_text()))

    try:
        example()
    finally:
        figures.add("idempotency", "fm_monitor restores checked against the request log", count.applied)
    assert count.applied >= RESTORE_EXAMPLES


def test_fm_thresholds_zero_max_with_a_min(sim):
    """Found by the property above: a max of 0 disables the bound, so any min goes with it."""
    device = sim.fleet.by_name("fm-002")
    sim.call(device.reset)
    args = dict(connection(device), config=[{"tuner_id": 0, "snr": {"min": 1, "max": 0}}])
    first = run_module("fm_thresholds", args)
    assert not first.get("failed"), first["msg"]
    assert first["changed"] is True
    assert run_module("fm_thresholds", args)["changed"] is False
    read = run_module("fm_thresholds", dict(connection(device), state="gathered"))["gathered"][0]
    assert read["snr"] == {"min": 1, "max": "disabled", "margin": 2}


def record(kind, count):
    figures.add("idempotency", "%s desired states applied" % kind, count.applied)
    figures.add("idempotency", "%s objects in the desired states (inputs, profiles, converters / tuner entries)" % kind,
                count.objects)
    figures.add("idempotency", "%s first-run writes (work done)" % kind, count.first_run_writes)
    figures.add("idempotency", "%s second-run changes" % kind, count.second_run_changes)
    figures.add("idempotency", "%s second-run writes" % kind, count.second_run_writes)
    figures.add("idempotency", "%s read-back mismatches" % kind, count.mismatches)
    figures.add("idempotency", "%s first runs with a wrong changed" % kind, count.first_run_wrong)

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The FM monitor's per-tuner objects (tuners, thresholds, schedules) as engine resources:
how each is checked, read and written. Its actions are in _fm/actions.py, what fm_info reads in
_fm/info.py, paths and shapes in _fm/api.py (the analyzer side splits the same way)."""

from __future__ import annotations

import copy

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import rules
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    BUSY,
    PERMISSION,
    DeviceError,
    InputError,
    PartialFailure,
    ShapeError,
    quoted,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import (
    Change,
    Resource,
    apply,
    changed_leaves,
    leaves,
    merge,
    nest,
    reconcile,
    report_consequence,
    strip_unset,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import Checker

#: the module option whose values apply to every tuner
ALL = "all_tuners"


def post_to_tuner(client, tuner_id, path, body):
    """One write to a tuner; a tuner that stays busy is named in the error."""
    try:
        return client.post(path, body)
    except DeviceError as err:
        if err.kind == BUSY:
            who = "a tuner" if tuner_id is None else "tuner %d" % tuner_id
            err.message = "%s stayed busy (a band scan or a frequency change): %s" % (who, err.message)
        raise


def check_tuners(resource, config, all_tuners, state):
    """Problems with ``config`` and ``all_tuners`` found without the device (also taken by
    the device_state action on the controller before any request); what is checked is the
    same for every ``state``."""
    common = strip_unset(all_tuners or {})
    check = Checker()
    if common:
        resource.validate(check, ALL, common)
    seen = set()
    for index, obj in enumerate(strip_unset(obj) for obj in config or []):
        tid = obj["tuner_id"]
        if tid in seen:
            check.fail("config[%d]" % index, "tuner_id %d is listed more than once" % tid)
        seen.add(tid)
        where = "config[%d] (tuner %d)" % (index, tid)
        if tid < 0:
            check.fail(where + ": tuner_id", "must be >= 0")
        resource.validate(check, where, obj)
    return check.problems


def reconcile_tuners(resource, config, all_tuners, state, check_mode):
    """engine.reconcile for objects every tuner has, with ``all_tuners``: values for every
    tuner, which a tuner's own entry in ``config`` overrides key by key.

    Everything is checked before the first request; the tuners are read once.
    """
    problems = check_tuners(resource, config, all_tuners, state)
    if problems:
        raise InputError(problems)
    common = strip_unset(all_tuners or {})
    own = [strip_unset(obj) for obj in config or []]
    labels = {obj["tuner_id"]: "config[%d] (tuner %d)" % (i, obj["tuner_id"]) for i, obj in enumerate(own)}
    if not common or state == "gathered":
        return reconcile(resource, own, state, check_mode, labels, prechecked=True)
    ids = sorted(resource.read())
    unknown = ["config[%d]: tuner_id %d: the device has no such tuner (it has %s)" % (
        i, obj["tuner_id"], ", ".join(map(str, ids))) for i, obj in enumerate(own) if obj["tuner_id"] not in ids]
    if unknown:
        raise InputError(unknown)
    by_id = {obj["tuner_id"]: obj for obj in own}
    for tid in ids:
        labels.setdefault(tid, "%s (tuner %d)" % (ALL, tid))
    desired = [merge(dict(common, tuner_id=tid), by_id.get(tid, {})) for tid in ids]
    return reconcile(resource, desired, state, check_mode, labels, prechecked=True)


def _label(run, tuner_id):
    return run.labels.get(tuner_id, "config (tuner %d)" % tuner_id)


class TunerObjects(Resource):
    """What every tuner has (settings, thresholds, schedule), keyed by ``tuner_id`` and read
    for all tuners with one ``GET /tuners/all``. ``all_path`` writes one body to every tuner:
    ``apply_changes`` uses it when one body brings every tuner where it should be."""

    key = "tuner_id"
    fixed = True
    all_path = None

    def __init__(self, client):
        super().__init__(client)
        self.current = {}
        self._raw = None

    # -- subclasses -----------------------------------------------------------------------
    def from_device(self, raw):
        raise NotImplementedError

    def validate(self, check, where, obj):
        """Add the problems of one desired object (or of ``all_tuners``) to ``check``."""

    def batch_part(self, obj):
        """The part of an object (module shape) that ``all_path`` can write."""
        raise NotImplementedError

    def all_body(self, common, afters):
        """The ``all_path`` body that writes ``common`` (module shape, part of every
        ``afters`` value); None when it cannot be sent."""
        raise NotImplementedError

    # -- engine hooks -----------------------------------------------------------------------
    def check(self, desired, run):
        if run.prechecked:
            return []
        check = Checker()
        for index, obj in enumerate(desired):
            self.validate(check, "config[%d] (tuner %d)" % (index, obj["tuner_id"]), obj)
        return check.problems

    def read(self):
        if self._raw is None:
            self._raw = {api.tuner_id_of(raw): raw for raw in self.client.get(api.TUNERS)}
            self.current = {tid: self.normalise(self.from_device(raw)) for tid, raw in self._raw.items()}
        return self.current

    def refresh(self):
        self._raw = None
        return self.read()

    def operating_state(self, tuner_id):
        """The operating state of ``tuner_id`` as last read."""
        return api.tuner_operating_state(self._raw[tuner_id])

    def apply_changes(self, changes):
        batch = self._batch(changes)
        if batch is None:
            apply(self, changes)
            return
        body, common = batch
        try:
            post_to_tuner(self.client, None, self.all_path, body)
        except DeviceError as err:
            raise PartialFailure(err, [], [c.summary() for c in changes]) from None
        rest = []
        for change in changes:
            before = merge(change.before, common)
            if before != change.after:
                rest.append(Change("update", change.key, before=before, after=change.after, declared=change.declared))
        try:
            apply(self, rest)
        except PartialFailure as err:
            err.done = [{"action": "update", "key": "all tuners"}] + err.done
            raise

    def _batch(self, changes):
        """``(body, common)`` when two or more tuners change values that every tuner is to
        have alike: one ``all_path`` write sets those on all tuners (``common``, module
        shape), and the rest goes tuner by tuner. None when nothing is worth batching."""
        if self.all_path is None:
            return None
        befores = {tid: leaves(self.batch_part(obj)) for tid, obj in self.current.items()}
        afters = dict(befores)
        for change in changes:
            afters[change.key] = leaves(self.batch_part(change.after))
        first = next(iter(afters.values()), {})
        common = {path: value for path, value in first.items()
                  if all(path in after and after[path] == value for after in afters.values())
                  and any(before.get(path) != value for before in befores.values())}
        moved = [tid for tid, before in befores.items() if any(before.get(path) != v for path, v in common.items())]
        if len(moved) < 2:
            return None
        common = nest(common)
        body = self.all_body(common, {tid: nest(after) for tid, after in afters.items()})
        return None if body is None else (body, common)


#: the rule between fm_tuner and fm_schedule (docs/docsite/rst/guide_fleet_rollouts.rst): an active
#: schedule sets its tuner's operating state, so a declared one would fight it every night
SCHEDULED = ("%s: operating_state: tuner %d has an active schedule, which sets its operating state; leave"
             " operating_state out for this tuner, or deactivate its schedule first (fm_schedule active: false)")


# -- fm_tuner ---------------------------------------------------------------------------------
class Tuners(TunerObjects):
    """Tuner settings, state, mute, stream and station. One read (``GET /tuners/all``), plus
    ``GET /stations/all`` when a frequency or station changes and ``GET /valid_bitrates``
    when a bitrate is given; per tuner that differs, one write per part that differs
    (state, mute, stream, settings, station). The same hardware settings for two or more
    tuners go in one ``POST /tuners/all/settings``."""

    all_path = api.ALL_SETTINGS

    def __init__(self, client, scheduled_tuners=None):
        super().__init__(client)
        #: the tuners whose schedule is active once the schedules are applied (None: as the device reports)
        self.scheduled_tuners = None if scheduled_tuners is None else set(scheduled_tuners)
        self._stations = None
        self._bitrates = None

    def from_device(self, raw):
        return api.tuner_from_device(raw)

    def validate(self, check, where, obj):
        if "name" in obj:
            check.length(where + ": name", obj["name"], 1, api.NAME_MAX)
        low, high = api.FREQUENCY_RANGE
        if "frequency" in obj and not low <= obj["frequency"] <= high:
            check.fail(where + ": frequency", "must be in the FM band, %d to %d kHz, got %d" % (low, high, obj["frequency"]))
        if obj.get("station_id", 0) < 0:
            check.fail(where + ": station_id", "must be >= 0, got %d" % obj["station_id"])
        hw = obj.get("hw_settings", {})
        for field, high in (("channel_filter", api.CHANNEL_FILTER_MAX), ("lna_gain", api.LNA_GAIN_MAX),
                            ("rssi_threshold", api.LEVEL_MAX)):
            if field in hw:
                check.between(where + ": hw_settings." + field, hw[field], 0, high)
        if "url" in obj.get("stream", {}):
            check.udp_url(where + ": stream.url", obj["stream"]["url"])

    def defaults(self):
        factory = api.factory_tuner(0)
        del factory["tuner_id"], factory["name"], factory["stream"]["url"]
        return factory

    def normalise(self, obj):
        """Fill the tuner's own factory name and URL (state=replaced)."""
        obj = copy.deepcopy(obj)
        obj.setdefault("name", api.factory_name(obj["tuner_id"]))
        obj["stream"].setdefault("url", api.factory_url(obj["tuner_id"]))
        return obj

    def attainable(self, before, target):
        """What tuning implies: a station brings its frequency, a new frequency the station
        stored for it (the stations are read then, once)."""
        target = dict(target)
        if target.get("station_id") is not None and target["station_id"] != before["station_id"]:
            target["frequency"] = api.station_frequency(self.stations()[target["station_id"]])
        elif target["frequency"] != before["frequency"]:
            target["station_id"] = api.station_at(list(self.stations().values()), target["frequency"])
        else:
            target["station_id"] = before["station_id"]
        return target, []

    def stations(self):
        """The device's stored stations, read once, when a run needs them."""
        if self._stations is None:
            self._stations = {api.station_id_of(s): s for s in self.client.get(api.STATIONS)}
        return self._stations

    def bitrates(self):
        """The device's valid bitrates (read only when a bitrate is given)."""
        if self._bitrates is None:
            self._bitrates = list(api.bitrates_from_device(self.client.get(api.VALID_BITRATES)) or api.BITRATES)
        return self._bitrates

    def scheduled(self, tuner_id):
        """Whether the tuner's schedule is active (as given, else as the device reports it): then
        the schedule sets its state."""
        if self.scheduled_tuners is not None:
            return tuner_id in self.scheduled_tuners
        return api.schedule_active((self._raw or {}).get(tuner_id) or {})

    def check_against(self, desired, current, run):
        problems, admin = [], []
        for obj in desired:
            tid = obj["tuner_id"]
            where, now = _label(run, tid), current.get(tid)
            if now is None:
                continue  # the engine names unknown tuners
            if rules.owns_state(obj, self.scheduled(tid)):
                problems.append(SCHEDULED % (where, tid))
                continue
            bitrate = obj.get("stream", {}).get("bitrate")
            # the list of valid bitrates costs a request: only a bitrate the tuner does not run yet is looked up
            if bitrate is not None and bitrate != (now.get("stream") or {}).get("bitrate") and bitrate not in self.bitrates():
                problems.append("%s: stream.bitrate: must be one of the device's valid bitrates %s, got %d" % (
                    where, ", ".join(map(str, self.bitrates())), bitrate))
            sid = obj.get("station_id")
            station = self.stations().get(sid) if sid is not None else None
            if sid is not None and sid != now["station_id"]:
                if station is None:
                    problems.append("%s: station_id: the device has no station %d (it has %s; fm_station scans for more)" % (
                        where, sid, ", ".join(map(str, sorted(self.stations()))) or "none"))
                    continue
                admin.append("%s: station_id" % where)
            if station is not None and "frequency" in obj and obj["frequency"] != api.station_frequency(station):
                problems.append("%s: frequency: %d differs from the frequency of station %d (%d kHz); set one of them" % (
                    where, obj["frequency"], sid, api.station_frequency(station)))
            state = obj.get("operating_state", "disabled" if run.state == "replaced" and not self.scheduled(tid) else None)
            if state is not None and state != now["operating_state"]:
                admin.append("%s: operating_state" % where)
        if not problems and admin and self.client.role != "admin":
            raise DeviceError(PERMISSION, "role %s cannot change a tuner's operating state or tune it to a stored station,"
                                          " nothing was written (%s)" % (self.client.role, "; ".join(admin)))
        return problems

    def prepare(self, desired, current, run):
        """A scheduled tuner keeps its operating state: the schedule's to set (state=replaced
        included)."""
        return [dict(obj, operating_state=current[obj["tuner_id"]]["operating_state"])
                if self.scheduled(obj["tuner_id"]) else obj for obj in desired]

    def batch_part(self, obj):
        return {"hw_settings": obj["hw_settings"]}

    def all_body(self, common, afters):
        return {"hw_settings": api.hw_to_device(common["hw_settings"])}

    def write(self, change):
        """A tuner asked for a stored station it is not on (an admin write) is tuned to it."""
        station = (change.declared or {}).get("station_id")  # None: not asked for
        for request in api.tuner_requests(change.before, change.after,
                                          None if station == change.before["station_id"] else station):
            post_to_tuner(self.client, change.after["tuner_id"], request.path, request.body)


# -- fm_thresholds ----------------------------------------------------------------------------
def _level(value):
    """A threshold bound as given: an integer, digits, or ``disabled``."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value


class Thresholds(TunerObjects):
    """Alert thresholds of every tuner: one read, one write per tuner that differs, or one
    ``POST /tuners/all/thresholds`` when the same change goes to two or more tuners."""

    all_path = api.ALL_THRESHOLDS

    def from_device(self, raw):
        return api.tuner_thresholds(raw)

    def validate(self, check, where, obj):
        if "rssi_threshold" in obj:
            check.between(where + ": rssi_threshold", obj["rssi_threshold"], 0, api.LEVEL_MAX)
        if "rssi_interval" in obj:
            check.between(where + ": rssi_interval", obj["rssi_interval"], *api.RSSI_INTERVAL_RANGE)
        for name, unused_key, top, off in api.METRICS:
            for bound, value in obj.get(name, {}).items():
                value, field = _level(value), "%s: %s.%s" % (where, name, bound)
                if value == api.DISABLED and bound != "margin" and (name, bound) not in api.UNUSED_BOUNDS:
                    continue
                if isinstance(value, int) and not isinstance(value, bool):
                    check.between(field, value, 0, top)
                elif bound == "margin" or (name, bound) in api.UNUSED_BOUNDS:
                    check.fail(field, "must be a number 0 to %d, got %s" % (top, quoted(value)))
                else:
                    check.fail(field, "must be a number 0 to %d or %s, got %s" % (top, api.DISABLED, quoted(value)))
            # both bounds given: judged here, before any request (one given: check_planned, with the device's other);
            # a bound at the disabling value is off, so it limits nothing
            given = obj.get(name, {})
            low, high = _level(given.get("min")), _level(given.get("max"))
            numbers = all(isinstance(v, int) and not isinstance(v, bool) and v != off for v in (low, high))
            if name != "multipath" and numbers and low > high:
                check.fail("%s: %s.min" % (where, name), "must not exceed %s.max (%d), got %d" % (name, high, low))
        if "margin" in obj.get("rds", {}):
            check.between(where + ": rds.margin", obj["rds"]["margin"], 0, api.LEVEL_MAX)

    def defaults(self):
        factory = api.thresholds_from_device(0, api.FACTORY_THRESHOLDS)
        del factory["tuner_id"]
        return factory

    def normalise(self, obj):
        obj = copy.deepcopy(obj)
        for name, unused_key, unused_top, off in api.METRICS:
            for bound in ("min", "max"):
                value = _level(obj[name][bound])
                if value == off and (name, bound) not in api.UNUSED_BOUNDS:
                    value = api.DISABLED
                obj[name][bound] = value
        return obj

    def check_planned(self, changes, run):
        # one bound given: judged against the device's other (both given: validate, before any request)
        problems = []
        for change in changes:
            for name, unused_key, unused_top, unused_off in api.METRICS:
                low, high = change.after[name]["min"], change.after[name]["max"]
                if name != "multipath" and api.DISABLED not in (low, high) and low > high:
                    problems.append("%s: %s.min: must not exceed %s.max (%d), got %d" % (
                        _label(run, change.key), name, name, high, low))
        return problems

    def batch_part(self, obj):
        return {k: v for k, v in obj.items() if k != "tuner_id"}

    def all_body(self, common, afters):
        return api.thresholds_to_device(common)

    def update(self, before, after):
        body = changed_leaves(api.thresholds_to_device(self.batch_part(before)),
                              api.thresholds_to_device(self.batch_part(after)))
        post_to_tuner(self.client, after["tuner_id"], api.TUNER_THRESHOLDS % after["tuner_id"], body)


# -- fm_schedule ------------------------------------------------------------------------------
class Schedules(TunerObjects):
    """Schedules of every tuner: one read, one write per tuner that differs (only the days
    that differ), or one ``POST /tuners/all/schedule`` for a change common to two or more."""

    all_path = api.ALL_SCHEDULE
    #: events per day at most (chosen)
    max_events = 100

    def from_device(self, raw):
        return api.tuner_schedule(raw)

    def validate(self, check, where, obj):
        for day, events in obj.get("events", {}).items():
            if len(events) > self.max_events:
                check.fail("%s: events.%s" % (where, day), "holds at most %d events, got %d" % (self.max_events, len(events)))
            states = {}
            for index, event in enumerate(events):
                field = "%s: events.%s[%d].time" % (where, day, index)
                minute = api.minute_of(event["time"])
                if minute is None:
                    check.fail(field, "must be HH:MM (00:00 to 23:59) or a minute 0 to 1439, got %s" % quoted(event["time"]))
                elif states.setdefault(minute, event["state"]) != event["state"]:
                    check.fail(field, "%s is given twice with different states" % api.clock(minute))

    def defaults(self):
        return {"active": False, "events": {day: [] for day in api.DAYS}}

    def normalise(self, obj):
        events = obj.get("events") or {}
        clean = {}
        for day in api.DAYS:
            pairs = {(api.minute_of(e["time"]), e["state"]) for e in events.get(day) or []}
            clean[day] = [{"time": api.clock(minute), "state": state} for minute, state in sorted(pairs)]
        return dict(obj, events=clean)

    def batch_part(self, obj):
        return {k: v for k, v in obj.items() if k != "tuner_id"}

    def all_body(self, common, afters):
        if "active" not in common:
            active = {after["active"] for after in afters.values()}
            if len(active) != 1:
                return None  # the device wants active in every schedule write
            common = dict(common, active=active.pop())
        return api.schedule_to_device(common)

    def update(self, before, after):
        body = api.schedule_update_body(changed_leaves(api.schedule_to_device(self.batch_part(before)),
                                                       api.schedule_to_device(self.batch_part(after))), after["active"])
        post_to_tuner(self.client, after["tuner_id"], api.TUNER_SCHEDULE % after["tuner_id"], body)


#: the warning when the role cannot set the state an activated schedule gives
SCHEDULED_STATE_DENIED = ("tuner %d: its schedule gives %s at the device's time (%s %s) but the tuner is %s; role %s"
                          " cannot set a tuner's operating state (admin can), so it stays %s until the next event")


def follow_schedules(resource, result, check_mode):
    """A tuner owned by an active schedule is in the state the schedule gives at the device's
    present time. The device applies an event only when its day and minute come (spec: "a
    schedule event is reached"), so a schedule this run writes (activates, or whose events
    change) would leave its tuner as it was until the next event: its latest event before now,
    wrapping around the week, is applied here (``POST /tuner/{id}/state``, admin). A schedule
    left as it was is left to its events (an idempotent run reads nothing more).
    Adds to ``result``: ``scheduled_states``, and each state set as the engine reports a
    consequence (report_consequence)."""
    written = {change["key"] for change in result.get("changes", []) if change["action"] == "update"}
    owned = {obj["tuner_id"]: obj for obj in result.get("after", [])
             if obj["tuner_id"] in written and obj.get("active") and any((obj.get("events") or {}).values())}
    if not owned:
        return result
    time_read = api.read_time(resource.client)
    clock = api.device_clock(time_read)
    if clock is None:
        raise ShapeError("GET %s" % api.DATETIME, "datetime", sorted(time_read),
                         expected="an ISO 8601 time, to tell which schedule event applies now; got %s"
                         % quoted(time_read.get("datetime")))
    day, minute = clock
    states, warnings = [], result.setdefault("warnings", [])
    for tid, schedule in sorted(owned.items()):
        state = api.state_at(schedule, day, minute)
        now = resource.operating_state(tid)
        if state is None or state == now:
            continue
        at = (api.DAYS[day], api.clock(minute))
        if resource.client.role != "admin":
            warnings.append(SCHEDULED_STATE_DENIED % (tid, state, at[0], at[1], now, resource.client.role, now))
            continue
        if not check_mode:
            post_to_tuner(resource.client, tid, api.TUNER_STATE % tid, api.tuner_state_body(state))
        states.append({"tuner_id": tid, "before": now, "after": state, "datetime": time_read.get("datetime")})
        report_consequence(result, tid, "operating_state", now, state)
    if not warnings:
        result.pop("warnings")
    if states:
        result["scheduled_states"] = states
    return result

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's objects as engine resources: how each is read and written."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import send_all
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import Resource
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine_settings import reconcile_read_back
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import Conflict, InputError, quoted
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import Checker

#: keys of an input written by POST /inputs/{id}; monitoring, SCTE-35 and thumbnails
#: have their own endpoints
CONFIG_KEYS = ("name", "source", "alert_profile", "pid_error_list")
#: an input's SCTE-35 monitoring, thumbnails and PID error list when nothing is said (left
#: out of its shape)
FEATURES_OFF = {"scte35": False, "thumbnails": {"enabled": False}, "pid_error_list": []}


class Inputs(Resource):
    """Inputs of one analyzer, keyed by name. Costs two reads (inputs, profiles) whatever
    the number of inputs, and one write per input that differs, plus one for each of
    monitoring, SCTE-35 and thumbnails that changes.

    ``profile_ids`` ({name: id}, what ts_alert_profile returned earlier in the play) saves
    the profiles read when it names every profile the inputs use and the config asks for;
    otherwise the profiles are read as without it."""

    key = "name"
    element_id = staticmethod(api.input_id_of)
    noun = "input"
    atomic = ("source",)

    def __init__(self, client, profile_ids=None):
        super().__init__(client)
        self.profiles = {}
        self.known_profiles = dict(profile_ids or {})
        self.profiles_read = False

    def check(self, desired, run):
        check = Checker()
        for name, pid in self.known_profiles.items():
            if pid is None and not run.check_mode:
                check.fail("alert_profile_ids.%s" % name, "null (a profile that ts_alert_profile in check mode would"
                           " create) is taken in check mode only")
            elif pid is not None and (isinstance(pid, bool) or not isinstance(pid, int)):
                check.fail("alert_profile_ids.%s" % name, "must be a profile id (an integer), got %s" % quoted(pid))
        for index, obj in enumerate(desired):
            if not 1 <= len(obj["name"]) <= api.NAME_MAX or not obj["name"].strip():
                check.fail("config[%d].name" % index, "must be 1 to %d characters, not only spaces" % api.NAME_MAX)
            where = "config[%d] (%s): source" % (index, obj["name"])
            if "source" not in obj:
                if run.state in ("replaced", "overridden"):
                    check.fail(where, "required with state %s" % run.state)
                continue
            kind, value = next(iter(obj["source"].items()))
            if kind in ("multicast", "unicast"):
                check.port(where + ".%s.port" % kind, value["port"])
            if kind == "multicast":
                check.multicast(where + ".multicast.address", value["address"])
                if value.get("source_address") is not None:
                    check.ipv4(where + ".multicast.source_address", value["source_address"])
            elif kind == "unicast" and value.get("address") is not None:
                check.ipv4(where + ".unicast.address", value["address"])
            elif kind == "asi":
                check.choice(where + ".asi.port", value["port"], api.ASI_PORTS)
            elif kind in ("t2mi", "rf"):
                for field, high in (api.T2MI_MAX if kind == "t2mi" else api.RF_MAX).items():
                    check.between("%s.%s.%s" % (where, kind, field), value[field], 0, high)
        for index, obj in enumerate(desired):
            thumbs = obj.get("thumbnails")
            where = "config[%d] (%s): thumbnails.pid" % (index, obj["name"])
            if thumbs and thumbs.get("enabled") is False and thumbs.get("pid") is not None:
                check.fail(where, "only with enabled=true (disabled thumbnails have no PID)")
            elif thumbs and thumbs.get("pid") is not None:
                check.between(where, thumbs["pid"], 0, api.PID_MAX)
        return check.problems

    def read_for(self, desired, run):
        # the profiles this run may need (None: the factory profile, which an input without one
        # gets): when alert_profile_ids names them all, the profiles need not be read
        return self.read(set() if run.state == "deleted" else {obj.get("alert_profile") or None for obj in desired})

    def read(self, wanted_profiles=frozenset()):
        inputs = self.client.get(api.INPUTS)
        used = {api.input_profile_id(raw) for raw in inputs}
        # ids None: profiles that ts_alert_profile would create (check mode), not on the device yet
        known = {name: pid for name, pid in self.known_profiles.items() if pid is not None}
        planned = [name for name, pid in self.known_profiles.items() if pid is None]
        # the factory profile is known by its id, whatever its name
        factory_known = None not in wanted_profiles or api.FACTORY_PROFILE_ID in known.values()
        named = {name for name in wanted_profiles if name is not None}
        if self.profiles_read:
            pass  # a read-back after a lost answer: the profiles are known already
        elif known and used <= set(known.values()) and factory_known and named <= set(known) | set(planned):
            self.profiles = dict(known)
        else:
            self._read_profiles()
        for name in planned:
            self.profiles.setdefault(name, None)
        names = {pid: name for name, pid in self.profiles.items()}
        return self.index((raw, self.normalise(api.input_from_device(raw, names))) for raw in inputs)

    def _read_profiles(self):
        self.profiles = api.profile_ids(self.client.get(api.PROFILES))
        self.profiles_read = True

    def factory_profile(self):
        """The name of the factory profile, which an input gets when it names none: the
        analyzer's profile FACTORY_PROFILE_ID, whatever it is called (None: not among the profiles)."""
        return next((name for name, pid in self.profiles.items() if pid == api.FACTORY_PROFILE_ID), None)

    def check_against(self, desired, current, run):
        problems = []
        for index, obj in enumerate(desired):
            if run.state == "deleted":
                break
            if "source" not in obj and obj["name"] not in current:
                problems.append("config[%d] (%s): source: required to create a new input" % (index, obj["name"]))
            profile = obj.get("alert_profile")
            if profile is None and (obj["name"] not in current or run.state != "merged"):
                profile = self.factory_profile()
                if profile is None:
                    problems.append("config[%d] (%s): alert_profile: required, the analyzer has no factory profile"
                                    " (id %d) to give the input" % (index, obj["name"], api.FACTORY_PROFILE_ID))
            if profile is not None and profile not in self.profiles:
                problems.append("config[%d] (%s): alert_profile: the analyzer has no profile %r (it has: %s)" % (
                    index, obj["name"], profile, ", ".join(sorted(self.profiles)) or "none"))
        return problems

    def defaults(self):
        return dict(FEATURES_OFF, alert_profile=self.factory_profile(), monitoring="started")

    def normalise(self, obj):
        # SCTE-35 and thumbnails appear in the shape only when on (off is the default)
        obj = {k: v for k, v in obj.items() if k not in FEATURES_OFF or _feature(obj, k) != FEATURES_OFF[k]}
        if "thumbnails" in obj:
            obj["thumbnails"] = _feature(obj, "thumbnails")
        source = obj.get("source")
        if source and "unicast" in source and source["unicast"].get("address") is None:
            obj = dict(obj, source={"unicast": dict(source["unicast"], address="0.0.0.0")})
        if source and "t2mi" in source and source["t2mi"].get("manual") is None:
            obj = dict(obj, source={"t2mi": dict(source["t2mi"], manual=False)})
        return obj

    def create(self, after):
        created = self.client.post(api.INPUTS, api.input_body(after, self.profiles[after["alert_profile"]]))
        before = dict(api.features_from_device(created), monitoring=api.created_monitoring(created))
        self._set_own(api.input_id_of(created), before, after)

    def update(self, before, after):
        raw = self.raw[before["name"]]
        if any(before.get(k) != after.get(k) for k in CONFIG_KEYS):
            self.client.post(api.INPUT % api.input_id_of(raw), api.input_body(after, self.profiles[after["alert_profile"]], raw))
        self._set_own(api.input_id_of(raw), before, after)

    def delete(self, before):
        self.delete_copy(api.input_id_of(self.raw[before["name"]]))

    def delete_copy(self, ident):
        delete_input(self.client, ident)

    def _set_own(self, input_id, before, after):
        set_input_own(self.client, input_id, _own(before), _own(after))


def set_input_own(client, input_id, before, after):
    """An input's monitoring, SCTE-35 and thumbnails (``before`` and ``after`` in the device's
    shape), each through its own endpoint where it changes: for ts_input and the restore."""
    send_all(client, api.input_own_requests(input_id, before, after))


def _own(obj):
    """The fields of an input object (module shape) that have their own endpoints, in the device's shape."""
    return api.input_own_from_module(obj["monitoring"], _feature(obj, "scte35"), _feature(obj, "thumbnails"))


def _feature(obj, name):
    """SCTE-35 (bool) or thumbnails ({enabled, pid} / {enabled: false}) of an input object."""
    value = obj.get(name, FEATURES_OFF[name])
    if name != "thumbnails":
        return value
    if value.get("enabled", True) and value.get("pid") is not None:
        return {"enabled": True, "pid": value["pid"]}
    return {"enabled": False}


def inputs_by_name(client):
    """``GET /inputs`` as (the list, {name: [element, ...]}); one read."""
    inputs = client.get(api.INPUTS)
    named = {}
    for raw in inputs:
        named.setdefault(api.input_name_of(raw), []).append(raw)
    return inputs, named


def one_input(named, name, where):
    """The one input named ``name``; InputError naming ``where`` when there is none or several."""
    found = named.get(name, [])
    if len(found) == 1:
        return found[0]
    if found:
        raise Conflict(["%s: the analyzer has several inputs named %r (ids %s); rename them on the device" % (
            where, name, ", ".join(str(api.input_id_of(raw)) for raw in found))])
    raise InputError(["%s: the analyzer has no input %r (it has: %s)" % (
        where, name, ", ".join(repr(n) for n in sorted(named)) or "none")])


class Profiles(Resource):
    """Alert profiles of one analyzer, keyed by name, entries keyed by error name. Costs
    one read (profiles), one more (inputs) only when a profile is to be deleted, and one
    write per profile that differs."""

    key = "name"
    element_id = staticmethod(api.profile_id_of)
    noun = "alert profile"
    #: the states in which ``reset_factory`` sets the factory profile, when not listed, to factory values
    RESETS_FACTORY = ("replaced", "overridden")

    def __init__(self, client, reset_factory=False):
        super().__init__(client)
        #: the factory profile cannot be deleted: when True, replaced and overridden keep it, if
        #: not listed, at factory values under its own name (device_state's purge), instead of
        #: leaving it alone (replaced) or refusing to delete it (overridden)
        self.reset_factory = reset_factory

    def check(self, desired, run):
        check = Checker()
        for index, obj in enumerate(desired):
            if not 1 <= len(obj["name"]) <= api.NAME_MAX or not obj["name"].strip():
                check.fail("config[%d].name" % index, "must be 1 to %d characters, not only spaces" % api.NAME_MAX)
            errors = obj.get("errors")
            if errors is None or run.state == "deleted":
                continue
            where = "config[%d] (%s): errors" % (index, obj["name"])
            if not isinstance(errors, dict):
                check.fail(where, "must be a dictionary keyed by error name, got %s" % quoted(errors))
                continue
            for name, entry in errors.items():
                at = "%s.%s" % (where, name)
                if name not in api.ERROR_NAMES:
                    check.fail(at, "unknown error name; the analyzer knows %s" % ", ".join(api.ERROR_NAMES))
                if not isinstance(entry, dict):
                    check.fail(at, "must be a dictionary of %s, got %s" % (", ".join(api.ENTRY_FIELDS), quoted(entry)))
                    continue
                for field, value in entry.items():
                    if field in api.ENTRY_FLAGS:
                        check.boolean("%s.%s" % (at, field), value)
                    elif field == "alert_type":
                        check.choice("%s.%s" % (at, field), value, api.ALERT_TYPES)
                    elif field in api.ENTRY_NUMBERS:
                        check.number("%s.%s" % (at, field), value, 0)
                    else:
                        check.fail("%s.%s" % (at, field), "unknown field; use %s" % ", ".join(api.ENTRY_FIELDS))
        return check.problems

    def read(self):
        return self.index((raw, self.normalise(api.profile_from_device(raw))) for raw in self.client.get(api.PROFILES))

    def factory_profile(self):
        """The name of the factory profile read: the analyzer's profile FACTORY_PROFILE_ID,
        whatever it is called (None: not among the profiles read)."""
        return next((name for name, raw in self.raw.items() if api.profile_id_of(raw) == api.FACTORY_PROFILE_ID), None)

    def _reset(self, desired, run):
        """The factory profile's name when ``reset_factory`` keeps it at factory values in this run
        (the run's state resets it and ``desired`` does not list it), else None."""
        factory = self.factory_profile()
        if self.reset_factory and run.state in self.RESETS_FACTORY and factory not in [o["name"] for o in desired]:
            return factory
        return None

    def ids(self, result, check_mode):
        """{name: id} of the profiles the device has after ``result`` whose id is known (a
        profile created by this run is left out: its id would need another read). In check
        mode a profile the run would create is given with id None, so that ts_input, in
        check mode too, takes inputs that name it."""
        names = [obj["name"] for obj in result.get("after", result.get("gathered", []))]
        if check_mode:
            return {name: api.profile_id_of(self.raw[name]) if name in self.raw else None for name in names}
        return {name: api.profile_id_of(self.raw[name]) for name in names if name in self.raw}

    def check_against(self, desired, current, run):
        """Profiles to delete must not be the factory one, nor used by an input."""
        listed = {obj["name"]: index for index, obj in enumerate(desired)}
        if run.state == "deleted":
            doomed = [n for n in listed if n in current] if desired else list(current)
        elif run.state == "overridden":
            doomed = [n for n in current if n not in listed and n != self._reset(desired, run)]
        else:
            doomed = []

        def where(name):
            if name in listed:
                return "config[%d] (%s)" % (listed[name], name)
            if run.state == "overridden":
                return "profile %r (not listed, so state=overridden deletes it)" % name
            return "profile %r (config is empty, so state=deleted deletes every profile)" % name

        problems = []
        for name in [n for n in doomed if api.profile_id_of(self.raw[n]) == api.FACTORY_PROFILE_ID]:
            problems.append("%s: the factory profile cannot be deleted (the analyzer refuses);%s" % (
                where(name), " list it to keep it" if run.state == "overridden" else " name the profiles to delete"))
        doomed = [n for n in doomed if api.profile_id_of(self.raw[n]) != api.FACTORY_PROFILE_ID]
        if doomed:
            inputs = self.client.get(api.INPUTS)
            for name in doomed:
                users = api.inputs_using(inputs, api.profile_id_of(self.raw[name]))
                if users:
                    problems.append("%s: cannot be deleted, input(s) %s use it; give them another alert_profile"
                                    " first (ts_input)" % (where(name), ", ".join(repr(u) for u in users)))
        return problems

    def prepare(self, desired, current, run):
        factory = self._reset(desired, run)
        return desired + [{"name": factory}] if factory is not None else desired

    def defaults(self):
        return {"errors": {name: api.factory_entry(name) for name in api.ERROR_NAMES}}

    def normalise(self, obj):
        errors = obj.get("errors", {})
        order = [n for n in api.ERROR_NAMES if n in errors] + sorted(n for n in errors if n not in api.ERROR_NAMES)
        return dict(obj, errors={n: errors[n] for n in order})

    def create(self, after):
        self.client.post(api.PROFILES, api.profile_body(after))

    def update(self, before, after):
        changed = [n for n, entry in after["errors"].items() if before["errors"].get(n) != entry]
        body = api.profile_update_body(after, changed)
        self.client.post(api.PROFILE % api.profile_id_of(self.raw[before["name"]]), body)

    def delete(self, before):
        self.delete_copy(api.profile_id_of(self.raw[before["name"]]))

    def delete_copy(self, ident):
        delete_profile(self.client, ident)


class Converters(Resource):
    """The ASI-to-IP converters, one per ASI port (a fixed set). One read; one write per
    converter that differs (a start replaces a running converter's settings)."""

    key = "asi_port"
    fixed = True

    def check(self, desired, run):
        check = Checker()
        for index, obj in enumerate(desired):
            where = "config[%d] (ASI %s)" % (index, obj["asi_port"])
            check.choice(where + ": asi_port", obj["asi_port"], api.ASI_PORTS)
            given = [k for k in api.CONVERTER_SETTINGS if k in obj]
            if given and obj.get("running") is False:
                check.fail("%s: %s" % (where, ", ".join(given)), "only with running=true (a stopped converter sends"
                           " nothing, its settings are not in effect)")
            elif given and obj.get("running") is None and run.state == "replaced":
                check.fail(where + ": running", "required with these settings (with state=replaced an unset"
                           " running means stopped)")
            if "multicast_address" in obj:
                check.multicast(where + ": multicast_address", obj["multicast_address"])
            if "multicast_port" in obj:
                check.port(where + ": multicast_port", obj["multicast_port"])
            if "ttl" in obj:
                check.between(where + ": ttl", obj["ttl"], 1, api.TTL_MAX)
        return check.problems

    def check_against(self, desired, current, run):
        problems = []
        for index, obj in enumerate(desired):
            base = current.get(obj["asi_port"])
            if base is None:
                continue  # the engine reports unknown ports
            if run.state == "replaced":
                base = self.defaults()
            where = "config[%d] (ASI %s)" % (index, obj["asi_port"])
            running = obj.get("running", base["running"])
            given = [k for k in api.CONVERTER_SETTINGS if k in obj]
            if not running and given:
                problems.append("%s: running: the converter is stopped; set running=true to start it with %s" % (
                    where, ", ".join(given)))
            missing = [k for k in api.CONVERTER_SETTINGS if k not in obj and k not in base]
            if running and missing:
                problems.append("%s: %s: required to start a stopped converter" % (where, ", ".join(missing)))
        return problems

    def read(self):
        return {api.converter_port(raw): api.converter_from_device(raw) for raw in self.client.get(api.CONVERTERS)}

    def defaults(self):
        return {"running": False}

    def normalise(self, obj):
        if obj.get("running"):
            return obj
        return {k: v for k, v in obj.items() if k not in api.CONVERTER_SETTINGS}

    def update(self, before, after):
        if after["running"]:
            start_converter(self.client, after["asi_port"], api.converter_body(after))
        else:
            stop_converter(self.client, after["asi_port"])


# -- the writes that ts_input, ts_alert_profile, ts_converter and the restore (_ts/restore.py,
# in the device's shapes) make alike
def delete_input(client, input_id):
    client.delete(api.INPUT % input_id)


def delete_profile(client, profile_id):
    client.delete(api.PROFILE % profile_id)


def start_converter(client, port, settings_body):
    """Start the converter of ASI ``port`` with ``settings_body`` (a running one takes them)."""
    client.post(api.CONVERTER_START % port, settings_body)


def stop_converter(client, port):
    # GET, but a write: never retried blindly on a connection error.
    client.get(api.CONVERTER_STOP % port, idempotent=False)


def check_snmp(params):
    """Problems with the SNMP options, found without the device; and the lists, canonical."""
    check = Checker()
    lists = {}
    for index, address in enumerate(params.get("listen_addresses") or []):
        check.unicast_ipv4("listen_addresses[%d]" % index, address, allow_any=True)
    if params.get("listen_addresses") is not None:
        lists["listen_addresses"] = list(params["listen_addresses"])
    if params.get("trap_addresses") is not None:
        lists["trap_addresses"] = [check.ipv4_port("trap_addresses[%d]" % index, address)
                                   for index, address in enumerate(params["trap_addresses"])]
    for key, addresses in lists.items():
        # too many whatever the device has, unless they are to be removed
        if params.get("lists") != "remove" and len(set(addresses)) > api.SNMP_LIST_MAX:
            check.fail(key, "the analyzer takes at most %d addresses, %d given" % (api.SNMP_LIST_MAX, len(set(addresses))))
    if check.problems:
        raise InputError(check.problems)
    return lists


def _snmp_normalise(settings):
    return dict(settings, **{key: sorted(set(settings[key]), key=_address_order) for key in api.SNMP_LISTS})


def _address_order(address):
    host, colon, port = address.partition(":")
    return tuple(int(part) for part in host.split(".")) + ((int(port),) if colon else ())


def snmp(client, params, check_mode, state="merged"):
    """Reconcile the SNMP settings; ``params['lists']`` says how the given lists meet the
    device's (add, remove or replace). One read, and when something differs one write and
    one read back (engine.reconcile_read_back: a concurrent writer must not make an
    address vanish unseen). ``state=gathered`` reads only."""
    given = check_snmp(params)

    def read():
        current = api.snmp_from_device(client.get(api.SNMP_SETTINGS))
        return dict(current, trap_addresses=[Checker().ipv4_port("", a) or a for a in current["trap_addresses"]])

    def desired_from(current):
        desired = {"enabled": params.get("enabled")}
        for key, addresses in given.items():
            if params["lists"] == "add":
                desired[key] = current[key] + addresses
            elif params["lists"] == "remove":
                desired[key] = [a for a in current[key] if a not in addresses]
            else:
                desired[key] = addresses
            if len(set(desired[key])) > api.SNMP_LIST_MAX:
                raise InputError(["%s: the analyzer takes at most %d addresses; with lists=%s there would be %d" % (
                    key, api.SNMP_LIST_MAX, params["lists"], len(set(desired[key])))])
        return desired

    def write(after):
        client.post(api.SNMP_SETTINGS, api.snmp_body(after))

    if state == "gathered":
        return {"changed": False, "gathered": read()}
    result = reconcile_read_back(read, desired_from, write, check_mode, atomic=api.SNMP_LISTS, normalise=_snmp_normalise)
    if params["lists"] == "add" and isinstance(result.get("after"), dict):
        # what the device keeps that was not given (the audit's information; drift with lists=replace)
        result["not_declared"] = {key: [a for a in result["after"].get(key) or [] if a not in addresses]
                                  for key, addresses in given.items()}
    return result

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A device's whole configuration as one document, and its restore.

The document holds every configurable value the device returns: the system settings in the
device-neutral shape, and the rest as the device answers (raw), unknown fields included.
A restore compares before it writes, like the modules, so restoring twice changes nothing.
It holds no password or token, and nothing that changes by itself (no clock, no
measurement, no device-assigned id), so two backups of an unchanged device are equal byte for
byte. Besides the configuration, it keeps what the device did when it was taken (``snapshot``:
which inputs were receiving, which tuners enabled and tuned), the baseline a restore compares
the service with; a backup without it (older releases) restores all the same. The format is
described in docs/docsite/rst/guide_disaster_recovery.rst.
"""

from __future__ import annotations

import json
import types

from ansible_collections.broadcast.monitoring.plugins.module_utils import _snapshot as snapshot, _system as system
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as fm_device, parts as fm_parts
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device, parts as ts_parts
from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import restore_order, restore_passes
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    Conflict,
    DeviceError,
    InputError,
    PartialFailure,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import (
    Resource,
    reconcile,
    replace_settings,
    strip_unset,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.resources import (
    Schedules,
    Thresholds,
    Tuners,
    reconcile_tuners,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import (
    Converters,
    Inputs,
    Profiles,
    snmp,
)

FORMAT = "broadcast.monitoring.backup/2"
#: the first format (module shapes only); still loaded and restored as it was
FORMAT_1 = "broadcast.monitoring.backup/1"
FORMATS = (FORMAT, FORMAT_1)
#: the collection's version, recorded in every backup (a unit test keeps it equal to galaxy.yml)
COLLECTION_VERSION = "1.0.0"
#: keys of a device's time settings that are configuration (the clock itself is not)
TIME_KEYS = ("ntp", "ntp_servers", "timezone")
#: what the analyzer reports of an input that is not configuration (its id is device-local)
TS_INPUT_NOT_CONFIG = ts_device.INPUT_READ_ONLY
#: what the monitor reports of a tuner that it measures or derives (station_id follows the
#: frequency and the station list, both restored)
FM_TUNER_NOT_CONFIG = ("tuned", "signal_ok", "quality", "rds", "station_id")


# -- taking a backup -----------------------------------------------------------------------
def take(client, device):
    """The backup document of one device: identity, the device-neutral system settings
    (structured), the device's own answers (raw, only what changes by itself left out), and
    what it does in operation (the stable part of its snapshot, snapshot.baseline)."""
    time_settings = device.read_time(client)
    system_settings = {"network": device.read_network(client),
                       "time": {key: time_settings[key] for key in TIME_KEYS}}
    raw = _ts_raw(client) if device.KIND == "ts_analyzer" else _fm_raw(client)
    return {
        "format": FORMAT,
        "collection_version": COLLECTION_VERSION,
        "device_type": device.KIND,
        "device": device.read_identity(client),
        "system": system_settings,
        "raw": raw,
        "snapshot": snapshot.baseline(device, client),
    }


def _ts_raw(client):
    settings = client.get(ts_device.SNMP_SETTINGS)
    for key in ts_device.SNMP_LISTS:  # the order of these lists means nothing
        if isinstance(settings.get(key), list):
            settings[key] = sorted(settings[key], key=_address_key)
    # Ids are the device's own (assigned at creation): profiles are listed in id order (the
    # factory profile first) without them, and inputs name their profile.
    profiles = sorted(client.get(ts_device.PROFILES), key=lambda p: p["id"])
    names = {p["id"]: p["name"] for p in profiles}
    return {
        "profiles": [_entries_sorted(_without(p, ("id",))) for p in profiles],
        "inputs": sorted((_portable_input(_without(raw, TS_INPUT_NOT_CONFIG), names)
                          for raw in client.get(ts_device.INPUTS)), key=lambda i: i["name"]),
        "snmp": settings,
        "converters": sorted(client.get(ts_device.CONVERTERS), key=lambda c: c["port"]),
        "log_settings": client.get(ts_device.LOG_SETTINGS),
    }


def _fm_raw(client):
    conf = client.get(fm_device.CONF)
    if isinstance(conf.get("datetime"), dict):  # a clock reading, should a device add one, is stale at once
        conf["datetime"] = _without(conf["datetime"], ("datetime",))
    if isinstance(conf.get("tuners"), list):
        conf["tuners"] = sorted(conf["tuners"], key=lambda t: t.get("tuner_id", 0))
    if isinstance(conf.get("stations"), list):
        conf["stations"] = sorted(conf["stations"], key=lambda s: s.get("station_id", 0))
    tuners = []
    for raw in sorted(client.get(fm_device.TUNERS), key=lambda t: t["tuner_id"]):
        tuner = _without(raw, FM_TUNER_NOT_CONFIG)
        if isinstance(tuner.get("stream"), dict):
            tuner["stream"] = _without(tuner["stream"], ("measured_bitrate",))
        tuners.append(tuner)
    return {"conf": conf, "tuners": tuners, "log_settings": client.get(fm_device.LOG_SETTINGS)}


def _entries_sorted(profile):
    """A profile with its entries in error-name order: their order means nothing, and a
    device may list them in any (equal profiles give equal backups)."""
    entries = profile.get("entries")
    if isinstance(entries, list) and all(isinstance(e, dict) for e in entries):
        profile = dict(profile, entries=sorted(entries, key=lambda e: str(e.get("error_name"))))
    return profile


def _without(obj, keys):
    return {key: value for key, value in obj.items() if key not in keys}


def _address_key(address):
    """IPv4 addresses (with an optional :port) in numeric order; anything else after them."""
    host, colon, port = str(address).partition(":")
    parts = host.split(".")
    if len(parts) == 4 and all(p.isdigit() for p in parts) and (not colon or port.isdigit()):
        return (0, tuple(int(p) for p in parts), int(port or 0), "")
    return (1, (), 0, str(address))


def dumps(doc):
    """Stable text of a document: equal documents give equal files."""
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


# -- restoring -------------------------------------------------------------------------------
def load(text, device, where="src"):
    """The document in ``text``, checked to fit ``device``; InputError naming ``where``."""
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise InputError(["%s: not a backup document (invalid JSON: %s)" % (where, err)]) from None
    if not isinstance(doc, dict) or doc.get("format") not in FORMATS:
        raise InputError(["%s: not a backup document of this collection (format %s expected)"
                          % (where, " or ".join(FORMATS))])
    if doc.get("device_type") != device.KIND:
        raise InputError(["%s: a backup of a %s cannot be restored to a %s" % (where, doc.get("device_type"), device.KIND)])
    return doc


def backup_firmware(doc):
    """The firmware version the backup was taken on."""
    if doc["format"] == FORMAT_1:
        return doc.get("firmware_version")
    return (doc.get("device") or {}).get("firmware_version")


def check_firmware(module, doc, policy):
    """Compare the backup's firmware with the device's before anything is written: a
    configuration read from one version may not mean the same on another. ``policy``:
    fail (stop, nothing written), warn (go on, say so) or ignore. Returns both versions."""
    wanted = backup_firmware(doc)
    running = module.device.read_firmware_version(module.client)
    found = {"backup": wanted, "device": running}
    if wanted == running or policy == "ignore":
        return found
    message = ("firmware: the backup was taken on firmware %s, this device runs %s" % (wanted, running))
    if policy == "warn":
        module.warn(message + "; restored anyway (firmware_mismatch=warn)")
        return found
    raise Conflict([message + "; upgrade the device to %s first (device_firmware, or the restore role's"
                    " restore_firmware_bundle), or set firmware_mismatch=warn (or ignore) to restore anyway" % wanted])


#: the order in which sections are restored: what monitoring needs first (profiles, inputs,
#: tuners), then the rest; network last (it takes effect at the next reboot)
TS_SECTIONS = restore_order(ts_parts)
FM_SECTIONS = restore_order(fm_parts)
FM_SECTIONS_1 = fm_parts.RAW_SECTIONS


def restore(module, doc, network, firmware_mismatch="fail"):
    """Apply ``doc`` to the device; ``network`` also restores address and hostname (they
    take effect at the next reboot). Returns the module result, with a diff per section.
    A failure on the way says which sections were restored and which were not."""
    firmware = check_firmware(module, doc, firmware_mismatch)
    sections = _Sections()
    try:
        _restore(module, doc, network, sections)
    except (DeviceError, PartialFailure) as err:
        raise _restore_failure(err, sections, module.device, network, doc) from None
    changed = [name for name, result in sections.items() if result["changed"]]
    lost = [dict(item, section=name) for name, result in sections.items() for item in result.get("lost_answers", [])]
    return {
        **({"lost_answers": lost} if lost else {}),
        "changed": bool(changed),
        "changed_sections": changed,
        "firmware": firmware,
        **({"not_planned": list(sections.not_planned)} if sections.not_planned else {}),
        **({"warnings": sections.warnings} if sections.warnings else {}),
        "diff": {"before": {n: r["diff"]["before"] for n, r in sections.items() if r["changed"]},
                 "after": {n: r["diff"]["after"] for n, r in sections.items() if r["changed"]}},
    }


class _Sections(dict):
    """Each restored section's result, and the section being restored (a failure names it;
    the alert profiles are visited twice, so "the first one without a result" is not it)."""

    running = None
    #: sections check mode could not plan (they depend on an earlier write)
    not_planned = ()

    def __init__(self):
        super().__init__()
        #: what the sections warned of (differences the device offers no way to write...)
        self.warnings = []

    def run(self, name, step):
        self.running = name
        self[name] = step()
        self.warnings.extend(warning for warning in self[name].get("warnings", []) if warning not in self.warnings)
        return self[name]


def _restore(module, doc, network, sections):
    client, device, check_mode = module.client, module.device, module.check_mode
    settings = doc["system"]
    registry = ts_parts if device.KIND == ts_parts.KIND else fm_parts
    if device.KIND != "ts_analyzer":
        conf = sections.run("conf", lambda: _restore_fm(client, doc, network, check_mode))
        if doc["format"] == FORMAT_1:
            return  # format 1 holds the monitor's /conf only
        if check_mode and conf["changed"]:
            # The configuration write sets most of what follows; what it leaves to the later
            # sections cannot be known before it is made.
            sections.not_planned = [n for n in FM_SECTIONS[1:] if network or n != "network"]
            return
        steps = _fm_tuner_steps(client, doc["raw"]["tuners"], check_mode)
    elif doc["format"] == FORMAT_1:
        steps = _ts_1_steps(client, doc["config"], check_mode, sections)
    else:
        steps = _ts_steps(client, doc["raw"], check_mode, sections)
    clock = dict(settings["time"], datetime=None, max_clock_drift=0)  # the clock itself is not restored
    steps["time"] = lambda: system.manage_time(_context(module, clock))
    if doc["format"] == FORMAT_1:
        steps["logging"] = lambda: system.manage_logging(_context(module, settings["logging"]))
    else:  # verbatim: the device's own fields and values, whatever this collection knows of them
        steps["logging"] = lambda: _restore_settings(client, device.LOG_SETTINGS, doc["raw"]["log_settings"],
                                                     check_mode)
    if network:
        steps["network"] = lambda: system.manage_network(_context(module, dict(
            settings["network"], reboot=False, wait_host=None, reboot_timeout=0, host=module.params["host"])))
    # in the registry's restore order, a part's second pass after the part it waits for
    for name, second in restore_passes(registry):
        step = steps.get((name, True) if second else name)
        if step is not None:  # (network only when asked; format 1 has no more than these)
            sections.run(name, step)


def _restore_failure(err, sections, device, network, doc):
    """A PartialFailure by section: those restored (or found right already), the one that
    failed (with its own written / not written objects), and those not reached."""
    if device.KIND == "ts_analyzer":
        order = TS_SECTIONS
    else:
        order = FM_SECTIONS_1 if doc["format"] == FORMAT_1 else FM_SECTIONS
    order = [name for name in order if network or name != "network"]
    failing = sections.running or order[0]
    if isinstance(err, PartialFailure):
        error, done, pending, unknown = err.error, err.done, err.pending, err.unknown
    else:
        error, done, pending, unknown = err, [], [], []
    written = []
    for name in order:
        entry = {"section": name}
        if name in sections:  # restored; for the failing one, by an earlier pass
            entry["changed"] = sections[name]["changed"]
        if name == failing and done:
            entry["written"] = done
        if len(entry) > 1:
            written.append(entry)
    not_written = [{"section": failing, "not_written": pending}] + [
        {"section": name} for name in order if name not in sections and name != failing]
    return PartialFailure(error, written, not_written, [{"section": failing, "unknown": unknown}] if unknown else [])


def _context(module, params):
    """What the system functions take from a module, with the params of one section."""
    return types.SimpleNamespace(client=module.client, device=module.device, check_mode=module.check_mode,
                                 params=params)


def _restore_settings(client, path, wanted, check_mode, normalise=None):
    """A settings object the device replaces whole: written back verbatim when it differs."""
    return replace_settings(client.get(path), wanted, lambda body: client.post(path, body), lambda: client.get(path),
                            check_mode, normalise)


def _snmp_order(settings):
    return dict(settings, **{key: sorted(settings[key], key=_address_key)
                             for key in ts_device.SNMP_LISTS if isinstance(settings.get(key), list)})


# -- the analyzer, from the device's own answers ----------------------------------------------
def _two_passes(sections, name, resource, wanted, check_mode):
    """``{name: first pass, (name, True): second pass}`` of a part the registry prunes after
    another (``pruned_after``): the first pass replaces (creates and updates, deletes
    nothing), the second, once the part it waits for is restored, deletes what the backup does
    not have (in check mode, planned from the first)."""
    names = [obj["name"] for obj in wanted]
    return {name: lambda: reconcile(resource(), wanted, "replaced", check_mode),
            (name, True): lambda: _joined(sections[name], reconcile(resource(), wanted, "overridden", check_mode)
                                          if not check_mode else _plan_prune(sections[name], names))}


def _ts_steps(client, raw, check_mode, sections):
    """The analyzer's sections, each as the step that restores it."""
    wanted = raw["profiles"]
    names = [p["name"] for p in wanted]
    factory = names[0] if names else None  # listed first, as the device numbers it
    # Profiles first (inputs name them), inputs next, and only then the profiles that the
    # backup does not have are deleted, when no input uses them any more.
    steps = _two_passes(sections, "alert_profiles", lambda: RawProfiles(client, factory), wanted, check_mode)
    steps["inputs"] = lambda: reconcile(RawInputs(client, names), raw["inputs"], "overridden", check_mode)
    steps["snmp"] = lambda: _restore_settings(client, ts_device.SNMP_SETTINGS, raw["snmp"], check_mode, _snmp_order)
    steps["converters"] = lambda: reconcile(RawConverters(client), raw["converters"], "replaced", check_mode)
    return steps


def _portable_input(raw, profile_names):
    """An input with its alert profile named (``alerts_config.profile_id`` holds the name):
    profile ids are the device's own."""
    alerts = dict(raw.get("alerts_config") or {})
    pid = alerts.get("profile_id")
    alerts["profile_id"] = profile_names.get(pid, "#%s" % pid)
    return dict(raw, alerts_config=alerts)


class RawProfiles(Resource):
    """Alert profiles as the analyzer gives them (every field, known or not), keyed by name.
    The factory profile is matched by its id, whatever its name, since it cannot be deleted."""

    key = "name"

    def __init__(self, client, factory_name=None):
        super().__init__(client)
        self.factory_name = factory_name
        self.ids = {}
        self.names = {}

    def read(self):
        current = {}
        for raw in self.client.get(ts_device.PROFILES):
            key = self.factory_name if raw["id"] == ts_device.FACTORY_PROFILE_ID and self.factory_name else raw["name"]
            self.ids[key] = raw["id"]
            self.names[key] = raw["name"]
            current[key] = dict(_without(raw, ("id",)), name=key)
            if key != raw["name"]:  # the factory profile under another name: differs, renamed by update
                current[key]["renamed_from"] = raw["name"]
        return current

    def normalise(self, obj):
        # entries in error-name order, as a backup stores them: their order means nothing
        return _entries_sorted(strip_unset(obj))

    def attainable(self, before, target):
        # A profile update merges (update below sends what changes): a field, or an entry, that
        # the device has and the backup does not cannot be removed, and stays.
        kept = {key: value for key, value in before.items() if key not in target and key != "renamed_from"}
        named = {e.get("error_name") for e in target.get("entries", []) if isinstance(e, dict)}
        entries = [e for e in before.get("entries", []) if isinstance(e, dict) and e.get("error_name") not in named]
        if not kept and not entries:
            return target, []
        what = ["field(s) %s" % ", ".join(sorted(kept))] if kept else []
        what += ["entries %s" % ", ".join(str(e.get("error_name")) for e in entries)] if entries else []
        note = ("alert_profiles: profile %r: the device has %s that the backup does not; a profile update cannot"
                " remove them: left as they are" % (target["name"], " and ".join(what)))
        if entries:
            kept["entries"] = list(target.get("entries", [])) + entries
        return self.normalise(dict(target, **kept)), [note]

    def check_against(self, desired, current):
        if self.state != "overridden":
            return []
        listed = {obj["name"] for obj in desired}
        doomed = [name for name in current if name not in listed and self.ids[name] != ts_device.FACTORY_PROFILE_ID]
        if not doomed:
            return []
        inputs = self.client.get(ts_device.INPUTS)
        return ["profile %r (not in the backup): cannot be deleted, input(s) %s use it" % (
            name, ", ".join(repr(u) for u in ts_device.inputs_using(inputs, self.ids[name])))
            for name in doomed if ts_device.inputs_using(inputs, self.ids[name])]

    def create(self, after):
        self.client.post(ts_device.PROFILES, after)

    def update(self, before, after):
        body = {key: value for key, value in after.items() if key != "entries" and before.get(key) != value}
        if self.names.get(before["name"], before["name"]) != after["name"]:
            body["name"] = after["name"]
        old = {e.get("error_name"): e for e in before.get("entries", [])}
        entries = [e for e in after.get("entries", []) if old.get(e.get("error_name")) != e]
        if entries:
            body["entries"] = entries
        self.client.post(ts_device.PROFILE % self.ids[before["name"]], body)

    def delete(self, before):
        self.client.delete(ts_device.PROFILE % self.ids[before["name"]])


class RawInputs(Resource):
    """Inputs as the analyzer gives them (every field, known or not, its live state left
    out), keyed by name, with the alert profile named. ``planned``: profiles the same
    restore creates just before (in check mode those are not on the device yet)."""

    key = "name"
    OWN_ENDPOINTS = ts_device.INPUT_OWN_ENDPOINTS

    def __init__(self, client, planned=()):
        super().__init__(client)
        self.planned = planned
        self.raw = {}
        self.profiles = {}

    def read(self):
        self.profiles = ts_device.profile_ids(self.client.get(ts_device.PROFILES))
        names = {pid: name for name, pid in self.profiles.items()}
        current = {}
        for raw in self.client.get(ts_device.INPUTS):
            self.raw[raw["name"]] = raw
            current[raw["name"]] = _portable_input(_without(raw, TS_INPUT_NOT_CONFIG), names)
        return current

    def check_against(self, desired, current):
        known = set(self.profiles) | set(self.planned)
        return ["input %r: alerts_config: the analyzer has no profile %r" % (obj["name"], obj["alerts_config"]["profile_id"])
                for obj in desired if obj["alerts_config"]["profile_id"] not in known]

    def normalise(self, obj):
        return strip_unset(obj)

    def _body(self, obj):
        body = _without(obj, self.OWN_ENDPOINTS)
        body["alerts_config"] = dict(obj["alerts_config"], profile_id=self.profiles[obj["alerts_config"]["profile_id"]])
        return body

    def create(self, after):
        created = self.client.post(ts_device.INPUTS, self._body(after))
        self._set_own(created["id"], _without(created, TS_INPUT_NOT_CONFIG), after)

    def update(self, before, after):
        input_id = self.raw[before["name"]]["id"]
        if _without(before, self.OWN_ENDPOINTS) != _without(after, self.OWN_ENDPOINTS):
            self.client.post(ts_device.INPUT % input_id, dict(self._body(after), input_id=input_id))
        self._set_own(input_id, before, after)

    def delete(self, before):
        self.client.delete(ts_device.INPUT % self.raw[before["name"]]["id"])

    def _set_own(self, input_id, before, after):
        """Monitoring, SCTE-35 and thumbnails, each through its own endpoint (GETs that write
        are never retried blindly)."""
        if "monitoring" in after and bool(before.get("monitoring")) != bool(after["monitoring"]):
            path = ts_device.INPUT_START if after["monitoring"] else ts_device.INPUT_STOP
            self.client.get(path % input_id, idempotent=False)
        scte = (after.get("scte35") or {}).get("enabled")
        if scte is not None and (before.get("scte35") or {}).get("enabled") != scte:
            self.client.post(ts_device.INPUT_SCTE_TOGGLE % input_id, {"enabled": scte})
        thumbs = strip_unset(after.get("thumbnails") or {})
        if thumbs and strip_unset(before.get("thumbnails") or {}) != thumbs:
            if thumbs.get("enabled"):
                self.client.post(ts_device.INPUT_THUMBNAILS_ENABLE % input_id, {"pid": thumbs["pid"]})
            else:
                self.client.get(ts_device.INPUT_THUMBNAILS_DISABLE % input_id, idempotent=False)


class RawConverters(Resource):
    """The converters as the analyzer gives them, keyed by ASI port. A stopped converter
    keeps the settings of its last start: to put those back, it is started with them and
    stopped again."""

    key = "port"
    fixed = True

    def read(self):
        return {raw["port"]: raw for raw in self.client.get(ts_device.CONVERTERS)}

    def normalise(self, obj):
        return strip_unset(obj)

    def attainable(self, before, target):
        # The analyzer has no way to clear a stopped converter's settings (a stop keeps them,
        # a start needs all of them): settings the backup lacks stay as the device keeps them.
        if target.get("running"):
            return target, []
        kept = {key: before[key] for key in ts_device.CONVERTER_SETTINGS
                if before.get(key) is not None and target.get(key) is None}
        if not kept:
            return target, []
        note = ("converters: ASI port %s: the backup holds the converter stopped without %s; the analyzer keeps"
                " those of the converter's last start (%s) and has no way to clear them: left as they are" % (
                    target["port"], ", ".join(kept), ", ".join("%s=%s" % item for item in kept.items())))
        return dict(target, **kept), [note]

    def update(self, before, after):
        settings = {key: after.get(key) for key in ts_device.CONVERTER_SETTINGS}
        moved = any(before.get(key) != value for key, value in settings.items())
        if None not in settings.values() and (moved or (after.get("running") and not before.get("running"))):
            self.client.post(ts_device.CONVERTER_START % after["port"], settings)
            before = dict(before, running=True)
        if before.get("running") and not after.get("running"):
            self.client.get(ts_device.CONVERTER_STOP % after["port"], idempotent=False)


def _plan_prune(put, names):
    """What the deleting pass would do, planned from the first pass (check mode)."""
    extra = [p for p in put["before"] if p["name"] not in names]
    after = [p for p in put["after"] if p["name"] in names]
    return {"changed": bool(extra), "diff": {"before": {p["name"]: p for p in put["after"]},
                                             "after": {p["name"]: p for p in after}}}


def _joined(first, second):
    return {"changed": first["changed"] or second["changed"],
            "diff": {"before": first["diff"]["before"], "after": second["diff"]["after"]}}


# -- the analyzer, format 1 (module shapes) ------------------------------------------------------
class _InputsAfterProfiles(Inputs):
    """Inputs that may name profiles the same restore creates just before (in check mode
    those are not on the device yet)."""

    def __init__(self, client, planned):
        super().__init__(client)
        self.planned = planned

    def read(self):
        current = super().read()
        for name in self.planned:
            self.profiles.setdefault(name, None)
        return current


def _ts_1_steps(client, config, check_mode, sections):
    profiles = config["alert_profiles"]
    names = [p["name"] for p in profiles]
    steps = _two_passes(sections, "alert_profiles", lambda: Profiles(client), profiles, check_mode)
    steps["inputs"] = lambda: reconcile(_InputsAfterProfiles(client, names), config["inputs"], "overridden", check_mode)
    steps["snmp"] = lambda: snmp(client, dict(config["snmp"], lists="replace"), check_mode)
    steps["converters"] = lambda: reconcile(Converters(client), config["converters"], "replaced", check_mode)
    return steps


# -- the FM monitor ------------------------------------------------------------------------------
def _restore_fm(client, doc, network, check_mode):
    """The monitor's /conf, verbatim, in one write when it differs."""
    current = client.get(fm_device.CONF)
    source = doc["config"]["conf"] if doc["format"] == FORMAT_1 else doc["raw"]["conf"]
    wanted = dict(source)
    if not network:  # keep the unit's own address and name
        wanted.update(network=current.get("network"), hostname=current.get("hostname"))
    # written in the backup's order, and without the clock the backup read (the unit keeps its own)
    result = replace_settings(current, _fm_conf_order(wanted), lambda body: client.post(fm_device.CONF, body),
                              lambda: client.get(fm_device.CONF), check_mode, _fm_conf_order)
    if "lost_answers" in result:
        result["lost_answers"] = [dict(item, key="conf") for item in result["lost_answers"]]
    return result


def _fm_conf_order(conf):
    """/conf with its lists in the backup's order (tuners by id, stations by id)."""
    conf = dict(conf)
    if isinstance(conf.get("datetime"), dict):
        conf["datetime"] = _without(conf["datetime"], ("datetime",))
    for key, field in (("tuners", "tuner_id"), ("stations", "station_id")):
        if isinstance(conf.get(key), list):
            conf[key] = sorted(conf[key], key=lambda item, f=field: item.get(f, 0))
    return conf


def _fm_tuner_steps(client, tuners, check_mode):
    """What the monitor shows of its tuners outside /conf, through the tuner endpoints: on a
    device whose /conf carried all of it, these find nothing to write."""
    # an active schedule sets its tuner's state (fm_tuner refuses to set it too): left to the schedule
    settings = [_without(fm_device.tuner_from_device(raw), ("station_id",) + (
        ("operating_state",) if fm_device.schedule_active(raw) else ())) for raw in tuners]
    thresholds = [fm_device.tuner_thresholds(raw) for raw in tuners]
    schedules = [fm_device.tuner_schedule(raw) for raw in tuners]
    return {"tuners": lambda: reconcile_tuners(Tuners(client), settings, None, "merged", check_mode),
            "thresholds": lambda: reconcile_tuners(Thresholds(client), thresholds, None, "merged", check_mode),
            "schedules": lambda: reconcile_tuners(Schedules(client), schedules, None, "merged", check_mode)}


# -- a backup as the device's answers (state=parsed and state=rendered, _offline.py) --------------
def check_document(doc, device, where):
    """``doc`` (already loaded) checked to be a format-2 backup of ``device``'s type; InputError
    naming ``where`` otherwise. Format 1 holds the module shapes only, not the device's answers."""
    if not isinstance(doc, dict) or doc.get("format") not in FORMATS:
        raise InputError(["%s: not a backup document of this collection (format %s expected, the content of a"
                          " device_backup file)" % (where, " or ".join(FORMATS))])
    if doc.get("device_type") != device.KIND:
        raise InputError(["%s: a backup of a %s, but this module manages a %s" % (
            where, doc.get("device_type"), device.KIND)])
    if doc["format"] != FORMAT or not isinstance(doc.get("raw"), dict):
        raise InputError(["%s: a backup of format %s does not hold the device's own answers; take a new backup"
                          " with device_backup (format %s)" % (where, doc["format"], FORMAT)])
    return doc


def offline_answers(doc):
    """``(answers, names)`` of a format-2 backup: ``answers`` maps the path of each GET the
    resource modules read to what the device answered when the backup was taken, rebuilt from
    the stored raw answers; ``names`` maps ``(kind, id)`` to the object's name for the ids the
    device assigns itself (analyzer inputs and profiles), which a backup does not keep: they
    are numbered here as the device lists them, and a rendered request names the object
    instead (_offline.py)."""
    raw = doc["raw"]
    if doc["device_type"] == ts_device.KIND:
        return _ts_answers(raw)
    stations = list((raw.get("conf") or {}).get("stations") or [])
    tuners = [dict(t, station_id=fm_device.station_at(stations, t.get("frequency"))) for t in raw.get("tuners") or []]
    return {fm_device.TUNERS: tuners, fm_device.STATIONS: stations,
            # not in a backup: the document's list of stream bitrates
            fm_device.VALID_BITRATES: {"bitrates": list(fm_device.BITRATES)}}, {}


def _ts_answers(raw):
    names, ids = {}, {}
    profiles = []
    # listed in id order, the factory profile first: numbered from the factory profile's id
    for number, profile in enumerate(raw.get("profiles") or [], start=ts_device.FACTORY_PROFILE_ID):
        profiles.append(dict(profile, id=number))
        names[("profile", number)] = profile["name"]
        ids[profile["name"]] = number
    inputs = []
    for number, element in enumerate(raw.get("inputs") or [], start=1):
        alerts = dict(element.get("alerts_config") or {})
        named = alerts.get("profile_id")
        if named in ids:
            alerts["profile_id"] = ids[named]
        elif isinstance(named, str) and named.startswith("#") and named[1:].isdigit():
            alerts["profile_id"] = int(named[1:])  # a profile the device did not list
        inputs.append(dict(element, id=number, alerts_config=alerts))
        names[("input", number)] = element["name"]
    answers = {ts_device.PROFILES: profiles, ts_device.INPUTS: inputs,
               ts_device.SNMP_SETTINGS: raw.get("snmp") or {}, ts_device.CONVERTERS: raw.get("converters") or []}
    return answers, names

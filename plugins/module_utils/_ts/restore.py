# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's sections of a restore (_backup/restore.py runs them): its objects as the
analyzer gives them (format 2, every field, known or not), or in the modules' shapes (format
1). What each request holds and which field is which: api.py and api_backup.py."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._backup.format import FORMAT_1
from ansible_collections.broadcast.monitoring.plugins.module_utils._backup.sections import restore_settings, two_passes
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import Resource, reconcile, strip_unset
from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import restore_order
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api_backup
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import parts
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import (
    Converters,
    Inputs,
    Profiles,
    delete_input,
    delete_profile,
    set_input_own,
    snmp,
    start_converter,
    stop_converter,
)


def section_order(doc):
    """The sections a restore of ``doc`` goes through, in order (the registry's, whatever the format)."""
    return restore_order(parts)


def steps(client, doc, network, check_mode, sections):
    """The analyzer's own sections of ``doc``, each as the step that restores it (the system
    settings are _backup/restore.py's; ``network`` changes none of these)."""
    if doc["format"] == FORMAT_1:
        return _steps_1(client, doc["config"], check_mode, sections)
    return _steps_2(client, doc["raw"], check_mode, sections)


def _steps_2(client, saved, check_mode, sections):
    """The sections of a format-2 backup (``saved``: its ``raw``)."""
    wanted = saved["profiles"]
    names = [p["name"] for p in wanted]
    factory = names[0] if names else None  # listed first, as the device numbers it
    # Profiles first (inputs name them), inputs next, and only then the profiles that the
    # backup does not have are deleted, when no input uses them any more (the registry's
    # pruned_after, parts.py).
    out = two_passes(sections, "alert_profiles", lambda: RawProfiles(client, factory), wanted, check_mode)
    out["inputs"] = lambda: reconcile(RawInputs(client, names), saved["inputs"], "overridden", check_mode)
    out["snmp"] = lambda: restore_settings(client, api.SNMP_SETTINGS, saved["snmp"], check_mode,
                                           api_backup.snmp_ordered)
    out["converters"] = lambda: reconcile(RawConverters(client), saved["converters"], "replaced", check_mode)
    return out


def _steps_1(client, config, check_mode, sections):
    """The sections of a format-1 backup (the modules' shapes)."""
    profiles = config["alert_profiles"]
    names = [p["name"] for p in profiles]
    out = two_passes(sections, "alert_profiles", lambda: Profiles(client), profiles, check_mode)
    out["inputs"] = lambda: reconcile(_InputsAfterProfiles(client, names), config["inputs"], "overridden", check_mode)
    out["snmp"] = lambda: snmp(client, dict(config["snmp"], lists="replace"), check_mode)
    out["converters"] = lambda: reconcile(Converters(client), config["converters"], "replaced", check_mode)
    return out


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
        current, self.ids, self.names = api_backup.backup_profiles(self.client, self.factory_name)
        return current

    def normalise(self, obj):
        # entries in error-name order, as a backup stores them: their order means nothing
        return api_backup.entries_sorted(strip_unset(obj))

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

    def check_against(self, desired, current, run):
        if run.state != "overridden":
            return []
        listed = {obj["name"] for obj in desired}
        doomed = [name for name in current if name not in listed and self.ids[name] != api.FACTORY_PROFILE_ID]
        if not doomed:
            return []
        inputs = self.client.get(api.INPUTS)
        return ["profile %r (not in the backup): cannot be deleted, input(s) %s use it" % (
            name, ", ".join(repr(u) for u in api.inputs_using(inputs, self.ids[name])))
            for name in doomed if api.inputs_using(inputs, self.ids[name])]

    def create(self, after):
        self.client.post(api.PROFILES, api_backup.backup_profile_body(after))

    def update(self, before, after):
        body = api_backup.backup_profile_update(before, after, self.names.get(before["name"], before["name"]))
        self.client.post(api.PROFILE % self.ids[before["name"]], body)

    def delete(self, before):
        delete_profile(self.client, self.ids[before["name"]])


class RawInputs(Resource):
    """Inputs as the analyzer gives them (every field, known or not, its live state left
    out), keyed by name, with the alert profile named. ``planned``: profiles the same
    restore creates just before (in check mode those are not on the device yet)."""

    key = "name"
    OWN_ENDPOINTS = api.INPUT_OWN_ENDPOINTS

    def __init__(self, client, planned=()):
        super().__init__(client)
        self.planned = planned
        self.raw = {}
        self.profiles = {}

    def read(self):
        self.profiles, self.raw, current = api_backup.backup_inputs(self.client)
        return current

    def check_against(self, desired, current, run):
        known = set(self.profiles) | set(self.planned)
        return ["input %r: alerts_config: the analyzer has no profile %r" % (api.input_name_of(obj), api.input_profile_id(obj))
                for obj in desired if api.input_profile_id(obj) not in known]

    def normalise(self, obj):
        return strip_unset(obj)

    def create(self, after):
        created = self.client.post(api.INPUTS, api_backup.backup_input_body(after, self.profiles))
        _set_own(self.client, api.input_id_of(created), api_backup.without(created, api_backup.INPUT_NOT_CONFIG), after)

    def update(self, before, after):
        input_id = api.input_id_of(self.raw[before["name"]])
        if api_backup.without(before, self.OWN_ENDPOINTS) != api_backup.without(after, self.OWN_ENDPOINTS):
            self.client.post(api.INPUT % input_id, api_backup.backup_input_updated(after, self.profiles, input_id))
        _set_own(self.client, input_id, before, after)

    def delete(self, before):
        delete_input(self.client, api.input_id_of(self.raw[before["name"]]))


def _set_own(client, input_id, before, after):
    """A backup's input holds its own-endpoint fields in the device's shape (thumbnails without unset keys)."""
    set_input_own(client, input_id, dict(before, thumbnails=strip_unset(before.get("thumbnails") or {})),
                  dict(after, thumbnails=strip_unset(after.get("thumbnails") or {})))


class RawConverters(Resource):
    """The converters as the analyzer gives them, keyed by ASI port. A stopped converter
    keeps the settings of its last start: to put those back, it is started with them and
    stopped again."""

    key = "port"
    fixed = True

    def read(self):
        return api_backup.backup_converters(self.client)

    def normalise(self, obj):
        return strip_unset(obj)

    def attainable(self, before, target):
        # The analyzer has no way to clear a stopped converter's settings (a stop keeps them,
        # a start needs all of them): settings the backup lacks stay as the device keeps them.
        if target.get("running"):
            return target, []
        kept = {key: before[key] for key in api.CONVERTER_SETTINGS
                if before.get(key) is not None and target.get(key) is None}
        if not kept:
            return target, []
        note = ("converters: ASI port %s: the backup holds the converter stopped without %s; the analyzer keeps"
                " those of the converter's last start (%s) and has no way to clear them: left as they are" % (
                    target["port"], ", ".join(kept), ", ".join("%s=%s" % item for item in kept.items())))
        return dict(target, **kept), [note]

    def update(self, before, after):
        settings = api_backup.backup_converter_settings(after)
        moved = any(before.get(key) != value for key, value in settings.items())
        if None not in settings.values() and (moved or (after.get("running") and not before.get("running"))):
            start_converter(self.client, after["port"], settings)
            before = dict(before, running=True)
        if before.get("running") and not after.get("running"):
            stop_converter(self.client, after["port"])


class _InputsAfterProfiles(Inputs):
    """Inputs that may name profiles the same restore creates just before (in check mode
    those are not on the device yet)."""

    def __init__(self, client, planned):
        super().__init__(client)
        self.planned = planned

    def read(self, wanted_profiles=frozenset()):
        current = super().read(wanted_profiles)
        for name in self.planned:
            self.profiles.setdefault(name, None)
        return current

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's own answers as a backup holds them, and the requests of a restore: the
backup's part of the analyzer's API layer (paths and shapes are api.py's)."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.api import (
    CONVERTERS,
    CONVERTER_SETTINGS,
    FACTORY_PROFILE_ID,
    INPUTS,
    INPUT_OWN_ENDPOINTS,
    INPUT_READ_ONLY,
    LOG_SETTINGS,
    PROFILES,
    SNMP_LISTS,
    SNMP_SETTINGS,
    input_name_of,
    profile_id_of,
    profile_ids,
    profile_name_of,
)


#: what the analyzer reports of an input that is not configuration (its id is device-local)
INPUT_NOT_CONFIG = INPUT_READ_ONLY


def without(obj, keys):
    return {key: value for key, value in obj.items() if key not in keys}


def address_key(address):
    """IPv4 addresses (with an optional :port) in numeric order; anything else after them."""
    host, colon, port = str(address).partition(":")
    parts = host.split(".")
    if len(parts) == 4 and all(p.isdigit() for p in parts) and (not colon or port.isdigit()):
        return (0, tuple(int(p) for p in parts), int(port or 0), "")
    return (1, (), 0, str(address))


def snmp_ordered(settings):
    """The SNMP settings with their address lists sorted: the order of these lists means nothing."""
    return dict(settings, **{key: sorted(settings[key], key=address_key)
                             for key in SNMP_LISTS if isinstance(settings.get(key), list)})


def entries_sorted(profile):
    """A profile with its entries in error-name order: their order means nothing, and a
    device may list them in any (equal profiles give equal backups)."""
    entries = profile.get("entries")
    if isinstance(entries, list) and all(isinstance(e, dict) for e in entries):
        profile = dict(profile, entries=sorted(entries, key=lambda e: str(e.get("error_name"))))
    return profile


def portable_input(raw, profile_names):
    """An input with its alert profile named (``alerts_config.profile_id`` holds the name):
    profile ids are the device's own."""
    alerts = dict(raw.get("alerts_config") or {})
    pid = alerts.get("profile_id")
    alerts["profile_id"] = profile_names.get(pid, "#%s" % pid)
    return dict(raw, alerts_config=alerts)


def backup_raw(client):
    """The analyzer's configuration as a backup holds it (``raw``): its answers without what
    changes by itself, lists in a stable order."""
    settings = snmp_ordered(client.get(SNMP_SETTINGS))
    # Ids are the device's own (assigned at creation): profiles are listed in id order (the
    # factory profile first) without them, and inputs name their profile.
    profiles = sorted(client.get(PROFILES), key=profile_id_of)
    names = {profile_id_of(p): profile_name_of(p) for p in profiles}
    return {
        "profiles": [entries_sorted(without(p, ("id",))) for p in profiles],
        "inputs": sorted((portable_input(without(raw, INPUT_NOT_CONFIG), names)
                          for raw in client.get(INPUTS)), key=input_name_of),
        "snmp": settings,
        "converters": sorted(client.get(CONVERTERS), key=lambda c: c["port"]),
        "log_settings": client.get(LOG_SETTINGS),
    }


def backup_profiles(client, factory_name=None):
    """``(current, ids, names)`` of ``GET /profiles`` for a restore, keyed by name, the
    factory profile under ``factory_name`` (the backup's name for it) whatever its own;
    ``ids`` and ``names`` the device's id and name of each key."""
    current, ids, names = {}, {}, {}
    for raw in client.get(PROFILES):
        factory = profile_id_of(raw) == FACTORY_PROFILE_ID and factory_name
        key = factory_name if factory else profile_name_of(raw)
        ids[key], names[key] = profile_id_of(raw), profile_name_of(raw)
        current[key] = dict(without(raw, ("id",)), name=key)
        if key != profile_name_of(raw):  # the factory profile under another name: differs, renamed by update
            current[key]["renamed_from"] = profile_name_of(raw)
    return current, ids, names


def backup_profile_body(obj):
    """The body that creates a profile of a backup: the profile as the backup holds it."""
    return dict(obj)


def backup_profile_update(before, after, device_name):
    """The body of a profile update that makes ``before`` (named ``device_name`` on the
    device) ``after``: the fields that change, and the entries that change."""
    body = {key: value for key, value in after.items() if key != "entries" and before.get(key) != value}
    if device_name != after["name"]:
        body["name"] = after["name"]
    old = {e.get("error_name"): e for e in before.get("entries", [])}
    entries = [e for e in after.get("entries", []) if old.get(e.get("error_name")) != e]
    if entries:
        body["entries"] = entries
    return body


def backup_inputs(client):
    """``(profile ids by name, raw inputs by name, inputs as a backup holds them by name)``."""
    profiles = profile_ids(client.get(PROFILES))
    names = {pid: name for name, pid in profiles.items()}
    raw_inputs, current = {}, {}
    for raw in client.get(INPUTS):
        raw_inputs[input_name_of(raw)] = raw
        current[input_name_of(raw)] = portable_input(without(raw, INPUT_NOT_CONFIG), names)
    return profiles, raw_inputs, current


def backup_input_body(obj, profiles):
    """An input of a backup as the body that creates or updates it (its profile by id)."""
    body = without(obj, INPUT_OWN_ENDPOINTS)
    body["alerts_config"] = dict(obj["alerts_config"], profile_id=profiles[obj["alerts_config"]["profile_id"]])
    return body


def backup_input_updated(obj, profiles, input_id):
    return dict(backup_input_body(obj, profiles), input_id=input_id)


def backup_converters(client):
    """``GET /converters`` by ASI port."""
    return {raw["port"]: raw for raw in client.get(CONVERTERS)}


def backup_converter_settings(obj):
    """A converter's settings (the body of its start), None where the object has none."""
    return {key: obj.get(key) for key in CONVERTER_SETTINGS}


def backup_answers(raw):
    """``(answers, names)`` of a backup's ``raw``: the answer of each GET the resource modules
    read, rebuilt from it; ``names`` maps ``(kind, id)`` to the object's name for the ids the
    analyzer assigns itself (inputs and profiles), which a backup does not keep: they are
    numbered here as the device lists them."""
    names, ids = {}, {}
    profiles = []
    # listed in id order, the factory profile first: numbered from the factory profile's id
    for number, profile in enumerate(raw.get("profiles") or [], start=FACTORY_PROFILE_ID):
        profiles.append(dict(profile, id=number))
        names[("profile", number)] = profile_name_of(profile)
        ids[profile_name_of(profile)] = number
    inputs = []
    for number, element in enumerate(raw.get("inputs") or [], start=1):
        alerts = dict(element.get("alerts_config") or {})
        named = alerts.get("profile_id")
        if named in ids:
            alerts["profile_id"] = ids[named]
        elif isinstance(named, str) and named.startswith("#") and named[1:].isdigit():
            alerts["profile_id"] = int(named[1:])  # a profile the device did not list
        inputs.append(dict(element, id=number, alerts_config=alerts))
        names[("input", number)] = input_name_of(element)
    answers = {PROFILES: profiles, INPUTS: inputs, SNMP_SETTINGS: raw.get("snmp") or {},
               CONVERTERS: raw.get("converters") or []}
    return answers, names

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A device's whole configuration as one document, and its restore.

The document is read and applied through the same resources and system functions as the
other modules, so a restore is idempotent like them: restoring twice changes nothing.
It holds no password or token, and nothing that changes by itself (no timestamp, no
clock, no measurement), so two backups of an unchanged device are equal byte for byte.
"""

from __future__ import annotations

import json
import types

from ansible_collections.broadcast.monitoring.plugins.module_utils import fm_device, system
from ansible_collections.broadcast.monitoring.plugins.module_utils.client import DeviceError
from ansible_collections.broadcast.monitoring.plugins.module_utils.engine import InputError, PartialFailure, reconcile, write_settings
from ansible_collections.broadcast.monitoring.plugins.module_utils.ts_resources import (
    Converters,
    Inputs,
    Profiles,
    snmp,
)

FORMAT = "broadcast.monitoring.backup/1"
#: keys of a device's time settings that are configuration (the clock itself is not)
TIME_KEYS = ("ntp", "ntp_servers", "timezone")


# -- taking a backup -----------------------------------------------------------------------
def take(client, device):
    """The backup document of one device."""
    time_settings = device.read_time(client)
    doc = {
        "format": FORMAT,
        "device_type": device.KIND,
        "firmware_version": device.read_firmware_version(client),
        "system": {
            "network": device.read_network(client),
            "time": {key: time_settings[key] for key in TIME_KEYS},
            "logging": device.read_logging(client),
        },
    }
    doc["config"] = _ts_config(client) if device.KIND == "ts_analyzer" else {"conf": client.get(fm_device.CONF)}
    return doc


def _ts_config(client):
    return {
        "alert_profiles": list(Profiles(client).read().values()),
        "inputs": list(Inputs(client).read().values()),
        "snmp": snmp(client, {"enabled": None, "lists": "replace"}, check_mode=True)["after"],
        "converters": list(Converters(client).read().values()),
    }


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
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise InputError(["%s: not a backup document of this collection (format %s expected)" % (where, FORMAT)])
    if doc.get("device_type") != device.KIND:
        raise InputError(["%s: a backup of a %s cannot be restored to a %s" % (where, doc.get("device_type"), device.KIND)])
    return doc


#: the order in which sections are restored
TS_SECTIONS = ("alert_profiles", "inputs", "snmp", "converters", "time", "logging", "network")


def restore(module, doc, network):
    """Apply ``doc`` to the device; ``network`` also restores address and hostname (they
    take effect at the next reboot). Returns the module result, with a diff per section.
    A failure on the way says which sections were restored and which were not."""
    sections = _Sections()
    try:
        _restore(module, doc, network, sections)
    except (DeviceError, PartialFailure) as err:
        raise _restore_failure(err, sections, module.device, network) from None
    changed = [name for name, result in sections.items() if result["changed"]]
    lost = [dict(item, section=name) for name, result in sections.items() for item in result.get("lost_answers", [])]
    return {
        **({"lost_answers": lost} if lost else {}),
        "changed": bool(changed),
        "changed_sections": changed,
        "diff": {"before": {n: r["diff"]["before"] for n, r in sections.items() if r["changed"]},
                 "after": {n: r["diff"]["after"] for n, r in sections.items() if r["changed"]}},
    }


class _Sections(dict):
    """Each restored section's result, and the section being restored (a failure names it;
    the alert profiles are visited twice, so "the first one without a result" is not it)."""

    running = None

    def run(self, name, step):
        self.running = name
        self[name] = step()
        return self[name]


def _restore(module, doc, network, sections):
    client, device, check_mode = module.client, module.device, module.check_mode
    if device.KIND != "ts_analyzer":
        # The monitor's /conf holds everything, time, logging and network included.
        sections.run("conf", lambda: _restore_fm(client, doc, network, check_mode))
        return
    _restore_ts(client, doc["config"], check_mode, sections)
    settings = doc["system"]
    clock = dict(settings["time"], datetime=None, max_clock_drift=0)  # the clock itself is not restored
    sections.run("time", lambda: system.manage_time(_context(module, clock)))
    sections.run("logging", lambda: system.manage_logging(_context(module, settings["logging"])))
    if network:
        sections.run("network", lambda: system.manage_network(_context(module, dict(
            settings["network"], reboot=False, wait_host=None, reboot_timeout=0, host=module.params["host"]))))


def _restore_failure(err, sections, device, network):
    """A PartialFailure by section: those restored (or found right already), the one that
    failed (with its own written / not written objects), and those not reached."""
    order = TS_SECTIONS if device.KIND == "ts_analyzer" else ("conf",)
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


def _restore_ts(client, config, check_mode, sections):
    """Restore the analyzer's configuration, filling ``sections`` as each part is done."""
    profiles = config["alert_profiles"]
    names = [p["name"] for p in profiles]
    # Profiles first (inputs name them), inputs next, and only then the profiles that the
    # backup does not have are deleted, when no input uses them any more.
    put = sections.run("alert_profiles", lambda: reconcile(Profiles(client), profiles, "replaced", check_mode))
    sections.run("inputs", lambda: reconcile(_InputsAfterProfiles(client, names), config["inputs"], "overridden",
                                             check_mode))
    sections.run("alert_profiles", lambda: _joined(put, reconcile(Profiles(client), profiles, "overridden", check_mode)
                                                   if not check_mode else _plan_prune(put, names)))
    sections.run("snmp", lambda: snmp(client, dict(config["snmp"], lists="replace"), check_mode))
    sections.run("converters", lambda: reconcile(Converters(client), config["converters"], "replaced", check_mode))


def _plan_prune(put, names):
    """What the deleting pass would do, planned from the first pass (check mode)."""
    extra = [p for p in put["before"] if p["name"] not in names]
    after = [p for p in put["after"] if p["name"] in names]
    return {"changed": bool(extra), "diff": {"before": {p["name"]: p for p in put["after"]},
                                             "after": {p["name"]: p for p in after}}}


def _joined(first, second):
    return {"changed": first["changed"] or second["changed"],
            "diff": {"before": first["diff"]["before"], "after": second["diff"]["after"]}}


def _restore_fm(client, doc, network, check_mode):
    current = client.get(fm_device.CONF)
    wanted = dict(doc["config"]["conf"])
    if not network:  # keep the unit's own address and name
        wanted.update(network=current["network"], hostname=current["hostname"])
    changed = wanted != current
    lost = []
    if changed and not check_mode:
        lost = write_settings(lambda body: client.post(fm_device.CONF, body), wanted, lambda: client.get(fm_device.CONF))
    return {"changed": changed, "diff": {"before": current, "after": wanted},
            **({"lost_answers": [dict(item, key="conf") for item in lost]} if lost else {})}

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Restoring a backup (format.py describes the document): the sections in the order the
device's registry of parts gives (_parts.restore_order), each compared before it is written,
like the modules, so restoring twice changes nothing. The devices' own sections: _ts/restore.py,
_fm/restore.py, loaded once the device is known (_devices.py)."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils import _system as system
from ansible_collections.broadcast.monitoring.plugins.module_utils._backup.format import FORMAT_1, backup_firmware
from ansible_collections.broadcast.monitoring.plugins.module_utils._backup.sections import Sections, restore_settings
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import Conflict, DeviceError, PartialFailure
from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import restore_passes


def check_firmware(client, api, doc, policy):
    """Compare the backup's firmware with the device's before anything is written: a
    configuration read from one version may not mean the same on another. ``policy``:
    fail (stop, nothing written), warn (go on, say so) or ignore. Returns both versions and
    the warnings."""
    wanted = backup_firmware(doc)
    running = api.read_firmware_version(client)
    found = {"backup": wanted, "device": running}
    if wanted == running or policy == "ignore":
        return found, []
    message = ("firmware: the backup was taken on firmware %s, this device runs %s" % (wanted, running))
    if policy == "warn":
        return found, [message + "; restored anyway (firmware_mismatch=warn)"]
    raise Conflict([message + "; upgrade the device to %s first (device_firmware, or the restore role's"
                    " restore_firmware_bundle), or set firmware_mismatch=warn (or ignore) to restore anyway" % wanted])


def restore(client, api, doc, network, check_mode, host, firmware_mismatch="fail"):
    """Apply ``doc`` to the device; ``network`` also restores address and hostname (they
    take effect at the next reboot; ``host``: where the device is reached now). Returns the
    module result, with a diff per section. A failure on the way says which sections were
    restored and which were not."""
    firmware, warnings = check_firmware(client, api, doc, firmware_mismatch)
    sections = Sections()
    try:
        _restore(client, api, doc, network, check_mode, host, sections)
    except (DeviceError, PartialFailure) as err:
        failure = _restore_failure(err, sections, api, network, doc)
        failure.warnings = warnings  # said with the failure too (_module.py)
        raise failure from None
    changed = [name for name, result in sections.items() if result["changed"]]
    lost = [dict(item, section=name) for name, result in sections.items() for item in result.get("lost_answers", [])]
    warnings += sections.warnings
    return {
        **({"lost_answers": lost} if lost else {}),
        "changed": bool(changed),
        "changed_sections": changed,
        "firmware": firmware,
        **({"not_planned": list(sections.not_planned)} if sections.not_planned else {}),
        **({"warnings": warnings} if warnings else {}),
        "diff": {"before": {n: r["diff"]["before"] for n, r in sections.items() if r["changed"]},
                 "after": {n: r["diff"]["after"] for n, r in sections.items() if r["changed"]}},
    }


def _restore(client, api, doc, network, check_mode, host, sections):
    settings = doc["system"]
    # the device's own sections first (the FM monitor's /conf may end the restore there)
    steps = devices.restore(api.KIND).steps(client, doc, network, check_mode, sections)
    if steps is None:
        return
    clock = dict(settings["time"], datetime=None, max_clock_drift=0)  # the clock itself is not restored
    steps["time"] = lambda: system.manage_time(client, api, clock, check_mode)
    if doc["format"] == FORMAT_1:
        steps["logging"] = lambda: system.manage_logging(client, api, settings["logging"], check_mode)
    else:  # verbatim: the device's own fields and values, whatever this collection knows of them
        steps["logging"] = lambda: restore_settings(client, api.LOG_SETTINGS, doc["raw"]["log_settings"],
                                                    check_mode)
    if network:
        steps["network"] = lambda: system.manage_network(client, api, dict(
            settings["network"], reboot=False, wait_host=None, reboot_timeout=0, host=host), check_mode)
    # in the registry's restore order, a part's second pass right after the part it waits for
    for name, second in restore_passes(devices.parts(api.KIND)):
        step = steps.get((name, True) if second else name)
        if step is not None:  # (network only when asked; format 1 has no more than these)
            sections.run(name, step)


def _restore_failure(err, sections, api, network, doc):
    """A PartialFailure by section: those restored (or found right already), the one that
    failed (with its own written / not written objects), and those not reached."""
    order = [name for name in devices.restore(api.KIND).section_order(doc) if network or name != "network"]
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

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the validate role checks on an analyzer: its declared inputs receive without TR 101 290
priority-1 errors, and its SNMP trap receivers are the declared ones.

``check(kind, key, object, ok, message, skipped=None)`` is the filter's builder of one check."""

from __future__ import annotations

#: the kinds of check made of this device type, in report order (O(skip) and O(waive) take them)
CHECKS = ("input_receiving", "input_priority1", "snmp_traps")


def checks(declared, reading, check):
    """The checks of the declared inputs and SNMP settings on one reading of the analyzer."""
    snapshot = reading.get("snapshot") or {}
    by_name = {}
    for item in snapshot.get("inputs") or []:
        by_name.setdefault(item.get("name"), item)  # the first of inputs sharing a name, as the roles do
    out = []
    for entry in declared.get("inputs") or []:
        if not isinstance(entry, dict) or entry.get("name") is None:
            continue
        name = str(entry["name"])
        obj = "input %s" % name
        item = by_name.get(name)
        monitoring = entry.get("monitoring")
        if monitoring == "stopped" or (monitoring is None and item is not None and item.get("monitoring") is False):
            reason = "monitoring declared stopped" if monitoring == "stopped" else \
                "monitoring paused on the device and not declared"
            out.append(check("input_receiving", name, obj, True, reason, skipped=True))
            out.append(check("input_priority1", name, obj, True, reason, skipped=True))
            continue
        if item is None:
            message = "%s: declared, not on the device" % obj
            out.append(check("input_receiving", name, obj, False, message))
            out.append(check("input_priority1", name, obj, False, message))
            continue
        obj = "input %s (id %s)" % (name, item.get("id"))
        receiving = item.get("state") == "ok" and (item.get("bitrate") or 0) > 0
        out.append(check("input_receiving", name, obj, receiving,
                         "%s: receives its stream (%s bit/s)" % (obj, item.get("bitrate")) if receiving else
                         "%s: does not receive its stream (state %s, bitrate %s bit/s)" % (
                             obj, item.get("state"), item.get("bitrate"))))
        errors = item.get("priority1_errors") or []
        clean = item.get("priority1") == "ok"
        out.append(check("input_priority1", name, obj, clean,
                         "%s: no TR 101 290 priority-1 error" % obj if clean else
                         "%s: TR 101 290 priority-1 %s (%s)" % (obj, item.get("priority1"),
                                                                ", ".join(str(e) for e in errors) or "no error named")))
    snmp = declared.get("snmp")
    if isinstance(snmp, dict) and ("trap_addresses" in snmp or "enabled" in snmp):
        out.append(_snmp_check(snmp, bool(declared.get("purge_snmp")), reading.get("snmp"), check))
    return out


def _snmp_check(snmp, purge, device, check):
    if not isinstance(device, dict):
        return check("snmp_traps", None, "device", False, "SNMP settings not read")
    problems = []
    if snmp.get("enabled") is not None and bool(snmp["enabled"]) != bool(device.get("enabled")):
        problems.append("the agent is %s, declared %s" % (
            "on" if device.get("enabled") else "off", "on" if snmp["enabled"] else "off"))
    wanted = [str(a) for a in snmp.get("trap_addresses") or []]
    have = [str(a) for a in device.get("trap_addresses") or []]
    missing = [a for a in wanted if a not in have]
    if missing:
        problems.append("trap receivers missing: %s" % ", ".join(missing))
    extra = [a for a in have if a not in wanted]
    if purge and "trap_addresses" in snmp and extra:
        problems.append("trap receivers not declared: %s" % ", ".join(extra))
    # what the device has and what was declared, each as it is: an undeclared receiver is not
    # "as declared" (without purge it is left, and the message names it apart)
    said = "the device has %s; declared %s" % (", ".join(have) or "none",
                                               ", ".join(wanted) if "trap_addresses" in snmp else "no list")
    if problems:
        return check("snmp_traps", None, "device", False, "SNMP: %s (trap receivers: %s)" % ("; ".join(problems), said))
    left = ("; not declared, left on the device: %s" % ", ".join(extra)) if extra and "trap_addresses" in snmp else ""
    return check("snmp_traps", None, "device", True, "SNMP trap receivers: %s%s" % (said, left))

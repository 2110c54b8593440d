# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The validation_result filter: the checks of the validate role, from the declared state and
one or two readings of a device."""

from __future__ import annotations

DOCUMENTATION = r"""
name: validation_result
short_description: Whether a device does what its declared state says, from one or two readings of it
version_added: 1.0.0
description:
  - Derives the checks of one device from the variables the device roles apply (the C(validate) role passes them) and
    evaluates them on readings of the device. A check that fails in the first reading counts as failed only when it
    fails in the second reading too; one that passes there is passed, its message saying that it failed once.
  - Analyzer - per declared input whose monitoring is V(started) (or not declared, while the device monitors it),
    V(input_receiving) (the input is on the device, its state is C(ok) and its bitrate above zero) and
    V(input_priority1) (no TR 101 290 priority-1 error current). V(snmp_traps) when C(snmp.trap_addresses) or
    C(snmp.enabled) is declared (the declared trap receivers are configured, exactly those with C(purge_snmp)).
  - FM monitor - per declared tuner whose operating state is V(enabled) (or not declared, while the device reports it
    enabled, as an active schedule leaves it), V(tuner_signal) (tuned and C(signal_ok)) and, where streaming is
    declared, V(tuner_streaming). A tuner declared V(sleep) or V(disabled) is not checked.
  - Both - V(firmware) when C(firmware_version) is declared.
  - Each check has an id, its kind alone for a device-wide check (V(firmware)) or the kind and the input name or tuner id
    in brackets (V(input_receiving[Mux 1]), V(tuner_signal[0])). O(skip) and O(waive) take kinds or ids.
  - The result holds no secret (it goes into reports and the job's artifact) - a password or token the controller
    knows (from the BROADCAST_MONITORING_PASSWORD, _TOKEN or _NEW_PASSWORD environment variables), a field named like
    a secret and the user-info of a URL are masked, as in every output of the collection.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
positional: _input, declared
options:
  _input:
    description:
      - The readings of the device, first to last (one or two). A reading is C(snapshot) (the RV(broadcast.monitoring.device_snapshot#module:snapshot)
        of the device) and, on an analyzer, C(snmp) (the C(snmp) of M(broadcast.monitoring.ts_info)); or C(error),
        the message of a reading that failed, which fails the check V(device_answers) (the device did not answer).
      - With C(error), C(task) names the task that failed and C(error_details) is the C(error) of its result (the
        modules of this collection give one, with its C(kind), when the device did not answer or answered an error).
        When C(task) is given and C(error_details) is not such a device error, the failure is Ansible's or the
        collection's, not the device's, and it fails the result as V(task_error), which names the task and cannot be
        waived or skipped.
    type: list
    elements: dict
    required: true
  declared:
    description:
      - C(device_type) (V(ts_analyzer) or V(fm_monitor)) and what the device roles' variables declare - C(inputs)
        (C(ts_analyzer_inputs)), C(snmp) (C(ts_analyzer_snmp)), C(purge_snmp) (whether the role purges SNMP lists),
        C(tuners) (C(fm_monitor_tuners)), C(tuners_all) (C(fm_monitor_tuners_all)) and C(firmware_version) (empty
        for none).
    type: dict
    required: true
  skip:
    description: Check kinds or ids not evaluated (listed as skipped).
    type: list
    elements: str
    default: []
  waive:
    description: Check kinds or ids whose failure is listed as waived and does not fail the device.
    type: list
    elements: str
    default: []
  host:
    description: The inventory name of the device, copied into the result.
    type: str
    default: ""
  skip_variable:
    description: How messages name the variable of O(skip).
    type: str
    default: skip
  waive_variable:
    description: How messages name the variable of O(waive).
    type: str
    default: waive
"""

EXAMPLES = r"""
- name: Evaluate the checks on one reading
  ansible.builtin.set_fact:
    result: "{{ [{'snapshot': reading.snapshot}] | broadcast.monitoring.validation_result({'device_type': 'fm_monitor',
                'tuners': fm_monitor_tuners}) }}"
"""

RETURN = r"""
_value:
  description:
    - C(host), C(device_type), C(status) (V(passed), or V(failed) when a check failed and is not waived),
      C(counts) (per status) and C(checks), each with C(id), C(check) (the kind), C(object) (C(device), or the input or
      tuner), C(status) (V(passed), V(failed), V(waived) or V(skipped)) and C(message).
    - The input and tuner names are the device's and the inventory's text, returned as they are.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import masked

#: every check kind, in report order: the device-wide ones, and each device type's (its validation.py)
KINDS = ("device_answers",) + tuple(kind for device_type in devices.every() for kind in device_type.validation().CHECKS) \
    + ("firmware",)
STATUSES = ("passed", "failed", "waived", "skipped")
#: a reading that failed with an error not of the device: no check kind, so neither skipped nor waived
TASK_ERROR = "task_error"


def _check(kind, key, obj, ok, message, skipped=None):
    return {"id": kind if key is None else "%s[%s]" % (kind, key), "check": kind, "object": obj, "ok": ok,
            "message": message, "not_applicable": skipped}


def _device_failed(reading):
    """Whether the failed reading failed for the device (no answer, or an error answer): a
    module of this collection says so with ``error.kind``; without a task named, as before."""
    details = reading.get("error_details")
    return reading.get("task") is None or (isinstance(details, dict) and details.get("kind") is not None)


def _checks(declared, reading):
    if reading.get("error") is not None:
        if not _device_failed(reading):
            return [_check(TASK_ERROR, None, "validation", False, "the validation could not run: task '%s' failed with"
                           " an error of Ansible or of this collection, not of the device: %s"
                           % (reading["task"], reading["error"]))]
        return [_check("device_answers", None, "device", False, "the device did not answer: %s" % reading["error"])]
    device_type = declared.get("device_type")
    out = [_check("device_answers", None, "device", True, "the device answered")]
    out += devices.device_type(device_type).validation().checks(declared, reading, _check)
    wanted = str(declared.get("firmware_version") or "")
    if wanted:
        have = str((reading.get("snapshot") or {}).get("firmware_version"))
        out.append(_check("firmware", None, "device", have == wanted,
                          "firmware %s, the declared baseline" % have if have == wanted else
                          "firmware %s, declared baseline %s" % (have, wanted)))
    return out


def _named(entries, check):
    return next((entry for entry in entries if entry in (check["check"], check["id"])), None)


def validation_result(readings, declared, skip=None, waive=None, host="", skip_variable="skip", waive_variable="waive"):
    """The result of the checks of ``declared`` on ``readings`` (one or two)."""
    if not isinstance(readings, (list, tuple)) or not readings or not all(isinstance(r, dict) for r in readings):
        raise AnsibleFilterError("validation_result: the readings must be a list of one or two dictionaries")
    if not isinstance(declared, dict) or not devices.known(declared.get("device_type")):
        raise AnsibleFilterError("validation_result: declared: device_type must be one of %s" % ", ".join(devices.NAMES))
    skip, waive = list(skip or []), list(waive or [])
    unknown = [str(e) for e in skip + waive if not isinstance(e, str) or e.split("[", 1)[0] not in KINDS]
    if unknown:
        raise AnsibleFilterError("validation_result: %s/%s: unknown check(s) %s; the checks are %s" % (
            skip_variable, waive_variable, ", ".join(unknown), ", ".join(KINDS)))
    first = _checks(declared, readings[0])
    later = {c["id"]: c for c in _checks(declared, readings[-1])} if len(readings) > 1 else {}
    checks = []
    for check in first:
        out = {"id": check["id"], "check": check["check"], "object": check["object"]}
        skipped_by = _named(skip, check)
        if skipped_by is not None:
            out.update(status="skipped", message="skipped by %s: %s" % (skip_variable, skipped_by))
        elif check["not_applicable"]:
            out.update(status="skipped", message="not checked: %s" % check["message"])
        elif check["ok"]:
            out.update(status="passed", message=check["message"])
        elif check["id"] in later and later[check["id"]]["ok"]:
            out.update(status="passed", message="%s (it failed at the first reading: %s)" % (
                later[check["id"]]["message"], check["message"]))
        else:
            message = (later.get(check["id"]) or check)["message"]
            waived_by = _named(waive, check)
            if check["check"] == TASK_ERROR:
                out.update(status="failed", message="%s (not a device problem: fix it or report it)" % message)
            elif waived_by is not None:
                out.update(status="waived", message="%s (waived by %s: %s)" % (message, waive_variable, waived_by))
            else:
                confirmed = " in both readings" if len(readings) > 1 else ""
                out.update(status="failed", message="%s%s; if this is expected, waive it with %s: [%s]" % (
                    message, confirmed, waive_variable, check["id"]))
        checks.append(out)
    counts = {status: sum(1 for c in checks if c["status"] == status) for status in STATUSES}
    # the reports and the job's artifact are made of it: no secret in it (_errors.masked)
    return masked({"host": host, "device_type": declared["device_type"],
                   "status": "failed" if counts["failed"] else "passed", "counts": counts, "checks": checks})


class FilterModule:
    def filters(self):
        return {"validation_result": validation_result}

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet status (roles/fleet_status, playbooks/fleet_status.yml, playbooks/report.yml): each
device's reading (a device_snapshot, or why there is none) with the latest audit, validation and
rollout results, as one document (fleet-status.json), as Prometheus metrics (fleet-status.prom)
and as one self-contained page (fleet-status.html, _fleet_status_page.py).

Everything a device or an artifact says is data: the page escapes it (autoescape), the metrics
escape it as label values (prometheus_client), and nothing here is ever templated by Ansible.
"""

from __future__ import annotations

import datetime
import re

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import masked
from ansible_collections.broadcast.monitoring.plugins.module_utils._swu import compare_versions

FORMAT = "broadcast.monitoring.fleet_status/1"

#: What the status knows per device type, from the registry of device types (_devices.py): its
#: label, what its items are called, and its folder's status.py (how an item reads, how the
#: page sums the items up).
DEVICE_TYPES = {kind.NAME: {"label": kind.LABEL, "items": kind.ITEMS, "item": kind.ITEM, "status": kind.status()}
                for kind in devices.every()}
#: device states, worst first: the page and the JSON list devices in this order
STATES = ("critical", "unreachable", "warning", "ok")
#: the validation and rollout outcomes that are a problem of the device
VALIDATION_PROBLEMS = ("failed",)
ROLLOUT_PROBLEMS = ("regression", "upgrade failed", "bundle refused")


def declared_variable(kind):
    """The device role's variable whose items the status counts as declared (``<type>_<part>``,
    the part its folder's status.py names), or None for a device type that declares none."""
    part = DEVICE_TYPES[kind]["status"].DECLARED if kind in DEVICE_TYPES else None
    return "%s_%s" % (kind, part) if part else None


def reading(kind, groups, declared, snapshot=None, error=""):
    """A device's reading (the fact ``fleet_status_reading``): its snapshot, or why there is none
    (``error``); ``declared`` the value of its declared_variable (None when not set)."""
    return {"device_type": kind, "groups": list(groups),
            "declared": len(declared) if isinstance(declared, (list, dict)) else None,
            "read_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "snapshot": snapshot if not error else None, "error": error}


def page_views():
    """What the page shows per device type (_fleet_status_page.page): its label, the heading of
    its items, whether they have priority-1 errors, and how a device's items are summed up."""
    return {name: {"label": kind["label"], "items_label": kind["status"].ITEMS_LABEL,
                   "priority1": kind["status"].PRIORITY1, "summary": kind["status"].items_summary}
            for name, kind in DEVICE_TYPES.items()}


def _text(value):
    """A value from outside as plain text (never None)."""
    return "" if value is None else str(value)


def _audit(result):
    """The last audit of a device: {status, sections} (status in_sync, drift, failed)."""
    if not isinstance(result, dict):
        return {"status": "not_audited", "sections": [], "message": ""}
    if "failed" in result:
        return {"status": "failed", "sections": [], "message": _text(result.get("failed"))}
    sections = [_text(e.get("section")) for e in result.get("drift") or [] if isinstance(e, dict) and e.get("changed")]
    return {"status": "drift" if sections else "in_sync", "sections": sections, "message": ""}


def _validation(result):
    if not isinstance(result, dict):
        return None
    counts = result.get("counts") if isinstance(result.get("counts"), dict) else {}
    failed = [_text(c.get("message")) for c in result.get("checks") or []
              if isinstance(c, dict) and c.get("status") == "failed"]
    return {"status": _text(result.get("status")) or "unknown", "failed": counts.get("failed", len(failed)),
            "messages": failed}


def _rollout(result):
    if not isinstance(result, dict):
        return None
    return {"status": _text(result.get("status")) or "unknown", "message": _text(result.get("message"))}


def device_entry(name, reading, audit=None, validation=None, rollout=None):
    """One device's row: its reading (the fleet_status role's fleet_status_reading) with its last
    audit, validation and rollout results; firmware_outdated is set by document()."""
    reading = reading if isinstance(reading, dict) else {}
    kind = _text(reading.get("device_type"))
    snapshot = reading.get("snapshot") if isinstance(reading.get("snapshot"), dict) else None
    reachable = snapshot is not None
    entry = {
        "name": _text(name), "type": kind, "type_label": DEVICE_TYPES.get(kind, {}).get("label", kind),
        "groups": sorted(_text(g) for g in reading.get("groups") or []),
        "reachable": reachable, "error": "" if reachable else _text(reading.get("error")) or "no reading",
        "read_at": _text(reading.get("read_at")),
        "model": _text((snapshot or {}).get("model")), "firmware_version": _text((snapshot or {}).get("firmware_version")),
        "firmware_outdated": False, "reboot_pending": bool((snapshot or {}).get("reboot_needed")),
        "items": [], "working": 0, "in_use": 0, "declared": reading.get("declared"),
        "priority1_errors": 0, "alarms_active": 0,
        "audit": _audit(audit), "validation": _validation(validation), "rollout": _rollout(rollout),
    }
    if reachable and kind in DEVICE_TYPES:
        items = [DEVICE_TYPES[kind]["status"].item(raw) for raw in snapshot.get(DEVICE_TYPES[kind]["items"]) or [] if isinstance(raw, dict)]
        entry.update(items=items, working=sum(1 for i in items if i["working"]),
                     in_use=sum(1 for i in items if i["in_use"]),
                     priority1_errors=sum(len(i["priority1_errors"]) for i in items),
                     alarms_active=sum(len(i["alarms"]) for i in items))
    return entry


def _problems(entry):
    """(state, problems) of a device entry: what is wrong, worst first."""
    if not entry["reachable"]:
        return "unreachable", ["unreachable: %s" % entry["error"]]
    critical, warning = [], []
    item_word = DEVICE_TYPES.get(entry["type"], {}).get("item", "item")
    for item in entry["items"]:
        if item["problem"]:
            (critical if item["critical"] else warning).append("%s %s: %s" % (item_word, item["name"], item["problem"]))
    declared = entry["declared"]
    if isinstance(declared, int) and not isinstance(declared, bool) and declared != len(entry["items"]):
        warning.append("%d %s(s) declared, %d on the device" % (declared, item_word, len(entry["items"])))
    if entry["firmware_outdated"]:
        warning.append("firmware %s is older than the newest in the fleet" % entry["firmware_version"])
    if entry["reboot_pending"]:
        warning.append("reboot pending")
    if entry["audit"]["status"] == "drift":
        warning.append("drift from the declared state: %s" % ", ".join(entry["audit"]["sections"]))
    elif entry["audit"]["status"] == "failed":
        warning.append("audit failed: %s" % entry["audit"]["message"])
    if entry["validation"] and entry["validation"]["status"] in VALIDATION_PROBLEMS:
        warning.append("validation failed (%s check(s))" % entry["validation"]["failed"])
    if entry["rollout"] and entry["rollout"]["status"] in ROLLOUT_PROBLEMS:
        warning.append("firmware rollout: %s" % entry["rollout"]["status"])
    return ("critical" if critical else "warning" if warning else "ok"), critical + warning


def _newest(versions):
    newest = None
    for version in versions:
        if version and (newest is None or compare_versions(version, newest) == 1):
            newest = version
    return newest


def document(readings, audit=None, validation=None, rollout=None, sources=None, now=None):
    """The fleet status document (fleet-status.json) from {host: reading} and {host: result} of
    the audit, validation and rollout."""
    audit, validation, rollout = audit or {}, validation or {}, rollout or {}
    entries = [device_entry(name, readings[name], audit.get(name), validation.get(name), rollout.get(name))
               for name in sorted(readings, key=_text)]
    newest = {}
    for kind in sorted(set(e["type"] for e in entries)):
        newest[kind] = _newest(e["firmware_version"] for e in entries if e["type"] == kind and e["reachable"]) or ""
    for entry in entries:
        if entry["reachable"] and entry["firmware_version"] and newest.get(entry["type"]):
            entry["firmware_outdated"] = compare_versions(entry["firmware_version"], newest[entry["type"]]) == -1
        entry["state"], entry["problems"] = _problems(entry)
    entries.sort(key=lambda e: (STATES.index(e["state"]), e["name"]))
    taken = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    # an output like any other: no known secret in it, whatever a device or an artifact said (the
    # document's own field names are none of the secret fields; a host's name is a value here)
    return masked({
        "format": FORMAT, "generated_at": taken, "sources": sources or {},
        "newest_firmware": newest,
        "counts": dict([("devices", len(entries))] + [(s, sum(1 for e in entries if e["state"] == s)) for s in STATES]),
        "devices": entries,
    })


# Prometheus metrics --------------------------------------------------------------------------

PREFIX = "broadcast_monitoring_"


def _timestamp(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp()
    except (TypeError, ValueError):
        return None


def metric_families(doc):
    """The document as prometheus_client metric families (gauges), one sample per device, input
    or tuner, labelled device and type (and input or tuner)."""
    from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily  # controller side only

    def gauge(name, documentation, labels=("device", "type")):
        return GaugeMetricFamily(PREFIX + name, documentation, labels=list(labels))

    up = gauge("device_up", "1 when the device answered the status run's reading, 0 when it did not.")
    state = gauge("device_problem", "1 when the status lists a problem of the device (critical, warning or unreachable).")
    read_at = gauge("device_read_timestamp_seconds", "When the device was read (Unix time).")
    receiving = gauge("input_receiving", "1 when the analyzer input receives its stream, 0 when it does not.",
                      ("device", "type", "input"))
    p1 = gauge("input_priority1_errors", "TR 101 290 priority-1 errors current on the analyzer input.",
               ("device", "type", "input"))
    locked = gauge("tuner_locked", "1 when the enabled FM tuner is locked onto its frequency, 0 when it is not.",
                   ("device", "type", "tuner"))
    rssi = gauge("tuner_rssi", "Signal strength the FM tuner measures (the device's RSSI units).",
                 ("device", "type", "tuner"))
    alarms = gauge("alarms_active", "Alarms active on the device now (analyzer errors, tuner quality alarms).")
    drift = gauge("drift", "Sections that differ from the declared state at the last audit (0 in sync).")
    reboot = gauge("reboot_pending", "1 when the device reports a reboot pending.")
    outdated = gauge("firmware_outdated", "1 when the firmware is older than the newest of the fleet's devices of its type.")
    firmware = InfoMetricFamily(PREFIX + "firmware", "Firmware version and model of the device.",
                                labels=["device", "type", "version", "model"])
    validation = gauge("validation_failed", "Checks failed at the device's last validation.")
    for dev in doc.get("devices") or []:
        base = [dev["name"], dev["type"]]
        up.add_metric(base, 1 if dev["reachable"] else 0)
        state.add_metric(base, 0 if dev["state"] == "ok" else 1)
        when = _timestamp(dev.get("read_at"))
        if when is not None:
            read_at.add_metric(base, when)
        if dev["audit"]["status"] in ("drift", "in_sync"):
            drift.add_metric(base, len(dev["audit"]["sections"]))
        if dev["validation"] and isinstance(dev["validation"].get("failed"), int):
            validation.add_metric(base, dev["validation"]["failed"])
        if not dev["reachable"]:
            continue
        alarms.add_metric(base, dev["alarms_active"])
        reboot.add_metric(base, 1 if dev["reboot_pending"] else 0)
        outdated.add_metric(base, 1 if dev["firmware_outdated"] else 0)
        firmware.add_metric(base, {"version": dev["firmware_version"], "model": dev["model"]})
        for item in dev["items"]:
            labels = base + [item["name"] or _text(item["id"])]
            if item["kind"] == "input":
                receiving.add_metric(labels, 1 if item["working"] else 0)
                p1.add_metric(labels, len(item["priority1_errors"]))
            elif item["kind"] == "tuner" and item["in_use"]:
                locked.add_metric(labels, 1 if item["working"] else 0)
                if isinstance(item.get("rssi"), (int, float)) and not isinstance(item.get("rssi"), bool):
                    rssi.add_metric(labels, item["rssi"])
    return [up, state, read_at, receiving, p1, locked, rssi, alarms, drift, reboot, outdated, firmware, validation]


def metrics(doc):
    """The document in the Prometheus text exposition format (node_exporter's textfile collector)."""
    try:
        from prometheus_client import CollectorRegistry, generate_latest
    except ImportError as err:  # a controller-side requirement (requirements.txt)
        raise ImportError("the fleet status metrics need the Python library prometheus_client on the controller"
                          " (pip install prometheus-client): %s" % err) from err

    class _Collector:
        def collect(self):
            return metric_families(doc)

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector())
    return generate_latest(registry).decode("utf-8")


def merge_artifacts(artifacts):
    """{host: value} merged from {variable name: {host: value}} in the order of the AWX job ids
    their names end with (``broadcast_monitoring_status``, ``broadcast_monitoring_status_42``):
    a device's latest job wins."""
    def job(name):
        found = re.search(r"_([0-9]+)$", name)
        return int(found.group(1)) if found else 0
    merged = {}
    for name in sorted(artifacts or {}, key=lambda n: (job(n), n)):
        value = artifacts[name]
        if isinstance(value, dict):
            merged.update(value)
    return merged

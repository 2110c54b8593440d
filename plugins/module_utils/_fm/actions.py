# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The FM monitor's actions: band scans and the station list (fm_station), downloads, clearing
the alert log and the monitor output (fm_actions). Paths and shapes are api.py's."""

from __future__ import annotations

import os

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine_settings import reconcile_settings
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import BUSY, DeviceError, InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._files import download as download_file, file_sha256, regular_file
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import Checker


# -- fm_station: actions on the station list ---------------------------------------------------
def check_station(params):
    """Problems with fm_station's options, found before the first request."""
    check = Checker()
    if params["state"] == "scanned":
        check.between("tuner_id", params["tuner_id"], 0, None)
    else:
        chosen = [name for name in ("station_ids", "frequencies") if params[name] is not None]
        if params["all_stations"] and chosen:
            check.fail("all_stations", "deletes every record; leave out %s" % " and ".join(chosen))
        elif not params["all_stations"] and not chosen:
            check.fail("state", "absent needs station_ids, frequencies or all_stations=true")
    for index, value in enumerate(params["station_ids"] or []):
        check.between("station_ids[%d]" % index, value, 0, None)
    low, high = api.FREQUENCY_RANGE
    for index, value in enumerate(params["frequencies"] or []):
        if not low <= value <= high:
            check.fail("frequencies[%d]" % index, "must be in the FM band, %d to %d kHz, got %d" % (low, high, value))
    return check.problems


def station(client, params, check_mode):
    """fm_station: a band scan (state=scanned) or deleted records (state=absent), once the
    options are checked; the module's result."""
    problems = check_station(params)
    if problems:
        raise InputError(problems)
    if params["state"] == "scanned":
        return scan(client, params["tuner_id"], params["scan_timeout"], check_mode)
    return delete_stations(client, params["station_ids"], params["frequencies"], params["all_stations"], check_mode)


def scan(client, tuner_id, wait, check_mode):
    """Band scan of one tuner (a request that returns when the scan ends, at most ``wait``
    seconds); ``changed`` when stations were added to the list."""
    tuners = api.tuner_count(client.get(api.STATUS))
    if tuners is not None and tuner_id >= tuners:
        raise InputError(["tuner_id: the device has no tuner %d (it has 0 to %d)" % (tuner_id, tuners - 1)])
    before = client.get(api.STATIONS)
    if check_mode:
        return {"changed": True, "stations": before, "found": [], "added": [],
                "msg": "check mode: a band scan of tuner %d would run; no scan request was sent, so the stations"
                       " it would find are unknown" % tuner_id,
                "diff": {"before": {"stations": before}, "after": {"stations": before}}}
    try:
        found = client.request("POST", api.TUNER_SCAN % tuner_id, params=api.scan_query(), timeout=wait)
    except DeviceError as err:
        if err.kind == BUSY:
            err.message = "tuner %d stayed busy (another scan or a frequency change): %s" % (tuner_id, err.message)
        raise
    known = {api.station_frequency(s): s for s in before}
    added = [s for s in found if api.station_frequency(s) not in known]
    fresh = {api.station_frequency(s): s for s in found}
    after = [fresh.get(api.station_frequency(s), s) for s in before] + added
    return {"changed": bool(added), "stations": after, "found": found, "added": added,
            "msg": "tuner %d found %d station(s), %d new" % (tuner_id, len(found), len(added)),
            "diff": {"before": {"stations": before}, "after": {"stations": after}}}


def delete_stations(client, station_ids, frequencies, everything, check_mode):
    """Delete the listed station records (by id or frequency), or all of them; ``changed``
    only when a listed record existed."""
    before = client.get(api.STATIONS)
    if everything:
        doomed = list(before)
    else:
        doomed = [s for s in before
                  if api.station_id_of(s) in (station_ids or []) or api.station_frequency(s) in (frequencies or [])]
    after = [s for s in before if s not in doomed]
    if doomed and not check_mode:
        if everything:
            client.delete(api.STATIONS)
        else:
            for station in doomed:
                client.delete(api.STATION % api.station_id_of(station))
    return {"changed": bool(doomed), "deleted": doomed, "stations": after,
            "diff": {"before": {"stations": before}, "after": {"stations": after}}}


# -- fm_actions ---------------------------------------------------------------------------------
def clear_alerts(client, check_mode):
    """Empty the alert log; ``changed`` only when it held alerts."""
    total = api.alerts_total(client.request("POST", api.ALERTS, body=api.alerts_query({"limit": 1}), idempotent=True))
    if total and not check_mode:
        client.delete(api.ALERTS)
    return {"changed": bool(total), "cleared": total, "diff": {"before": total, "after": 0}}


def dest_problems(where, dest):
    """Why ``dest`` cannot take a download (checked before anything is done)."""
    folder = os.path.dirname(os.path.abspath(dest))
    if os.path.isdir(dest):
        return ["%s: %s is a directory; give the file to write" % (where, dest)]
    if not os.path.isdir(folder):
        return ["%s: the folder %s does not exist" % (where, folder)]
    return []


def download(client, what, dest, order, check_mode):
    """The alert CSV (``alerts_csv``) or the SNMP MIB (``mib``) streamed to ``dest``
    (files.download), replacing it only when its content differs."""
    before = file_sha256(dest) if regular_file(dest) else None
    if what == "alerts_csv":
        changed, info = download_file(client, api.ALERTS_CSV, dest, method="POST", body=api.alerts_csv_body(order),
                                      check_mode=check_mode)
    else:
        changed, info = download_file(client, api.MIB, dest, check_mode=check_mode)
    return {"dest": dest, "changed": changed, "size": info["size"], "checksum": info["sha256"], "before": before,
            "diff": {"before": before, "after": info["sha256"]}}


def select_monitor(client, status, tuner_id, muted, check_mode):
    """Route a tuner to the monitor output (``POST /monitor``), unless it already is.
    ``status``: ``GET /status``, read before anything was done."""
    before = api.monitor_from_device(status, client.get(api.CONF))
    # the mute the device does not report is taken as off (what a write without one sends)
    desired = {"tuner_id": tuner_id, "muted": bool(before["muted"]) if muted is None else muted}
    return reconcile_settings(before, desired, lambda after: api.write_monitor(client, after), check_mode)


def run_actions(client, params, check_mode):
    """fm_actions: downloads, then clearing the alert log, then the monitor output; each
    only when asked for, and only after every option was checked; the module's result."""
    wanted = [what for what in ("alerts_csv", "mib") if params[what]]
    problems = []
    for what in wanted:
        problems.extend(dest_problems(what + ".dest", params[what]["dest"]))
    if params["monitor"] and params["monitor"]["tuner_id"] < 0:
        problems.append("monitor.tuner_id: must be >= 0, got %d" % params["monitor"]["tuner_id"])
    if problems:  # all found without the device: nothing is sent
        raise InputError(problems)
    status = None
    if params["monitor"]:
        tuner_id = params["monitor"]["tuner_id"]
        status = client.get(api.STATUS)
        count = api.tuner_count(status)
        if count is not None and tuner_id >= count:
            raise InputError(["monitor.tuner_id: the device has no tuner %d (it has 0 to %d)" % (tuner_id, count - 1)])
    result, parts = {}, {}
    for what in wanted:
        parts[what] = download(client, what, params[what]["dest"], params[what].get("order", "asc"), check_mode)
        result.setdefault("downloads", {})[what] = dict((k, v) for k, v in parts[what].items() if k != "diff")
    if params["clear_alerts"]:
        parts["alerts"] = clear_alerts(client, check_mode)
        result["cleared"] = parts["alerts"]["cleared"]
    if params["monitor"]:
        parts["monitor"] = select_monitor(client, status, params["monitor"]["tuner_id"], params["monitor"]["muted"],
                                          check_mode)
        result["monitor"] = {"before": parts["monitor"]["before"], "after": parts["monitor"]["after"]}
    result["changed"] = any(part["changed"] for part in parts.values())
    result["diff"] = {side: dict((name, part["diff"][side]) for name, part in parts.items()) for side in ("before", "after")}
    return result

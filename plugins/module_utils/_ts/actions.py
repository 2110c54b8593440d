# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's operations that are not state: SD card capture (recording, files, card
preparation) and statistics actions (resets, downloads).

Each runs only when asked. In check mode nothing is written, started or downloaded: the
reads that say what would happen are made, and the result says it (``changed`` + ``msg``).
"""

from __future__ import annotations

import os
import time

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    UNREACHABLE,
    Conflict,
    DeviceError,
    InputError,
    register_secret,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._files import (
    destination,
    device_name,
    download,
    file_sha256,
    plain_name,
    regular_file,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import inputs_by_name, one_input

POLL = 0.25


# -- SD card and recording --------------------------------------------------------------
def _card(client, names):
    return api.card_from_device(client.post(api.SDCARD_STATUS, idempotent=True), names)


def _files(client):
    return api.files_from_device(client.post(api.SDCARD_FILES, idempotent=True))


def _ids_to_names(inputs):
    return {api.input_id_of(raw): api.input_name_of(raw) for raw in inputs}


def _file(files, filename):
    """The listed file, or None; InputError while it is still being recorded."""
    entry = next((f for f in files if f["filename"] == filename), None)
    if entry is not None and entry["recording"]:
        raise Conflict(["filename: %s is being recorded; stop the recording first (operation=stop)" % filename])
    return entry


def _confirmed(params, what):
    if not params.get("confirm"):
        raise InputError(["confirm: %s; set confirm=true to do it" % what])


def _idle(card, operation):
    if card["status"] == "preparing" or card["recording"]:
        busy = "is being prepared" if card["status"] == "preparing" else "is recording input %r (file %s)" % (
            card["recording"]["input"], card["recording"]["filename"])
        raise Conflict(["operation: cannot %s while the SD card %s" % (operation, busy)])


def recording(client, params, check_mode):
    """ts_recording: one operation on the SD card; the module's result."""
    operation = params["operation"]
    if operation in ("format", "init"):
        erases = ", which erases every capture file" if operation == "format" else ""
        _confirmed(params, "%s the SD card%s" % (operation, erases))
    if operation == "delete_all":
        _confirmed(params, "deleting every capture file cannot be undone")
    for key in ("duration", "size"):
        if params.get(key) is not None and params[key] < 1:
            raise InputError(["%s: must be >= 1 (leave it out for no limit), got %d" % (key, params[key])])
    dest = None
    if params.get("filename") is not None:  # a name of the card's, never a path: refused before any request
        plain_name(params["filename"], "filename")
    if operation == "download":
        dest = destination(params["dest"], params["filename"])
    return OPERATIONS[operation](client, params, check_mode, dest)


def _start(client, params, check_mode, dest):
    inputs, named = inputs_by_name(client)
    raw = one_input(named, params["input"], "input")
    card = _card(client, _ids_to_names(inputs))
    rec = card["recording"]
    if rec and rec["input"] == api.input_name_of(raw):
        return {"changed": False, "recording": rec, "card": card, "msg": "input %r is already recording to %s" % (
            api.input_name_of(raw), rec["filename"])}
    if api.input_state(raw) != "ok":
        why = "monitoring is stopped" if api.input_state(raw) == "paused" else "it has no signal"
        raise Conflict(["input: %r has no stream to record (%s)" % (api.input_name_of(raw), why)])
    _idle(card, "start a recording")
    if check_mode:
        return {"changed": True, "card": card, "msg": "would start recording input %r" % api.input_name_of(raw)}
    started = client.post(api.RECORD_START % api.input_id_of(raw), api.record_body(params.get("duration"),
                                                                                   params.get("size")))
    names = _ids_to_names(inputs)
    recording = api.recording_from_device(started, names)
    return {"changed": True, "recording": recording, "card": _card(client, names),
            "msg": "recording input %r to %s" % (api.input_name_of(raw), recording["filename"])}


def _stop(client, params, check_mode, dest):
    inputs, named = inputs_by_name(client)
    wanted = api.input_name_of(one_input(named, params["input"], "input")) if params.get("input") else None
    names = _ids_to_names(inputs)
    raw = client.post(api.SDCARD_STATUS, idempotent=True)
    card = api.card_from_device(raw, names)
    rec = card["recording"]
    if not rec or (wanted is not None and rec["input"] != wanted):
        return {"changed": False, "card": card, "msg": "input %r is not recording" % wanted if wanted
                else "nothing is recording"}
    if check_mode:
        return {"changed": True, "card": card, "msg": "would stop recording input %r (file %s)" % (
            rec["input"], rec["filename"])}
    finished = api.finished_file(client.get(api.RECORD_STOP % api.recording_input_id(raw), idempotent=False))
    return {"changed": True, "file": finished,
            "card": _card(client, names), "msg": "stopped recording input %r" % rec["input"]}


def _list(client, params, check_mode, dest):
    inputs = client.get(api.INPUTS)
    return {"changed": False, "card": _card(client, _ids_to_names(inputs)), "files": _files(client)}


def _download(client, params, check_mode, dest):
    filename = params["filename"]
    files = _files(client)
    entry = _file(files, filename)
    if entry is None:
        raise InputError(["filename: the SD card has no file %r (it has: %s)" % (
            filename, ", ".join(f["filename"] for f in files) or "none")])
    if regular_file(dest) and os.path.getsize(dest) == entry["size"] and not params.get("force"):
        return {"changed": False, "file": {"filename": filename, "dest": dest, "size": entry["size"],
                                           "sha256": file_sha256(dest)},
                "msg": "%s already holds %s (same size; force=true downloads again)" % (dest, filename)}
    if check_mode:
        return {"changed": True, "file": {"filename": filename, "dest": dest, "size": entry["size"]},
                "msg": "would download %s (%d bytes) to %s" % (filename, entry["size"], dest)}
    once = api.download_token(client.get(api.SDCARD_DOWNLOAD_TOKEN))
    register_secret(once)  # issued: masked in every output (a device may echo the query in an error)
    # one-time: a retry could only be refused, so the GET is not retried
    changed, info = download(client, api.SDCARD_DOWNLOAD, dest, params=api.download_query(filename, once),
                             idempotent=False)
    del once
    return {"changed": changed, "file": dict(info, filename=filename),
            "msg": "downloaded %s to %s" % (filename, dest) if changed else "%s already held %s" % (dest, filename)}


def _delete(client, params, check_mode, dest):
    filename = params["filename"]
    if _file(_files(client), filename) is None:
        return {"changed": False, "msg": "the SD card has no file %r" % filename}
    if check_mode:
        return {"changed": True, "msg": "would delete %s" % filename}
    client.post(api.SDCARD_DELETE, params=api.delete_query(filename))
    return {"changed": True, "msg": "deleted %s" % filename}


def _delete_all(client, params, check_mode, dest):
    inputs = client.get(api.INPUTS)
    card = _card(client, _ids_to_names(inputs))
    files = [f for f in _files(client) if not f["recording"]]
    _idle(card, "delete every file")
    if not files:
        return {"changed": False, "card": card, "msg": "the SD card holds no capture file"}
    if check_mode:
        return {"changed": True, "card": card, "msg": "would delete %d file(s)" % len(files)}
    client.post(api.SDCARD_DELETE_ALL)
    return {"changed": True, "card": _card(client, _ids_to_names(inputs)), "msg": "deleted %d file(s)" % len(files)}


def _prepare(client, params, check_mode, dest):
    operation = params["operation"]
    inputs = client.get(api.INPUTS)
    names = _ids_to_names(inputs)
    card = _card(client, names)
    _idle(card, operation + " the card")
    if check_mode:
        return {"changed": True, "card": card, "msg": "would %s the SD card" % operation}
    card = api.card_from_device(client.post(api.SDCARD_PREPARE[operation]), names)
    deadline = time.monotonic() + params["wait_timeout"]
    while card["status"] == "preparing" and params["wait_timeout"] > 0:
        if time.monotonic() > deadline:
            raise DeviceError(UNREACHABLE, "the SD card was still preparing %d s after %s started" % (
                params["wait_timeout"], operation))
        time.sleep(POLL)
        card = _card(client, names)
    return {"changed": True, "card": card, "msg": "SD card %s %s" % (
        operation, "done" if card["status"] != "preparing" else "started")}


OPERATIONS = {"start": _start, "stop": _stop, "list": _list, "download": _download, "delete": _delete,
              "delete_all": _delete_all, "init": _prepare, "format": _prepare}


# -- statistics actions -----------------------------------------------------------------
def statistics(client, params, check_mode):
    """ts_statistics: one action; the module's result."""
    operation = params["operation"]
    if operation == "download_mib":
        dest = destination(params["dest"], api.MIB_FILENAME)
        if check_mode:
            return {"changed": True, "msg": "would download the MIB to %s (changed only if it differs)" % dest}
        changed, info = download(client, api.SNMP_MIB, dest)
        return {"changed": changed, "file": info, "msg": "MIB %s %s" % ("written to" if changed else "unchanged in", dest)}
    if operation in ("reset_current", "clear_archive"):
        what = "reset the current statistics of every input" if operation == "reset_current" \
            else "clear the statistics archive"
        if not check_mode:
            client.delete(api.STATISTICS_CURRENT if operation == "reset_current" else api.STATISTICS_ARCHIVE)
        return {"changed": True, "msg": ("would " if check_mode else "did ") + what}
    if operation == "download_alerts":
        destination(params["dest"], "alerts.csv")  # its folder must exist: checked before any request
    named = inputs_by_name(client)[1]
    if operation == "download_alerts":
        raw = one_input(named, params["input"], "input")
        name = device_name(api.ALERTS_CSV_FILENAME % api.input_id_of(raw), "the alert log of input %r" % api.input_name_of(raw))
        dest = destination(params["dest"], name)
        if check_mode:
            return {"changed": True, "msg": "would download the alert log of input %r to %s (changed only if it"
                                            " differs)" % (api.input_name_of(raw), dest)}
        changed, info = download(client, api.INPUT_ALERTS_CSV % api.input_id_of(raw), dest)
        return {"changed": changed, "file": info, "msg": "alert log of input %r %s %s" % (
            api.input_name_of(raw), "written to" if changed else "unchanged in", dest)}
    chosen = [one_input(named, name, "inputs[%d]" % index) for index, name in enumerate(params["inputs"])]
    if not check_mode:
        for raw in chosen:
            client.get(api.INPUT_RESET_STATISTICS % api.input_id_of(raw), idempotent=False)  # GET, but an action
    names = [api.input_name_of(raw) for raw in chosen]
    listed = ", ".join(repr(n) for n in names) or "no input"
    return {"changed": bool(chosen), "inputs": names,
            "msg": "%s the statistics and alert log of %s" % ("would reset" if check_mode else "reset", listed)}

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the validate role checks on an FM monitor: its declared enabled tuners are tuned with a
good signal, and stream where streaming is declared.

``check(kind, key, object, ok, message, skipped=None)`` is the filter's builder of one check."""

from __future__ import annotations

#: the kinds of check made of this device type, in report order (O(skip) and O(waive) take them)
CHECKS = ("tuner_signal", "tuner_streaming")


def checks(declared, reading, check):
    """The checks of the declared tuners on one reading of the monitor."""
    snapshot = reading.get("snapshot") or {}
    by_id = {item.get("id"): item for item in snapshot.get("tuners") or []}
    shared = declared.get("tuners_all") or {}
    out = []
    for entry in declared.get("tuners") or []:
        if not isinstance(entry, dict) or entry.get("tuner_id") is None:
            continue
        ident = entry["tuner_id"]
        item = by_id.get(ident)
        if item is None:
            message = "tuner %s: declared, not on the device" % ident
            out.append(check("tuner_signal", ident, "tuner %s" % ident, False, message))
            continue
        obj = "tuner %s (%s)" % (ident, item.get("name"))
        state = entry.get("operating_state") or shared.get("operating_state")
        if (state or item.get("state")) != "enabled":
            reason = "operating state %s %s" % (state or item.get("state"),
                                                "declared" if state else "on the device, not declared")
            out.append(check("tuner_signal", ident, obj, True, reason, skipped=True))
            out.append(check("tuner_streaming", ident, obj, True, reason, skipped=True))
            continue
        on_air = bool(item.get("tuned")) and bool(item.get("signal_ok"))
        out.append(check("tuner_signal", ident, obj, on_air,
                         "%s: tuned, signal OK" % obj if on_air else
                         "%s: %s" % (obj, "; ".join(part for part in (
                             None if item.get("tuned") else "not tuned (not locked onto %s kHz)" % item.get("frequency"),
                             None if item.get("signal_ok") else "signal not OK (below the RSSI threshold)") if part))))
        declared_stream = entry.get("stream") if isinstance(entry.get("stream"), dict) else {}
        streaming = declared_stream.get("enabled", (shared.get("stream") or {}).get("enabled"))
        if streaming:
            streams = bool(item.get("stream_enabled"))
            out.append(check("tuner_streaming", ident, obj, streams,
                             "%s: streams" % obj if streams else "%s: streaming declared, the tuner does not stream" % obj))
    return out

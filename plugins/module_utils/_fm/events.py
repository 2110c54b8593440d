# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the event source (extensions/eda, device_events) reads of an FM monitor and reports:
its alert log, by tuner, and the events of a tuner between two polls."""

from __future__ import annotations

#: the fields that tell one alert record from another
ALERT_KEY = ("tuner_id", "type", "from")
#: a tuner is a hardware slot: one seen for the first time keeps the log it had
NEW_ITEM_LOG_IS_NEW = False


def alert_records(api, client, items, page_size):
    """The newest ``page_size`` alert records of the monitor, newest first, by tuner:
    ``{tuner id: [record]}``."""
    page = api.alerts_page(client.request("POST", api.ALERTS, body=api.alerts_query({"limit": page_size}),
                                          idempotent=True))
    records = {}
    for record in page["alerts"]:
        records.setdefault(record.get("tuner_id"), []).append(record)
    return records


def item_events(old, new):
    """``[(kind, severity, detail)]`` of a tuner between two polls: it loses or regains lock,
    or its quality alarms change. A new tuner (``old`` None) counts as one that was locked,
    when enabled, without alarms."""
    old = old or {"tuned": new["state"] == "enabled", "alarms": []}
    detail = {"state": new["state"], "frequency": new["frequency"], "tuned": new["tuned"],
              "signal_ok": new["signal_ok"], "alarms": new["alarms"]}
    events = []
    if old["tuned"] and not new["tuned"]:
        events.append(("lock_lost", "critical" if new["state"] == "enabled" else "warning", detail))
    elif new["tuned"] and not old["tuned"]:
        events.append(("lock_regained", "info", detail))
    if sorted(old["alarms"]) != sorted(new["alarms"]):
        events.append(("alarms_changed", "warning" if new["alarms"] else "info", dict(
            detail, raised=sorted(set(new["alarms"]) - set(old["alarms"])),
            cleared=sorted(set(old["alarms"]) - set(new["alarms"])))))
    return events

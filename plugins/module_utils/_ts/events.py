# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the event source (extensions/eda, device_events) reads of an analyzer and reports:
the alert log of each input, and the events of an input between two polls."""

from __future__ import annotations

#: the fields that tell one alert record from another
ALERT_KEY = ("error_name", "pid", "start_time", "severity")
#: an input added since the previous poll has a new id: its whole alert log is new
NEW_ITEM_LOG_IS_NEW = True


def alert_records(api, client, items, page_size):
    """The newest ``page_size`` alert records of each input (``items``, by id), newest first:
    ``{input id: [record]}``."""
    records = {}
    for ident in items:
        query = api.alerts_query({"page": 1, "per_page": page_size})
        records[ident] = api.alerts_page(client.request("POST", api.INPUT_ALERTS % ident, body=query,
                                                        idempotent=True))["items"]
    return records


def item_events(old, new):
    """``[(kind, severity, detail)]`` of an input between two polls: it starts or stops
    receiving, raises or clears a priority-1 error. A new input (``old`` None) counts as one
    that was receiving without errors."""
    old = old or {"receiving": new["monitoring"], "priority1": "ok", "priority1_errors": []}
    detail = {"state": new["state"], "monitoring": new["monitoring"], "receiving": new["receiving"],
              "bitrate": new["bitrate"], "priority1": new["priority1"], "priority1_errors": new["priority1_errors"],
              "alarms": new["alarms"]}
    events = []
    if old["receiving"] and not new["receiving"]:
        events.append(("receiving_stopped", "warning" if new["state"] == "paused" else "critical", detail))
    elif new["receiving"] and not old["receiving"]:
        events.append(("receiving_started", "info", detail))
    if old["priority1"] == "ok" and new["priority1"] != "ok":
        events.append(("errors_raised", new["priority1"], detail))
    elif new["priority1"] == "ok" and old["priority1"] != "ok":
        events.append(("errors_cleared", "info", detail))
    return events

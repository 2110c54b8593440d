# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What fm_info reads: one reader per subset. Paths and shapes are api.py's."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api as dev
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import paging_error

INFO_SUBSETS = ("status", "tuners", "stations", "alerts", "log", "playlist", "valid_bitrates", "network",
                "datetime", "log_config", "conf")
INFO_MINIMAL = ("status", "tuners")


#: the most pages of POST /alerts one read takes, by default (alerts.max_pages)
ALERTS_PAGES_MAX = 1000


def read_alerts(client, query, all_pages, max_pages=ALERTS_PAGES_MAX):
    """``{total, alerts, pages}`` of ``POST /alerts``: one page, or every page from the
    query's offset on, at most ``max_pages`` of them. A device that still claims more after
    them, or answers an empty page while it does, fails the read (shapes.paging_error)."""
    body = dict(query)
    where = "POST %s" % dev.ALERTS
    page = dev.alerts_page(client.request("POST", dev.ALERTS, body=body, idempotent=True))
    alerts, pages = list(page["alerts"]), 1
    while all_pages and body["limit"] and query["offset"] + len(alerts) < page["total"]:
        if not page["alerts"] or pages >= max_pages:
            raise paging_error(where, query["offset"] + len(alerts), page["total"], pages, "alerts.max_pages",
                               max_pages, empty=not page["alerts"])
        body["offset"] = query["offset"] + len(alerts)
        page = dev.alerts_page(client.request("POST", dev.ALERTS, body=body, idempotent=True))
        alerts.extend(page["alerts"])
        pages += 1
    return {"total": page["total"], "alerts": alerts, "pages": pages}


def info_readers(client, alerts_query, all_pages, log_query, max_pages=ALERTS_PAGES_MAX):
    """One reader per subset of fm_info, each a function of no arguments."""
    def playlist():
        text = client.text(dev.PLAYLIST)
        return {"tracks": dev.playlist_tracks(text), "xspf": text}

    def valid_bitrates():
        return dev.bitrates_from_device(client.get(dev.VALID_BITRATES))

    return {
        "status": lambda: dev.status_from_device(client.get(dev.STATUS)),
        "tuners": lambda: [dev.tuner_info(raw) for raw in client.get(dev.TUNERS)],
        "stations": lambda: client.get(dev.STATIONS),
        "alerts": lambda: read_alerts(client, alerts_query, all_pages, max_pages),
        "log": lambda: client.get(dev.SYSTEM_LOG, params={k: v for k, v in log_query.items() if v is not None}),
        "playlist": playlist,
        "valid_bitrates": valid_bitrates,
        "network": lambda: client.get(dev.NETWORK),
        "datetime": lambda: client.get(dev.DATETIME),
        "log_config": lambda: client.get(dev.LOG_SETTINGS),
        "conf": lambda: client.get(dev.CONF),
    }

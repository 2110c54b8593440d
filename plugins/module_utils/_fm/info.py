# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What fm_info reads: one reader per subset. Paths and shapes are api.py's.

The same shape as _ts/info.py: ``SUBSETS``, ``MINIMAL``, ``check_options(params)`` (the
problems found before the first request), ``readers(client, params)`` ({subset: reader})
and ``read_info(client, params)`` (the module's result)."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import system_log_query
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError, quoted
from ansible_collections.broadcast.monitoring.plugins.module_utils._gather import gather, select
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import paging_error
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import Checker

SUBSETS = ("status", "tuners", "stations", "alerts", "log", "playlist", "valid_bitrates", "network",
           "datetime", "log_config", "conf")
MINIMAL = ("status", "tuners")


def check_options(params):
    """Problems with the ``alerts`` and ``log`` options, found before the first request."""
    alerts, log = params["alerts"], params["log"]
    check = Checker()
    for name in ("since", "until"):
        if alerts[name] is not None and api.unix_seconds(alerts[name]) is None:
            check.fail("alerts." + name, "must be Unix seconds or an ISO 8601 time, got %s" % quoted(alerts[name]))
    for where, value in [("alerts.limit", alerts["limit"]), ("alerts.offset", alerts["offset"])] + [
            ("alerts.tuner_ids[%d]" % i, v) for i, v in enumerate(alerts["tuner_ids"])] + [
            ("log." + k, v) for k, v in log.items() if v is not None]:
        check.between(where, value, 0, None)
    check.between("alerts.max_pages", alerts["max_pages"], 1, None)
    return check.problems


def read_info(client, params):
    """fm_info: the subsets selected, the options checked before the first request, then the
    subsets read; the module's result."""
    selected = select(params["gather_subset"], SUBSETS, MINIMAL)
    problems = check_options(params)
    if problems:
        raise InputError(problems)
    return dict(gather(selected, readers(client, params)), changed=False)


def read_alerts(client, options):
    """``{total, alerts, pages}`` of ``POST /alerts``: one page, or with ``all_pages`` every
    page from the ``offset`` on, at most ``max_pages`` of them. A device that still claims more
    after them, or answers an empty page while it does, fails the read (shapes.paging_error)."""
    offset, max_pages = options.get("offset") or 0, options.get("max_pages") or api.ALERTS_PAGES_MAX
    where = "POST %s" % api.ALERTS
    page = api.alerts_page(client.request("POST", api.ALERTS, body=api.alerts_query(options), idempotent=True))
    alerts, pages = list(page["alerts"]), 1
    while options.get("all_pages") and options.get("limit") and offset + len(alerts) < page["total"]:
        if not page["alerts"] or pages >= max_pages:
            raise paging_error(where, offset + len(alerts), page["total"], pages, "alerts.max_pages",
                               max_pages, empty=not page["alerts"])
        body = api.alerts_query(dict(options, offset=offset + len(alerts)))
        page = api.alerts_page(client.request("POST", api.ALERTS, body=body, idempotent=True))
        alerts.extend(page["alerts"])
        pages += 1
    return {"total": page["total"], "alerts": alerts, "pages": pages}


def readers(client, params):
    """One reader per subset of fm_info, each a function of no arguments (``params``: the
    module's options, checked by check_options)."""
    def playlist():
        text = client.text(api.PLAYLIST)
        return {"tracks": api.playlist_tracks(text), "xspf": text}

    def valid_bitrates():
        return api.bitrates_from_device(client.get(api.VALID_BITRATES))

    return {
        "status": lambda: api.status_from_device(client.get(api.STATUS)),
        "tuners": lambda: [api.tuner_info(raw) for raw in client.get(api.TUNERS)],
        "stations": lambda: client.get(api.STATIONS),
        "alerts": lambda: read_alerts(client, params.get("alerts") or {}),
        "log": lambda: client.get(api.SYSTEM_LOG, params=system_log_query(params.get("log") or {})),
        "playlist": playlist,
        "valid_bitrates": valid_bitrates,
        "network": lambda: client.get(api.NETWORK),
        "datetime": lambda: client.get(api.DATETIME),
        "log_config": lambda: client.get(api.LOG_SETTINGS),
        "conf": lambda: client.get(api.CONF),
    }

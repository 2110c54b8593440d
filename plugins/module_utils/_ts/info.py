# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What ts_info reads: one reader per subset, each a few GETs (or POST queries), never a
write. Data about inputs is keyed by input name (``name #id`` when two share a name).

The same shape as _fm/info.py: ``SUBSETS``, ``MINIMAL``, ``check_options(params)`` (the
problems found before the first request), ``readers(client, params)`` ({subset: reader})
and ``read_info(client, params)`` (the module's result)."""

from __future__ import annotations

import datetime

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import system_log_query
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError, quoted
from ansible_collections.broadcast.monitoring.plugins.module_utils._gather import gather, select
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import paging_error
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import Checker

SUBSETS = ("system_status", "system_device", "inputs", "pids", "tables", "epg", "epg_parameters", "rf_metrics",
           "statistics", "statistics_archive", "cas", "alerts", "ip_alerts", "metric_ranges", "metrics", "snmp",
           "converter", "sdcard", "system_network", "system_datetime", "system_timezone", "system_warnings",
           "system_log")
MINIMAL = ("system_status", "system_device", "inputs")


def _iso(check, where, value):
    try:
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        check.fail(where, "must be an ISO 8601 time such as 2026-11-21T10:15:00Z, got %s" % quoted(value))


def check_options(params):
    """Problems with the subset options, found before the first request."""
    check = Checker()
    alerts = params.get("alerts") or {}
    for index, name in enumerate(alerts.get("error_names") or []):
        if name not in api.ERROR_NAMES:
            check.fail("alerts.error_names[%d]" % index, "unknown error name %r; the analyzer knows %s" % (
                name, ", ".join(api.ERROR_NAMES)))
    if alerts.get("pid") is not None:
        check.between("alerts.pid", alerts["pid"], 0, api.PID_MAX)
    if alerts.get("page") is not None:
        check.between("alerts.page", alerts["page"], 1, 10 ** 6)
    if alerts.get("per_page") is not None:
        check.between("alerts.per_page", alerts["per_page"], 1, api.ALERTS_PER_PAGE_MAX)
    if alerts.get("max_pages") is not None:
        check.between("alerts.max_pages", alerts["max_pages"], 1, None)
    for option in ("alerts", "archive", "epg"):
        for key in ("time", "start_time", "end_time"):
            if (params.get(option) or {}).get(key) is not None:
                _iso(check, "%s.%s" % (option, key), params[option][key])
    epg = params.get("epg") or {}
    for index, sid in enumerate(epg.get("service_ids") or []):
        check.between("epg.service_ids[%d]" % index, sid, 0, 65535)
    for key in ("transport_stream_id", "original_network_id"):
        if epg.get(key) is not None:
            check.between("epg.%s" % key, epg[key], 0, 65535)
    metrics = params.get("metrics") or {}
    for key, low, high in (("range_id", 1, None), ("from_time", 0, None), ("to_time", 0, None),
                           ("pid", 0, api.PID_MAX)):
        if metrics.get(key) is not None:
            check.between("metrics.%s" % key, metrics[key], low, high)
    if None not in (metrics.get("from_time"), metrics.get("to_time")) and metrics["from_time"] > metrics["to_time"]:
        check.fail("metrics.from_time", "must not be after metrics.to_time")
    for index, table in enumerate(params.get("known_tables") or []):
        for key, high in (("table_id", 255), ("table_id_extension", 65535), ("revision", None)):
            check.between("known_tables[%d].%s" % (index, key), table[key], 0, high)
    for key, value in (params.get("system_log") or {}).items():
        if value is not None:
            check.between("system_log.%s" % key, value, 0, None)
    return check.problems


def read_info(client, params):
    """ts_info: the options checked before the first request, then the selected subsets read;
    the module's result."""
    problems = check_options(params)
    if problems:
        raise InputError(problems)
    selected = select(params["gather_subset"], SUBSETS, MINIMAL)
    result = gather(selected, readers(client, params))
    return dict(result, changed=False, gathered_subsets=selected)


def readers(client, params):
    """One reader per subset of ts_info, each a function of no arguments (``params``: the
    module's options, checked by check_options)."""
    return _Reader(client, params).readers()


class _Reader:
    """Reads the selected subsets; the input list is read once, and only when needed."""

    def __init__(self, client, params):
        self.client = client
        self.params = params
        self._inputs = None

    # -- inputs and their names -------------------------------------------------------
    def all_inputs(self):
        if self._inputs is None:
            self._inputs = self.client.get(api.INPUTS)
        return self._inputs

    def label(self, input_id):
        """The name an input's data is keyed by: its name, or ``name #id`` when not unique."""
        raw = next((r for r in self.all_inputs() if api.input_id_of(r) == input_id), None)
        if raw is None:
            return "#%s" % input_id
        twins = [r for r in self.all_inputs() if api.input_name_of(r) == api.input_name_of(raw)]
        return api.input_name_of(raw) if len(twins) == 1 else "%s #%d" % (api.input_name_of(raw), api.input_id_of(raw))

    def selected(self):
        """The inputs ``inputs`` names (all when it is empty); InputError for unknown names."""
        names = self.params.get("inputs") or []
        known = {api.input_name_of(r) for r in self.all_inputs()}
        unknown = ["inputs[%d]: the analyzer has no input %r" % (i, n) for i, n in enumerate(names) if n not in known]
        unknown += ["known_tables[%d].input: the analyzer has no input %r" % (i, t["input"])
                    for i, t in enumerate(self.params.get("known_tables") or []) if t["input"] not in known]
        if unknown:
            have = ", ".join(repr(n) for n in sorted(known)) or "no input"
            raise InputError(unknown + ["inputs: the analyzer has %s" % have])
        return [r for r in self.all_inputs() if not names or api.input_name_of(r) in names]

    def per_input(self, read):
        return {self.label(api.input_id_of(raw)): read(raw) for raw in self.selected()}

    def keep(self, input_id):
        return input_id in {api.input_id_of(raw) for raw in self.selected()}

    # -- readers ------------------------------------------------------------------------
    def readers(self):
        get = self.client.get
        return {
            "system_status": lambda: get(api.STATUS),
            "system_device": lambda: get(api.DEVICE_INFO),
            "inputs": self.inputs,
            "pids": lambda: self.per_input(lambda raw: get(api.INPUT_PIDS % api.input_id_of(raw))),
            "tables": lambda: self.per_input(self.tables),
            "epg": lambda: self.per_input(self.epg),
            "epg_parameters": lambda: self.per_input(lambda raw: get(api.INPUT_EPG_PARAMETERS % api.input_id_of(raw))),
            "rf_metrics": self.rf_metrics,
            "statistics": self.statistics,
            "statistics_archive": self.archive,
            "cas": lambda: {self.label(input_id): systems
                            for input_id, systems in api.cas_by_input(get(api.STATISTICS_CAS)).items()
                            if self.keep(input_id)},
            "alerts": lambda: self.per_input(lambda raw: self.alerts(api.INPUT_ALERTS % api.input_id_of(raw))),
            "ip_alerts": lambda: self.per_input(lambda raw: self.alerts(api.INPUT_IP_ALERTS % api.input_id_of(raw))),
            "metric_ranges": lambda: get(api.METRIC_RANGES),
            "metrics": self.metrics,
            "snmp": lambda: api.snmp_from_device(get(api.SNMP_SETTINGS)),
            "converter": lambda: [api.converter_from_device(raw) for raw in get(api.CONVERTERS)],
            "sdcard": self.sdcard,
            "system_network": lambda: get(api.NETWORK),
            "system_datetime": lambda: get(api.DATETIME),
            "system_timezone": lambda: api.timezone_from_device(get(api.TIMEZONE)),
            "system_warnings": lambda: get(api.SYSTEM_WARNINGS),
            "system_log": lambda: get(api.SYSTEM_LOG, params=system_log_query(self.params.get("system_log") or {})),
        }

    def inputs(self):
        names = {api.profile_id_of(p): api.profile_name_of(p) for p in self.client.get(api.PROFILES)}
        return [api.input_state_from_device(raw, names) for raw in self.selected()]

    def tables(self, raw):
        known = [t for t in self.params.get("known_tables") or [] if t["input"] == api.input_name_of(raw)]
        if known:
            return self.client.post(api.INPUT_TABLES % api.input_id_of(raw), api.tables_query(known), idempotent=True)
        return self.client.get(api.INPUT_TABLES % api.input_id_of(raw))

    def epg(self, raw):
        return self.client.post(api.INPUT_EPG % api.input_id_of(raw), api.epg_query(self.params.get("epg") or {}),
                                idempotent=True)

    def rf_metrics(self):
        metrics = self.client.get(api.RF_METRICS)
        input_id = api.rf_input_id(metrics)
        return dict(metrics, input=None if input_id is None else self.label(input_id))

    def statistics(self):
        streams = api.statistics_by_input(self.client.get(api.STATISTICS_CURRENT))
        return {self.label(input_id): stats for input_id, stats in streams if self.keep(input_id)}

    def archive(self):
        query = api.archive_query(self.params.get("archive") or {})
        archive = api.archive_from_device(self.client.get(api.STATISTICS_ARCHIVE, params=query))
        return dict(archive, inputs={self.label(input_id): data for input_id, data in archive["inputs"]
                                     if self.keep(input_id)})

    def alerts(self, path):
        """One page when ``alerts.page`` is set, else every page (the most per request), at
        most ``alerts.max_pages`` of them: a device that still claims more after them, or
        answers an empty page while it does, fails the read (shapes.paging_error)."""
        options = self.params.get("alerts") or {}
        if options.get("page") is not None:
            return api.alerts_page(self.client.post(
                path, api.alerts_query(dict(options, per_page=options.get("per_page") or 20)), idempotent=True))
        max_pages = options.get("max_pages") or api.ALERTS_PAGES_MAX
        items, number = [], 0
        while True:
            number += 1
            query = api.alerts_query(dict(options, page=number, per_page=api.ALERTS_PER_PAGE_MAX))
            page = api.alerts_page(self.client.post(path, query, idempotent=True))
            items.extend(page["items"])
            if len(items) >= page["total"]:
                return {"total": page["total"], "items": items}
            if not page["items"] or number >= max_pages:
                raise paging_error("POST %s" % path, len(items), page["total"], number, "alerts.max_pages", max_pages,
                                   empty=not page["items"])

    def metrics(self):
        options = self.params.get("metrics") or {}
        query = api.metrics_query(options)
        if options.get("pid") is None and not self.params.get("inputs"):
            raw = self.client.get(api.METRICS, params=query)
            series = {self.label(input_id): samples for input_id, samples in api.samples_by_input(raw)}
        else:
            raw, series = {}, {}
            for one in self.selected():
                raw = self.client.get(api.INPUT_METRICS % api.input_id_of(one), params=query)
                series[self.label(api.input_id_of(one))] = api.input_samples(raw)
        return dict(api.metrics_from_device(raw, query), pid=options.get("pid"), inputs=series)

    def sdcard(self):
        names = {api.input_id_of(raw): self.label(api.input_id_of(raw)) for raw in self.all_inputs()}
        card = api.card_from_device(self.client.post(api.SDCARD_STATUS, idempotent=True), names)
        card["files"] = api.files_from_device(self.client.post(api.SDCARD_FILES, idempotent=True))
        return card

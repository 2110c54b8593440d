# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's objects as engine resources: how each is read and written."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils import ts_device as dev
from ansible_collections.broadcast.monitoring.plugins.module_utils.engine import InputError, Resource
from ansible_collections.broadcast.monitoring.plugins.module_utils.validate import Checker

#: keys of an input written by POST /inputs/{id}; monitoring has its own endpoints
CONFIG_KEYS = ("name", "source", "alert_profile")


class Inputs(Resource):
    """Inputs of one analyzer, keyed by name. Costs two reads (inputs, profiles) whatever
    the number of inputs, and one write per input that differs (two when monitoring
    changes too)."""

    key = "name"
    atomic = ("source",)

    def __init__(self, client):
        super().__init__(client)
        self.raw = {}
        self.profiles = {}

    def check(self, desired):
        check = Checker()
        for index, obj in enumerate(desired):
            if not 1 <= len(obj["name"]) <= dev.NAME_MAX:
                check.fail("config[%d].name" % index, "must be 1 to %d characters" % dev.NAME_MAX)
            where = "config[%d] (%s): source" % (index, obj["name"])
            if "source" not in obj:
                if self.state in ("replaced", "overridden"):
                    check.fail(where, "required with state %s" % self.state)
                continue
            kind, value = next(iter(obj["source"].items()))
            if kind in ("multicast", "unicast"):
                check.port(where + ".%s.port" % kind, value["port"])
            if kind == "multicast":
                check.multicast(where + ".multicast.address", value["address"])
                if value.get("source_address") is not None:
                    check.ipv4(where + ".multicast.source_address", value["source_address"])
            elif kind == "unicast" and value.get("address") is not None:
                check.ipv4(where + ".unicast.address", value["address"])
            elif kind == "asi":
                check.choice(where + ".asi.port", value["port"], dev.ASI_PORTS)
            elif kind in ("t2mi", "rf"):
                for field, high in (dev.T2MI_MAX if kind == "t2mi" else dev.RF_MAX).items():
                    check.between("%s.%s.%s" % (where, kind, field), value[field], 0, high)
        return check.problems

    def read(self):
        profiles = self.client.get(dev.PROFILES)
        inputs = self.client.get(dev.INPUTS)
        self.profiles = dev.profile_ids(profiles)
        names = {pid: name for name, pid in self.profiles.items()}
        current, ids = {}, {}
        for raw in inputs:
            ids.setdefault(raw["name"], []).append(raw["id"])
            self.raw[raw["name"]] = raw
            current[raw["name"]] = self.normalise(dev.input_from_device(raw, names))
        clashes = ["%r (ids %s)" % (n, ", ".join(map(str, i))) for n, i in ids.items() if len(i) > 1]
        if clashes:
            raise InputError(["the analyzer has several inputs with one name, which ts_input cannot tell apart: %s;"
                              " rename or delete them on the device" % "; ".join(clashes)])
        return current

    def check_against(self, desired, current):
        problems = []
        for index, obj in enumerate(desired):
            if self.state == "deleted":
                break
            if "source" not in obj and obj["name"] not in current:
                problems.append("config[%d] (%s): source: required to create a new input" % (index, obj["name"]))
            profile = obj.get("alert_profile")
            if profile is None and obj["name"] not in current:
                profile = dev.DEFAULT_PROFILE
            if profile is not None and profile not in self.profiles:
                problems.append("config[%d] (%s): alert_profile: the analyzer has no profile %r (it has: %s)" % (
                    index, obj["name"], profile, ", ".join(sorted(self.profiles)) or "none"))
        return problems

    def defaults(self):
        return {"alert_profile": dev.DEFAULT_PROFILE, "monitoring": "started"}

    def normalise(self, obj):
        source = obj.get("source")
        if source and "unicast" in source and source["unicast"].get("address") is None:
            obj = dict(obj, source={"unicast": dict(source["unicast"], address="0.0.0.0")})
        if source and "t2mi" in source and source["t2mi"].get("manual") is None:
            obj = dict(obj, source={"t2mi": dict(source["t2mi"], manual=False)})
        return obj

    def create(self, after):
        created = self.client.post(dev.INPUTS, dev.input_body(after, self.profiles[after["alert_profile"]]))
        started = dev.MONITORING[bool(created.get("monitoring", True))]
        if started != after["monitoring"]:
            self._set_monitoring(created["id"], after["monitoring"])

    def update(self, before, after):
        raw = self.raw[before["name"]]
        if any(before.get(k) != after.get(k) for k in CONFIG_KEYS):
            self.client.post(dev.INPUT % raw["id"], dev.input_body(after, self.profiles[after["alert_profile"]], raw))
        if before["monitoring"] != after["monitoring"]:
            self._set_monitoring(raw["id"], after["monitoring"])

    def delete(self, before):
        self.client.delete(dev.INPUT % self.raw[before["name"]]["id"])

    def _set_monitoring(self, input_id, monitoring):
        # GET, but a write: never retried blindly on a connection error.
        path = dev.INPUT_START if monitoring == "started" else dev.INPUT_STOP
        self.client.get(path % input_id, idempotent=False)

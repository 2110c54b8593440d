# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every path and response shape of the transport-stream analyzer that modules use.

Where the interface document says "not shown", the shapes here are the ones chosen and
documented in tests/simulator/README.md; meeting a real device means changing this file.
"""

from __future__ import annotations

LOGIN = ("/api/user/login", {})

INPUTS = "/api/inputs"
INPUT = "/api/inputs/%d"
INPUT_START = "/api/inputs/%d/start"
INPUT_STOP = "/api/inputs/%d/stop"
PROFILES = "/api/profiles"
PROFILE = "/api/profiles/%d"

ASI_PORTS = (1, 2)
INT32 = 2 ** 31 - 1
#: upper bounds the document leaves open (chosen shapes: tests/simulator/README.md)
NAME_MAX = 64
T2MI_MAX = {"stream_id": INT32, "service_id": 65535, "pid": 8191, "plp_id": 255}
RF_MAX = {"mode": INT32, "frequency": INT32, "bandwidth": INT32, "plp_id": 255}
#: the profile a new input gets when the user names none (the factory profile)
DEFAULT_PROFILE = "Default"

MONITORING = {True: "started", False: "stopped"}


def source_from_device(config):
    """The device's one-variant ``config`` object as the module's ``source``."""
    if "eth" in config:
        eth = config["eth"]
        if "multicast" in eth:
            m = eth["multicast"]
            out = {"address": m["multicast_address"], "port": m["multicast_port"]}
            if m.get("source_address"):
                out["source_address"] = m["source_address"]
            return {"multicast": out}
        u = eth["unicast"]
        return {"unicast": {"address": u["listen_address"], "port": u["listen_port"]}}
    if "asi" in config:
        return {"asi": {"port": config["asi"]["port"]}}
    if "t2mi" in config:
        t = config["t2mi"]
        return {"t2mi": {"stream_id": t["stream_id"], "service_id": t["service_id"],
                         "pid": t["elementary_stream_pid"], "plp_id": t["plp_id"], "manual": t["manual"]}}
    if "rf" in config:
        return {"rf": dict(config["rf"])}
    raise ValueError("input config has no known source variant: %s" % sorted(config))


def source_to_device(source):
    """The module's ``source`` as the device's ``config`` object."""
    kind, value = next(iter(source.items()))
    if kind == "multicast":
        multicast = {"multicast_address": value["address"], "multicast_port": value["port"]}
        if value.get("source_address"):
            multicast["source_address"] = value["source_address"]
        return {"eth": {"stream_protocol": 0, "multicast": multicast}}
    if kind == "unicast":
        return {"eth": {"stream_protocol": 0, "unicast": {"listen_address": value["address"],
                                                          "listen_port": value["port"]}}}
    if kind == "asi":
        return {"asi": {"port": value["port"]}}
    if kind == "t2mi":
        return {"t2mi": {"stream_id": value["stream_id"], "service_id": value["service_id"],
                         "elementary_stream_pid": value["pid"], "plp_id": value["plp_id"],
                         "manual": value["manual"]}}
    return {"rf": {k: value[k] for k in ("mode", "frequency", "bandwidth", "plp_id")}}


def input_from_device(raw, profile_names):
    """One element of ``GET /inputs`` in the module's shape (``profile_names``: id -> name)."""
    return {
        "name": raw["name"],
        "source": source_from_device(raw["config"]),
        "alert_profile": profile_names.get(raw["alerts_config"]["profile_id"],
                                           "#%d" % raw["alerts_config"]["profile_id"]),
        "monitoring": MONITORING[bool(raw.get("monitoring"))],
    }


def input_body(obj, profile_id, raw=None):
    """Body of ``POST /inputs`` (and, with ``input_id``, of an update). Fields the module
    does not manage (``pid_error_list``) keep the device's value."""
    pid_errors = (raw or {}).get("alerts_config", {}).get("pid_error_list", [])
    body = {
        "name": obj["name"],
        "config": source_to_device(obj["source"]),
        "alerts_config": {"profile_id": profile_id, "pid_error_list": pid_errors},
    }
    if raw is not None:
        body["input_id"] = raw["id"]
    return body


def profile_ids(profiles):
    """name -> id of ``GET /profiles``."""
    return {p["name"]: p["id"] for p in profiles}

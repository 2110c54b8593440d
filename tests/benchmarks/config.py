"""The desired state the benchmark declares, in two shapes from one definition.

The roles read the module shapes (``ts_analyzer_*`` / ``fm_monitor_*`` variables); the
baseline playbook (``baseline.yml``) reads the same state already in the devices' JSON
shapes (``baseline_*`` variables), as a user writing ``uri`` tasks would keep it. Both are
generated here so that they cannot drift apart; the benchmark also compares the devices
after each of them.

Sizes: ``FULL`` is the issue's fleet (16 inputs and 4 alert profiles per analyzer, 8 tuners
with frequency, thresholds and schedules per FM monitor); ``SMALL`` (4 inputs, 2 tuners)
shows that module invocations per device do not depend on those counts.
"""

import os

import yaml

FULL = {"inputs": 16, "profiles": 4, "tuners": 8}
SMALL = {"inputs": 4, "profiles": 2, "tuners": 2}
SIZES = {"full": FULL, "small": SMALL}

PROFILE_NAMES = ("Contribution", "Distribution", "Satellite", "Terrestrial")
#: error entries each declared profile changes from the factory values
PROFILE_ERRORS = (
    ("ts_sync_loss", {"alert_type": "critical", "snmp_trap": True}),
    ("continuity_count_error", {"alert_type": "critical", "snmp_trap": True}),
    ("pcr_accuracy_error", {"alert_type": "warning", "snmp_trap": True}),
    ("eit_pf_error", {"enabled": False}),
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
#: schedule of every declared tuner: on air 06:00, asleep 22:00 on weekdays
SCHEDULE_EVENTS = ((6 * 60, "enabled"), (22 * 60, "sleep"))
STATES = {"disabled": 0, "enabled": 1, "sleep": 2}
#: what the roles manage in this desired state, per group: the minimum requests per device of
#: an idempotent run are one login and one read per resource type
MANAGED = {"ts_analyzers": ("SNMP", "alert profiles", "inputs"), "fm_monitors": ("tuners", "thresholds", "schedules")}
#: the simulator's factory password (simulator/README.md); not a secret
FACTORY_PASSWORD = "admin"


def _profile_errors(index):
    """Each profile differs a little (the threshold of one entry), so they are distinct objects."""
    errors = {name: dict(fields) for name, fields in PROFILE_ERRORS}
    errors["pcr_accuracy_error"]["threshold"] = 100 + index
    return errors


def _input(number, profiles):
    """Input ``number`` (1-based): multicast, profiles used in turn, every fourth one paused."""
    return {
        "name": "Mux %02d" % number,
        "address": "239.1.%d.%d" % (number // 250, number % 250),
        "port": 5000 + number,
        "profile": PROFILE_NAMES[(number - 1) % profiles],
        "monitoring": "stopped" if number % 4 == 0 else "started",
    }


def _tuner(tuner_id):
    return {
        "tuner_id": tuner_id,
        "name": "Station %d" % (tuner_id + 1),
        "frequency": 88000 + 1500 * tuner_id,
        "operating_state": "enabled",
        # every other tuner streams its audio
        "stream": {"enabled": True, "url": "udp://239.20.0.%d:5004" % (tuner_id + 1), "codec": "aac",
                   "bitrate": 192} if tuner_id % 2 == 0 else None,
        "thresholds": {"rssi": {"min": 25, "margin": 3}, "snr": {"min": 15 + tuner_id % 3}, "rds": {"sync_lost": True}},
    }


def role_vars(size):
    """group_vars for the device roles: {group: {variable: value}}."""
    profiles = [{"name": PROFILE_NAMES[i], "errors": _profile_errors(i)} for i in range(size["profiles"])]
    inputs = []
    for number in range(1, size["inputs"] + 1):
        spec = _input(number, size["profiles"])
        inputs.append({"name": spec["name"], "source": {"multicast": {"address": spec["address"], "port": spec["port"]}},
                       "alert_profile": spec["profile"], "monitoring": spec["monitoring"]})
    tuners, thresholds, schedules = [], [], []
    events = {day: [{"time": "%02d:%02d" % divmod(minute, 60), "state": state} for minute, state in SCHEDULE_EVENTS]
              for day in WEEKDAYS}
    for tuner_id in range(size["tuners"]):
        spec = _tuner(tuner_id)
        # no operating_state: the active schedule sets it (the role refuses both on one tuner)
        tuner = {key: spec[key] for key in ("tuner_id", "name", "frequency")}
        if spec["stream"]:
            tuner["stream"] = spec["stream"]
        tuners.append(tuner)
        thresholds.append(dict(spec["thresholds"], tuner_id=tuner_id))
        schedules.append({"tuner_id": tuner_id, "active": True, "events": events})
    return {
        "ts_analyzers": {
            "ts_analyzer_snmp": {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["192.0.2.100:162"]},
            "ts_analyzer_alert_profiles": profiles,
            "ts_analyzer_inputs": inputs,
        },
        "fm_monitors": {
            "fm_monitor_tuners": tuners,
            "fm_monitor_thresholds": thresholds,
            "fm_monitor_schedules": schedules,
        },
    }


def baseline_vars(size):
    """The same state in the devices' request shapes, for baseline.yml."""
    profiles = [{"name": PROFILE_NAMES[i],
                 "entries": [dict(fields, error_name=name) for name, fields in _profile_errors(i).items()]}
                for i in range(size["profiles"])]
    inputs = []
    for number in range(1, size["inputs"] + 1):
        spec = _input(number, size["profiles"])
        inputs.append({"name": spec["name"], "profile": spec["profile"], "monitoring": spec["monitoring"],
                       "config": {"eth": {"stream_protocol": 0, "multicast": {
                           "multicast_address": spec["address"], "multicast_port": spec["port"]}}}})
    events = {day: [{"minute": minute, "state": STATES[state]} for minute, state in SCHEDULE_EVENTS] for day in WEEKDAYS}
    tuners = []
    for tuner_id in range(size["tuners"]):
        spec = _tuner(tuner_id)
        device_thresholds = {"thresholds": {"rssi": spec["thresholds"]["rssi"], "snr": spec["thresholds"]["snr"],
                                            "rds": spec["thresholds"]["rds"]}}
        tuner = {"tuner_id": tuner_id, "settings": {"name": spec["name"], "frequency": spec["frequency"]},
                 "state": STATES[spec["operating_state"]], "thresholds": device_thresholds,
                 "schedule": {"active": True, "events": events}}
        if spec["stream"]:
            stream = spec["stream"]
            tuner["stream"] = {"enabled": stream["enabled"],
                               "stream": {key: stream[key] for key in ("url", "codec", "bitrate")}}
        tuners.append(tuner)
    return {
        "ts_analyzers": {
            "baseline_snmp": {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["192.0.2.100:162"]},
            "baseline_profiles": profiles,
            "baseline_inputs": inputs,
        },
        "fm_monitors": {"baseline_tuners": tuners},
    }


def write_group_vars(directory, size):
    """An inventory directory holding only group_vars (used next to the simulator's hosts file)."""
    group_vars = os.path.join(directory, "group_vars")
    os.makedirs(group_vars, exist_ok=True)
    roles, baseline = role_vars(size), baseline_vars(size)
    files = {
        "all": {"broadcast_monitoring_password": FACTORY_PASSWORD},
        "ts_analyzers": dict(roles["ts_analyzers"], **baseline["ts_analyzers"]),
        "fm_monitors": dict(roles["fm_monitors"], **baseline["fm_monitors"]),
    }
    for group, values in files.items():
        with open(os.path.join(group_vars, group + ".yml"), "w", encoding="utf-8") as handle:
            handle.write("---\n# Generated by tests/benchmarks/config.py (size %s); edit that file instead.\n" % (
                ", ".join("%s=%d" % item for item in sorted(size.items()))))
            yaml.safe_dump(values, handle, default_flow_style=False, sort_keys=False)
    return directory

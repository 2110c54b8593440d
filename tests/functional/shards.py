"""Splitting the functional suite into shards that run side by side (``make suites``).

``BM_SHARD=i/n`` keeps the tests of the files in shard i of n. Files are dealt out by their
measured seconds (WEIGHTS, from ``pytest --durations=0`` of a whole run), largest first, each
to the shard with the least so far, so the shards take about as long. A file not listed
counts as DEFAULT_WEIGHT; every file lands in exactly one shard.
"""

import os

#: seconds per test file, measured in `make suites` (three pytest processes on two cores,
#: 2026-11-22); update when a file grows a lot
WEIGHTS = {
    "test_device.py": 269, "test_backup.py": 102, "test_ts_input.py": 78, "test_roles_site.py": 74,
    "test_fm_tuner.py": 73, "test_fm_station.py": 54, "test_roles_rollout.py": 53, "test_ts_info.py": 50,
    "test_roles_backup.py": 130, "test_fm_thresholds.py": 42, "test_fm_schedule.py": 41,
    "test_device_login.py": 40, "test_ts_input_features.py": 39, "test_ts_snmp.py": 38,
    "test_ts_alert_profile.py": 35, "test_fm_actions.py": 27, "test_ts_recording.py": 25,
    "test_ts_converter.py": 21, "test_ts_statistics.py": 20, "test_role_backup.py": 17, "test_fm_info.py": 17,
    "test_awx.py": 30, "test_shape_variants.py": 190, "test_firmware_shapes.py": 12, "test_device_compatibility.py": 10,
    "test_read_shapes.py": 50, "test_direct_execution.py": 190, "test_direct_execution_isolation.py": 3,
    "test_execution_environment.py": 3, "test_packaging.py": 8, "test_examples_coverage.py": 1, "test_onboard.py": 70,
    "test_device_snapshot.py": 70, "test_validate.py": 20, "test_revert.py": 25,
    # measured on a quiet machine (2026-11-25): about 95 s; 389 s with lint, docs and sanity beside it
    "test_parsed_rendered.py": 150,
    # measured on the shared machine (2026-11-26): 55 s for the playbook runs, 65 s for the new
    # virtual environment (pip install ./simulator from the package index)
    "test_twin.py": 120,
    # 6 devices, 17 jobs through ansible-runner transmit | worker | process: 87 s beside ansible-lint (2026-11-26)
    "test_awx_pipeline.py": 90,
    # 6 devices, one status run, 9 Chromium page loads, 4 AWX jobs through ansible-runner: 65 s alone (2026-11-28)
    "test_fleet_status.py": 70,
    # 22 playbook runs in the controller's process, 5 with module processes, report.yml, audit.yml twice:
    # 200 s on the loaded shared machine (2026-11-28), 20 s of it CPU per mode
    "test_outside_data.py": 200,
    # 12 playbook runs, one per private name of ansible-core: 267 s beside a benchmark (2026-11-28)
    "test_direct_execution_degrades.py": 90,
    # a copy of the collection, one playbook of 10 tasks and one of 1, the event source: 30 s beside the units (2026-11-28)
    "test_device_type_added.py": 30,
}
DEFAULT_WEIGHT = 20.0


def parse(value):
    """(index, count) of ``i/n``, 1 <= i <= n; ValueError otherwise."""
    index, count = (int(part) for part in value.split("/"))
    if not 1 <= index <= count:
        raise ValueError("shard %r: want i/n with 1 <= i <= n" % value)
    return index, count


def assign(files, count):
    """{file: shard number (1-based)} for base names of test files."""
    load = [0.0] * count
    out = {}
    for name in sorted(files, key=lambda f: (-WEIGHTS.get(f, DEFAULT_WEIGHT), f)):
        shard = min(range(count), key=lambda s: (load[s], s))
        load[shard] += WEIGHTS.get(name, DEFAULT_WEIGHT)
        out[name] = shard + 1
    return out


def select(items, value):
    """(kept, deselected) pytest items for shard ``value`` (``i/n``)."""
    index, count = parse(value)
    files = sorted({os.path.basename(str(item.fspath)) for item in items})
    shard_of = assign(files, count)
    kept = [item for item in items if shard_of[os.path.basename(str(item.fspath))] == index]
    return kept, [item for item in items if item not in kept]

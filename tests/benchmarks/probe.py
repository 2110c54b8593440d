"""One module process, measured on its own: peak memory, CPU and wall time, and how much of
it is the module's own start-up (imports and argument handling).

The payloads are the real ones: a tiny playbook runs ``ts_input`` (the analyzer's inputs,
already converged, so it only reads) and ``ansible.builtin.ping`` once with
ANSIBLE_KEEP_REMOTE_FILES, and the kept AnsiballZ files are then run directly, each a few
times, under ``wait4`` (peak RSS, CPU) and once more with ``-X importtime`` (what each import
costs inside the payload, where module_utils are compiled from the zip on every run).
Argument handling is timed in a separate interpreter that builds the module object from the
same arguments without sending a request. The kept payloads hold the simulator's factory
password; the directory is removed right after.
"""

import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

from . import fleet_bench

REPEAT = 5
OURS = "ansible_collections.broadcast.monitoring."

ARGS_RUNNER = r"""
import json, sys, time
from ansible.module_utils.testing import patch_module_args
from ansible_collections.broadcast.monitoring.plugins.modules import ts_input
from ansible_collections.broadcast.monitoring.plugins.module_utils import _module as mod
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as ts_device
args = json.load(sys.stdin)
samples = []
for unused in range(%d):
    with patch_module_args(args):
        started = time.perf_counter()
        mod.DeviceModule(ts_input.ARGUMENT_SPEC, ts_device)
        samples.append(time.perf_counter() - started)
print(json.dumps(samples))
"""


def _keep_payloads(ansible, sim, inventory_dir, module_args, workdir):
    """Run ping and ts_input once against the first analyzer, keeping their AnsiballZ files."""
    host = next(d.name for d in sim.devices if d.kind == "ts_analyzer")
    play = [{"name": "One invocation of each payload", "hosts": host, "gather_facts": False, "tasks": [
        {"name": "Ping", "ansible.builtin.ping": None},
        {"name": "Inputs (reads only: the device is converged)", "broadcast.monitoring.ts_input": module_args},
    ]}]
    playbook = os.path.join(workdir, "probe.yml")
    with open(playbook, "w", encoding="utf-8") as handle:
        yaml.safe_dump(play, handle, sort_keys=False)
    remote_tmp = tempfile.mkdtemp(prefix="bench-payloads-", dir=workdir)
    env = ansible.environment("linear")
    # a module process is what is measured here: direct execution off
    env.update(ANSIBLE_KEEP_REMOTE_FILES="1", ANSIBLE_REMOTE_TMP=remote_tmp, BROADCAST_MONITORING_DIRECT_EXECUTION="false")
    command = [os.path.join(fleet_bench.BIN, "ansible-playbook"), playbook, "-i", sim.inventory, "-i", inventory_dir]
    proc = subprocess.run(command, cwd=fleet_bench.ROOT, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        shutil.rmtree(remote_tmp, ignore_errors=True)
        raise RuntimeError("probe playbook failed:\n" + (proc.stdout + proc.stderr)[-2000:])
    found = {}
    for name in ("ping", "ts_input"):
        paths = glob.glob(os.path.join(remote_tmp, "*", "AnsiballZ_%s.py" % name))
        found[name] = paths[0] if paths else None
    return remote_tmp, found


#: GNU time starts the payload from its own small process: a child forked straight from this
#: (larger) benchmark process would report this process's memory as its peak RSS
GNU_TIME = "/usr/bin/time"


def _run_payload(path, importtime=False):
    """Wall, CPU, peak RSS (MB) of one payload run, and its import times when asked."""
    command = [sys.executable] + (["-X", "importtime"] if importtime else []) + [path]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as peak:
        if os.access(GNU_TIME, os.X_OK):
            command = [GNU_TIME, "-f", "%M", "-o", peak.name] + command
        started = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=err, cwd=os.path.dirname(path))
        status, usage = os.wait4(proc.pid, 0)[1:]
        wall = time.perf_counter() - started
        out.seek(0)
        result = json.loads(out.read() or b"{}")
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        reported = peak.read().strip().splitlines()
    if os.waitstatus_to_exitcode(status) != 0 or result.get("failed"):
        raise RuntimeError("payload %s failed: %s" % (os.path.basename(path), result.get("msg")))
    maxrss_kb = int(reported[-1]) if reported and reported[-1].isdigit() else usage.ru_maxrss
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "maxrss_mb": maxrss_kb / 1024.0,
            "imports": _imports(stderr) if importtime else None, "requests": result.get("requests")}


def _imports(stderr):
    """Import seconds inside one payload run: ours (the module's top-level imports of this
    collection, its HTTP library included), the HTTP library alone (requests before 0.1.0's
    transport, http.client since), ansible's basic, fm_device, xml."""
    out = {"ours": 0.0, "requests": 0.0, "http_client": 0.0, "ansible_basic": 0.0, "fm_device": 0.0, "xml": 0.0}
    wanted = {"requests": "requests", "http.client": "http_client", "ansible.module_utils.basic": "ansible_basic",
              OURS + "plugins.module_utils._fm.api": "fm_device", "xml.etree.ElementTree": "xml"}
    for line in stderr.splitlines():
        if not line.startswith("import time:") or line.count("|") != 2:
            continue
        cumulative, name = line[len("import time:"):].split("|")[1:]
        if not cumulative.strip().isdigit():
            continue  # the header line
        seconds = int(cumulative) / 1e6
        top_level = not name[1:].startswith(" ")
        if top_level and name.strip().startswith(OURS):
            out["ours"] += seconds
        key = wanted.get(name.strip())
        if key:
            out[key] = max(out[key], seconds)
    return out


def _argument_handling(module_args):
    """Seconds to build the module object (argument spec, validation, client) without I/O."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(fleet_bench.ROOT, "build", "collections")
    proc = subprocess.run([sys.executable, "-c", ARGS_RUNNER % REPEAT], input=json.dumps(module_args), text=True,
                          capture_output=True, env=env, check=False, cwd=fleet_bench.ROOT)
    if proc.returncode != 0:
        raise RuntimeError("argument-handling runner failed: " + (proc.stdout + proc.stderr)[-1500:])
    return statistics.median(json.loads(proc.stdout.strip().splitlines()[-1]))


def measure(ansible, sim, inventory_dir, module_args, workdir):
    """Payload runs of ts_input and ping, and ts_input's argument handling, as one dict."""
    remote_tmp, payloads = _keep_payloads(ansible, sim, inventory_dir, module_args, workdir)
    try:
        runs = {name: [_run_payload(path) for unused in range(REPEAT)] for name, path in payloads.items() if path}
        imports = {name: _run_payload(path, importtime=True)["imports"] for name, path in payloads.items() if path}
    finally:
        shutil.rmtree(remote_tmp, ignore_errors=True)  # the payloads embed the (factory) password
    # the same arguments with the templated connection options resolved (nothing is sent)
    base = next(d.base for d in sim.devices if d.kind == "ts_analyzer")
    address, port = base.split("//", 1)[1].rsplit(":", 1)
    args_s = _argument_handling(dict(module_args, host=address, port=int(port)))
    out = {"repeat": REPEAT}
    for name, samples in runs.items():
        out[name] = {key: round(statistics.median(s[key] for s in samples), 4) for key in ("wall_s", "cpu_s", "maxrss_mb")}
        out[name]["imports_s"] = {k: round(v, 4) for k, v in imports[name].items()}
        out[name]["requests"] = samples[0]["requests"]
    ts_input = out["ts_input"]
    own = ts_input["imports_s"]["ours"] + args_s
    ts_input["argument_handling_s"] = round(args_s, 4)
    ts_input["own_startup_s"] = round(own, 4)
    ts_input["own_startup_share"] = round(own / ts_input["wall_s"], 3) if ts_input["wall_s"] else None
    library = "requests" if ts_input["imports_s"]["requests"] else "http.client"
    ts_input["http_library"] = library
    ts_input["http_import_s"] = ts_input["imports_s"][library.replace(".", "_")]
    ts_input["http_import_share"] = round(ts_input["http_import_s"] / ts_input["wall_s"], 3)
    return out

"""Bad input (issue 9): invalid parameter sets for every module, from bad_input_cases.yml.

Each case must fail before the first request to the device, with a message naming the
parameter, and without a traceback. The cases run as tasks of one ansible-playbook run per
simulated device (four runs, in parallel); a ``set_fact`` marker before each case stamps the
time, so the simulator's request log (each entry has its time) tells which case sent what.
"""

import concurrent.futures
import json
import os

import pytest
import yaml

from tests.functional.conftest import ROOT, Play, connection
from tests.reliability import figures

CASES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad_input_cases.yml")
#: modules that take no connection option (they talk to no device, or take its connection by
#: variable name), so this matrix (cases run against a simulated device given by options, with
#: its requests counted) does not apply; where their own refusals are tested instead
NO_DEVICE = {"role_variables": "tests/functional/test_role_variables.py, tests/unit/plugins/plugin_utils/test_role_variables.py",
             "fleet_status_reading": "tests/functional/test_role_variables.py, tests/functional/test_fleet_status.py"}
MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules"))
                 if name.endswith(".py") and not name.startswith("_") and name[:-3] not in NO_DEVICE)
#: texts that mean the module crashed instead of rejecting the input
CRASH_SIGNS = ("traceback", "module failure", "unexpected")
#: what ansible-core 2.19 puts under ``exception`` of a failed result that carries no traceback
NO_TRACEBACK = "(traceback unavailable)"
MARK = "bad_input_mark"
MIN_CASES_PER_MODULE = 3
MIN_CASES = 120


def load_cases():
    with open(CASES_FILE, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    cases = []
    for module, entries in data.items():
        for entry in entries:
            cases.append(dict(entry, module=module, key="%s-%s" % (module, entry["id"])))
    return cases


CASES = load_cases()


def device_name(case):
    """Which simulated device a case runs against: one per lane, so lanes run in parallel."""
    if case["module"].startswith("ts_"):
        return "ts-001"
    if case["module"].startswith("fm_"):
        return "fm-001"
    return {"ts": "ts-002", "fm": "fm-002"}[case["target"]]


def expand(value, device, tmp):
    """The case's value with its placeholders filled in."""
    if isinstance(value, dict):
        return {k: expand(v, device, tmp) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, device, tmp) for v in value]
    if value == "{101 events}":
        return [{"time": minute, "state": "enabled"} for minute in range(101)]
    if isinstance(value, str):
        return value.replace("{address}", device.address).replace("{tmp}", str(tmp))
    return value


def module_args(case, device, tmp):
    """Valid connection options to ``device`` with the case's parameters on top (None removes one)."""
    args = connection(device)
    if case["module"].startswith("device_"):
        args["device_type"] = device.kind  # auto detection would cost one request by design
    args.update(expand(case["params"], device, tmp))
    return {key: value for key, value in args.items() if value is not None}


def task(case, device, tmp):
    out = {"name": case["key"], "broadcast.monitoring.%s" % case["module"]: module_args(case, device, tmp)}
    if case.get("check_mode"):
        out["check_mode"] = True
    if case.get("environment"):
        out["environment"] = case["environment"]
    return out


def marker(index):
    # set_fact runs in the controller, no module process: a cheap clock reading between cases
    return {"name": "mark %d" % index, "ansible.builtin.set_fact": {MARK: "{{ now().timestamp() }}"}}


def prepare_files(tmp):
    """Files the path cases point at: not a bundle, not a backup, a backup of the other device type."""
    (tmp / "not-a-bundle.swu").write_text("this is not a firmware bundle\n")
    (tmp / "other.json").write_text(json.dumps({"format": "someone-else/1", "device_type": "fm_monitor"}))
    (tmp / "fm-backup.json").write_text(json.dumps({"format": "broadcast.monitoring.backup/1", "device_type": "fm_monitor"}))


def run_lane(sim, play, name, cases, tmp):
    """All cases of one device in one play; each case's result and the requests it caused."""
    device = sim.fleet.by_name(name)
    sim.call(device.reset)  # factory passwords; also clears the request log
    tasks = []
    for index, case in enumerate(cases):
        tasks += [marker(index), task(case, device, tmp)]
    tasks.append(marker(len(cases)))
    sim.call(device.requests.clear)
    out = play.run(tasks, name)
    log = sim.call(lambda: list(device.requests))
    marks = [float(out[2 * index]["ansible_facts"][MARK]) for index in range(len(cases) + 1)]
    by_case = {}
    for index, case in enumerate(cases):
        start, end = marks[index], marks[index + 1]
        by_case[case["key"]] = {"result": out[2 * index + 1],
                                "requests": [r for r in log if start <= r["time"] < end]}
    # requests outside every case's window (before the first or after the last marker)
    stray = [r for r in log if not marks[0] <= r["time"] < marks[-1]]
    return by_case, stray


@pytest.fixture(scope="module")
def outcomes(sim, collections_path, tmp_path_factory):
    """Every case's outcome: the four lanes run at once, each its own ansible-playbook."""
    tmp = tmp_path_factory.mktemp("bad-input-files")
    prepare_files(tmp)
    lanes = {}
    for case in CASES:
        lanes.setdefault(device_name(case), []).append(case)
    results, strays = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(lanes)) as pool:
        futures = {}
        for name, cases in lanes.items():
            play = Play(sim, collections_path, tmp_path_factory.mktemp(name))  # own workdir: Play is not thread-safe
            futures[name] = pool.submit(run_lane, sim, play, name, cases, tmp)
        for name, future in futures.items():
            results_of_lane, strays[name] = future.result()
            results.update(results_of_lane)
    return {"cases": results, "stray": strays}


def crash_text(result):
    """The result as lower-case text, without ansible-core's "no traceback" placeholder."""
    shown = {key: value for key, value in result.items() if not (key == "exception" and value == NO_TRACEBACK)}
    return json.dumps(shown).lower()


def problems_of(case, outcome):
    """What is wrong with the way ``case`` was handled; [] when it was rejected properly."""
    result, problems = outcome["result"], []
    if result.get("failed") is not True:
        problems.append("not rejected (failed is not true)")
    msg = str(result.get("msg", ""))
    missing = [name for name in case["names"] if name not in msg]
    if missing:
        problems.append("message does not name %s" % ", ".join(missing))
    problems += ["result contains %r" % sign for sign in CRASH_SIGNS if sign in crash_text(result)]
    # what the message must not repeat (a password inside a URL or address); ``invocation``
    # is ansible-core's echo of the task's arguments, not the module's words
    shown = json.dumps({key: value for key, value in result.items() if key != "invocation"})
    problems += ["result repeats %s…" % text[:4] for text in case.get("hidden", []) if text in shown]
    if result.get("exception", NO_TRACEBACK) != NO_TRACEBACK:
        problems.append("result has an exception: %s" % result["exception"])
    if outcome["requests"]:
        problems.append("%d request(s) reached the device: %s" % (len(outcome["requests"]), ", ".join(
            "%s %s (%s)" % (r["method"], r["path"], r["kind"]) for r in outcome["requests"])))
    return problems


def test_every_module_has_cases():
    by_module = {}
    for case in CASES:
        by_module.setdefault(case["module"], []).append(case)
    assert sorted(by_module) == MODULES, "modules without bad-input cases: %s; cases for unknown modules: %s" % (
        sorted(set(MODULES) - set(by_module)), sorted(set(by_module) - set(MODULES)))
    assert all(len(cases) >= MIN_CASES_PER_MODULE for cases in by_module.values())
    assert len(CASES) >= MIN_CASES
    assert len({case["key"] for case in CASES}) == len(CASES), "case ids must be unique per module"
    assert all(case["names"] for case in CASES), "each case names the parameter its message must contain"
    assert all(case["module"].startswith(("ts_", "fm_")) or case.get("target") in ("ts", "fm") for case in CASES)
    from_environment = [key for key in os.environ if key.startswith("BROADCAST_MONITORING_")]
    assert not from_environment, "connection options from the environment would change what the cases test"


def case_param(case):
    marks = [pytest.mark.xfail(strict=True, reason=case["bug"])] if case.get("bug") else []
    return pytest.param(case, id=case["key"], marks=marks)


@pytest.mark.parametrize("case", [case_param(case) for case in CASES])
def test_case_rejected_before_any_request(outcomes, case):
    outcome = outcomes["cases"][case["key"]]
    problems = problems_of(case, outcome)
    assert not problems, "%s %s %s: %s\nmsg: %s" % (
        case["module"], case["id"], json.dumps(case["params"]), "; ".join(problems), outcome["result"].get("msg"))


@pytest.mark.parametrize("module", MODULES)
def test_module_rejects_bad_input_before_any_request(outcomes, module):
    """The module's cases as a whole: no request outside the known bugs, no traceback; figures."""
    cases = [case for case in CASES if case["module"] == module]
    known_bugs = [case for case in cases if case.get("bug")]
    checked = [case for case in cases if not case.get("bug")]
    lanes = {device_name(case) for case in cases}
    stray = [r for lane in lanes for r in outcomes["stray"][lane]]
    assert stray == [], "requests outside every case of %s: %s" % (module, stray)
    requests = sum(len(outcomes["cases"][case["key"]]["requests"]) for case in checked)
    tracebacks = sum("traceback" in crash_text(outcomes["cases"][case["key"]]["result"]) for case in checked)
    failing = {case["id"]: problems_of(case, outcomes["cases"][case["key"]]) for case in checked}
    failing = {key: value for key, value in failing.items() if value}
    assert not failing, "%s: cases not rejected properly: %s" % (module, failing)
    assert requests == 0 and tracebacks == 0
    figures.add("bad_input", "invalid parameter sets", len(checked))
    figures.add("bad_input", "requests reached a device", requests)
    figures.add("bad_input", "tracebacks", tracebacks)
    figures.add("bad_input", "known module bugs (xfail, not counted above)", len(known_bugs))
    outcome = "%d cases, all rejected before any request" % len(checked)
    if known_bugs:
        outcome += "; %d known bug(s) xfailed: %s" % (len(known_bugs), ", ".join(case["id"] for case in known_bugs))
    figures.row("bad_input", module, outcome)

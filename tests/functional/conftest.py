"""Functional tests: real ansible-playbook runs against simulated devices over HTTP.

The collection under test is this working tree, linked into a temporary collections path,
or an installed copy when BM_COLLECTIONS_PATH names one (the artifact test sets it).
"""

import ast
import itertools
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from bm_simulator.fleet import running_fleet

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def collections_path(tmp_path_factory):
    return collections_dir(tmp_path_factory)


def collections_dir(tmp_path_factory):
    """A collections path holding the collection under test."""
    given = os.environ.get("BM_COLLECTIONS_PATH")
    if given:
        return given
    base = tmp_path_factory.mktemp("collections")
    target = base / "ansible_collections" / "broadcast"
    target.mkdir(parents=True)
    (target / "monitoring").symlink_to(ROOT)
    return str(base)


@pytest.fixture(scope="session")
def sim():
    """The suite's simulated fleet. A file that needs a fleet of its own (other simulator
    variants) defines its own fixture of this name: play, ts and fm then use that one."""
    with running_fleet(ts=2, fm=2, time_scale=0.02) as runner:
        yield runner


class Play:
    """Runs tasks as one play against one simulated device and returns each task's result."""

    def __init__(self, sim, collections_path, workdir):
        self.sim = sim
        self.collections_path = collections_path
        self.workdir = workdir
        self.runs = 0

    def device(self, name):
        return self.sim.fleet.by_name(name)

    def run(self, tasks, host, check=False, diff=False, extra_vars=None, verbosity=0, env=None, module_defaults=None,
            cwd=None, other_hosts=None):
        """``other_hosts``: {name: host variables} of hosts to add to the fleet's inventory
        (a jump host to delegate to); ``cwd``: where ansible-playbook runs (relative paths)."""
        self.runs += 1
        out = self.workdir / ("results-%d" % self.runs)
        out.mkdir()
        inventory = self.workdir / ("inventory-%d.yml" % self.runs)
        self.sim.write_inventory(str(inventory))
        if other_hosts:
            data = yaml.safe_load(inventory.read_text())
            data["all"].setdefault("hosts", {}).update(other_hosts)
            inventory.write_text(yaml.safe_dump(data, sort_keys=False))
        wrapped, names = [], []
        for index, task in enumerate(tasks):
            names.append(task.get("register", "result_%d" % index))  # a task's own name is kept
            wrapped.append(dict(task, register=names[-1], ignore_errors=True))
        results = "{{ {%s} | to_json }}" % ", ".join("'%d': %s" % (i, name) for i, name in enumerate(names))
        wrapped.append({
            "name": "Save results",
            "ansible.builtin.copy": {"content": results, "dest": "%s/{{ inventory_hostname }}.json" % out},
            "check_mode": False,
            "diff": False,
        })
        play = [{"name": "Test play", "hosts": host, "gather_facts": False, "tasks": wrapped}]
        if extra_vars:
            play[0]["vars"] = extra_vars
        if module_defaults:
            play[0]["module_defaults"] = module_defaults
        playbook = self.workdir / ("play-%d.yml" % self.runs)
        playbook.write_text(yaml.safe_dump(play, sort_keys=False))
        # --diff always: the secrets search covers what diffs show (``diff`` is kept for callers' intent)
        options = (["--check"] if check else []) + ["--diff"]
        proc = ansible_playbook(self.sim, self.collections_path, self.workdir,
                                ["-i", str(inventory), str(playbook)] + options, verbosity=verbosity, env=env, cwd=cwd)
        result_file = out / ("%s.json" % host)
        if not result_file.exists():
            raise AssertionError("playbook did not finish:\n%s\n%s" % (proc.stdout, proc.stderr))
        data = json.loads(result_file.read_text())
        return Outcome([data[str(i)] for i in range(len(tasks))], proc.output)


def ansible_playbook(sim, collections_path, workdir, args, verbosity=0, env=None, cwd=None):
    """Run ansible-playbook with ``args`` for the collection under test; returns the finished
    process (``output``: stdout and stderr). Every run is made at -vvvv or more, with a log
    file, and both are searched for every secret the fleet ``sim`` issued (leak_watch). ``cwd``: the
    directory it runs in (default: this process's)."""
    log = workdir / ("ansible-%d.log" % next(_RUNS))
    command = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook")] + list(args)
    command.append("-" + "v" * max(verbosity, 4))
    environment = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path, ANSIBLE_NOCOLOR="1",
                       ANSIBLE_HOST_KEY_CHECKING="0", ANSIBLE_RETRY_FILES_ENABLED="0",
                       ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_INVENTORY_UNPARSED_WARNING="0",
                       ANSIBLE_LOG_PATH=str(log))
    environment.pop("PYTHONPATH", None)  # the collection must come from collections_path only
    environment.update(env or {})
    proc = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=300, check=False,
                          cwd=cwd)
    proc.output = proc.stdout + proc.stderr
    leak_watch(sim, proc.output + (log.read_text(errors="replace") if log.exists() else ""))
    return proc


def run_playbook(fleet, collections_path, workdir, playbook, all_vars=None, host_vars=None, extra_vars=None,
                 options=()):
    """``playbook`` (a path, or a name in playbooks/) on the fleet's inventory with extra
    group and host variables; returns (exit code, output, PLAY RECAP per host)."""
    inventory = workdir / "inventory.yml"
    fleet.write_inventory(str(inventory))
    data = yaml.safe_load(inventory.read_text())
    data["all"]["vars"].update(all_vars or {})
    for group in data["all"]["children"].values():
        for name, hostvars in group["hosts"].items():
            hostvars.update((host_vars or {}).get(name, {}))
    inventory.write_text(yaml.safe_dump(data, sort_keys=False))
    args = ["-i", str(inventory), os.path.join(ROOT, "playbooks", playbook)] + list(options)
    for key, value in (extra_vars or {}).items():
        args += ["-e", "%s=%s" % (key, value)]
    # run in workdir: what a playbook writes to a relative path (backups/, reports/) stays out of the tree
    proc = ansible_playbook(fleet, collections_path, workdir, args, cwd=str(workdir))
    return proc.returncode, proc.output, recap(proc.stdout)


def recap(output):
    """PLAY RECAP counters per host: {'ts-001': {'ok': 5, 'changed': 1, 'failed': 0, ...}}."""
    hosts = {}
    for match in re.finditer(r"^(\S+)\s+:\s+(.*)$", output.split("PLAY RECAP", 1)[-1], re.MULTILINE):
        hosts[match.group(1)] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", match.group(2))}
    return hosts


_RUNS = itertools.count(1)

#: The factory passwords are public (the interface documents print them) and common words,
#: so they are not searched for; every other password and every token is.
FACTORY_PASSWORDS = ("admin", "user")

#: What the leak watch has searched, for docs/reliability.md.
LEAK_WATCH = {"runs": 0, "characters": 0, "secrets": set(), "occurrences": 0}


def leak_watch(sim, text):
    """Fail when any password or token a simulated device ever issued appears in ``text``
    (a run's output and log)."""
    secrets = set()
    for device in sim.fleet.devices:
        secrets.update(s for s in sim.call(device.issued_secrets) if s and s not in FACTORY_PASSWORDS)
    found = sorted(s[:4] + "…" for s in secrets if s in text)
    LEAK_WATCH["runs"] += 1
    LEAK_WATCH["characters"] += len(text)
    LEAK_WATCH["secrets"].update(secrets)
    LEAK_WATCH["occurrences"] += len(found)
    if found:
        raise AssertionError("secrets issued by the simulator appear in the output or log: %s" % ", ".join(found))


class Outcome:
    def __init__(self, results, output):
        self.results = results
        self.output = output

    def __getitem__(self, index):
        return self.results[index]


@pytest.fixture
def fresh(sim):
    """A factory-fresh device by name (tasks.factory_fresh); its request log starts empty."""
    from .tasks import factory_fresh  # tasks.py imports this file
    return lambda name: factory_fresh(sim, name)


@pytest.fixture
def play(sim, collections_path, tmp_path):
    return Play(sim, collections_path, tmp_path)


def connection(device, password="admin", role="admin"):
    """Module options that reach a simulated device."""
    return {"host": device.address, "port": device.port, "role": role, "password": password}


#: Variables the modules' EXAMPLES use, with the simulator's factory values.
EXAMPLE_VARS = {
    "ts_admin_password": "admin", "ts_user_password": "user",
    "fm_admin_password": "admin", "fm_user_password": "user",
    "vault_ts_admin_password": "admin", "vault_fm_admin_password": "admin",
}


def example_state(device_type):
    """The example inventory's declared parts of a device type, as device_state takes them."""
    group = "ts_analyzers" if device_type == "ts_analyzer" else "fm_monitors"
    with open(os.path.join(ROOT, "playbooks", "inventory", "group_vars", group + ".yml"), encoding="utf-8") as handle:
        variables = yaml.safe_load(handle)
    prefix = device_type + "_"
    parts = {name[len(prefix):]: value for name, value in variables.items()
             if name.startswith(prefix) and name[len(prefix):] not in ("purge", "reboot")}
    if device_type == "ts_analyzer":  # every source variant the example leaves out, RF too
        parts["inputs"] = parts["inputs"] + [
            {"name": "RF 1", "source": {"rf": {"mode": 1, "frequency": 474000000, "bandwidth": 8, "plp_id": 0}}}]
    return parts


#: the states of the resource modules that read a backup instead of a device
OFFLINE_STATES = ("parsed", "rendered")


def module_examples(name, offline=False):
    """The tasks of a module's EXAMPLES, exactly as its documentation shows them: those that
    contact a device, or with ``offline`` those of state parsed and rendered, which read a
    backup file (tests/functional/test_parsed_rendered.py runs them)."""
    path = os.path.join(ROOT, "plugins", "modules", name + ".py")
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "EXAMPLES" for t in node.targets):
            tasks = yaml.safe_load(ast.literal_eval(node.value))
            return [task for task in tasks if _offline(task) is offline]
    raise AssertionError("%s has no EXAMPLES" % name)


def _offline(task):
    return any(isinstance(args, dict) and args.get("state") in OFFLINE_STATES
               for key, args in task.items() if key.startswith("broadcast.monitoring."))


def pytest_collection_modifyitems(config, items):
    """With BM_SHARD=i/n, only shard i of the suite runs (tests/functional/shards.py)."""
    if os.environ.get("BM_SHARD"):
        from tests.functional import shards
        kept, dropped = shards.select(items, os.environ["BM_SHARD"])
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_sessionfinish(session, exitstatus):
    """Report what the leak watch searched (docs/reliability.md, "Secrets in the functional suite")."""
    from tests.reliability import figures
    if exitstatus == 0 and not os.environ.get("BM_COLLECTIONS_PATH") and figures.whole_suite(session, os.path.dirname(__file__)):
        figures.record_leak_watch("leak_watch", "functional suite", LEAK_WATCH)
        figures.write_report()

"""A fleet of simulated devices in one event loop, one loopback address each."""

import asyncio
import contextlib
import ipaddress
import os
import random
import socket
import threading

import yaml

from . import faults as faultspec
from . import twin as twins_of_backups
from .core import is_loopback
from .fm import FmMonitor
from .ts import TsAnalyzer

MODELS = {"ts_analyzer": TsAnalyzer, "fm_monitor": FmMonitor}
GROUPS = {"ts_analyzer": "ts_analyzers", "fm_monitor": "fm_monitors"}
PREFIX = {"ts_analyzer": "ts", "fm_monitor": "fm"}


def loopback_addresses(first, count):
    """``count`` consecutive loopback addresses from ``first``, skipping .0 and .255."""
    if not is_loopback(first):
        raise ValueError("refusing non-loopback address %s: the simulator serves loopback only" % first)
    out = []
    current = ipaddress.ip_address(first)
    while len(out) < count:
        if not current.is_loopback:
            raise ValueError("not enough loopback addresses from %s for %d devices" % (first, count))
        if current.packed[-1] not in (0, 255):
            out.append(str(current))
        current += 1
    return out


def port_is_bindable(address, port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((address, port))
        except OSError:
            return False
    return True


class Fleet:
    def __init__(self, ts=0, fm=0, address="127.0.10.1", port=80, time_scale=1.0, state_dir=None, faults=None, seed=0,
                 ts_upgrade=None, ts_role_denied=403, unknown_fields="refuse", fm_conf="complete", shape="documented",
                 bundle_target="ignored", twins=(), factory_reset_firmware="kept"):
        """``ts`` analyzers and ``fm`` monitors in factory state (names ts-001..., fm-001...),
        then one twin per ``(host, backup document)`` of ``twins`` (twin.py), named ``host``."""
        twins = list(twins)
        addresses = loopback_addresses(address, ts + fm + len(twins))
        if state_dir:
            os.makedirs(state_dir, exist_ok=True)
        self.devices = []
        #: device name -> the backup document of each twin; those of _configure are configured
        #: from it at start (the others resume from --state-dir)
        self.twins = {}
        self._configure = []
        kinds = ["ts_analyzer"] * ts + ["fm_monitor"] * fm
        counters = {"ts_analyzer": 0, "fm_monitor": 0}
        names = []
        for kind in kinds:
            counters[kind] += 1
            names.append("%s-%03d" % (PREFIX[kind], counters[kind]))
        docs = [None] * len(kinds) + [doc for _host, doc in twins]
        kinds += [doc["device_type"] for _host, doc in twins]
        names += [host for host, _doc in twins]
        if len(set(names)) != len(names):
            raise ValueError("two devices named %s" % ", ".join(sorted({n for n in names if names.count(n) > 1})))
        for kind, name, addr, doc in zip(kinds, names, addresses, docs):
            # a twin kept in --state-dir resumes where it was; a new one starts from its backup
            resumed = bool(state_dir) and os.path.exists(os.path.join(state_dir, "%s.json" % name))
            options = ({"role_denied": ts_role_denied, "upgrade": ts_upgrade} if kind == "ts_analyzer"
                       else {"conf": twins_of_backups.fm_conf_scope(doc) if doc else fm_conf})
            device = MODELS[kind](name, addr, port, time_scale=time_scale, state_dir=state_dir,
                                  seed=seed + len(self.devices), unknown_fields=unknown_fields, shape=shape,
                                  bundle_target=bundle_target, factory_reset_firmware=factory_reset_firmware,
                                  **options)
            if doc is not None:
                twins_of_backups.adopt_hardware(device, doc)
                self.twins[name] = doc
                if not resumed:
                    self._configure.append(name)
            self.devices.append(device)
        for target, spec in faultspec.parse_cli(faults):
            for device in self.devices:
                if faultspec.targets(target, device.name):
                    device.faults.add(dict(spec))

    def by_name(self, name):
        return next(d for d in self.devices if d.name == name)

    def of_kind(self, kind):
        return [d for d in self.devices if d.kind == kind]

    async def start(self):
        await asyncio.gather(*(device.start() for device in self.devices))
        await asyncio.gather(*(twins_of_backups.configure(self.by_name(name), self.twins[name])
                               for name in self._configure))
        for name, doc in self.twins.items():
            twins_of_backups.set_world(self.by_name(name), doc)

    async def stop(self):
        await asyncio.gather(*(device.stop() for device in self.devices), return_exceptions=True)

    def inventory(self):
        """Ansible YAML inventory: one group per device type, connection options as host vars.
        Twins are also in the group ``twins`` and carry ``broadcast_monitoring_twin``, the
        address and port they answer at: the collection's roles refuse a run of an inventory
        that holds twins on a host that is not one, or on a twin whose address the user's
        variables point elsewhere (a rehearsal never reaches a unit)."""
        groups = {group: {"hosts": {}} for group in GROUPS.values()}
        for device in self.devices:
            groups[GROUPS[device.kind]]["hosts"][device.name] = {
                "ansible_host": device.address,
                "device_port": device.port,
                "device_type": device.kind,
            }
            if device.name in self.twins:
                groups[GROUPS[device.kind]]["hosts"][device.name]["broadcast_monitoring_twin"] = {
                    "host": device.address, "port": device.port}
        if self.twins:
            groups["twins"] = {"hosts": {name: None for name in self.twins}}
        return {
            "all": {
                "vars": {
                    "ansible_connection": "local",
                    "ansible_python_interpreter": "{{ ansible_playbook_python }}",
                },
                "children": groups,
            }
        }

    def write_inventory(self, path):
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            yaml.safe_dump(self.inventory(), handle, default_flow_style=False, sort_keys=False)
        os.replace(tmp, path)


class FleetThread:
    """A fleet served from a background thread, for test suites.

    ``call(fn)`` runs ``fn()`` (or awaits it, if it returns a coroutine) on the fleet's
    loop, so tests can inspect and change devices without racing the server.
    """

    def __init__(self, **kwargs):
        self.fleet = Fleet(**kwargs)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="simulator", daemon=True)
        self._ready = threading.Event()
        self._error = None

    @property
    def devices(self):
        return self.fleet.devices

    def _run(self):
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.fleet.start())
        except Exception as err:  # reported to the starting thread
            self._error = err
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.fleet.stop())
        self.loop.close()

    def start(self):
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        return self

    def call(self, fn, *args, timeout=30):
        async def runner():
            result = fn(*args)
            if asyncio.iscoroutine(result):
                result = await result
            return result

        return asyncio.run_coroutine_threadsafe(runner(), self.loop).result(timeout)

    def stop(self):
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(30)

    def write_inventory(self, path):
        self.call(self.fleet.write_inventory, path)


def free_base_address():
    """A loopback /24 that nothing listens on, so parallel suites do not collide."""
    rng = random.SystemRandom()
    return "127.%d.%d.1" % (rng.randint(100, 250), rng.randint(1, 250))


@contextlib.contextmanager
def running_fleet(ts=1, fm=1, time_scale=0.05, **kwargs):
    """Start a fleet on free loopback addresses and ephemeral ports; yield the FleetThread."""
    kwargs.setdefault("address", free_base_address())
    kwargs.setdefault("port", 0)
    runner = FleetThread(ts=ts, fm=fm, time_scale=time_scale, **kwargs).start()
    try:
        yield runner
    finally:
        runner.stop()

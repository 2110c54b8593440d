# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The registry of device types: the one place that knows which device types there are. Each
is a folder of module_utils (``_ts/``, ``_fm/``) whose ``device_type.py`` says what the
device-neutral code asks of it (its name, label, detection rule, what its items are called)
and loads the folder's other files once the type is known. Everything that lists or tells
apart device types asks here: the choice lists, auto-detection, snapshots, backups and
restores, device_state, onboarding, validation and the event source.

Adding a device type is adding its folder and one entry to TYPES (docs: architecture.rst,
"Adding a device type"). A device type's ``device_type.py`` is imported in a function of
its own, written out, rather than at the top: a module then compiles and loads only the
device it talks to (the start-up time of every run), and AnsiballZ, which finds the
module_utils a module needs by reading its import statements, still ships it."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError


def _ts():
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import device_type
    return device_type


def _fm():
    from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import device_type
    return device_type


#: the registered device types: name -> the loader of its folder's device_type.py, in the
#: order the choice lists and the documentation name them
TYPES = {
    "ts_analyzer": _ts,
    "fm_monitor": _fm,
}
#: the names of the registered device types
NAMES = tuple(TYPES)


def known(name):
    """Whether ``name`` is a registered device type."""
    return isinstance(name, str) and name in TYPES


def unknown_message(name, what="device_type"):
    """The error of an unknown device type ``name`` given as ``what``: it names the known ones."""
    return "%s: unknown device type %r; the known device types are %s" % (what, name, ", ".join(NAMES))


def device_type(name, what="device_type"):
    """The ``device_type.py`` of the device type ``name``; InputError naming the known types
    for any other name (``what``: how the caller's user gave it)."""
    if not known(name):
        raise InputError([unknown_message(name, what)])
    return TYPES[name]()


def every():
    """The ``device_type.py`` of every registered device type, in registry order (this loads
    each: controller-side code only, never a module at start-up)."""
    return [device_type(name) for name in NAMES]


def detection_order():
    """The registered device types in the order auto-detection tries their rules: a rule of
    presence (an answer other than 404) before a rule of absence (404), which any device
    without the path would match."""
    return sorted(every(), key=lambda kind: 404 in kind.DETECT)


def api(kind):
    """The device's API layer (``api.py`` of its folder)."""
    return device_type(kind).api()


def api_backup(kind):
    """The backup part of the device's API layer (``api_backup.py``): a backup taken or read."""
    return device_type(kind).api_backup()


def api_snapshot(kind):
    """The snapshot part of the device's API layer (``api_snapshot.py``): a snapshot taken."""
    return device_type(kind).api_snapshot()


def restore(kind):
    """The device's sections of a restore (``restore.py``)."""
    return device_type(kind).restore()


def parts(kind):
    """The device's registry of parts (``parts.py``)."""
    return device_type(kind).parts()

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a part of a device is, for the registries of parts (``_ts/parts.py``, ``_fm/parts.py``),
and the orders the consumers derive from a registry: device_state and onboarding go through
the parts in their dependency order, a restore goes through the backup sections in its own
order, and a part that must be cut back after another (the analyzer's alert profiles after the
inputs) gets its second pass in both. Nothing here knows a part by name."""

from __future__ import annotations

#: the parts both devices have, set through the device-neutral system modules
SYSTEM = ("network", "time", "logging")


class Part:
    """One part of a device's state.

    ``name``: its key in device_state's ``parts``, in a backup's sections and, after the
    role's prefix, the role variable; ``module``: the module that writes it and, for
    onboarding, reads it; ``kind``: the type of its declared value (dict: settings, list:
    objects); ``purged``: purge (or purge_parts) makes it exact; ``common_part``: another key of
    ``parts`` that goes to the same module (the FM monitor's ``<part>_all``);
    ``monitoring``: a restore brings it back first, monitoring needs it; ``pruned_after``:
    with purge, what it does not declare is deleted by a second pass after that part (which
    may be moving off it in the same run); ``backed_up``: a backup holds it as a section."""

    def __init__(self, device_type, name, module_name, kind, purged=False, common_part=None, monitoring=False,
                 pruned_after=None, backed_up=True):
        self.device_type, self.name, self.module, self.kind = device_type, name, module_name, kind
        self.purged, self.common_part, self.monitoring, self.pruned_after = purged, common_part, monitoring, pruned_after
        self.backed_up = backed_up

    @property
    def system(self):
        return self.name in SYSTEM

    def read(self):
        """Onboarding's reader: ``(module, arguments, key of its result holding the part)``;
        a resource module is read with state=gathered, a settings module in check mode with
        no option (its ``before``)."""
        if self.kind is list:
            return self.module, {"state": "gathered"}, "gathered"
        return self.module, ({"device_type": self.device_type} if self.system else {}), "before"


def with_second_passes(parts):
    """``[(part, second)]``: ``parts`` in their order, each part with ``pruned_after`` met a
    second time (``second`` True) right after the part it waits for."""
    out = []
    for part in parts:
        out.append((part, False))
        out.extend((waiting, True) for waiting in parts if waiting.pruned_after == part.name)
    return out


def restore_order(registry):
    """The names of a backup's sections in the order a restore applies them: the registry's
    own sections first (``RAW_SECTIONS``, the FM monitor's /conf), the parts monitoring needs,
    the other objects, then the system settings, network last (it takes effect at the next
    reboot)."""
    parts = [part for part in registry.PARTS if part.backed_up]
    objects = [p.name for p in parts if p.monitoring] + [p.name for p in parts if not p.monitoring and not p.system]
    settings = [p.name for p in parts if p.system and p.name != "network"] + [p.name for p in parts
                                                                              if p.name == "network"]
    return tuple(registry.RAW_SECTIONS) + tuple(objects) + tuple(settings)


def restore_passes(registry):
    """``[(section name, second)]``: the sections in restore order, each part with
    ``pruned_after`` met a second time right after the part it waits for."""
    by_name = {part.name: part for part in registry.PARTS}
    order = [by_name[name] for name in restore_order(registry) if name in by_name]
    passes = [(part.name, second) for part, second in with_second_passes(order)]
    return [(name, False) for name in registry.RAW_SECTIONS] + passes


def purged(registry):
    """The names of the parts purge makes exact."""
    return tuple(part.name for part in registry.PARTS if part.purged)

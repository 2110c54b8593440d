# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A rehearsal never reaches a unit. The inventory ``bm-simulator twin`` writes puts its twins
in the group ``twins`` and gives each ``broadcast_monitoring_twin``, the address and port it
answers at. In an inventory that holds twins, a role refuses, before any request, a host that
is not a twin (a unit at its real address) and a twin that the user's variables point
elsewhere (a ``host_vars`` file setting ``ansible_host`` wins over the twins' inventory)."""

from __future__ import annotations

TWINS_GROUP = "twins"
TWIN_VARIABLE = "broadcast_monitoring_twin"


def _literal(value):
    """``value`` as text, or None when it is a template (the role's default address is one)."""
    text = None if value is None else str(value)
    return None if text is None or "{{" in text or "{%" in text else text


def rehearsal_refusal(role_name, task_vars):
    """``(variable names, message)`` when the host must not run in this inventory, else None."""
    twins = (task_vars.get("groups") or {}).get(TWINS_GROUP) or []
    if not twins:
        return None
    host = task_vars.get("inventory_hostname")
    if host not in twins:
        return [], (
            "%s is a unit, not a twin, and this inventory holds twins (group %s): a rehearsal never reaches a "
            "unit, so nothing was run on %s. Rehearse with the twins' inventory alone (the twin guide's "
            "rehearsal directory), or run on the units without it" % (host, TWINS_GROUP, host))
    twin = task_vars.get(TWIN_VARIABLE)
    if not isinstance(twin, dict) or "host" not in twin or "port" not in twin:
        return [TWIN_VARIABLE], (
            "%s is in the group %s without %s (the address and port of its twin, which bm-simulator twin writes): "
            "nothing was run on it; write the twins' inventory again with bm-simulator twin" % (
                host, TWINS_GROUP, TWIN_VARIABLE))
    given = {"ansible_host": (task_vars.get("ansible_host"), twin["host"]),
             "device_port": (task_vars.get("device_port"), twin["port"]),
             role_name + "_host": (task_vars.get(role_name + "_host"), twin["host"]),
             role_name + "_port": (task_vars.get(role_name + "_port"), twin["port"])}
    elsewhere = ["%s is %s" % (name, _literal(value)) for name, (value, expected) in given.items()
                 if _literal(value) is not None and _literal(value) != str(expected)]
    if not elsewhere:
        return None
    return [name for name, (value, expected) in given.items() if _literal(value) not in (None, str(expected))], (
        "%s is a twin answering at %s:%s, but the inventory points it elsewhere (%s; a host_vars or group_vars "
        "file wins over the twins' inventory): a rehearsal never reaches a unit, so nothing was run on %s. "
        "Remove that setting from the variables the rehearsal reads" % (
            host, twin["host"], twin["port"], ", ".join(elsewhere), host))

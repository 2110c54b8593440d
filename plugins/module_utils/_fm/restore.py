# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The FM monitor's sections of a restore (_backup/restore.py runs them): its /conf verbatim,
then what it shows of its tuners outside /conf, through the tuner endpoints. What each
request holds: api.py and api_backup.py."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._backup.format import FORMAT_1
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine_settings import replace_settings
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import api_backup
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import parts
from ansible_collections.broadcast.monitoring.plugins.module_utils._fm.resources import (
    Schedules,
    Thresholds,
    Tuners,
    reconcile_tuners,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import restore_order


def section_order(doc):
    """The sections a restore of ``doc`` goes through, in order: format 1 holds the monitor's
    /conf only."""
    return parts.RAW_SECTIONS if doc["format"] == FORMAT_1 else restore_order(parts)


def steps(client, doc, network, check_mode, sections):
    """The monitor's own sections of ``doc``, each as the step that restores it (the system
    settings are _backup/restore.py's), once /conf is restored here; None when the restore
    ends with /conf: a format-1 backup holds nothing else, and in check mode a /conf that
    changes leaves the rest unknown."""
    conf = sections.run("conf", lambda: restore_conf(client, doc, network, check_mode))
    if doc["format"] == FORMAT_1:
        return None
    if check_mode and conf["changed"]:
        # The configuration write sets most of what follows; what it leaves to the later
        # sections cannot be known before it is made.
        sections.not_planned = [n for n in section_order(doc)[1:] if network or n != "network"]
        return None
    return tuner_steps(client, doc["raw"]["tuners"], check_mode)


def restore_conf(client, doc, network, check_mode):
    """The monitor's /conf, verbatim, in one write when it differs."""
    current = client.get(api.CONF)
    wanted = dict(doc["config"]["conf"] if doc["format"] == FORMAT_1 else doc["raw"]["conf"])
    if not network:  # keep the unit's own address and name
        wanted = api_backup.conf_keeping_network(wanted, current)
    # written in the backup's order, and without the clock the backup read (the unit keeps its own)
    result = replace_settings(current, api_backup.conf_ordered(wanted), lambda body: client.post(api.CONF, body),
                              lambda: client.get(api.CONF), check_mode, api_backup.conf_ordered)
    if "lost_answers" in result:
        result["lost_answers"] = [dict(item, key="conf") for item in result["lost_answers"]]
    return result


def tuner_steps(client, tuners, check_mode):
    """What the monitor shows of its tuners outside /conf, each section as the step that
    restores it: on a device whose /conf carried all of it, these find nothing to write."""
    # an active schedule sets its tuner's state (fm_tuner refuses to set it too): left to the schedule
    settings = [api_backup.without(api.tuner_from_device(raw), ("station_id",) + (
        ("operating_state",) if api.schedule_active(raw) else ())) for raw in tuners]
    thresholds = [api.tuner_thresholds(raw) for raw in tuners]
    schedules = [api.tuner_schedule(raw) for raw in tuners]
    return {"tuners": lambda: reconcile_tuners(Tuners(client), settings, None, "merged", check_mode),
            "thresholds": lambda: reconcile_tuners(Thresholds(client), thresholds, None, "merged", check_mode),
            "schedules": lambda: reconcile_tuners(Schedules(client), schedules, None, "merged", check_mode)}

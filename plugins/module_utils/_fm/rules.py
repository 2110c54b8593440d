# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The monitor's rules between its parts, each in one place (device_state asks every device
type's rules.py for ``declared_problems``). The one rule: a tuner whose schedule is active has
its operating state set by the schedule, so an operating state declared for it is refused.
fm_tuner checks it against the schedules the device reports (resources.py), and device_state
and the fm_monitor role against the declared schedules, before any request."""

from __future__ import annotations

from ansible.module_utils.parsing.convert_bool import boolean

#: how to keep the rule, as device_state's messages say it
FIX = ("the schedule sets the tuner's operating state; leave operating_state out for it, or declare its"
       " schedule active: false")


def owns_state(tuner, schedule_active):
    """Whether ``tuner`` (its declared settings) breaks the rule: it declares an operating
    state, and its schedule is active."""
    return bool(schedule_active) and tuner.get("operating_state") is not None


def _active(schedule):
    """A declared schedule's ``active`` as a bool, None when not declared."""
    value = (schedule or {}).get("active") if isinstance(schedule, dict) else None
    return None if value is None else boolean(value, strict=False)


def declared_problems(parts, names, part_named):
    """The rule on the declared parts (device_state's ``parts``): a problem for each tuner that
    declares an operating state while its declared schedule is active. ``names(key)`` names a
    part as its user wrote it, ``part_named(key)`` as a sentence does."""
    tuners = [t for t in parts.get("tuners") or [] if isinstance(t, dict)]
    schedules = [s for s in parts.get("schedules") or [] if isinstance(s, dict)]
    every = _active(parts.get("schedules_all"))
    own = {s.get("tuner_id"): _active(s) for s in schedules if _active(s) is not None}
    problems = []
    for index, tuner in enumerate(tuners):
        tid = tuner.get("tuner_id")
        if owns_state(tuner, own.get(tid, every)):
            problems.append("%s[%d] (tuner %s): operating_state: %s declares the schedule of tuner %s"
                            " active; %s" % (names("tuners"), index, tid,
                                             part_named("schedules" if tid in own else "schedules_all"), tid, FIX))
    if owns_state(parts.get("tuners_all") or {}, every or any(own.values())):
        problems.append("%s: operating_state: the schedules declare an active schedule; %s" % (names("tuners_all"), FIX))
    return problems

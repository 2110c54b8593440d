# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How device_state turns the monitor's declared parts into their modules' arguments, beyond
plugin_utils/_state_parts.py's default (settings as declared, per-tuner parts with their
``<part>_all``, replaced with purge and merged without): the tuners the schedules part leaves
active."""

from __future__ import annotations


#: the monitor's parts all take the default arguments
BUILD = {}
#: no part of the monitor has a second pass
SECOND_PASS = {}


def _scheduled_tuners(results):
    # the schedules part runs first: the tuners its schedules leave active are theirs to set
    # (in the plan too, where the device does not report them active yet)
    schedules = results.get("schedules") or {}
    if isinstance(schedules.get("after"), list) and not schedules.get("failed"):
        return {"scheduled_tuners": [obj["tuner_id"] for obj in schedules["after"] if obj.get("active")]}
    return {}


def more_args(name):
    """What the default arguments of part ``name`` get from the results of earlier parts (a
    function of those results, or None): the tuners part, the tuners with an active schedule."""
    return _scheduled_tuners if name == "tuners" else None

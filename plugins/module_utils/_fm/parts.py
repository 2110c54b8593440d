# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The FM monitor's parts, declared once: device_state applies them, onboarding reads them as
the role's variables, a backup holds them and a restore writes them back, all from this
list (``_parts.py`` says what each field means). Adding a part is one entry here."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import Part

KIND = "fm_monitor"
#: the role that declares the monitor's state; its variables are ``<ROLE>_<part>``
ROLE = "fm_monitor"

#: in dependency order: the order device_state applies them and the role lists them
PARTS = (
    Part(KIND, "network", "device_network", dict),
    Part(KIND, "time", "device_time", dict),
    Part(KIND, "logging", "device_logging", dict),
    # schedules before tuners: a schedule it activates sets its tuner's state, which the tuners part then leaves
    Part(KIND, "schedules", "fm_schedule", list, purged=True, common_part="schedules_all", monitoring=True),
    Part(KIND, "tuners", "fm_tuner", list, purged=True, common_part="tuners_all", monitoring=True),
    Part(KIND, "thresholds", "fm_thresholds", list, purged=True, common_part="thresholds_all", monitoring=True),
)

#: sections of a backup that are not parts, restored before them: the monitor's /conf, which
#: holds most of the parts at once
RAW_SECTIONS = ("conf",)


def prechecks():
    """Each part module's checks that need no device (device_state runs them on the controller,
    before any request): the functions the module itself runs before its first request, by
    module name."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._fm import resources

    def tuners_check(resource):
        return lambda params: resources.check_tuners(resource, params["config"], params.get("all_tuners"),
                                                     params["state"])

    return {"fm_tuner": tuners_check(resources.Tuners(None)), "fm_thresholds": tuners_check(resources.Thresholds(None)),
            "fm_schedule": tuners_check(resources.Schedules(None))}

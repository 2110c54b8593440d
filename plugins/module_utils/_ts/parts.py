# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's parts, declared once: device_state applies them, onboarding reads them as
the role's variables, a backup holds them and a restore writes them back, all from this
list (``_parts.py`` says what each field means). Adding a part is one entry here."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import Part

KIND = "ts_analyzer"
#: the role that declares the analyzer's state; its variables are ``<ROLE>_<part>``
ROLE = "ts_analyzer"

#: in dependency order: the order device_state applies them and the role lists them
PARTS = (
    Part(KIND, "network", "device_network", dict),
    Part(KIND, "time", "device_time", dict),
    Part(KIND, "logging", "device_logging", dict),
    Part(KIND, "snmp", "ts_snmp", dict, purged=True),
    # with purge, the profiles not declared are deleted after the inputs have moved off them
    Part(KIND, "alert_profiles", "ts_alert_profile", list, purged=True, monitoring=True, pruned_after="inputs"),
    Part(KIND, "inputs", "ts_input", list, purged=True, monitoring=True),
    Part(KIND, "converters", "ts_converter", list, purged=True),
)

#: sections of a backup that are not parts, restored before them
RAW_SECTIONS = ()


def prechecks():
    """Each part module's checks that need no device (device_state runs them on the controller,
    before any request): the functions the module itself runs before its first request, by
    module name."""
    from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import check_config
    from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
    from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import resources

    def snmp_problems(params):
        try:
            resources.check_snmp(params)
        except InputError as err:
            return err.problems
        return []

    return {
        "ts_snmp": snmp_problems,
        "ts_alert_profile": lambda params: check_config(resources.Profiles(None), params["config"], params["state"]),
        "ts_input": lambda params: check_config(resources.Inputs(None, params.get("alert_profile_ids")),
                                                params["config"], params["state"]),
        "ts_converter": lambda params: check_config(resources.Converters(None), params["config"], params["state"]),
    }

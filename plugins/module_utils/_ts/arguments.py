# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How device_state turns the analyzer's declared parts into their modules' arguments, where
plugin_utils/_state_parts.py's default (settings as declared, objects replaced with purge and
merged without) does not fit: SNMP lists, the alert profiles and their second pass, the inputs."""

from __future__ import annotations


def _snmp(value, options, results):
    return dict(value, lists="replace" if options["purge"]["snmp"] else "add")


def _alert_profiles(value, options, results):
    # With purge, the profiles not declared are deleted by a second pass after the inputs
    # (_unused_profiles): the inputs may be moving off them in this very run. The factory
    # profile cannot be deleted: with purge it is kept, under whatever name the analyzer gives
    # it, at factory values unless declared (reset_factory_profile).
    if options["purge"]["alert_profiles"]:
        return {"state": "replaced", "config": list(value), "reset_factory_profile": True}
    return {"state": "merged", "config": list(value)}


def _unused_profiles(value, options, results):
    """With purge, the second pass of the alert profiles: after the inputs part has moved its
    inputs to the declared profiles, the profiles not declared are deleted (the factory
    profile, which the first pass kept, is not). None (no pass) without purge, or when the
    first pass left no profile that is not declared."""
    first = results.get("alert_profiles")
    if not options["purge"]["alert_profiles"] or not first or first.get("failed"):
        return None
    declared = {profile.get("name") for profile in value} | {first.get("factory_profile")}
    if all(profile["name"] in declared for profile in first.get("after", [])):
        return None
    return {"state": "overridden", "config": list(value), "reset_factory_profile": True}


def planned_unused_profiles(args, results):
    """In check mode, what the second pass of the alert profiles would do, planned from the
    results of the first pass and of the inputs part (the inputs have not moved on the device,
    so the module itself would see them still using the profiles to delete). None when the
    inputs part did not run: then the inputs stay as they are, and the module itself is run."""
    first, inputs = results["alert_profiles"], results.get("inputs")
    if inputs is None:
        return None
    declared = {profile["name"] for profile in args["config"]} | {first.get("factory_profile")}
    doomed = [profile["name"] for profile in first["after"] if profile["name"] not in declared]
    users = {}
    for one in inputs.get("after", []):
        users.setdefault(one.get("alert_profile"), []).append(one["name"])
    # worded as ts_alert_profile words it in a real run
    problems = ["profile %r (not listed, so state=overridden deletes it): cannot be deleted, input(s) %s use it; give"
                " them another alert_profile first (ts_input)" % (name, ", ".join(repr(user) for user in users[name]))
                for name in doomed if name in users]
    if problems:
        return {"failed": True, "changed": False, "problems": problems,
                "msg": "invalid parameters: %s" % "; ".join(problems)}
    after = [profile for profile in first["after"] if profile["name"] in declared]
    return {"changed": True, "before": first["after"], "after": after, "factory_profile": first.get("factory_profile"),
            "changes": [{"action": "delete", "key": name} for name in doomed],
            "diff": {"before": {p["name"]: p for p in first["after"]}, "after": {p["name"]: p for p in after}}}


def _inputs(value, options, results):
    args = {"state": "overridden" if options["purge"]["inputs"] else "merged", "config": value}
    # the profile ids the alert profiles part read: ts_input then reads only the inputs
    profiles = results.get("alert_profiles") or {}
    if "profile_ids" in profiles:
        args["alert_profile_ids"] = profiles["profile_ids"]
    return args


#: how a part's declared value becomes its module's arguments, where the default does not fit
BUILD = {"snmp": _snmp, "alert_profiles": _alert_profiles, "inputs": _inputs}
#: the second pass of a part with ``pruned_after``: its arguments, and its plan in check mode
SECOND_PASS = {"alert_profiles": (_unused_profiles, planned_unused_profiles)}


def more_args(name):
    """What the default arguments of part ``name`` get from the results of earlier parts: nothing here."""
    return None

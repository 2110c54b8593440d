# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Firmware, the same for both devices (device_firmware): the bundles (_swu.py reads them),
the one that fits the device, its upload and the reboot into it. The waiting is _system.py's."""

from __future__ import annotations

import os
import time

from ansible_collections.broadcast.monitoring.plugins.module_utils import _swu as swu
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import upload_firmware
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    DEVICE,
    REFUSED,
    UNREACHABLE,
    BundleError,
    BundleRefused,
    DeviceError,
    InputError,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._system import POLL, uptime, uptime_or, wait_for_boot


#: Seconds an accepted upload is watched for a reboot of the device's own. The FM monitor's
#: document says an upgrade "installs at once" and takes effect after a reboot; the
#: analyzer's leaves it open, and a device that reboots by itself goes away within moments.
SETTLE = 2.0


def went_away_after_upload(client, api, uptime_before, settle, sleep=time.sleep, clock=time.monotonic):
    """True when the device goes away (or is back with a smaller uptime) within ``settle``
    seconds of an accepted upload: it reboots by itself. False when it stays up."""
    deadline = clock() + settle
    while True:
        answer = client.try_get(api.ALIVE, timeout=max(0.5, min(2.0, deadline - clock())))
        if answer is None:
            return True
        if uptime_before is not None and uptime_or(api, answer, uptime_before) < uptime_before:
            return True
        if clock() + POLL > deadline:
            return False
        sleep(POLL)


def _bundle_label(bundle):
    return "%s (version %s, for %s)" % (bundle["path"], bundle["version"],
                                        ", ".join(bundle["target"]) if bundle["target"] else "no model named")


def read_bundles(params):
    """The bundles ``path`` names (a bundle, or a folder of ``*.swu`` bundles), each
    ``{"path", "version", "target"}``; InputError, before any request, when there is none
    to read or a single bundle does not carry ``version``."""
    path = params["path"]
    if os.path.isdir(path):
        readable, unreadable = [], []
        for name in sorted(os.listdir(path)):
            full = os.path.join(path, name)
            if not name.endswith(".swu") or not os.path.isfile(full):
                continue
            try:
                readable.append(dict(swu.read_description(full), path=full))
            except (OSError, BundleError) as err:
                unreadable.append(str(err))
        if not readable:
            raise InputError(["path: the folder %s holds no readable .swu bundle%s" % (
                path, " (%s)" % "; ".join(unreadable) if unreadable else "")])
        return readable
    try:
        bundle = dict(swu.read_description(path), path=path)
    except (OSError, BundleError) as err:
        raise InputError(["path: %s" % err]) from None
    if params["version"] and bundle["version"] != params["version"]:
        raise InputError(["version: the bundle %s carries version %s, not %s" % (path, bundle["version"],
                                                                                 params["version"])])
    return [bundle]


def choose_bundle(params, bundles, model, installed=None):
    """The bundle for a device of ``model`` (None: the device does not say): the only one
    given, or the folder's bundle for that model, of ``version`` or else the newest."""
    if not os.path.isdir(params["path"]):
        return bundles[0]
    fits = [b for b in bundles if model and b["target"] and any(swu.same_model(t, model) for t in b["target"])]
    if not fits and params["allow_unchecked_target"]:
        fits = [b for b in bundles if not b["target"] or not model]
    if params["version"]:
        fits = [b for b in fits if b["version"] == params["version"]]
    newest = []
    for bundle in fits:
        order = swu.compare_versions(bundle["version"], newest[0]["version"]) if newest else 1
        if order is None:
            raise BundleRefused(["path: cannot tell which of %s is newer; set version" % " and ".join(
                _bundle_label(b) for b in (newest[0], bundle))], installed=installed, model=model)
        if order > 0:
            newest = [bundle]
        elif order == 0:
            newest.append(bundle)
    if len(newest) == 1:
        return newest[0]
    wanted = "model %s" % (model if model else "unknown (the device reports none)")
    if params["version"]:
        wanted += ", version %s" % params["version"]
    if newest:
        raise BundleRefused(["path: more than one bundle in %s for %s: %s" % (
            params["path"], wanted, "; ".join(_bundle_label(b) for b in newest))], installed=installed, model=model)
    raise BundleRefused(["path: no bundle in %s for %s; the folder holds %s%s" % (
        params["path"], wanted, "; ".join(_bundle_label(b) for b in bundles),
        "" if params["allow_unchecked_target"] or model else
        " (allow_unchecked_target=true also takes a bundle that names no model)")], installed=installed, model=model)


def check_bundle(params, bundle, model, previous):
    """Refuse, before any upload, a bundle for another model, one whose target cannot be
    compared (unless allow_unchecked_target), and a downgrade (unless allow_downgrade)."""
    def refuse(problem):
        return BundleRefused(["path: " + problem], bundle=bundle, installed=previous, model=model)
    if bundle["target"] and model:
        if not any(swu.same_model(target, model) for target in bundle["target"]):
            raise refuse("the bundle %s (version %s) is for %s, and this device is a %s (use the bundle made for"
                         " this model)" % (bundle["path"], bundle["version"], ", ".join(bundle["target"]), model))
    elif not params["allow_unchecked_target"]:
        why = ("names no model (no hardware-compatibility in its sw-description)" if not bundle["target"]
               else "cannot be checked: the device reports no model")
        raise refuse("the bundle %s (version %s) %s (set allow_unchecked_target=true to install it anyway, once you"
                     " know it is made for this device)" % (bundle["path"], bundle["version"], why))
    order = swu.compare_versions(bundle["version"], previous)
    if order is not None and order >= 0 or params["allow_downgrade"]:
        return order
    what = ("older than" if order is not None else "not comparable with")
    raise refuse("the bundle %s carries firmware %s, %s the installed %s: a downgrade (set allow_downgrade=true to"
                 " go back to it)" % (bundle["path"], bundle["version"], what, previous))


def manage_firmware(client, api, params, check_mode):
    """device_firmware: the bundle for this device (plan_firmware), its upload, the reboot
    into it (reboot_into_upload) and a check that the device runs it (verify)."""
    bundle, order, result = plan_firmware(client, api, params)
    version, previous = bundle["version"], result["previous_version"]
    if not result["changed"]:
        result["reboot_needed"] = api.read_reboot_needed(client)
        result["msg"] = "firmware %s is already installed" % version
        return result
    action = {1: "upgrade", -1: "downgrade"}.get(order, "change")
    if check_mode:
        result["msg"] = "would %s from %s to %s%s" % (
            action, previous, version, "" if params["reboot"] else " (running it from the next reboot)")
        return result
    before = uptime(client, api)
    started = time.monotonic()
    upload(client, api, bundle, params["upload_timeout"])
    outcome = reboot_into_upload(client, api, bundle, params, before)
    if outcome == "pending":
        result.update(reboot_needed=True, pending_version=version, elapsed=round(time.monotonic() - started, 2),
                      msg="installed %s; the device runs %s until its next reboot (reboot=false)" % (version, previous))
        return result
    result["rebooted"] = outcome == "rebooted"
    result["elapsed"] = round(time.monotonic() - started, 2)
    verify(client, api, result)
    result["msg"] = "%sd from %s to %s" % (action, previous, version)
    return result


def plan_firmware(client, api, params):
    """``(bundle, order, result)``: the bundle for this device, how its version compares with
    the installed one (compare_versions) and the module's result so far. A bundle that does
    not fit is refused here, before any write."""
    bundles = read_bundles(params)
    previous = api.read_firmware_version(client)
    model = api.read_identity(client).get("model")
    model = model.strip() if isinstance(model, str) and model.strip() else None
    bundle = choose_bundle(params, bundles, model, previous)
    order = check_bundle(params, bundle, model, previous)
    version = bundle["version"]
    result = {"changed": previous != version, "previous_version": previous, "current_version": previous,
              "bundle_version": version, "bundle_path": bundle["path"], "bundle_target": bundle["target"],
              "device_model": model, "pending_version": None, "rebooted": False, "reboot_needed": False,
              "elapsed": 0}
    if not result["changed"]:
        return bundle, order, result
    result["diff"] = {"before": {"firmware_version": previous}, "after": {"firmware_version": version}}
    try:
        mismatches = swu.image_mismatches(bundle["path"])
    except (OSError, BundleError) as err:
        mismatches = [str(err)]
    if mismatches:
        raise BundleRefused(["path: the bundle %s (version %s): %s; the device would refuse it (use the bundle as"
                             " the vendor made it)" % (bundle["path"], version, "; ".join(mismatches))],
                            bundle=bundle, installed=previous, model=model)
    return bundle, order, result


def upload(client, api, bundle, timeout):
    """Send ``bundle`` to the device; a refusal says nothing was installed."""
    try:
        upload_firmware(client, api, swu.MultipartFile(bundle["path"]), timeout)
    except DeviceError as err:
        if err.kind == REFUSED:
            err.message = "the device refused the bundle %s (version %s); nothing was installed" % (
                bundle["path"], bundle["version"])
            err.hint = "use a bundle as the vendor signed it for this device; a rebuilt or altered one is refused"
        raise


def reboot_into_upload(client, api, bundle, params, uptime_before):
    """What the device does with an accepted upload: ``rebooted`` (by itself, or here because
    it waits for a reboot and reboot=true), ``pending`` (it runs the old version until its next
    reboot, reboot=false) or ``running`` (it runs the new version without a reboot)."""
    # Installed. Either the device reboots into it by itself, or it keeps running the old
    # version with reboot_needed set until it is rebooted.
    if went_away_after_upload(client, api, uptime_before, min(SETTLE, params["reboot_timeout"])):
        wait_for_boot(client, api, params["reboot_timeout"], uptime_before)
        return "rebooted"
    version = bundle["version"]
    running, pending = api.read_firmware_version(client), api.read_reboot_needed(client)
    if running == version:
        return "running"
    if not pending:
        raise DeviceError(DEVICE, "the device accepted the bundle %s (version %s) but neither rebooted nor "
                                  "reports a pending reboot; it still runs firmware %s" % (bundle["path"], version, running))
    if not params["reboot"]:
        return "pending"
    try:
        client.post(api.REBOOT)
    except DeviceError as err:
        if err.kind != UNREACHABLE:  # unreachable: it went down on its own meanwhile
            raise
    wait_for_boot(client, api, params["reboot_timeout"], uptime_before)
    return "rebooted"


def verify(client, api, result):
    """The device runs the bundle's version: ``result``'s current version and pending reboot
    as it reports them; DeviceError when it runs another."""
    result["current_version"] = api.read_firmware_version(client)
    result["reboot_needed"] = api.read_reboot_needed(client)
    if result["current_version"] != result["bundle_version"]:
        raise DeviceError(REFUSED, "after the upgrade the device reports firmware %s, expected %s"
                          % (result["current_version"], result["bundle_version"]))

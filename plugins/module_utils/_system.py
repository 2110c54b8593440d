# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What both devices have (network, time, logging, passwords, reboot, firmware), in one
device-neutral shape. The device files (_ts/api.py, _fm/api.py) hold the paths and map
their shapes to these; this file holds the logic, the same for both."""

from __future__ import annotations

import datetime
import ipaddress
import os
import time

from ansible_collections.broadcast.monitoring.plugins.module_utils import _swu as swu
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    DEVICE,
    REFUSED,
    UNREACHABLE,
    BundleError,
    Conflict,
    DeviceError,
    InputError,
    quoted,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import reconcile_settings, strip_unset
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import LABEL_RE, Checker

POLL = 0.25


# -- waiting ---------------------------------------------------------------------------
def uptime(client, device):
    answer = client.try_get(device.ALIVE, timeout=client.timeout)
    return device.alive_uptime(answer) if answer else None


def _uptime_or(device, answer, default):
    value = device.alive_uptime(answer)
    return default if value is None else value


def wait_for_boot(client, device, timeout, uptime_before, sleep=time.sleep, clock=time.monotonic):
    """Wait until the device has gone away and answers again, or reports a smaller uptime
    than before the reboot; returns the seconds waited. Bounded by ``timeout``."""
    started = clock()
    deadline = started + timeout
    seen_down = False
    while True:
        answer = client.try_get(device.ALIVE, timeout=max(0.5, min(2.0, deadline - clock())))
        if answer is None:
            seen_down = True
        elif seen_down or (uptime_before is not None and _uptime_or(device, answer, uptime_before) < uptime_before):
            return round(clock() - started, 2)
        if clock() + POLL > deadline:
            raise DeviceError(UNREACHABLE, "the device did not come back at %s within %d s after the reboot "
                                           "(waited for GET %s to answer)" % (client.base_url, timeout, device.ALIVE))
        sleep(POLL)


def reboot(client, device, timeout, wait_client=None):
    """Reboot and wait (bounded) until the device answers, at ``wait_client``'s address if
    given; returns the seconds waited."""
    before = uptime(client, device)
    client.post(device.REBOOT)
    return wait_for_boot(wait_client or client, device, timeout, before)


# -- network ---------------------------------------------------------------------------
NETWORK_OPTIONS = ("dhcp", "address", "netmask", "gateway", "dns", "hostname")


def check_network(params):
    """Problems with the network options alone (before any request)."""
    check = Checker()
    if params.get("dhcp") and params.get("address"):
        check.fail("address", "not with dhcp=true: DHCP assigns the address; leave address out or set dhcp=false")
    for key in ("address", "gateway"):
        if params.get(key):
            check.ipv4(key, params[key])
    for index, server in enumerate(params.get("dns") or []):
        check.ipv4("dns[%d]" % index, server)
    if params.get("netmask"):
        try:
            ipaddress.IPv4Network("0.0.0.0/%s" % params["netmask"])
        except ValueError:
            check.fail("netmask", "must be a contiguous IPv4 netmask such as 255.255.255.0, got %s" % quoted(params["netmask"]))
    if params.get("hostname") is not None and not LABEL_RE.match(params["hostname"]):  # one DNS label
        check.fail("hostname", "must be 1 to 63 letters, digits or hyphens, not starting or ending with a hyphen")
    if params.get("wait_host"):
        check.host("wait_host", params["wait_host"])
    if check.problems:
        return check.problems
    if params.get("dhcp") is not True and params.get("address") and params.get("netmask"):
        # judged now when the options give the whole static setting (with dhcp unset too: the
        # options contradict each other whatever the device has)
        return check_reachable(dict(params, dhcp=False))
    return []


def check_reachable(after):
    """Problems with the resulting static settings that would strand the device."""
    if after.get("dhcp"):
        return []
    try:
        network = ipaddress.IPv4Interface("%s/%s" % (after["address"], after["netmask"])).network
        address = ipaddress.IPv4Address(after["address"])
    except (ValueError, TypeError):
        return ["address/netmask: %s/%s is not a valid static address" % (after.get("address"), after.get("netmask"))]
    problems = []
    if network.prefixlen < 31 and address in (network.network_address, network.broadcast_address):
        problems.append("address: %s is the network or broadcast address of %s" % (address, network))
    gateway = after.get("gateway")
    if gateway:
        if ipaddress.IPv4Address(gateway) not in network:
            problems.append("gateway: %s is outside the device's subnet %s; the device could not reach it"
                            % (gateway, network))
        elif gateway == after["address"]:
            problems.append("gateway: must not be the device's own address %s" % gateway)
    return problems


def manage_network(module):
    params, client, device = module.params, module.client, module.device
    desired = {key: params.get(key) for key in NETWORK_OPTIONS}
    problems = check_network(dict(desired, wait_host=params.get("wait_host")))
    if problems:
        raise InputError(problems)
    current = device.read_network(client)
    if desired.get("dhcp") is False and not desired.get("address") and current.get("dhcp"):
        raise InputError(["address: required to leave DHCP (dhcp=false) for a static address"])
    after = dict(current, **strip_unset(desired))
    problems = check_reachable(after)
    if problems:
        raise InputError(problems)
    result = reconcile_settings(current, desired, lambda wanted: device.write_network(client, current, wanted),
                                module.check_mode)
    pending = result["changed"] or device.read_reboot_needed(client)
    result.update(reboot_needed=pending, rebooted=False, elapsed=0, host=params["host"])
    if params.get("reboot") and pending:
        # Where the device answers after the reboot: its static address, or (DHCP) wait_host.
        target = params.get("wait_host") or (params["host"] if after.get("dhcp") else after["address"])
        result.update(changed=True, host=target)
        if not module.check_mode:
            result["elapsed"] = reboot(client, device, params["reboot_timeout"], client.at(target))
            result.update(rebooted=True, reboot_needed=False)
    moved = readdressed(params["host"], current, after)
    if moved:
        result["warnings"] = [moved % ("now answers" if result["rebooted"] else "answers after its next reboot")]
    return result


def readdressed(host, current, after):
    """A warning (with one %s: when) that the device leaves the address the play reaches it at,
    so the inventory's ansible_host must follow; None when it stays where it is."""
    if after.get("dhcp") or not after.get("address") or after["address"] == current.get("address"):
        return None
    if host != current.get("address"):  # reached by name or through a forward: the user knows best
        return None
    return ("address: the device %%s at %s instead of %s; set ansible_host (or host) to %s in the inventory "
            "so that later plays reach it" % (after["address"], host, after["address"]))


# -- time ------------------------------------------------------------------------------
def parse_time(value, where):
    if value == "now":
        return datetime.datetime.now(datetime.timezone.utc)
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(["%s: must be an ISO 8601 date and time or 'now', got %s" % (where, quoted(value))]) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def timezone_value(device, value):
    """The device's form of a timezone: an IANA name, or a whole-hour UTC offset."""
    if value is None or device.TIMEZONE_KIND == "name":
        return value
    try:
        offset = int(str(value).replace("UTC", "").strip() or "0")
    except ValueError:
        raise InputError(["timezone: this device takes a UTC offset in whole hours (e.g. 2 or -5), got %s" % quoted(value)]) from None
    low, high = device.TIMEZONE_RANGE
    if not low <= offset <= high:
        raise InputError(["timezone: UTC offset must be between %d and %d, got %d" % (low, high, offset)])
    return offset


def check_time(params, device):
    """Problems with the time options, found without the device (``device``: its shapes
    module, or None when not known yet)."""
    check = Checker()
    if params.get("ntp") and params.get("datetime"):
        check.fail("datetime", "only with ntp=false (with NTP on, the device sets its own clock)")
    if params.get("ntp") and params.get("ntp_servers") == []:
        check.fail("ntp_servers", "at least one server is needed with ntp=true")
    for index, server in enumerate(params.get("ntp_servers") or []):
        check.host("ntp_servers[%d]" % index, server)
    for parse in (lambda: parse_time(params["datetime"], "datetime") if params.get("datetime") else None,
                  lambda: timezone_value(device, params.get("timezone")) if device else None):
        try:
            parse()
        except InputError as err:
            check.problems.extend(err.problems)
    return check.problems


def manage_time(module):
    params, client, device = module.params, module.client, module.device
    problems = check_time(params, device)
    if problems:
        raise InputError(problems)
    target = parse_time(params["datetime"], "datetime") if params.get("datetime") else None
    desired = {"ntp": params.get("ntp"), "ntp_servers": params.get("ntp_servers"),
               "timezone": timezone_value(device, params.get("timezone"))}
    current = device.read_time(client)
    read_at = datetime.datetime.now(datetime.timezone.utc)
    if desired["timezone"] is not None and device.TIMEZONE_KIND == "name":
        known = device.timezones(client)
        if desired["timezone"] not in known:
            raise InputError(["timezone: the device does not know %r (see its list, e.g. Europe/Berlin, UTC)"
                              % desired["timezone"]])
    if (desired["ntp"] if desired["ntp"] is not None else current["ntp"]) and not (
            desired["ntp_servers"] if desired["ntp_servers"] is not None else current["ntp_servers"]):
        raise InputError(["ntp_servers: at least one server is needed with ntp=true"])
    drift = None
    if target is not None:
        drift = round(abs((parse_time(current["datetime"], "device datetime") - target).total_seconds()), 1)
    set_clock = drift is not None and drift > params["max_clock_drift"]
    compared = {k: current[k] for k in ("ntp", "ntp_servers", "timezone")}
    if set_clock:
        # compared to the second, as asked for; the value written also carries the time this
        # module has taken since it read the clock
        compared["datetime"] = current["datetime"]
        desired["datetime"] = target.astimezone(datetime.timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
    # Plan only (check_mode=True): the device writes the settings and the clock at once.
    result = reconcile_settings(compared, desired, lambda after: None, True)
    after = dict(current, **result["after"])
    if set_clock:
        after["datetime"] = (target + (datetime.datetime.now(datetime.timezone.utc) - read_at)).isoformat()
    if result["changed"] and not module.check_mode:
        device.write_time(client, current, after, set_clock)
    result["clock_drift"] = drift
    return result


# -- logging ---------------------------------------------------------------------------
def check_logging(params, device):
    """Problems with the logging options, found without the device (``device``: its shapes
    module, or None when not known yet)."""
    syslog = strip_unset(params.get("remote_syslog") or {})
    check = Checker()
    if "port" in syslog and device is not None:
        if not device.SYSLOG_PORT:
            check.fail("remote_syslog.port", "this device (%s) forwards to a fixed port; leave port out" % device.KIND)
        else:
            check.port("remote_syslog.port", syslog["port"])
    if syslog.get("enabled") and syslog.get("server") == "":
        check.fail("remote_syslog.server", "required when remote_syslog.enabled is true")
    elif syslog.get("server"):
        check.host("remote_syslog.server", syslog["server"])
    return check.problems


def manage_logging(module):
    params, client, device = module.params, module.client, module.device
    problems = check_logging(params, device)
    if problems:
        raise InputError(problems)
    syslog = strip_unset(params.get("remote_syslog") or {})
    desired = {"level": params.get("level"), "remote_syslog": syslog or None}
    current = device.read_logging(client)
    result = reconcile_settings(current, desired, lambda after: device.write_logging(client, after), module.check_mode)
    if result["after"]["remote_syslog"].get("enabled") and not result["after"]["remote_syslog"].get("server"):
        raise InputError(["remote_syslog.server: required when remote_syslog.enabled is true"])
    result["reboot_needed"] = result["changed"] or device.read_reboot_needed(client)
    return result


# -- passwords -------------------------------------------------------------------------
def logs_in(client, role, password):
    """Whether ``role`` logs in with ``password`` (one login request, nothing written)."""
    try:
        client.as_role(role, password).login()
    except DeviceError as err:
        if err.kind == "credentials":
            return False
        raise
    return True


#: the longest password the collection sets (the analyzer takes 1 to 128 characters; the FM
#: monitor's document gives no limit, the same bound keeps both alike)
PASSWORD_MAX = 128


def check_password(params):
    """Problems with ``new_password``, found without the device; never quoting it."""
    password = params.get("new_password")
    if password is None:
        return []
    if not password.strip():
        return ["new_password: must not be empty or only spaces"]
    if len(password) > PASSWORD_MAX:
        return ["new_password: must be at most %d characters (the one given is longer)" % PASSWORD_MAX]
    return []


def manage_password(module):
    params, client, device = module.params, module.client, module.device
    problems = check_password(params)
    if problems:
        raise InputError(problems)
    role, password = params["target_role"], params["new_password"]
    if logs_in(client, role, password):
        return {"changed": False, "target_role": role}
    if not module.check_mode:
        device.set_password(client, role, password)
        if not logs_in(client, role, password):
            raise DeviceError(REFUSED, "the device accepted the new %s password but does not log in with it" % role)
    return {"changed": True, "target_role": role}


# -- reboot and factory reset ----------------------------------------------------------
def manage_reboot(module):
    params, client, device = module.params, module.client, module.device
    factory = params["state"] == "factory_reset"
    if factory and not params["confirm"]:
        raise InputError(["confirm: must be true to factory-reset the device (it erases its configuration, "
                          "passwords and address)"])
    if params.get("factory_host"):
        check = Checker()
        check.host("factory_host", params["factory_host"])
        if check.problems:
            raise InputError(check.problems)
    if params["only_if_needed"] and not factory and not device.read_reboot_needed(client):
        return {"changed": False, "rebooted": False, "elapsed": 0, "host": params["host"]}
    host = params.get("factory_host") if factory and params.get("factory_host") else params["host"]
    result = {"changed": True, "rebooted": False, "elapsed": 0, "host": host}
    if module.check_mode:
        return result
    before = uptime(client, device)
    client.post(device.FACTORY_RESET if factory else device.REBOOT)
    result["rebooted"] = True
    if params["wait"]:
        result["elapsed"] = wait_for_boot(client.at(host), device, params["reboot_timeout"], before)
    return result


# -- firmware --------------------------------------------------------------------------
#: Seconds an accepted upload is watched for a reboot of the device's own. The FM monitor's
#: document says an upgrade "installs at once" and takes effect after a reboot; the
#: analyzer's leaves it open, and a device that reboots by itself goes away within moments.
SETTLE = 2.0


def went_away_after_upload(client, device, uptime_before, settle, sleep=time.sleep, clock=time.monotonic):
    """True when the device goes away (or is back with a smaller uptime) within ``settle``
    seconds of an accepted upload: it reboots by itself. False when it stays up."""
    deadline = clock() + settle
    while True:
        answer = client.try_get(device.ALIVE, timeout=max(0.5, min(2.0, deadline - clock())))
        if answer is None:
            return True
        if uptime_before is not None and _uptime_or(device, answer, uptime_before) < uptime_before:
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


def choose_bundle(params, bundles, model):
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
            raise Conflict(["path: cannot tell which of %s is newer; set version" % " and ".join(
                _bundle_label(b) for b in (newest[0], bundle))])
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
        raise Conflict(["path: more than one bundle in %s for %s: %s" % (
            params["path"], wanted, "; ".join(_bundle_label(b) for b in newest))])
    raise Conflict(["path: no bundle in %s for %s; the folder holds %s%s" % (
        params["path"], wanted, "; ".join(_bundle_label(b) for b in bundles),
        "" if params["allow_unchecked_target"] or model else
        " (allow_unchecked_target=true also takes a bundle that names no model)")])


def check_bundle(params, bundle, model, previous):
    """Refuse, before any upload, a bundle for another model, one whose target cannot be
    compared (unless allow_unchecked_target), and a downgrade (unless allow_downgrade)."""
    if bundle["target"] and model:
        if not any(swu.same_model(target, model) for target in bundle["target"]):
            raise Conflict(["path: the bundle %s is for %s, and this device is a %s; nothing was uploaded (use the"
                            " bundle made for this model)" % (bundle["path"], ", ".join(bundle["target"]), model)])
    elif not params["allow_unchecked_target"]:
        why = ("names no model (no hardware-compatibility in its sw-description)" if not bundle["target"]
               else "cannot be checked: the device reports no model")
        raise Conflict(["path: the bundle %s %s; nothing was uploaded (set allow_unchecked_target=true to install"
                        " it anyway, once you know it is made for this device)" % (bundle["path"], why)])
    order = swu.compare_versions(bundle["version"], previous)
    if order is not None and order >= 0 or params["allow_downgrade"]:
        return order
    what = ("older than" if order is not None else "not comparable with")
    raise Conflict(["path: the bundle %s carries firmware %s, %s the installed %s: a downgrade; nothing was"
                    " uploaded (set allow_downgrade=true to go back to it)"
                    % (bundle["path"], bundle["version"], what, previous)])


def manage_firmware(module):
    params, client, device = module.params, module.client, module.device
    bundles = read_bundles(params)
    previous = device.read_firmware_version(client)
    model = device.read_identity(client).get("model")
    model = model.strip() if isinstance(model, str) and model.strip() else None
    bundle = choose_bundle(params, bundles, model)
    order = check_bundle(params, bundle, model, previous)
    version = bundle["version"]
    result = {"changed": previous != version, "previous_version": previous, "current_version": previous,
              "bundle_version": version, "bundle_path": bundle["path"], "bundle_target": bundle["target"],
              "device_model": model, "pending_version": None, "rebooted": False, "reboot_needed": False,
              "elapsed": 0}
    if not result["changed"]:
        result["reboot_needed"] = device.read_reboot_needed(client)
        result["msg"] = "firmware %s is already installed" % version
        return result
    action = {1: "upgrade", -1: "downgrade"}.get(order, "change")
    result["diff"] = {"before": {"firmware_version": previous}, "after": {"firmware_version": version}}
    if module.check_mode:
        result["msg"] = "would %s from %s to %s%s" % (
            action, previous, version, "" if params["reboot"] else " (running it from the next reboot)")
        return result
    before = uptime(client, device)
    body = swu.MultipartFile(bundle["path"])
    started = time.monotonic()
    try:
        client.request("POST", device.UPGRADE, data=body, headers={"Content-Type": body.content_type},
                       idempotent=False, timeout=params["upload_timeout"])
    except DeviceError as err:
        if err.kind == REFUSED:
            err.message = "the device refused the bundle %s (version %s); nothing was installed" % (
                bundle["path"], version)
            err.hint = "use a bundle as the vendor signed it for this device; a rebuilt or altered one is refused"
        raise
    # Installed. Either the device reboots into it by itself, or it keeps running the old
    # version with reboot_needed set until it is rebooted.
    if went_away_after_upload(client, device, before, min(SETTLE, params["reboot_timeout"])):
        wait_for_boot(client, device, params["reboot_timeout"], before)
        result["rebooted"] = True
    else:
        running, pending = device.read_firmware_version(client), device.read_reboot_needed(client)
        if running != version and not pending:
            raise DeviceError(DEVICE, "the device accepted the bundle %s (version %s) but neither rebooted nor "
                                      "reports a pending reboot; it still runs firmware %s"
                              % (bundle["path"], version, running))
        if running != version and not params["reboot"]:
            result.update(reboot_needed=True, pending_version=version, elapsed=round(time.monotonic() - started, 2),
                          msg="installed %s; the device runs %s until its next reboot (reboot=false)"
                              % (version, previous))
            return result
        if running != version:
            try:
                client.post(device.REBOOT)
            except DeviceError as err:
                if err.kind != UNREACHABLE:  # unreachable: it went down on its own meanwhile
                    raise
            wait_for_boot(client, device, params["reboot_timeout"], before)
            result["rebooted"] = True
    result["elapsed"] = round(time.monotonic() - started, 2)
    result["current_version"] = device.read_firmware_version(client)
    result["reboot_needed"] = device.read_reboot_needed(client)
    if result["current_version"] != version:
        raise DeviceError(REFUSED, "after the upgrade the device reports firmware %s, expected %s"
                          % (result["current_version"], version))
    result["msg"] = "%sd from %s to %s" % (action, previous, version)
    return result

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What both devices have (network, time, logging, passwords, reboot; firmware: _firmware.py),
in one device-neutral shape. The device files (_ts/api.py, _fm/api.py) hold the paths and map
their shapes to these; this file holds the logic, the same for both."""

from __future__ import annotations

import datetime
import ipaddress
import time

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    REFUSED,
    UNREACHABLE,
    DeviceError,
    InputError,
    quoted,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import (
    network_requests,
    send as send_request,
    set_password,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import strip_unset
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine_settings import reconcile_settings
from ansible_collections.broadcast.monitoring.plugins.module_utils._validate import LABEL_RE, Checker

POLL = 0.25


# -- waiting ---------------------------------------------------------------------------
def uptime(client, api):
    answer = client.try_get(api.ALIVE, timeout=client.timeout)
    return api.alive_uptime(answer) if answer else None


def uptime_or(api, answer, default):
    value = api.alive_uptime(answer)
    return default if value is None else value


def wait_for_boot(client, api, timeout, uptime_before, sleep=time.sleep, clock=time.monotonic):
    """Wait until the device has gone away and answers again, or reports a smaller uptime
    than before the reboot; returns the seconds waited. Bounded by ``timeout``."""
    started = clock()
    deadline = started + timeout
    seen_down = False
    while True:
        answer = client.try_get(api.ALIVE, timeout=max(0.5, min(2.0, deadline - clock())))
        if answer is None:
            seen_down = True
        elif seen_down or (uptime_before is not None and uptime_or(api, answer, uptime_before) < uptime_before):
            return round(clock() - started, 2)
        if clock() + POLL > deadline:
            raise DeviceError(UNREACHABLE, "the device did not come back at %s within %d s after the reboot "
                                           "(waited for GET %s to answer)" % (client.base_url, timeout, api.ALIVE))
        sleep(POLL)


def reboot(client, api, timeout, wait_client=None):
    """Reboot and wait (bounded) until the device answers, at ``wait_client``'s address if
    given; returns the seconds waited."""
    before = uptime(client, api)
    client.post(api.REBOOT)
    return wait_for_boot(wait_client or client, api, timeout, before)


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


def manage_network(client, api, params, check_mode):
    desired = {key: params.get(key) for key in NETWORK_OPTIONS}
    problems = check_network(dict(desired, wait_host=params.get("wait_host")))
    if problems:
        raise InputError(problems)
    current = api.read_network(client)
    if desired.get("dhcp") is False and not desired.get("address") and current.get("dhcp"):
        raise InputError(["address: required to leave DHCP (dhcp=false) for a static address"])
    after = dict(current, **strip_unset(desired))
    problems = check_reachable(after)
    if problems:
        raise InputError(problems)
    result = reconcile_settings(current, desired, lambda wanted: send(client, current, wanted,
                                                                      network_requests(api, wanted)),
                                check_mode)
    pending = result["changed"] or api.read_reboot_needed(client)
    result.update(reboot_needed=pending, rebooted=False, elapsed=0, host=params["host"])
    if params.get("reboot") and pending:
        # Where the device answers after the reboot: a new static address, or where it was reached
        # (DHCP: wait_host). An address that stays is not dialled instead of the host reached: a
        # name, a NAT, or a twin, which reports its unit's address and answers at its own.
        stays = after.get("dhcp") or after.get("address") == current.get("address")
        target = params.get("wait_host") or (params["host"] if stays else after["address"])
        result.update(changed=True, host=target)
        if not check_mode:
            result["elapsed"] = reboot(client, api, params["reboot_timeout"], client.at(target))
            result.update(rebooted=True, reboot_needed=False)
    moved = readdressed(params["host"], current, after)
    if moved:
        result["warnings"] = [moved % ("now answers" if result["rebooted"] else "answers after its next reboot")]
    return result


def send(client, before, after, requests):
    """Each of a device's settings requests (_device_api.Request) whose settings differ
    between ``before`` and ``after``, or that is forced, in their order."""
    for request in requests:
        if request.forced or any(before.get(key) != after.get(key) for key in request.keys):
            send_request(client, request)


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


def timezone_value(api, value):
    """The device's form of a timezone: an IANA name, or a whole-hour UTC offset."""
    if value is None or api.TIMEZONE_KIND == "name":
        return value
    try:
        offset = int(str(value).replace("UTC", "").strip() or "0")
    except ValueError:
        raise InputError(["timezone: this device takes a UTC offset in whole hours (e.g. 2 or -5), got %s" % quoted(value)]) from None
    low, high = api.TIMEZONE_RANGE
    if not low <= offset <= high:
        raise InputError(["timezone: UTC offset must be between %d and %d, got %d" % (low, high, offset)])
    return offset


def check_time(params, api):
    """Problems with the time options, found without the device (``api``: its shapes
    module, or None when not known yet)."""
    check = Checker()
    if params.get("ntp") and params.get("datetime"):
        check.fail("datetime", "only with ntp=false (with NTP on, the device sets its own clock)")
    if params.get("ntp") and params.get("ntp_servers") == []:
        check.fail("ntp_servers", "at least one server is needed with ntp=true")
    for index, server in enumerate(params.get("ntp_servers") or []):
        check.host("ntp_servers[%d]" % index, server)
    for parse in (lambda: parse_time(params["datetime"], "datetime") if params.get("datetime") else None,
                  lambda: timezone_value(api, params.get("timezone")) if api else None):
        try:
            parse()
        except InputError as err:
            check.problems.extend(err.problems)
    return check.problems


def manage_time(client, api, params, check_mode):
    problems = check_time(params, api)
    if problems:
        raise InputError(problems)
    target = parse_time(params["datetime"], "datetime") if params.get("datetime") else None
    desired = {"ntp": params.get("ntp"), "ntp_servers": params.get("ntp_servers"),
               "timezone": timezone_value(api, params.get("timezone"))}
    current = api.read_time(client)
    read_at = datetime.datetime.now(datetime.timezone.utc)
    if desired["timezone"] is not None and api.TIMEZONE_KIND == "name":
        known = api.timezones(client)
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

    def write(planned):
        # the device writes the settings and the clock at once; the clock written also carries
        # the time this module has taken since it read it
        after = dict(current, **planned)
        if set_clock:
            after["datetime"] = (target + (datetime.datetime.now(datetime.timezone.utc) - read_at)).isoformat()
        send(client, current, after, api.time_requests(current, after, set_clock))

    result = reconcile_settings(compared, desired, write, check_mode)
    result["clock_drift"] = drift
    return result


# -- logging ---------------------------------------------------------------------------
def check_logging(params, api):
    """Problems with the logging options, found without the device (``api``: its shapes
    module, or None when not known yet)."""
    syslog = strip_unset(params.get("remote_syslog") or {})
    check = Checker()
    if "port" in syslog and api is not None:
        if not api.SYSLOG_HAS_PORT_FIELD:
            check.fail("remote_syslog.port", "this device (%s) has no port field; give the port in remote_syslog.server"
                       " (host:port), or leave it out for the device's own" % api.KIND)
        else:
            check.port("remote_syslog.port", syslog["port"])
    server = syslog.get("server")
    colon, number = str(server or "").rpartition(":")[1:]
    if syslog.get("enabled") and server == "":
        check.fail("remote_syslog.server", "required when remote_syslog.enabled is true")
    elif server and api is not None and api.SYSLOG_HAS_PORT_FIELD and colon and number.isdigit():
        check.fail("remote_syslog.server", "this device (%s) takes the port in remote_syslog.port, not in the server;"
                   " got %s" % (api.KIND, quoted(server)))
    elif server:
        # a device without a port field keeps the port in the server's text (host:port)
        check.host("remote_syslog.server", server, port=api is None or not api.SYSLOG_HAS_PORT_FIELD)
    return check.problems


def manage_logging(client, api, params, check_mode):
    problems = check_logging(params, api)
    if problems:
        raise InputError(problems)
    syslog = strip_unset(params.get("remote_syslog") or {})
    desired = {"level": params.get("level"), "remote_syslog": syslog or None}
    current = api.read_logging(client)
    result = reconcile_settings(current, desired, lambda after: api.write_logging(client, after), check_mode)
    if result["after"]["remote_syslog"].get("enabled") and not result["after"]["remote_syslog"].get("server"):
        raise InputError(["remote_syslog.server: required when remote_syslog.enabled is true"])
    result["reboot_needed"] = result["changed"] or api.read_reboot_needed(client)
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


def manage_password(client, api, params, check_mode):
    problems = check_password(params)
    if problems:
        raise InputError(problems)
    role, password = params["target_role"], params["new_password"]
    if logs_in(client, role, password):
        return {"changed": False, "target_role": role}
    if not check_mode:
        set_password(client, api, role, password)
        if not logs_in(client, role, password):
            raise DeviceError(REFUSED, "the device accepted the new %s password but does not log in with it" % role)
    return {"changed": True, "target_role": role}


# -- reboot and factory reset ----------------------------------------------------------
def manage_reboot(client, api, params, check_mode):
    factory = params["state"] == "factory_reset"
    if factory and not params["confirm"]:
        raise InputError(["confirm: must be true to factory-reset the device (it erases its configuration, "
                          "passwords and address)"])
    if params.get("factory_host"):
        check = Checker()
        check.host("factory_host", params["factory_host"])
        if check.problems:
            raise InputError(check.problems)
    if params["only_if_needed"] and not factory and not api.read_reboot_needed(client):
        return {"changed": False, "rebooted": False, "elapsed": 0, "host": params["host"]}
    host = params.get("factory_host") if factory and params.get("factory_host") else params["host"]
    result = {"changed": True, "rebooted": False, "elapsed": 0, "host": host}
    if check_mode:
        return result
    before = uptime(client, api)
    client.post(api.FACTORY_RESET if factory else api.REBOOT)
    result["rebooted"] = True
    if params["wait"]:
        result["elapsed"] = wait_for_boot(client.at(host), api, params["reboot_timeout"], before)
    return result

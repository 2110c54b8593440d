# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Onboarding: a device's current state as the variables of its role.

The one place where what the part modules read from a device becomes the variables of the
``ts_analyzer`` / ``fm_monitor`` role (``<role>_<part>``), in exactly the shape the role's
device_state task hands back to the same modules (plugin_utils/_state_parts.py). Each part is
read by the module that writes it: the resource modules with ``state=gathered`` (their
``gathered`` is in the shape of their ``config``), the settings modules with no option in
check mode (their ``before``). So the variables declare what the device has, and the role
run with them, with purge too, has nothing to change.

No password or token is ever part of the variables: the device never returns one, and a key
named like a secret, or the user-info of an address, is replaced by a reference to a variable
the user defines in a vault (``secret_variable``), listed in the result.

Device text is data, never code: the file is inventory, and Ansible templates inventory
values, so every value read from the device is written with the ``!unsafe`` tag (Ansible
reads it as it is). Only the references to vault variables (``Reference``) are left for
Ansible to template; in one that keeps part of the device's text, that part is a Jinja
string literal with every character that is not plainly inert escaped."""

from __future__ import annotations

import re

import yaml

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import SCHEME_RE

#: each device type's registry of parts (the parts.py of its folder)
REGISTRIES = {name: devices.parts(name) for name in devices.NAMES}
#: each device type's role
ROLES = {kind: registry.ROLE for kind, registry in REGISTRIES.items()}


class Read:
    """One part read from the device: the module, its arguments, and the key of its result
    that holds the part (``before`` of a settings module, ``gathered`` of a resource module)."""

    def __init__(self, part, module_name, args, key):
        self.part, self.module, self.args, self.key = part, module_name, args, key


#: the parts of each device type, in the order of its role (the registry's order)
READS = {kind: tuple(Read(part.name, *part.read()) for part in registry.PARTS) for kind, registry in REGISTRIES.items()}

#: the FM monitor's ``<part>_all`` variables: written as null, so that a group's value cannot
#: mix into the per-tuner state the file declares whole
ALL_TUNERS = {kind: tuple(part.common_part for part in registry.PARTS if part.common_part)
              for kind, registry in REGISTRIES.items()}

#: keys whose values are secrets wherever they appear (none of the parts the roles manage
#: holds one today: passwords are write-only on both devices)
SECRET_KEYS = frozenset(("password", "token", "new_password", "community", "passphrase", "secret"))


def _unset(value):
    return value is None or value == ""


def _network(before):
    """The network settings; with DHCP, without the address, netmask and gateway DHCP gives
    (the module refuses an address with dhcp=true)."""
    keys = (("dhcp", "dns", "hostname") if before.get("dhcp")
            else ("dhcp", "address", "netmask", "gateway", "dns", "hostname"))
    return {key: before[key] for key in keys if not _unset(before.get(key))}


def _time(before):
    # An FM monitor reports its timezone as a UTC offset (an integer); the role takes a string.
    out = {key: before[key] for key in ("ntp", "ntp_servers", "timezone") if before.get(key) is not None}
    if "timezone" in out:
        out["timezone"] = str(out["timezone"])
    return out


def _logging(before):
    out = {}
    if before.get("level") is not None:
        out["level"] = before["level"]
    syslog = {key: value for key, value in (before.get("remote_syslog") or {}).items() if not _unset(value)}
    if syslog:
        out["remote_syslog"] = syslog
    return out


def _snmp(before):
    return {key: before[key] for key in ("enabled", "listen_addresses", "trap_addresses") if key in before}


def _as_is(gathered):
    return list(gathered)


def _tuners(gathered, schedules):
    """The tuners; without the operating state of a tuner whose schedule is active (the
    schedule sets it, and the role refuses both), and without a station the tuner has not."""
    active = {schedule.get("tuner_id") for schedule in schedules or [] if schedule.get("active")}
    out = []
    for tuner in gathered:
        tuner = {key: value for key, value in tuner.items() if value is not None}
        if tuner.get("tuner_id") in active:
            tuner.pop("operating_state", None)
        out.append(tuner)
    return out


CONVERT = {
    "network": _network,
    "time": _time,
    "logging": _logging,
    "snmp": _snmp,
    "alert_profiles": _as_is,
    "inputs": _as_is,
    "converters": _as_is,
    "thresholds": _as_is,
    "schedules": _as_is,
}


def role_variables(device_type, read):
    """The role's variables (``{"<role>_<part>": value}``, in the role's order) from ``read``,
    ``{part: the value the part's module returned}``."""
    prefix = ROLES[device_type] + "_"
    variables = {}
    for one in READS[device_type]:
        value = read[one.part]
        if one.part == "tuners":
            value = _tuners(value, read.get("schedules"))
        else:
            value = CONVERT[one.part](value)
        variables[prefix + one.part] = value
    for name in ALL_TUNERS[device_type]:
        variables[prefix + name] = None
    return variables


def _word(text):
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_")


def secret_variable(host, path):
    """The name of the vault variable that stands in for the secret at ``path`` on ``host``."""
    return "vault_%s_%s" % (_word(host), "_".join(_word(step) for step in path))


def _userinfo(text):
    """(start, end) of the user-info of an address or URL in ``text`` (``udp://bob:pw@...``,
    ``bob:pw@host``), or None."""
    at = text.rfind("@")
    scheme = SCHEME_RE.match(text)
    start = scheme.end() if scheme else 0
    return (start, at) if at > start else None


#: keys whose values are addresses or URLs, which may carry user-info (``bob:pw@host``)
ADDRESS_RE = re.compile(r"(^|_)(url|server|servers|address|addresses|host)$")


class Reference(str):
    """A template of the collection's own, referring to a vault variable: the one kind of
    string in the file that Ansible templates."""


#: characters a Jinja string literal holds as they are; every other one is escaped
LITERAL_SAFE = re.compile(r"[A-Za-z0-9 .,:/@_=+-]")


def _literal(text):
    """``text`` as a Jinja string literal that holds no quote, brace or backslash of its own."""
    return '"%s"' % "".join(char if LITERAL_SAFE.match(char) else
                            ("\\u%04x" % ord(char) if ord(char) <= 0xFFFF else "\\U%08x" % ord(char))
                            for char in text)


def plain_strings(value):
    """``value`` with every ``Reference`` a plain string (for the task's result)."""
    if isinstance(value, dict):
        return {key: plain_strings(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain_strings(item) for item in value]
    return str(value) if isinstance(value, Reference) else value


def without_secrets(host, value, path=(), address=False):
    """``(value, [names])``: ``value`` with every secret replaced by a reference to a vault
    variable (``{{ vault_<host>_<path> }}``, a ``Reference``), and the names of those
    variables. ``address``: ``value`` is an address or URL (or a list of them)."""
    names = []
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in SECRET_KEYS and item not in (None, ""):
                names.append(secret_variable(host, path + (key,)))
                out[key] = Reference("{{ %s }}" % names[-1])
            else:
                out[key], found = without_secrets(host, item, path + (key,), bool(ADDRESS_RE.search(str(key))))
                names.extend(found)
        return out, names
    if isinstance(value, list):
        out = []
        for index, item in enumerate(value):
            item_path = path + ((item.get("name", item.get("tuner_id", index)),) if isinstance(item, dict) else (index,))
            item, found = without_secrets(host, item, item_path, address)
            out.append(item)
            names.extend(found)
        return out, names
    if isinstance(value, str) and address:
        span = _userinfo(value)
        if span:
            names.append(secret_variable(host, path + ("userinfo",)))
            # the device's text around the reference stays data: string literals, escaped
            return Reference("{{ %s ~ %s ~ %s }}" % (_literal(value[:span[0]]), names[-1],
                                                     _literal(value[span[1]:]))), names
    return value, names


UNSAFE = "!unsafe"


class _Dumper(yaml.SafeDumper):
    """Block style, with the innermost dicts and lists (only scalars inside) on one line.
    Device text is tagged ``!unsafe``: the largest dict or list without a ``Reference`` in
    it as a whole (Ansible reads all inside it as data), a string outside those on its own.
    ``Reference`` strings stay plain, for Ansible to template."""

    inert = 0  # > 0 while representing what an !unsafe dict or list holds

    def ignore_aliases(self, data):
        return True

    def represent_dict(self, data):
        return self._container(data, lambda tag: self._mapping(tag, data), "tag:yaml.org,2002:map")

    def represent_list(self, data):
        return self._container(data, lambda tag: self.represent_sequence(tag, data, flow_style=_flat(data)),
                               "tag:yaml.org,2002:seq")

    def _mapping(self, tag, data):
        # keys are the variables' and the modules' option names (or inside an !unsafe dict)
        pairs = [(self.represent_scalar("tag:yaml.org,2002:str", key) if isinstance(key, str) else
                  self.represent_data(key), self.represent_data(value)) for key, value in data.items()]
        return yaml.MappingNode(tag, pairs, flow_style=_flat(data.values()))

    def _container(self, data, represent, tag):
        if self.inert or _has_reference(data):
            return represent(tag)
        self.inert += 1
        try:
            return represent(UNSAFE)
        finally:
            self.inert -= 1

    def represent_device_str(self, data):
        node = self.represent_str(data)
        # a string Ansible's !unsafe would read as a number, boolean, null or date (it resolves
        # the tagged text as if it were plain) stays quoted and untagged: it holds no template
        if not self.inert and node.tag == "tag:yaml.org,2002:str" and \
                self.resolve(yaml.ScalarNode, data, (True, False)) == "tag:yaml.org,2002:str":
            node.tag = UNSAFE
        return node

    def represent_reference(self, data):
        return self.represent_str(str(data))


class _Variables(dict):
    """Variables by name: a mapping of ours, never tagged as a whole (each value is on its own)."""


def _flat(values):
    return all(not isinstance(value, (dict, list)) for value in values)


def _has_reference(value):
    if isinstance(value, dict):
        return any(_has_reference(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_reference(item) for item in value)
    return isinstance(value, Reference)


_Dumper.add_representer(_Variables, lambda dumper, data: yaml.MappingNode(
    "tag:yaml.org,2002:map", [(dumper.represent_scalar("tag:yaml.org,2002:str", key), dumper.represent_data(value))
                              for key, value in data.items()], flow_style=False))
_Dumper.add_representer(dict, _Dumper.represent_dict)
_Dumper.add_representer(list, _Dumper.represent_list)
_Dumper.add_representer(str, _Dumper.represent_device_str)
_Dumper.add_representer(Reference, _Dumper.represent_reference)


def header(host, device_type, secrets):
    """The comment lines that open ``host``'s host_vars file."""
    role = ROLES[device_type]
    lines = [
        "---",
        "# %s: the state the %s had when broadcast.monitoring.onboard read it, as the variables of the" % (host, role),
        "# broadcast.monitoring.%s role (its README and meta/argument_specs.yml describe them)." % role,
        "# No password or token is written here: the role logs in with broadcast_monitoring_password (vault it).",
        "# What the device holds is tagged !unsafe: Ansible reads it as data, never as a template.",
    ]
    if secrets:
        lines.append("# Define these in a vault file; the device holds secrets here: %s." % ", ".join(secrets))
    if ALL_TUNERS[device_type]:
        lines.append("# The *_all variables are null: every %s is declared on its own." % devices.device_type(device_type).ITEM)
    return "\n".join(lines) + "\n"


def _dump(variables):
    return yaml.dump(variables, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True,
                     width=160)


def variable_texts(variables):
    """``{name: the YAML text of that variable}``, in the role's order, each value tagged on its
    own: a file of some of them is their texts one after the other (the dumper writes no alias)."""
    return {name: _dump(_Variables({name: value})) for name, value in variables.items()}


def document(host, device_type, variables, secrets):
    """The host_vars file of ``host``: a header, then the variables."""
    return header(host, device_type, secrets) + _dump(variables)

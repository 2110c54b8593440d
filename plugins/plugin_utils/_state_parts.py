# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The parts of a device's declared state that the device_state action applies: for each
device type, the parts in the order they are applied, the module that applies each, how a
part's declared value becomes that module's arguments, and the check of those arguments
against the module's own argument spec. Controller side: the action plugin runs them."""

from __future__ import annotations

import difflib
import importlib

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices, _system as system
from ansible_collections.broadcast.monitoring.plugins.module_utils._connection import DEVICE_TYPE_SPEC
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import PartError
from ansible_collections.broadcast.monitoring.plugins.module_utils._module import seconds_problems
from ansible_collections.broadcast.monitoring.plugins.module_utils._parts import purged, with_second_passes

MODULES = "ansible_collections.broadcast.monitoring.plugins.modules."


def _settings(device_type, with_reboot=False):
    """network, time, logging: the declared keys as they are, for either device."""
    def args(value, options, results):
        extra = {"device_type": device_type}
        if with_reboot:
            extra["reboot"] = options["reboot"]
        return dict(value, **extra)
    return args


def joined(first, second):
    """One part's result from its two passes (the alert profiles with purge)."""
    return dict(second, changed=bool(first.get("changed") or second.get("changed")), before=first.get("before"),
                changes=first.get("changes", []) + second.get("changes", []))


def _objects(name):
    def args_of(value, options, results):
        return {"state": "replaced" if options["purge"][name] else "merged", "config": value}
    return args_of


def _per_tuner(name):
    def args_of(value, options, results, all_tuners=None):
        args = {"state": "replaced" if options["purge"][name] else "merged",
                "config": value if value is not None else []}
        if all_tuners is not None:
            args["all_tuners"] = all_tuners
        return args
    return args_of


def plain(value):
    """``value`` as plain dicts, lists, strings and numbers. Ansible hands templated values
    (and, before 2.19, module results) over as tagged or unsafe subclasses of those, which
    ``copy.deepcopy`` (argument validation copies its input) reconstructs one object at a
    time: on an analyzer's 16 inputs that cost more than the check itself; and which YAML
    cannot write (onboarding)."""
    if isinstance(value, dict):
        return {plain(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, str):
        return str.__str__(value)  # (before 2.19, str() of Ansible's unsafe text is that text again)
    for kind in (bool, int, float):
        if isinstance(value, kind):
            return kind(value)
    return value


class Part:
    """One step of device_state: a part of the registry (``_ts/parts.py``, ``_fm/parts.py``),
    or its second pass. ``name`` is its key in ``parts``; ``common_part`` another key that goes to
    the same module (the FM monitor's ``<part>_all``); ``kind`` the type its value must have."""

    def __init__(self, name, module_name, kind, build, common_part=None, planned=None):
        self.name, self.module, self.kind, self.build, self.common_part = name, module_name, kind, build, common_part
        #: in check mode, plans the part on the controller from the results before it (None: run the module)
        self.planned = planned


#: each device type's registry of parts (its folder's parts.py)
REGISTRIES = {name: devices.parts(name) for name in devices.NAMES}


def _with_more(build, more):
    """``build``, with the arguments its device type adds from the results of earlier parts."""
    def args_of(value, options, results, **shared):
        return dict(build(value, options, results, **shared), **more(results))
    return args_of


def _build(part, arguments):
    """The builder of a part's module arguments: the device type's own (its arguments.py,
    BUILD) where it has one; else the system settings as declared, with the device type; the
    per-tuner parts with their ``<part>_all``; other objects replaced with purge, merged
    without; each with what the device type adds (``more_args``)."""
    if part.name in arguments.BUILD:
        return arguments.BUILD[part.name]
    if part.system:
        build = _settings(part.device_type, with_reboot=part.name == "network")
    elif part.common_part:
        build = _per_tuner(part.name)
    else:
        build = _objects(part.name)
    more = arguments.more_args(part.name)
    return build if more is None else _with_more(build, more)


def _steps(registry):
    arguments = devices.device_type(registry.KIND).arguments()
    steps = []
    for part, second in with_second_passes(registry.PARTS):
        if second:
            build, planned = arguments.SECOND_PASS[part.name]
            steps.append(Part(part.name, part.module, part.kind, build, planned=planned))
        else:
            steps.append(Part(part.name, part.module, part.kind, _build(part, arguments), common_part=part.common_part))
    return tuple(steps)


PARTS = {kind: _steps(registry) for kind, registry in REGISTRIES.items()}


#: the parts that purge (the option, or purge_parts) makes exact, per device type
PURGED = {kind: purged(registry) for kind, registry in REGISTRIES.items()}


def warning_text(warning):
    """A module's warning as its message: ansible-core 2.19 hands warnings over as objects
    carrying the message (WarningSummary), earlier versions as text."""
    return getattr(getattr(warning, "event", None), "msg", None) or str(warning)


def purge_of(device_type, purge, purge_parts):
    """{part: whether it is purged}: ``purge_parts`` names a part's own value, a part it
    leaves out (or sets to None) follows ``purge``. Raises PartError naming the option."""
    purge_parts = purge_parts or {}
    unknown = sorted(set(purge_parts) - set(PURGED[device_type]))
    if unknown:
        raise PartError("purge_parts: %s %s not purged on a %s; the parts purge applies to are %s" % (
            ", ".join(unknown), "is" if len(unknown) == 1 else "are", device_type, ", ".join(PURGED[device_type])))
    out = {}
    for name in PURGED[device_type]:
        value = purge_parts.get(name)
        try:
            out[name] = purge if value is None else boolean(value, strict=True)
        except TypeError:
            raise PartError("purge_parts.%s: must be a boolean (or null to follow purge), got %r" % (name, value))
    return out


def part_names(device_type):
    """Every key ``parts`` may hold for the device type."""
    names = []
    for part in PARTS[device_type]:
        names.extend(name for name in [part.name] + ([part.common_part] if part.common_part else []) if name not in names)
    return names


def plan(device_type, parts):
    """The declared parts, in the order they are applied, as (part, module): a part whose
    value is None (and, for the FM monitor, whose ``<part>_all`` is None too) is not managed.
    Raises PartError naming the option before anything runs."""
    unknown = sorted(set(parts) - set(part_names(device_type)))
    if unknown:
        raise PartError("parts: %s %s not a part of a %s; its parts are %s" % (
            ", ".join(unknown), "is" if len(unknown) == 1 else "are", device_type,
            ", ".join(part_names(device_type))))
    declared = []
    for part in PARTS[device_type]:
        value, shared = parts.get(part.name), parts.get(part.common_part) if part.common_part else None
        if value is not None and not isinstance(value, part.kind):
            raise PartError("parts.%s: must be a %s, got %s" % (part.name, part.kind.__name__, type(value).__name__))
        if shared is not None and not isinstance(shared, dict):
            raise PartError("parts.%s: must be a dict, got %s" % (part.common_part, type(shared).__name__))
        if value is not None or shared is not None:
            declared.append(part)
    return declared


def module_args(part, parts, options, results):
    """The arguments of ``part``'s module (without the connection), from the declared
    ``parts``, the ``options`` (purge: {part: bool}, reboot) and the ``results`` of the parts run before it;
    None when the part has nothing to do."""
    if part.common_part:
        return part.build(parts.get(part.name), options, results, all_tuners=parts.get(part.common_part))
    return part.build(parts[part.name], options, results)


def spec_problems(spec, args):
    """``(problems, validated parameters)`` of ``args`` against an argument spec, with the
    messages a module would give (an unknown option is called unsupported)."""
    validation = ArgumentSpecValidator(spec).validate(args)
    problems = [("unsupported option " if isinstance(error, UnsupportedError) else "") + error.msg
                for error in validation.errors.errors]
    return problems, validation.validated_parameters


def parts_names(key):
    """How device_state's own user names a part: its key in ``parts``."""
    return "parts.%s" % key


def role_names(prefix):
    """How a role's user names a part: the role variable (``<prefix>_<part>``)."""
    return lambda key: "%s_%s" % (prefix, key)


def _unsupported(spec, value, path=()):
    """``[(path, name, closest)]``: each key of ``value`` that ``spec`` (an argument spec's
    options) does not have, with the path of the dict holding it (keys, and list indexes)
    and the closest supported name (difflib), or None."""
    found = []
    if not isinstance(value, dict):
        return found
    for key in value:
        if key not in spec:
            close = difflib.get_close_matches(str(key), sorted(spec), n=1)
            found.append((path, key, close[0] if close else None))
            continue
        options, item = (spec[key] or {}).get("options"), value[key]
        if not options:
            continue
        if isinstance(item, list) and (spec[key].get("type") == "list"):
            for index, element in enumerate(item):
                found.extend(_unsupported(options, element, path + (key, index)))
        else:
            found.extend(_unsupported(options, item, path + (key,)))
    return found


def _dotted(path):
    """``events.friday[0].stat``: keys joined by dots, list indexes in brackets."""
    return "".join("[%d]" % step if isinstance(step, int) else ("." if index else "") + str(step)
                   for index, step in enumerate(path))


def _label(part, path, args, names):
    """``(where, rest)``: the user's name of the variable, with the list item (its index and
    key), that holds ``path`` in ``part``'s module arguments, and the path inside it."""
    if part.common_part and path[:1] == ("all_tuners",):
        return names(part.common_part), path[1:]
    if path[:1] == ("config",) and len(path) > 1 and isinstance(path[1], int):
        item = (args.get("config") or [])[path[1]]
        key = next((item[k] for k in ("name", "tuner_id", "asi_port") if isinstance(item, dict) and k in item), None)
        kind = "tuner " if "tuner_id" in item else "asi_port " if "asi_port" in item and "name" not in item else ""
        shown = "" if key is None else " (%s%s)" % (kind, key)
        return "%s[%d]%s" % (names(part.name), path[1], shown), path[2:]
    return names(part.name), path


def _renamed(problem, part, args, names):
    """A module check's problem in the user's names: ``config[N] (...)`` is the Nth item of the
    part's variable, ``all_tuners`` its ``_all`` variable."""
    if problem.startswith("config["):
        index = int(problem[len("config["):problem.index("]")])
        rest = problem[problem.index("]") + 1:]
        if rest.startswith(" (") and ")" in rest:
            rest = rest[rest.index(")") + 1:]
        where = _label(part, ("config", index), args, names)[0]
        return where + rest
    if part.common_part and problem.startswith("all_tuners"):
        rest = problem[len("all_tuners"):]
        if rest.startswith(" (") and ")" in rest:
            rest = rest[rest.index(")") + 1:]
        return names(part.common_part) + rest
    return "%s: %s" % (names(part.name), problem)


def _found_in(problem, owner, shared=None):
    """An argument spec's message (``... found in all_tuners -> events -> friday``) in the
    user's names: the variable (``owner``; ``shared``, that of ``all_tuners``), then the path
    inside it."""
    head, sep, where = problem.partition(" found in ")
    if not sep:
        return "%s: %s" % (owner, problem)
    path = where.strip().rstrip(".").split(" -> ")
    if shared and path[:1] == ["all_tuners"]:
        owner, path = shared, path[1:]
    return "%s: %s%s" % (owner, head.rstrip(". "), " (in %s)" % ".".join(path) if path else "")


def _spec_problems_by_item(spec, args, part, names):
    """The argument spec's problems other than unknown options (those are named by
    ``_unsupported``), each list item of ``config`` checked on its own so that the message
    names the item; in the user's names."""
    items = spec.get("config", {}).get("options") if isinstance(args.get("config"), list) else None
    whole = dict(args, config=[]) if items else args
    shared = names(part.common_part) if part.common_part else None
    out = [_found_in(problem, names(part.name), shared) for problem in spec_problems(spec, whole)[0]
           if not problem.startswith("unsupported option ")]
    for index, item in enumerate(args["config"] if items else []):
        where = _label(part, ("config", index), args, names)[0]
        out += [_found_in(problem, where) for problem in spec_problems(items, item)[0]
                if not problem.startswith("unsupported option ")]
    return out


def _part_named(names, key):
    """A part as a sentence names it: "the schedules part", or the role variable."""
    return "the %s part" % key if names is parts_names else names(key)


def refused(part, args, names=parts_names):
    """What ``part``'s module would refuse in ``args``, checked on the controller so that a
    bad part stops the task before the login and before anything is written: its argument
    spec, then the checks the spec cannot express (the module's own, PRECHECKS). Each
    problem names what the user wrote (``names``: the part's key, or the role variable), the
    list item, and for an unknown option the closest supported one."""
    spec = dict(importlib.import_module(MODULES + part.module).ARGUMENT_SPEC)
    if "device_type" in args:
        spec.update(DEVICE_TYPE_SPEC)
    unknown = []
    for path, key, close in _unsupported(spec, args):
        where, inside = _label(part, path, args, names)
        dotted = _dotted(inside + (key,))
        hint = _dotted(inside + (close,)) if close else None
        unknown.append("%s: %s is not an option%s" % (where, dotted, " (did you mean %s?)" % hint if hint else ""))
    problems, params = spec_problems(spec, args)
    if unknown or problems:
        return unknown + _spec_problems_by_item(spec, args, part, names)
    problems = seconds_problems(spec, params) + PRECHECKS.get(part.module, lambda params: [])(params)
    return [_renamed(problem, part, args, names) for problem in problems]


def scheduled_states(device_type, parts, names=parts_names):
    """The rules between the declared parts of a device type that no one part's module can
    check (its rules.py, ``declared_problems``; the FM monitor's: a tuner whose schedule is
    active has its operating state set by the schedule), found before any request."""
    if not devices.known(device_type):
        return []
    return devices.device_type(device_type).rules().declared_problems(parts, names, lambda key: _part_named(names, key))


def _device(params):
    return devices.api(params["device_type"]) if devices.known(params.get("device_type")) else None


#: each part module's checks that need no device: the functions the module itself runs
#: before its first request (the device-neutral ones here, each device type's in its parts.py)
PRECHECKS = {
    "device_network": lambda params: system.check_network(
        dict({key: params.get(key) for key in system.NETWORK_OPTIONS}, wait_host=params.get("wait_host"))),
    "device_time": lambda params: system.check_time(params, _device(params)),
    "device_logging": lambda params: system.check_logging(params, _device(params)),
}
for _registry in REGISTRIES.values():
    PRECHECKS.update(_registry.prechecks())

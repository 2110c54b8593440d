"""Fault injection: rules a device applies to the requests it receives.

A rule is a dict::

    {"kind": "unavailable", "count": 3}                 # next 3 matching requests get 503
    {"kind": "unavailable", "seconds": 10}              # 503 for 10 s from now
    {"kind": "error", "rate": 0.2}                      # 500 for 20 % of requests (seeded)
    {"kind": "drop", "count": 1, "method": "POST"}      # close the connection before acting
    {"kind": "drop_response", "count": 1, "path": "/api/inputs"}  # act, then close
    {"kind": "echo", "count": 1, "path": "/api/user/login"}  # 400 repeating the request
    {"kind": "latency", "seconds": 0.2}                 # answer every request 0.2 s later
    {"kind": "reboot_gap", "seconds": 5}                # reboots take 5 s (not scaled)
    {"kind": "never_return"}                            # the next reboot never ends

``method`` (an HTTP method, or ``write`` for anything but GET) and ``path`` (a prefix of
the request path) narrow which requests a rule applies to. On the command line, rules are
``TARGET:KIND[,key=value...]`` separated by ``;``, TARGET a device name or a glob.
"""

import fnmatch
import random
import time

REQUEST_KINDS = ("unavailable", "error", "drop", "drop_response", "echo")
SETTING_KINDS = ("latency", "reboot_gap", "never_return")
KEYS = ("kind", "count", "seconds", "rate", "method", "path")


class Rule:
    def __init__(self, spec, rng):
        if not isinstance(spec, dict):
            raise ValueError("a fault rule must be an object")
        unknown = set(spec) - set(KEYS)
        if unknown:
            raise ValueError("unknown fault key(s): %s" % ", ".join(sorted(unknown)))
        self.kind = spec.get("kind")
        if self.kind not in REQUEST_KINDS + SETTING_KINDS:
            raise ValueError("fault kind must be one of %s" % ", ".join(REQUEST_KINDS + SETTING_KINDS))
        self.count = _number(spec, "count", int)
        self.seconds = _number(spec, "seconds", float)
        self.rate = _number(spec, "rate", float)
        self.method = spec.get("method")
        self.path = spec.get("path")
        if self.kind in ("latency", "reboot_gap") and self.seconds is None:
            raise ValueError("fault %s needs seconds" % self.kind)
        if self.kind in REQUEST_KINDS and self.count is None and self.seconds is None and self.rate is None:
            raise ValueError("fault %s needs count, seconds or rate" % self.kind)
        self.until = time.monotonic() + self.seconds if self.kind in REQUEST_KINDS and self.seconds else None
        self.rng = rng

    def describe(self):
        out = {"kind": self.kind}
        for key in ("count", "seconds", "rate", "method", "path"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    def applies(self, method, path):
        if self.method == "write" and method == "GET":
            return False
        if self.method not in (None, "write") and self.method != method:
            return False
        return self.path is None or path.startswith(self.path)

    def fires(self):
        """Whether this request is hit; consumes one of ``count``."""
        if self.until is not None:
            return time.monotonic() < self.until
        if self.count is not None:
            if self.count <= 0:
                return False
            self.count -= 1
            return True
        return self.rng.random() < self.rate

    def spent(self):
        if self.until is not None:
            return time.monotonic() >= self.until
        return self.count is not None and self.count <= 0


class Hit:
    """What the faults do to one request: a delay, and perhaps a failure kind."""

    def __init__(self, kind, delay):
        self.kind = kind
        self._delay = delay

    def latency(self):
        return self._delay


class FaultSet:
    def __init__(self, seed=0):
        self.rng = random.Random(seed)
        self.rules = []

    def replace(self, specs):
        if isinstance(specs, dict):
            specs = specs.get("faults", [])
        if not isinstance(specs, list):
            raise ValueError("faults must be a list of rules")
        self.rules = [Rule(spec, self.rng) for spec in specs]

    def add(self, spec):
        self.rules.append(Rule(spec, self.rng))

    def describe(self):
        return [rule.describe() for rule in self.rules]

    def match(self, method, path):
        """The fault outcome for one request, or None when nothing applies."""
        delay = 0.0
        kind = None
        for rule in self.rules:
            if not rule.applies(method, path):
                continue
            if rule.kind == "latency":
                delay += rule.seconds
            elif rule.kind in REQUEST_KINDS and kind is None and rule.fires():
                kind = rule.kind
        self.rules = [r for r in self.rules if not (r.kind in REQUEST_KINDS and r.spent())]
        if kind is None and not delay:
            return None
        return Hit(kind, delay)

    def reboot_gap(self):
        for rule in self.rules:
            if rule.kind == "reboot_gap":
                return rule.seconds
        return None

    def never_returns(self):
        return any(rule.kind == "never_return" for rule in self.rules)


def _number(spec, key, cast):
    if key not in spec or spec[key] is None:
        return None
    try:
        value = cast(spec[key])
    except (TypeError, ValueError):
        raise ValueError("fault %s must be a number" % key) from None
    if value < 0 or (key == "rate" and value > 1):
        raise ValueError("fault %s out of range" % key)
    return value


def parse_cli(text):
    """``ts-001:unavailable,count=3;*:latency,seconds=0.1`` -> [(target, rule), ...]."""
    rules = []
    for part in filter(None, (p.strip() for p in (text or "").split(";"))):
        target, body = part.partition(":")[::2]
        if not body:
            raise ValueError("fault %r: expected TARGET:KIND[,key=value...]" % part)
        kind, *options = body.split(",")
        spec = {"kind": kind.strip()}
        for option in options:
            key, value = option.partition("=")[::2]
            spec[key.strip()] = value.strip()
        Rule(spec, random.Random(0))  # validate now, with a clear message
        rules.append((target.strip(), spec))
    return rules


def targets(pattern, name):
    return fnmatch.fnmatchcase(name, pattern)

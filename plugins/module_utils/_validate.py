# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks the argument spec cannot express (ranges, address kinds), collected as messages
that name the parameter, so a module can report them all before its first request."""

from __future__ import annotations

import ipaddress
import re

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import masked, quoted

#: one label of a DNS name
LABEL_RE = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


class Checker:
    def __init__(self):
        self.problems = []

    def fail(self, where, message):
        self.problems.append("%s: %s" % (where, message))

    def between(self, where, value, low, high):
        if value < low or (high is not None and value > high):
            bound = ">= %d" % low if high is None else "between %d and %d" % (low, high)
            self.fail(where, "must be %s, got %s" % (bound, masked(value)))

    def port(self, where, value):
        self.between(where, value, 1, 65535)

    def choice(self, where, value, choices):
        if value not in choices:
            self.fail(where, "must be one of %s, got %s" % (", ".join(map(str, choices)), masked(value)))

    def ipv4(self, where, value):
        try:
            return ipaddress.IPv4Address(value)
        except ValueError:
            self.fail(where, "must be an IPv4 address, got %s" % quoted(value))
            return None

    def host(self, where, value, port=False):
        """An IPv4 address or a DNS name (no scheme, port or path); with ``port``, optionally
        followed by ``:port`` (1 to 65535), as a device that keeps both in one field takes it."""
        text = str(value)
        if port:
            host, colon, number = text.rpartition(":")
            if colon and not (number.isdigit() and 1 <= int(number) <= 65535 and host):
                self.fail(where, "must be an IPv4 address or a host name, optionally followed by :port (port 1 to"
                          " 65535; no scheme or path), got %s" % quoted(value))
                return
            text = host if colon else text
        if text.replace(".", "").isdigit():
            self.ipv4(where, text)
        elif len(text) > 253 or not all(LABEL_RE.match(label) for label in text.rstrip(".").split(".")):
            self.fail(where, "must be an IPv4 address or a host name (%s), got %s" % (
                "optionally followed by :port; no scheme or path" if port else "no scheme, port or path", quoted(value)))

    def multicast(self, where, value):
        address = self.ipv4(where, value)
        if address is not None and not address.is_multicast:
            self.fail(where, "must be a multicast address (224.0.0.0 to 239.255.255.255), got %s" % masked(value))

    def length(self, where, value, low, high):
        if not low <= len(value) <= high:
            self.fail(where, "must be %d to %d characters, got %d" % (low, high, len(value)))

    def udp_url(self, where, value):
        """``udp://A.B.C.D:port``: an IPv4 unicast or multicast address (not 0.0.0.0) and a port."""
        scheme, sep, rest = value.partition("://")
        host, colon, port = rest.rpartition(":")
        try:
            address = ipaddress.IPv4Address(host) if scheme == "udp" and sep and colon else None
        except ValueError:
            address = None
        if address is None or address.is_unspecified or not port.isdigit() or not 1 <= int(port) <= 65535:
            self.fail(where, "must be udp://IPv4-address:port (port 1 to 65535), got %s" % quoted(value))

    # -- added for the analyzer modules -------------------------------------------------
    def boolean(self, where, value):
        if not isinstance(value, bool):
            self.fail(where, "must be true or false, got %s" % quoted(value))

    def number(self, where, value, low=None):
        """An integer or float (not a boolean), at least ``low`` when given."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(where, "must be a number, got %s" % quoted(value))
        elif low is not None and value < low:
            self.fail(where, "must be >= %s, got %s" % (low, masked(value)))

    def unicast_ipv4(self, where, value, allow_any=False):
        """A unicast IPv4 address; ``0.0.0.0`` only with ``allow_any``."""
        address = self.ipv4(where, value)
        if address is not None and (address.is_multicast or (address.is_unspecified and not allow_any)
                                    or str(address) == "255.255.255.255"):
            self.fail(where, "must be a unicast IPv4 address%s, got %s" % (" (or 0.0.0.0)" if allow_any else "", masked(value)))

    def ipv4_port(self, where, value):
        """``IPv4:port`` with port 1 to 65535; the canonical text, or None when invalid."""
        host, colon, port = str(value).rpartition(":")
        try:
            address = ipaddress.IPv4Address(host) if colon and port.isdigit() and 1 <= int(port) <= 65535 else None
        except ValueError:
            address = None
        if address is None:
            self.fail(where, "must be IPv4-address:port with port 1 to 65535, got %s" % quoted(value))
            return None
        return "%s:%d" % (address, int(port))

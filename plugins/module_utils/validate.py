# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks the argument spec cannot express (ranges, address kinds), collected as messages
that name the parameter, so a module can report them all before its first request."""

from __future__ import annotations

import ipaddress


class Checker:
    def __init__(self):
        self.problems = []

    def fail(self, where, message):
        self.problems.append("%s: %s" % (where, message))

    def between(self, where, value, low, high):
        if value < low or (high is not None and value > high):
            bound = ">= %d" % low if high is None else "between %d and %d" % (low, high)
            self.fail(where, "must be %s, got %s" % (bound, value))

    def port(self, where, value):
        self.between(where, value, 1, 65535)

    def choice(self, where, value, choices):
        if value not in choices:
            self.fail(where, "must be one of %s, got %s" % (", ".join(map(str, choices)), value))

    def ipv4(self, where, value):
        try:
            return ipaddress.IPv4Address(value)
        except ValueError:
            self.fail(where, "must be an IPv4 address, got %r" % value)
            return None

    def multicast(self, where, value):
        address = self.ipv4(where, value)
        if address is not None and not address.is_multicast:
            self.fail(where, "must be a multicast address (224.0.0.0 to 239.255.255.255), got %s" % value)

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The analyzer's rules between its parts (device_state asks every device type's rules.py for
``declared_problems``): none; each part's module checks its own."""

from __future__ import annotations


def declared_problems(parts, names, part_named):
    """The rules between the declared parts: the analyzer has none."""
    return []

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a device's answers tolerantly. Every JSON object the client returns is an
``Answer``: a dict that knows the request it answered, so that a field the collection needs
and the device does not give raises a ShapeError naming the request, the field and the fields
the device did give, wherever the field is read, instead of a bare KeyError. Optional fields
are read with ``get``."""

from __future__ import annotations

from ansible_collections.broadcast.monitoring.plugins.module_utils.client import DeviceError

#: the DeviceError kind of an answer the collection cannot read
SHAPE = "shape"
SHAPE_HINT = ("this device or firmware names or shapes its answer differently from what the collection reads;"
              " run broadcast.monitoring.ts_info or fm_info to see the answer, and report it with the device's"
              " model and firmware version")


class ShapeError(DeviceError):
    """An answer without a field the collection needs (or with a field of the wrong type)."""

    def __init__(self, where, field, present, expected=None):
        shown = ", ".join(str(key) for key in present) or "none"
        message = "%s: the answer has no field %r%s (fields present: %s)" % (
            where, field, " (%s)" % expected if expected else "", shown)
        super().__init__(SHAPE, message, hint=SHAPE_HINT)
        self.field = field


class Answer(dict):
    """A JSON object of a device's answer to ``where`` (``METHOD /path``)."""

    where = "the device's answer"

    def __missing__(self, key):
        raise ShapeError(self.where, key, sorted(self))


def answer_hook(where):
    """``json.loads`` object_hook making every object of the answer to ``where`` an Answer."""
    def hook(pairs):
        answer = Answer(pairs)
        answer.where = where
        return answer
    return hook


def where_of(obj):
    """The request ``obj`` (an Answer, or anything else) answered, for messages."""
    return getattr(obj, "where", Answer.where)


def list_or_empty(obj, name):
    """An optional list field: absent, null or empty all read as [] (one meaning for each)."""
    value = obj.get(name) if isinstance(obj, dict) else None
    if value is None:
        return []
    if not isinstance(value, list):
        raise ShapeError(where_of(obj), name, sorted(obj), expected="a list, got %s" % type(value).__name__)
    return list(value)

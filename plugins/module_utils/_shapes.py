# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading a device's answers tolerantly. Every JSON object the client returns is an
``Answer``: a dict that knows the request it answered, so that a field the collection needs
and the device does not give raises a ShapeError naming the request, the field and the fields
the device did give, wherever the field is read, instead of a bare KeyError. Optional fields
are read with ``get``."""

from __future__ import annotations

import os

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import UNSAFE, DeviceError, ShapeError


def paging_error(where, read, total, pages, option, bound, empty=False):
    """The DeviceError that ends a paged read of ``where`` whose device still claims more
    (``total``) than the ``read`` items: either page number ``pages`` was empty (its pages do
    not shrink what remains), or ``pages`` reached ``bound``, the value of ``option``."""
    left = "the device still claims %d more (total %d, %d read)" % (total - read, total, read)
    if empty:
        message = "%s: page %d came back empty while %s; its pages do not shrink what remains, so reading stopped" \
            " there (at most %s=%d pages are read)" % (where, pages, left, option, bound)
        hint = "the device's paging is broken; check its firmware, and that host names the device meant"
    else:
        message = "%s: stopped after %d pages, the bound %s=%d, while %s" % (where, pages, option, bound, left)
        hint = ("if the device really holds that many, raise %s or narrow the query; a device whose pages never"
                " end has broken paging: check its firmware" % option)
    return DeviceError(UNSAFE, message, hint=hint)


class Answer(dict):
    """A JSON object of a device's answer to ``where`` (``METHOD /path``)."""

    where = "the device's answer"

    def __missing__(self, key):
        raise ShapeError(self.where, key, sorted(self))

    #: the class a class made per request (answer_hook) was made from; None for Answer's own
    made_from = None

    def __reduce__(self):
        # an answer's class is made per request (answer_hook): rebuilt from its request, not its class's name
        return _answer, (self.made_from or type(self), self.where, dict(self))


def _answer(kind, where, pairs):
    """An Answer (of the class ``kind``) to ``where`` holding ``pairs``: a pickled one, rebuilt."""
    return answer_hook(where, kind)(pairs)


#: a file to append, when set, the top-level field of each GET answer the collection reads, one
#: "METHOD /path<TAB>field" line each: the test that READ_SHAPES declares every field the
#: readers use sets it (tests/functional/test_read_shapes.py); unset, nothing is recorded
READ_AUDIT = "BROADCAST_MONITORING_READ_AUDIT"


class AuditedAnswer(Answer):
    """An Answer that records the fields read of it (only when READ_AUDIT names a file)."""

    top = False
    noted = set()

    def __getitem__(self, key):
        self.note(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.note(key)
        return super().get(key, default)

    def __contains__(self, key):
        self.note(key)
        return super().__contains__(key)

    def note(self, key):
        line = "%s\t%s\n" % (self.where, key)
        if self.top and line not in AuditedAnswer.noted:
            AuditedAnswer.noted.add(line)
            with open(os.environ[READ_AUDIT], "a", encoding="utf-8") as handle:
                handle.write(line)


def answer_hook(where, kind=None):
    """``json.loads`` object_hook making every object of the answer to ``where`` an Answer: a
    subclass of it made for the request, which Python's JSON reader calls without a function of
    ours around it (a device's statistics answer holds thousands of objects)."""
    kind = kind or (AuditedAnswer if os.environ.get(READ_AUDIT) else Answer)
    return type("AnswerTo", (kind,), {"where": where, "made_from": kind})


def mark_top(body):
    """Under READ_AUDIT, mark the answer's own object (or each object of its list) as the one
    whose fields READ_SHAPES declares; nested objects are the fields' values."""
    for obj in body if isinstance(body, list) else [body]:
        if isinstance(obj, AuditedAnswer):
            obj.top = True
    return body


def where_of(obj):
    """The request ``obj`` (an Answer, or anything else) answered, for messages."""
    return getattr(obj, "where", Answer.where)


def not_renamed(obj, name, words):
    """Refuse an answer without ``name`` that has a field whose name holds one of ``words``: a
    firmware that names the field otherwise. Read as absent, it would be rewritten on every run."""
    if not isinstance(obj, dict) or name in obj:
        return
    others = sorted(str(key) for key in obj if any(word in str(key).lower() for word in words))
    if others:
        raise ShapeError(where_of(obj), name, sorted(obj), expected="its answer has %s instead, a name the collection"
                         " neither reads nor writes" % " and ".join(others))


def sorted_by_id(items, name):
    """The objects of a list answer in the order of their integer field ``name`` (an input's ``id``,
    a tuner's ``tuner_id``). An item that is no object, or whose ``name`` is no integer, is a
    ShapeError naming the request and the field: ids of mixed types cannot be ordered."""
    for item in items:
        value = item.get(name) if isinstance(item, dict) else None
        if not isinstance(value, int) or isinstance(value, bool):
            raise ShapeError(where_of(item), name, reason="an item's field %r is not an integer: %r" % (
                name, value if isinstance(item, dict) else item))
    return sorted(items, key=lambda item: item[name])


def list_or_empty(obj, name):
    """An optional list field: absent, null or empty all read as [] (one meaning for each)."""
    value = obj.get(name) if isinstance(obj, dict) else None
    if value is None:
        return []
    if not isinstance(value, list):
        raise ShapeError(where_of(obj), name, sorted(obj), expected="a list, got %s" % type(value).__name__)
    return list(value)


class Declared:
    """What the collection reads of one GET endpoint's answer: ``required`` fields (a missing
    one is a ShapeError where it is read), ``optional`` ones (read with a meaning for absent),
    ``aliases`` ({field: other names some firmware uses}); ``element``: the answer is a list of
    such objects."""

    def __init__(self, path, required=(), optional=(), aliases=None, element=False):
        self.path, self.required, self.optional = path, tuple(required), tuple(optional)
        self.aliases, self.element = dict(aliases or {}), element


def compatibility(declared, answer):
    """How ``answer`` (what the device gave for ``declared.path``) meets the declaration:
    ``confirmed`` (declared fields present), ``missing_required``, ``missing_optional``,
    ``aliases`` ({declared name: the name the device used}), ``extra`` (fields the collection
    does not read) and ``elements`` (for a list, how many objects were looked at; a field counts
    as present when every one has it)."""
    objects = answer if declared.element else [answer]
    if not isinstance(objects, list) or not all(isinstance(obj, dict) for obj in objects):
        return {"error": "%s: the answer is not %s" % (
            declared.path, "a list of objects" if declared.element else "an object")}
    keys = set.intersection(*(set(obj) for obj in objects)) if objects else set()
    seen = set().union(*(set(obj) for obj in objects)) if objects else set()
    out = {"confirmed": [], "missing_required": [], "missing_optional": [], "aliases": {}}
    for name in declared.required + declared.optional:
        alias = next((other for other in declared.aliases.get(name, ()) if other in keys), None)
        if name in keys:
            out["confirmed"].append(name)
        elif alias:
            out["aliases"][name] = alias
        elif objects:
            out["missing_required" if name in declared.required else "missing_optional"].append(name)
    known = set(declared.required + declared.optional) | {a for names in declared.aliases.values() for a in names}
    out["extra"] = sorted(seen - known)
    if declared.element:
        out["elements"] = len(objects)
    return out


def plain_text(value):
    """A text field of a device as a plain string for a report (the fleet status): never None."""
    return "" if value is None else str(value)

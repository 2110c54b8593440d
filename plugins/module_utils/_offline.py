# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``state: parsed`` and ``state: rendered`` of the resource modules: the module's own read and
write path run against a backup instead of a device.

``running_config`` is the content of a ``device_backup`` file (format 2 holds the device's own
answers). A ``Recorder`` stands in for the client: it answers each GET from those answers and
records each write instead of sending it, so nothing is sent and no login happens.
``parsed`` runs the module's ``gathered`` read; ``rendered`` runs the plan and writes of
``rendered_state`` (``merged`` unless given; not check mode), and the recorded writes are the requests the module would send to a device
in the backup's state. There is one compare-and-write (_engine.py), whatever the state.
"""

from __future__ import annotations

import copy
import json

from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils._backup import format as backup_format
from ansible_collections.broadcast.monitoring.plugins.module_utils._client import Shorthands
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError, masked
from ansible_collections.broadcast.monitoring.plugins.module_utils._shapes import answer_hook

try:
    import yaml
except ImportError:  # pragma: no cover - ansible-core brings PyYAML
    yaml = None

#: the states that contact no device
STATES = ("parsed", "rendered")
#: the state each runs the module's own code with (rendered: the one rendered_state names)
WORKING_STATE = {"parsed": "gathered", "rendered": "merged"}
OPTION = "running_config"
RENDERED_STATE = "rendered_state"
SPEC = {OPTION: dict(type="raw"), RENDERED_STATE: dict(type="str")}
#: how a rendered request names an object whose id the device assigns: {kind:name}
PLACEHOLDER = "{%s:%s}"
#: states of a module that are not a change to render
NOT_RENDERED = ("gathered",) + STATES


def rendered_state_problems(params, state_choices):
    """Problems with ``rendered_state``: only with state=rendered, one of the module's own
    writing states (``state_choices`` less gathered, parsed and rendered)."""
    value = params.get(RENDERED_STATE)
    if value is None:
        return []
    if params.get("state") != "rendered":
        return ["%s: only with state=rendered (got state=%s)" % (RENDERED_STATE, params.get("state"))]
    writing = [s for s in state_choices if s not in NOT_RENDERED]
    if value not in writing:
        return ["%s: one of %s, the states this module writes with (got %s)" % (
            RENDERED_STATE, ", ".join(writing), value)]
    return []


def load(value, device):
    """The backup document ``value`` (its text, JSON or YAML, or the loaded dictionary),
    checked to be a format-2 backup of ``device``'s type; InputError naming running_config."""
    doc = value
    if isinstance(value, (str, bytes)):
        try:
            doc = json.loads(value)
        except ValueError as err:
            doc = _yaml(value, err)
    return backup_format.check_document(doc, device, OPTION)


def _yaml(text, json_error):
    problem = ["%s: not a backup document (neither JSON: %s, nor YAML)" % (OPTION, json_error)]
    if yaml is None:
        raise InputError(problem)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        raise InputError(problem) from None


class Recorder(Shorthands):
    """A client stand-in for one backup: GETs answered from it, writes recorded, not sent.

    ``counts`` stay at zero (no request is sent); ``writes`` are the requests as the module
    made them; ``rendered()`` gives them as the result shows them."""

    def __init__(self, doc, device, role="admin"):
        # the GET answers the resource modules read, from the device's own api_backup.py
        self.answers, self.names = devices.api_backup(device.KIND).backup_answers(doc["raw"])
        self.device = device
        self.role = role
        self.counts = {"login": 0, "read": 0, "write": 0}
        self.writes = []

    # the client's interface, as the resources use it (get, post and delete: Shorthands)
    def request(self, method, path, body=None, idempotent=None, **unused):
        if idempotent is None:
            idempotent = method == "GET"
        if idempotent:
            return self._answer(path)
        self.writes.append({"method": method, "path": path, "body": copy.deepcopy(body)})
        return self._written(path, body)

    def _answer(self, path):
        if path not in self.answers:
            raise InputError(["%s: the backup holds no answer to GET %s, which this module reads" % (OPTION, path)])
        # loaded as the client loads a device's answer (objects that name the request)
        return json.loads(json.dumps(self.answers[path]), object_hook=answer_hook("GET %s" % path))

    def _written(self, path, body):
        """What the device would answer to a write, as far as the module uses it: a settings
        object written whole is what later reads give; a create answers the new object with
        its id (numbered after the backup's own)."""
        stored = self.answers.get(path)
        if isinstance(stored, dict) and isinstance(body, dict):
            self.answers[path] = copy.deepcopy(body)
            return copy.deepcopy(body)
        kind = self.device.ASSIGNED_IDS.get(path)
        if kind is not None and isinstance(body, dict):
            number = 1 + max([ident for (known, ident) in self.names if known == kind] or [0])
            self.names[(kind, number)] = body.get("name")
            return self.device.created_answer(copy.deepcopy(body), number)
        return {}

    # the result
    def rendered(self):
        """The recorded writes as ``{method, path, body}``: an id the device assigns itself
        named as ``{kind:name}``, secrets hidden and user-info masked (_errors.masked)."""
        return [{"method": w["method"], "path": self._path(w["path"]),
                 "body": masked(self._ids(w["body"])) if w["body"] is not None else None} for w in self.writes]

    def _path(self, path):
        for prefix, kind in self.device.ASSIGNED_IDS.items():
            head, sep, rest = path.partition(prefix + "/")
            if head or not sep:
                continue
            number, slash, tail = rest.partition("/")
            if number.isdigit():
                return prefix + "/" + (self._placeholder(kind, int(number)) or number) + slash + tail
        return path

    def _ids(self, body):
        if isinstance(body, dict):
            return {key: self._placeholder(self.device.ID_FIELDS[key], value) or value
                    if key in self.device.ID_FIELDS and isinstance(value, int) and not isinstance(value, bool)
                    else self._ids(value) for key, value in body.items()}
        if isinstance(body, list):
            return [self._ids(item) for item in body]
        return body

    def _placeholder(self, kind, number):
        name = self.names.get((kind, number))
        return None if name is None else PLACEHOLDER % (kind, name)

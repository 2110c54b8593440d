# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every module's ``main`` hands its work to: an AnsibleModule with the connection
options added, a client, and one place that turns failures into messages."""

from __future__ import annotations

import contextlib
import os
import traceback

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.validation import check_type_dict

from ansible_collections.broadcast.monitoring.plugins.module_utils import _device_lock as device_lock
from ansible_collections.broadcast.monitoring.plugins.module_utils import _devices as devices
from ansible_collections.broadcast.monitoring.plugins.module_utils import _offline as offline
from ansible_collections.broadcast.monitoring.plugins.module_utils._connection import (
    CONNECTION_SPEC,
    DEVICE_TYPE_SPEC,
    check_connection,
    client_from_params,
)
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    BundleRefused,
    ConcurrentChange,
    Conflict,
    DeviceError,
    InputError,
    LockError,
    PartialFailure,
    masked,
    register_secret,
)


#: module options that are seconds or counts of tries, and the least each may be (wait_timeout 0:
#: do not wait; confirm_count 0: one snapshot only)
SECONDS_MIN = {"reboot_timeout": 1, "upload_timeout": 1, "scan_timeout": 1, "wait_timeout": 0, "max_clock_drift": 0,
               "confirm_interval": 0, "confirm_count": 0}


def seconds_problems(argument_spec, params):
    """Problems with the options of ``argument_spec`` that are seconds or counts (SECONDS_MIN),
    found without the device: a negative wait would end at once after the device was acted on."""
    return ["%s: must be >= %d, got %s" % (name, low, params[name])
            for name, low in sorted(SECONDS_MIN.items())
            if name in argument_spec and isinstance(params.get(name), (int, float))
            and not isinstance(params[name], bool) and params[name] < low]


class DeviceModule(AnsibleModule):
    """AnsibleModule for one device type; ``device`` is its API module (_ts.api,
    _fm.api), or None for modules of both devices, which take a ``device_type`` option.
    ``reads_only``: the module never writes to the device (it takes no device lock).

    ``check_mode`` is what the work below is given: Ansible's check mode, except with
    state=parsed or rendered, where it is False (the writes go to a recorder, not to a
    device); ``requested_check_mode`` is Ansible's, always.

    Every output leaves through ``exit_json``, ``fail_json`` and ``warn``, which pass it through
    _errors.masked (both execution modes run this code), with the values of the no_log
    options registered as secrets first. ``returns_secrets``: result keys whose value is a
    secret the module returns on purpose (device_login's token), the one thing not masked."""

    returns_secrets = ()

    def __init__(self, argument_spec, device=None, required_one_of=None, reads_only=False, returns_secrets=(),
                 **kwargs):
        self.reads_only = reads_only
        self.returns_secrets = tuple(returns_secrets)
        shadowed = sorted(set(argument_spec) & set(CONNECTION_SPEC))
        if shadowed:  # a module option must never replace a connection option of the same name
            raise ValueError("module options shadow connection options: %s" % ", ".join(shadowed))
        spec = dict(CONNECTION_SPEC)
        if device is None:
            spec.update(DEVICE_TYPE_SPEC)
        spec.update(argument_spec)
        offline_states = [s for s in offline.STATES if s in (argument_spec.get("state") or {}).get("choices", ())]
        if offline_states:  # a resource module: parsed and rendered read a backup, not the device
            spec.update(offline.SPEC)
            kwargs["required_if"] = list(kwargs.get("required_if") or []) + [
                ("state", state, [offline.OPTION]) for state in offline_states]
        kwargs.setdefault("supports_check_mode", True)
        super().__init__(
            argument_spec=spec,
            required_one_of=required_one_of,
            **kwargs,
        )
        self.requested_check_mode = self.check_mode
        if self._not_dicts:
            self.fail_json(msg="; ".join("%s: must be a dictionary (a YAML mapping)%s, got a string" % (
                name, " or a list of them" if self.argument_spec[name]["type"] == "list" else "")
                for name in self._not_dicts))
        #: parsed or rendered: the module reads a backup and contacts no device (_offline.py)
        self.offline = self.params.get("state") if self.params.get("state") in offline.STATES else None
        if offline_states:
            problems = offline.rendered_state_problems(self.params, argument_spec["state"]["choices"])
            if problems:
                self.fail_json(msg="; ".join(problems))
        if self.offline:
            self.device = device
            self.client = self._recorder()
            # Parsed and rendered write to the recorder only (never to a device): the work runs
            # as outside check mode, so that rendered shows the writes check mode would hold
            # back. Ansible's own flag is kept in requested_check_mode.
            self.check_mode = False
            return
        problems = check_connection(self.params) + seconds_problems(argument_spec, self.params)
        if self.params.get(offline.OPTION) is not None:
            problems.append("%s: only with state=parsed or state=rendered (got state=%s)" % (
                offline.OPTION, self.params.get("state")))
        if problems:
            self.fail_json(msg="; ".join(problems))
        self.device = device or self._device_type()
        self.client = client_from_params(self.params, self.device)

    # -- every output, masked ------------------------------------------------------------
    def _register_given_secrets(self):
        for value in getattr(self, "no_log_values", ()):  # set by AnsibleModule while it reads the arguments
            register_secret(value)

    def exit_json(self, **kwargs):
        self._register_given_secrets()
        kept = {key: kwargs.pop(key) for key in self.returns_secrets if key in kwargs}
        super().exit_json(**dict(masked(kwargs), **kept))

    def fail_json(self, msg, **kwargs):
        self._register_given_secrets()
        super().fail_json(**masked(dict(kwargs, msg=msg)))

    def warn(self, warning, **kwargs):
        self._register_given_secrets()
        super().warn(masked(warning), **kwargs)

    @property
    def working_state(self):
        """The state the module's own code runs: parsed reads as gathered does, rendered plans
        and writes as its rendered_state (merged unless given) does, into the recorder; any
        other state is itself."""
        if self.offline == "rendered" and self.params.get(offline.RENDERED_STATE):
            return self.params[offline.RENDERED_STATE]
        return offline.WORKING_STATE.get(self.params.get("state"), self.params.get("state"))

    def _recorder(self):
        """The client stand-in of parsed and rendered: no connection option is needed or used,
        and the writes of rendered are recorded, so check mode does not hold them back."""
        try:
            doc = offline.load(self.params[offline.OPTION], self.device)
        except InputError as err:
            self.fail_json(msg="invalid parameters: %s" % "; ".join(err.problems), problems=err.problems)
        return offline.Recorder(doc, self.device, self.params["role"])

    def _load_params(self):
        """The raw parameters, minus strings given where dictionaries are wanted: ansible-core
        would refuse those with a message that names no option, so they are named here."""
        super()._load_params()
        self._not_dicts = []
        for name, spec in self.argument_spec.items():
            value = self.params.get(name)
            if not isinstance(value, str):
                continue
            # ansible-core reads a string as JSON or key=value pairs (a list: comma-separated ones)
            pieces = [value] if spec.get("type") == "dict" else value.split(",")
            if spec.get("type") == "dict" or (spec.get("type") == "list" and spec.get("elements") == "dict"):
                try:
                    for piece in pieces:
                        check_type_dict(piece)
                except TypeError:
                    self._not_dicts.append(name)
                    del self.params[name]

    def _device_type(self):
        """The API layer for ``device_type``, loaded once the type is known (_devices.py); ``auto``
        tries the registered detection rules (each device type's DETECT, the statuses of its
        IDENTIFY path): one unauthenticated request per path."""
        wanted = self.params["device_type"]
        if wanted != "auto":
            return devices.api(wanted)
        candidates = devices.detection_order()
        client = client_from_params(self.params, candidates[0].api())
        answered = {}
        for kind in candidates:
            path = kind.api().IDENTIFY
            if path not in answered:
                try:
                    answered[path] = client.probe(path)
                except DeviceError as err:
                    self.fail_json(msg=err.describe(), error=err.details())
            if answered[path] in kind.DETECT:
                return kind.api()
        self.fail_json(msg="device_type: cannot tell the device type (%s); set device_type to one of %s" % (
            ", ".join("GET %s answered HTTP %d" % pair for pair in answered.items()), ", ".join(devices.NAMES)))
        return None

    def writer_lock(self):
        """The device's lock (_device_lock.py) for a run that may write to it; nothing for one
        that only reads: check mode, gathered, parsed, rendered, a module that only reads.
        The wait is checked in every run, so check mode finds a bad one too."""
        timeout = device_lock.timeout_from(os.environ)
        if self.reads_only or self.check_mode or self.offline or self.working_state == "gathered":
            return contextlib.nullcontext()
        key = device_lock.device_key(self.params["host"], self.params.get("port"), self.params["protocol"])
        return device_lock.device_lock(key, timeout, getattr(self, "_name", None) or "a module")

    def run(self, work):
        """Call ``work()`` and exit with its result; every expected failure becomes one
        clear message (and nothing secret: messages never carry a password or token)."""
        try:
            try:
                with self.writer_lock():
                    result = work()
            except Exception as err:
                for warning in getattr(err, "warnings", None) or []:  # what the work found before it failed
                    self.warn(warning)
                raise
        except LockError as err:
            self.fail_json(msg=str(err))
        except BundleRefused as err:
            bundle = err.bundle and {key: err.bundle[key] for key in ("path", "version", "target")}
            self.fail_json(msg="%s, nothing was uploaded: %s" % (
                "bundle %s refused" % bundle["path"] if bundle else "no bundle to install", "; ".join(err.problems)),
                problems=err.problems, refused_bundle=bundle, previous_version=err.installed,
                current_version=err.installed, device_model=err.model)
        except Conflict as err:
            self.fail_json(msg="the device's present state does not allow this, nothing was written: %s"
                           % "; ".join(err.problems), problems=err.problems)
        except InputError as err:
            self.fail_json(msg="invalid parameters: %s" % "; ".join(err.problems), problems=err.problems)
        except PartialFailure as err:
            unknown = "; %d lost its answer and could not be read back (it may have landed)" % len(err.unknown)
            self.fail_json(
                msg="%s; %d change(s) written before the failure, %d not written%s" % (
                    err.error.describe(), len(err.done), len(err.pending), unknown if err.unknown else ""),
                changed=bool(err.done or err.unknown), written=err.done, not_written=err.pending,
                unknown=err.unknown, error=err.error.details(),
            )
        except ConcurrentChange as err:
            self.fail_json(msg=str(err), changed=True)
        except DeviceError as err:
            self.fail_json(msg=err.describe(), error=err.details())
        except Exception as err:  # a bug of ours: say so, with the traceback for -vvv
            self.fail_json(msg="unexpected %s: %s" % (type(err).__name__, err), exception=traceback.format_exc())
        for warning in result.pop("warnings", None) or []:
            self.warn(warning)
        if result.get("failed"):  # a failure the work returns as its result, with its msg (_snapshot.run)
            self.fail_json(**{key: value for key, value in result.items() if key != "failed"})
        if self.offline == "parsed":
            result = {"changed": False, "parsed": result["gathered"]}
        elif self.offline == "rendered":
            result = {"changed": False, "rendered": self.client.rendered()}
        result["requests"] = dict(self.client.counts)
        if not self._diff:
            result.pop("diff", None)
        self.exit_json(**result)

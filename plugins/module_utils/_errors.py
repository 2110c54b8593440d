# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one home of every exception of the collection, and of secret masking: what a failure
is and how a value the user gave is repeated in a message or result without a secret.

Every other file imports these from here, and this file imports nothing of the collection,
so any file may import it without a cycle."""

from __future__ import annotations

import re


# -- failures talking to a device (DeviceError) --------------------------------------------------
# What a failure is, so a module can say what to fix (one message per class).
UNREACHABLE = "unreachable"
CREDENTIALS = "credentials"
PERMISSION = "permission"
BUSY = "busy"
NOT_FOUND = "not_found"
REFUSED = "refused"
DEVICE = "device"
ABANDONED = "abandoned"
UNSAFE = "unsafe"
TLS = "tls"


HINTS = {
    UNREACHABLE: "check host, port and protocol, and that the device is powered and routed",
    CREDENTIALS: "check role and password (or token)",
    PERMISSION: "this operation needs the admin role; set role=admin with its password",
    BUSY: "the device stayed busy (HTTP 503) for longer than the retry budget; try again later",
    NOT_FOUND: "the device has no such object; it may have been removed meanwhile",
    REFUSED: "the device refused a value; correct the parameter it names",
    DEVICE: "the device reported an internal error",
    ABANDONED: "the run that started this module was ended (e.g. ansible-playbook killed), so it stopped before"
               " writing more; read the device (state=gathered) or run the play again",
    TLS: "give the CA certificate that signed the device's certificate in ca_path, or correct the certificate on"
         " the device; validate_certs=false only as a last resort, since it accepts any device, an impostor too",
    UNSAFE: "the device's answer was refused as unsafe; check its firmware, and that host names the device meant",
}


class DeviceError(Exception):
    """Any failure talking to a device: what happened, HTTP status, device code and message."""

    def __init__(self, kind, message, status=None, code=None, device_message=None, hint=None):
        super().__init__(message)
        self.kind = kind
        #: what to fix, where the class's general hint would not say it
        self.hint = hint
        self.message = message
        self.status = status
        self.code = code
        self.device_message = device_message

    def describe(self):
        """One line for a user: what failed, the device's words, and what to fix."""
        text = self.message
        if self.device_message and self.device_message not in text:
            text += ": %s" % self.device_message
        return "%s (%s)" % (text, self.hint or HINTS[self.kind])

    def details(self):
        return {"kind": self.kind, "status": self.status, "code": self.code, "device_message": self.device_message}


# -- answers the collection cannot read (ShapeError) --------------------------------------------
#: the DeviceError kind of an answer the collection cannot read
SHAPE = "shape"
SHAPE_HINT = ("this device or firmware names or shapes its answer differently from what the collection reads;"
              " run broadcast.monitoring.ts_info or fm_info to see the answer, and report it with the device's"
              " model and firmware version")


class ShapeError(DeviceError):
    """An answer without a field the collection needs (or with a field of the wrong type);
    with ``reason``, an answer that cannot be read at all, for that reason."""

    def __init__(self, where, field, present=(), expected=None, reason=None, status=None, hint=SHAPE_HINT):
        if reason is None:
            shown = ", ".join(str(key) for key in present) or "none"
            reason = "the answer has no field %r%s (fields present: %s)" % (
                field, " (%s)" % expected if expected else "", shown)
        super().__init__(SHAPE, "%s: %s" % (where, reason), status=status, hint=hint)
        self.field = field


class UnreadableAnswer(ShapeError):
    """An answer the collection cannot read at all: not JSON, nested too deep, in a charset
    Python does not know, or a redirect (which the collection never follows)."""

    def __init__(self, where, reason, status=None, hint=SHAPE_HINT):
        super().__init__(where, None, reason=reason, status=status, hint=hint)


# -- the desired state and its writes ----------------------------------------------------------
class InputError(Exception):
    """The desired state is invalid; raised before any write. ``problems`` name parameters."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


class Conflict(InputError):
    """The device's present state does not allow the change (a card busy recording, duplicate
    names on the device); raised before any write."""


class BundleRefused(InputError):
    """A firmware bundle the device must not get (for another model, a downgrade, images that do
    not match its manifest), or no bundle to choose; raised before any upload. ``bundle`` is the
    refused one ({"path", "version", "target"}) or None; ``installed`` and ``model`` are what the
    device reports."""

    def __init__(self, problems, bundle=None, installed=None, model=None):
        super().__init__(problems)
        self.bundle = bundle
        self.installed = installed
        self.model = model


class ConcurrentChange(Exception):
    """Writes that did not stick: each was read back and found overwritten by another writer."""


class PartialFailure(Exception):
    """A write failed after others had landed. ``unknown`` is a write whose answer was lost
    and whose effect could not be read back either: it may or may not have landed."""

    def __init__(self, error, done, pending, unknown=None):
        super().__init__(error.describe())
        self.error = error
        self.done = done
        self.pending = pending
        self.unknown = unknown or []


# -- no (complete) HTTP answer -----------------------------------------------------------------
#: the kinds of TransportError are _transport's (TLS_VERIFY, TLS, CONNECT_TIMEOUT, READ_TIMEOUT, CONNECTION)


class TransportError(Exception):
    """No (complete) HTTP answer. ``kind`` is one of TLS_VERIFY, TLS, CONNECT_TIMEOUT, READ_TIMEOUT,
    CONNECTION; the text never holds the URL (its query may carry a one-time token)."""

    def __init__(self, kind, reason, why=None):
        super().__init__(reason)
        self.kind = kind
        self.why = why  # with TLS_VERIFY: one of CERT_WHY's values, or None


class AnswerTooLarge(Exception):
    """An answer larger than ``limit`` bytes: ``size`` is what its Content-Length announced
    (``announced``) or what had come when reading stopped."""

    def __init__(self, size, limit, announced):
        super().__init__("the answer is larger than %d bytes" % limit)
        self.size = size
        self.limit = limit
        self.announced = announced


class UndecodableAnswer(ValueError):
    """An answer that cannot be read as what was asked for (not JSON, nested too deep, an
    unknown charset); the text says why, without the URL."""


# -- firmware bundles, the device lock, device_state's parts -----------------------------------
class BundleError(ValueError):
    """The file is not a bundle whose version can be read; the message says why."""


class LockError(Exception):
    """The device's lock could not be taken: another run held it longer than the wait, or its folder is unsafe."""


class PartError(ValueError):
    """A declared part that cannot be applied (names the option, nothing was run)."""


# -- direct execution on this ansible-core (plugin_utils/_core_private.py) ---------------------
class DirectExecutionUnavailable(Exception):
    """ansible-core (``version``) lacks a private name direct execution uses, or it behaves
    otherwise: ``name`` and ``why``. ``expected``: an ansible-core from before direct execution
    (2.16 to 2.18), which the documentation names, rather than a change nobody foresaw."""

    def __init__(self, version, name, why, expected=False):
        super().__init__("ansible-core %s: %s %s" % (version, name, why))
        self.name, self.why, self.expected = name, why, expected


# -- secret masking ----------------------------------------------------------------------------
#: the scheme of a URL (``udp://``)
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def masked(value):
    """``value`` fit to repeat in a message: in a string, the user-info of a URL or address
    (``udp://bob:secret@239.1.1.1:1234``, ``bob:secret@host``) becomes ``***``; inside lists
    and dictionaries too. Everything up to the last ``@`` is masked, so a password holding
    ``@`` or ``/`` does not leak either."""
    if isinstance(value, str):
        at = value.rfind("@")
        scheme = SCHEME_RE.match(value)
        start = scheme.end() if scheme else 0
        return value if at < start else value[:start] + "***" + value[at:]
    if isinstance(value, (list, tuple)):
        return type(value)(masked(item) for item in value)
    if isinstance(value, dict):
        return {key: masked(item) for key, item in value.items()}
    return value


def quoted(value):
    """``value`` quoted for a message (repr), user-info masked. With ``masked`` (the same
    unquoted), the one way a message of this collection repeats a value the user gave."""
    return repr(masked(value))


#: field names whose values a result never repeats (write-only secrets)
SECRET_FIELDS = frozenset(("password", "token", "new_password"))
SECRET_SHOWN = "********"


def shown_field(name, value):
    """``value`` of the field ``name`` fit for a result: a secret field's value hidden, the
    user-info of an address or URL masked (masked)."""
    if name in SECRET_FIELDS and value is not None:
        return SECRET_SHOWN
    if isinstance(value, dict):
        return {key: shown_field(key, item) for key, item in value.items()}
    if isinstance(value, list):
        return [shown_field(name, item) for item in value]
    return masked(value)


def shown(value):
    """``value`` (a request body, any nesting) fit for a result: the value of each secret field
    hidden, the user-info of an address or URL masked."""
    return shown_field("", value)

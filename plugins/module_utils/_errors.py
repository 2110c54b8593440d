# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one home of every exception of the collection, and of secret masking: what a failure
is and how a value the user gave is repeated in a message or result without a secret.

Every other file imports these from here, and this file imports nothing of the collection,
so any file may import it without a cycle."""

from __future__ import annotations

import json
import os
import re
import threading
import urllib.parse


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
              " run the info module of its device type (broadcast.monitoring.<device>_info) to see the answer, and"
              " report it with the device's model and firmware version")


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
# ``masked`` is the one masking function of the collection: every output (module results,
# warnings, errors and diffs, the event source's events and log, reports, backups) passes its
# decoded values through it, never its serialized text. It hides three things (the known
# secrets first, and once more last, so that nothing done after could make one anew):
#
# 1. every known secret wherever it stands in a string (a device's error message echoing the
#    request included), in each form it can take there: as is; escaped as a JSON string (a
#    body echoed as sent: ``\"``, ``\\``, ``\u00e9``, ``\udcff``, ASCII or not); escaped as a
#    Python literal (a message's ``%r``, either quote); percent-encoded (a query string echoed as
#    received: UTF-8, a surrogate-escaped byte as itself, ``+`` or ``%20`` for a space, either
#    case of hex). Other encodings (base64, JSON escaped twice) are not searched: no device of
#    the interface documents sends or echoes a secret that way.
# 2. the value of a secret field (SECRET_FIELDS), whatever it is;
# 3. the user-info of a URL or address (``udp://bob:secret@239.1.1.1``, ``bob:secret@host``).
#
# The known secrets are the ones given (the values of no_log options, which _module.py
# registers, and the BROADCAST_MONITORING_PASSWORD, _TOKEN and _NEW_PASSWORD environment
# variables, read at each call) and the ones a device issued (its session token at login, a
# one-time download token), which the code that receives them registers with
# ``register_secret`` before the value can reach anything else.

#: what a secret becomes (Ansible's own mask for no_log values)
SECRET_SHOWN = "********"
#: field names whose values an output never repeats (write-only secrets)
SECRET_FIELDS = frozenset(("password", "token", "new_password", "community", "passphrase", "secret"))
#: the environment variables that give secrets (as an AWX credential does)
SECRET_VARIABLES = ("BROADCAST_MONITORING_PASSWORD", "BROADCAST_MONITORING_TOKEN", "BROADCAST_MONITORING_NEW_PASSWORD")
#: the factory passwords the interface documents print (and the roles' names): public, so
#: hiding them hides nothing, and would turn every "admin" of every output into the mask
PUBLIC_PASSWORDS = frozenset(("admin", "user"))
#: the scheme of a URL (``udp://``)
SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
#: a whole string that is a URL with user-info: it runs to the last ``@`` (a password may hold
#: ``@`` or ``/``), after which no space comes
URL_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://).*@(?=[^@\s]*$)", re.DOTALL)
#: a URL with user-info inside a longer text: the user-info runs to the last ``@`` of the word
URL_IN_TEXT_RE = re.compile(r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://)\S*@")
#: a whole string that is an address with user-info holding a password: ``user:password@host[:port]``
ADDRESS_RE = re.compile(r"^[^\s:@/]*:\S*@(?=[^@\s]+$)")
_HEX_RE = re.compile(r"%[0-9A-F]{2}")


def _percent_forms(secret):
    """The percent-encodings of ``secret`` (UTF-8; a surrogate-escaped byte as that byte)."""
    for errors in ("surrogateescape", "surrogatepass"):
        try:
            data = secret.encode("utf-8", errors)
            break
        except UnicodeEncodeError:
            continue
    else:  # pragma: no cover - surrogatepass encodes every str
        return []
    forms = [urllib.parse.quote(data, safe=""), urllib.parse.quote(data, safe="/"), urllib.parse.quote_plus(data, safe="")]
    return forms + [_HEX_RE.sub(lambda hit: hit.group(0).lower(), form) for form in forms]


def secret_forms(secret):
    """Every form ``secret`` can take inside an output string (see the comment above), longest first."""
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
             repr(secret)[1:-1], repr(secret + '"')[1:-2], ascii(secret)[1:-1], ascii(secret + '"')[1:-2]}
    forms.update(_percent_forms(secret))
    # a form made only of the mask's character could not be told from the mask
    return tuple(sorted((form for form in forms if form.strip("*")), key=len, reverse=True))


class Secrets:
    """The secrets one process knows: added, never removed. Safe from several threads (the
    event source polls in threads): additions take a lock, and readers see whole tuples."""

    def __init__(self):
        self.known = frozenset()
        #: every form of every secret, longest first (at one place the longest is masked)
        self.forms = ()
        #: a regular expression matching any of them (None while there is none)
        self.pattern = None
        self._adding = threading.Lock()

    def add(self, value):
        if not isinstance(value, str) or not value or value in PUBLIC_PASSWORDS or value in self.known:
            return
        with self._adding:
            forms = tuple(sorted(set(self.forms).union(secret_forms(value)), key=len, reverse=True))
            self.pattern, self.forms = re.compile("|".join(map(re.escape, forms))), forms
            self.known = self.known | {value}


#: this process's secrets (a module process, a worker of ansible-playbook, the event source)
SECRETS = Secrets()


def register_secret(value):
    """Make ``value`` a secret that ``masked`` hides from now on, in this process. Call it
    where a secret enters: a device's session token where the login answer is read
    (_client.Client.login), a one-time download token where it is received, a password or
    token a plugin is given. A value that is not a non-empty string, or a public factory
    password (PUBLIC_PASSWORDS), is ignored. Safe from several threads."""
    SECRETS.add(value)


def _add_the_environments_secrets():
    for name in SECRET_VARIABLES:
        given = os.environ.get(name)
        if given and given not in SECRETS.known:
            SECRETS.add(given)


def _hide_secrets(text, pattern):
    # again and again: a mask next to a secret's '*' can make a secret anew (ends: each pass drops a non-'*')
    while pattern is not None and pattern.search(text):
        text = pattern.sub(SECRET_SHOWN, text)
    return text


def _hide_userinfo(text):
    if "@" not in text:
        return text
    if URL_RE.match(text):
        return URL_RE.sub(r"\1***@", text)
    text = URL_IN_TEXT_RE.sub(r"\1***@", text)
    return text if SCHEME_RE.match(text) else ADDRESS_RE.sub("***@", text)


def masked(value, field=None, configuration=False):
    """``value`` fit for any output: every known secret in it masked, in any form it may take
    (see above), the value of each secret field hidden, the user-info of each URL or address
    masked; reaching into lists, tuples, sets and dictionaries (keys too). ``field``: the name
    of the field ``value`` is the value of (hidden whole if a secret field).

    ``configuration``: ``value`` is a device's configuration kept to be restored (a backup
    file): only the known secrets are masked; a secret field or the user-info of a URL is
    configuration of the device's own (an SRT passphrase), which a restore must bring back.

    Apply it to decoded values, never to serialized text (JSON, YAML): the escapes of a
    serialization are not the ones searched. Issued secrets must be registered first
    (``register_secret``)."""
    _add_the_environments_secrets()
    return _masked(value, field, SECRETS.pattern, {}, not configuration)


def _masked(value, field, pattern, done, whole):
    """``done``: the strings masked so far in this call, and what each became (keys repeat);
    ``whole``: the secret fields and user-info too."""
    if whole and field in SECRET_FIELDS and value is not None:
        return SECRET_SHOWN
    if isinstance(value, str):
        seen = (type(value), value)
        if seen not in done:
            text = _hide_secrets(value, pattern)
            shown = _hide_userinfo(text) if whole else text
            if shown != text:  # again: the user-info's mask next to the rest of a secret could make it anew
                text = _hide_secrets(shown, pattern)
            done[seen] = value if text == value else _same_kind(value, text)
        return done[seen]
    if isinstance(value, dict):
        return {_masked(key, None, pattern, done, whole): _masked(item, key, pattern, done, whole)
                for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        kind = next(kind for kind in (list, tuple, set, frozenset) if isinstance(value, kind))
        return kind(_masked(item, field, pattern, done, whole) for item in value)
    return value


def _same_kind(value, text):
    """``text`` as the kind of string ``value`` is (text marked unsafe stays unsafe)."""
    if value.__class__ is str:
        return text
    try:
        return type(value)(text)
    except Exception:  # a kind of string that cannot be made from text alone
        return text


def quoted(value):
    """``value`` quoted for a message (repr), masked: the one way a message of this collection
    repeats a value the user gave."""
    return repr(masked(value))

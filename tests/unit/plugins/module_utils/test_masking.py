# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""_errors.masked, the one masking function: properties over random secrets holding quotes,
backslashes, ``%``, non-ASCII and surrogate-escaped text, inside longer text, in every form a
device may echo them (as is, JSON-escaped, a Python literal, percent-encoded).

A random secret here always holds a random core of letters and digits, as a real password or
token does: a secret made only of punctuation (``", "``) is formed by any serialization's own
separators, which no masking of values can prevent."""

from __future__ import annotations

import contextlib
import json
import re
import urllib.parse

import pytest
from hypothesis import given, settings, strategies as st

from ansible_collections.broadcast.monitoring.plugins.module_utils import _errors as errors
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    SECRET_SHOWN,
    masked,
    quoted,
    register_secret,
    secret_forms,
)

#: what makes a secret hostile to text handling
HOSTILE = ['"', "'", "\\", "%", "+", "/", "@", ":", " ", "&", "=", "?", "#", "*", "{", "}", "\n", "\t",
           "é", "ü", "ß", "中", "文", "\u00a0", "\u2028", "😀", "\x7f", "\udc80", "\udcff", "\udce9"]
core = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=6, max_size=12)
hostile = st.text(alphabet=st.sampled_from(HOSTILE), max_size=6)


@st.composite
def secrets(draw):
    """A password or token: a random core with hostile text before, inside and after it."""
    text = draw(core)
    at = draw(st.integers(0, len(text)))
    return draw(hostile) + text[:at] + draw(hostile) + text[at:] + draw(hostile)


#: text around a secret: anything, hostile characters included
around = st.text(alphabet=st.one_of(st.characters(), st.sampled_from(HOSTILE)), max_size=30)


@contextlib.contextmanager
def fresh_secrets():
    """A process registry of its own for one example: secrets of one do not mask the next
    (conftest gives each test one; hypothesis runs many examples in one test)."""
    saved = errors.SECRETS
    errors.SECRETS = errors.Secrets()
    try:
        yield
    finally:
        errors.SECRETS = saved


@pytest.fixture(autouse=True)
def no_secret_variables(monkeypatch):
    for name in errors.SECRET_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def leaks(secret, text):
    """The forms of ``secret`` found in ``text``."""
    return [form for form in secret_forms(secret) if form in text]


def all_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from all_strings(key)
            yield from all_strings(item)
    elif isinstance(value, (list, tuple, set)):
        for item in value:
            yield from all_strings(item)


def echoes(secret):
    """What devices and messages make of a request holding ``secret``: each a string."""
    body = {"role": "admin", "password": secret}
    return [
        secret,
        "request refused: POST /api/user/login %s" % json.dumps(body),  # the body as sent (ASCII)
        "request refused: %s" % json.dumps(body, ensure_ascii=False),
        "GET /api/sdcard/download?%s" % urllib.parse.urlencode({"filename": "a.ts", "token": secret},
                                                               errors="surrogateescape"),
        "GET /x?token=%s" % re.sub("%[0-9A-F]{2}", lambda hit: hit.group(0).lower(),  # lower-case hex
                                   urllib.parse.quote(secret.encode("utf-8", "surrogateescape"), safe="")),
        "got %r" % secret,
        "got %r" % ('say "' + secret + "'"),  # a repr that escapes the quote the secret may hold
        "got %a" % secret,
        "Authorization: Bearer %s" % secret,
    ]


@settings(max_examples=300, deadline=None)
@given(secret=secrets(), before=around, after=around)
def test_a_secret_is_masked_in_every_form_anywhere_in_a_string(secret, before, after):
    with fresh_secrets():
        register_secret(secret)
        for echo in echoes(secret):
            out = masked(before + echo + after)
            assert leaks(secret, out) == [], (echo, out)
            assert SECRET_SHOWN in out


@settings(max_examples=200, deadline=None)
@given(secret=secrets(), other=secrets(), before=around)
def test_a_secret_is_masked_in_keys_and_values_at_any_depth(secret, other, before):
    with fresh_secrets():
        register_secret(secret)
        register_secret(other)
        value = {"msg": before + secret, before + other: [{"detail": (secret, {other})}], "n": 3,
                 "nested": {"deeper": [[json.dumps({"echo": secret})]]}}
        out = masked(value)
        for text in all_strings(out):
            assert leaks(secret, text) == [] and leaks(other, text) == []
        assert out["n"] == 3


@settings(max_examples=200, deadline=None)
@given(text=around)
def test_text_without_a_secret_or_user_info_is_left_as_it_is(text):
    with fresh_secrets():
        register_secret("Known-Secret-0042")
        if "@" not in text:
            assert masked(text) == text
            assert masked({"k": [text]}) == {"k": [text]}


def test_an_issued_token_is_masked_from_its_registration_on():
    with fresh_secrets():
        token = "eyJhbGciOi.JIUzI1NiJ9-tok_en"
        message = 'device answered: {"message": "token %s not valid"}' % token
        assert masked(message) == message  # not known yet: nothing could know it
        register_secret(token)
        assert masked(message) == 'device answered: {"message": "token ******** not valid"}'


def test_the_secrets_of_the_environment_are_known(monkeypatch):
    with fresh_secrets():
        monkeypatch.setenv("BROADCAST_MONITORING_PASSWORD", 'Env"Pass\\word')
        monkeypatch.setenv("BROADCAST_MONITORING_NEW_PASSWORD", "New-Pass-77")
        out = masked(["x Env\"Pass\\word y", 'body {"password": "Env\\"Pass\\\\word"}', "New-Pass-77"])
        assert out == ["x ******** y", 'body {"password": "********"}', "********"]


def test_secret_fields_are_hidden_whatever_their_value():
    value = {"password": "p", "token": {"a": 1}, "new_password": None, "community": "c", "name": "password",
             "list": [{"secret": 5}]}
    assert masked(value) == {"password": SECRET_SHOWN, "token": SECRET_SHOWN, "new_password": None,
                             "community": SECRET_SHOWN, "name": "password", "list": [{"secret": SECRET_SHOWN}]}
    assert masked("p", field="password") == SECRET_SHOWN and masked("p", field="name") == "p"


@pytest.mark.parametrize("value,shown", [
    ("udp://bob:secret@239.1.1.1:1234", "udp://***@239.1.1.1:1234"),
    ("bob:secret@ntp.example", "***@ntp.example"),
    ("udp://bob:se/cr@t@239.1.1.1:1234", "udp://***@239.1.1.1:1234"),
    ("udp://bob:my secret@239.1.1.1:1234", "udp://***@239.1.1.1:1234"),
    ("stream.url: got 'udp://bob:s3@239.1.1.1:1234' (refused)", "stream.url: got 'udp://***@239.1.1.1:1234' (refused)"),
    ("ntp_servers[0]: must be a host, got '***@ntp.example'", "ntp_servers[0]: must be a host, got '***@ntp.example'"),
    ("Feed@Studio", "Feed@Studio"),  # no password in it
    ("mail ops@example.com: done", "mail ops@example.com: done"),
])
def test_user_info_is_masked_in_urls_and_addresses_whole_or_inside_a_text(value, shown):
    assert masked(value) == shown
    assert masked(shown) == shown


def test_public_factory_passwords_and_empty_values_are_not_secrets():
    with fresh_secrets():
        for value in ("admin", "user", "", None, 5):
            register_secret(value)
        assert masked("needs the admin role; user user") == "needs the admin role; user user"


def test_a_mask_next_to_a_secret_of_stars_cannot_make_a_secret_anew():
    with fresh_secrets():
        register_secret("*z")
        register_secret("q1")
        assert leaks("*z", masked("q1z")) == [] and leaks("q1", masked("q1z")) == []


def test_a_string_keeps_its_kind():
    class Unsafe(str):
        pass

    with fresh_secrets():
        register_secret("Kind-Secret-9")
        assert type(masked(Unsafe("a Kind-Secret-9 b"))) is Unsafe
        assert masked(Unsafe("plain")).__class__ is Unsafe


def test_quoted_repeats_a_value_masked():
    with fresh_secrets():
        register_secret("Quoted-Secret-1")
        assert quoted("x Quoted-Secret-1") == repr("x ********")
        assert quoted("udp://a:b@1.2.3.4:5") == repr("udp://***@1.2.3.4:5")

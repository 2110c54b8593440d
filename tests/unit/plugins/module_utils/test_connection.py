"""The connection options: environment fallbacks (what an AWX credential injects) and the
checks the argument spec cannot express."""

from __future__ import annotations

import os

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.broadcast.monitoring.plugins.module_utils._connection import (
    CONNECTION_SPEC,
    check_connection,
)

ENV = "BROADCAST_MONITORING_"


def validated(params, monkeypatch, environ):
    for name in [name for name in os.environ if name.startswith(ENV)]:
        monkeypatch.delenv(name)
    for name, value in environ.items():
        monkeypatch.setenv(ENV + name, value)
    result = ArgumentSpecValidator(CONNECTION_SPEC).validate(params)
    assert not result.errors.errors, result.errors.errors
    return result.validated_parameters


def test_an_empty_environment_variable_counts_as_unset(monkeypatch):
    # AWX injects "" for every credential input left out
    params = validated({"host": "192.0.2.1"}, monkeypatch,
                       {"PROTOCOL": "", "ROLE": "", "VALIDATE_CERTS": "", "PORT": "", "PASSWORD": "", "TOKEN": ""})
    assert (params["protocol"], params["role"], params["validate_certs"]) == ("http", "admin", True)
    assert params["port"] is None and params["password"] is None and params["token"] is None


def test_a_set_environment_variable_is_the_fallback_and_an_option_wins(monkeypatch):
    environ = {"PROTOCOL": "https", "ROLE": "user", "VALIDATE_CERTS": "false", "PASSWORD": "from-env"}
    params = validated({"host": "192.0.2.1"}, monkeypatch, environ)
    assert (params["protocol"], params["role"], params["validate_certs"], params["password"]) == (
        "https", "user", False, "from-env")
    params = validated({"host": "192.0.2.1", "protocol": "http", "validate_certs": True}, monkeypatch, environ)
    assert (params["protocol"], params["validate_certs"]) == ("http", True)


@pytest.mark.parametrize("password", [None, ""])
def test_no_password_names_both_places_to_give_one(monkeypatch, password):
    params = validated({"host": "192.0.2.1", "password": password}, monkeypatch, {})
    problems = check_connection(params)
    assert len(problems) == 1
    assert "broadcast_monitoring_password" in problems[0] and ENV + "PASSWORD" in problems[0]
    assert check_connection(dict(params, token="t")) == []
    assert check_connection(dict(params, password="p")) == []

"""The outside_data lookup: the raw value of the variables named,
every string in it marked unsafe, so that templating it again gives the text, never its evaluation
(tests/unit/test_outside_data.py keeps the playbooks reading outside text through it;
tests/functional/test_outside_data.py runs them)."""

import pytest

from ansible.errors import AnsibleLookupError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.broadcast.monitoring.plugins.lookup.outside_data import LookupModule

PAYLOAD = "{{ 6 * 7 }}"


def trusted(text):
    """The string as ansible-core holds ``-e @file`` data and a playbook's text: trusted as a template
    (2.19+); a plain str before, which is templated too."""
    try:
        from ansible._internal._datatag._tags import TrustedAsTemplate
    except ImportError:
        return text
    return TrustedAsTemplate().tag(text)


def read(*names, **options):
    return LookupModule().run(list(names), variables={"ansible_eda": event()}, **options)


def template(text, **variables):
    return Templar(loader=DataLoader(), variables=variables).template(trusted(text))


def event():
    return {"event": {"object": {"type": "input", "id": 1, "name": trusted(PAYLOAD)},
                      "detail": {"alarms": [trusted(PAYLOAD)], trusted(PAYLOAD): 1}}}


def test_the_value_is_returned_as_given_and_never_templated_again():
    (value,) = read("ansible_eda")
    assert value == {"event": {"object": {"type": "input", "id": 1, "name": PAYLOAD},
                               "detail": {"alarms": [PAYLOAD], PAYLOAD: 1}}}
    assert template("{{ eda.event.object.name ~ '!' }}", eda=value) == PAYLOAD + "!"
    assert template("{{ eda.event.detail.alarms }}", eda=value) == [PAYLOAD]
    assert template("{{ eda.event.detail }}", eda=value) == {"alarms": [PAYLOAD], PAYLOAD: 1}


def test_naming_the_variable_instead_evaluates_it():
    """Why the lookup exists: the same value, read by its name, is evaluated (the control case)."""
    assert str(template("{{ ansible_eda.event.object.name }}", ansible_eda=event())) == "42"


def test_an_undefined_variable_fails_naming_it_unless_a_default_is_given():
    with pytest.raises(AnsibleLookupError, match="no variable named 'broadcast_monitoring_audit' was given"):
        read("broadcast_monitoring_audit")
    assert read("broadcast_monitoring_audit", default={}) == [{}]
    with pytest.raises(AnsibleLookupError, match="unknown option wantlist2"):
        read("ansible_eda", wantlist2=True)

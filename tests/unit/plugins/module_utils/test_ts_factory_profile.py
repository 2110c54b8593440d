"""The analyzer's factory profile is known by its id (FACTORY_PROFILE_ID), whatever its name:
purge keeps it under its own name, and an input without a profile gets it."""

from __future__ import annotations

import pytest

from ansible_collections.broadcast.monitoring.plugins.module_utils._ts import api as dev
from ansible_collections.broadcast.monitoring.plugins.module_utils._engine import reconcile
from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError
from ansible_collections.broadcast.monitoring.plugins.module_utils._ts.resources import Inputs, Profiles


def raw_profile(profile_id, name, **changed):
    entries = [dict(dev.factory_entry(n), error_name=n, **changed.get(n, {})) for n in dev.ERROR_NAMES]
    return {"id": profile_id, "name": name, "entries": entries}


RENAMED = [raw_profile(1, "Factory", crc_error={"alert_type": "none"}), raw_profile(2, "Strict"),
           raw_profile(3, "Old")]


@pytest.mark.parametrize("state", ["replaced", "overridden"])
def test_reset_factory_keeps_the_renamed_factory_profile_at_factory_values(recording_client, state):
    client = recording_client({dev.PROFILES: RENAMED, dev.INPUTS: []})
    profiles = Profiles(client, reset_factory=True)
    result = reconcile(profiles, [{"name": "Strict"}], state, check_mode=False)
    assert profiles.factory_profile() == "Factory"
    assert [p["name"] for p in result["after"]] == ["Factory", "Strict"] + (["Old"] if state == "replaced" else [])
    assert client.paths("POST") == [dev.PROFILE % 1]  # an update of the factory profile, no profile created
    (path, body), = client.sent("POST")
    assert [e["error_name"] for e in body["entries"]] == ["crc_error"] and "name" not in body
    assert client.paths("DELETE") == ([dev.PROFILE % 3] if state == "overridden" else [])


def test_without_reset_factory_the_factory_profile_is_left_alone_or_refused(recording_client):
    client = recording_client({dev.PROFILES: RENAMED, dev.INPUTS: []})
    assert reconcile(Profiles(client), [{"name": "Strict"}], "replaced", check_mode=False)["changed"] is False
    with pytest.raises(InputError) as caught:
        reconcile(Profiles(client), [{"name": "Strict"}], "overridden", check_mode=False)
    assert "profile 'Factory' (not listed, so state=overridden deletes it): the factory profile cannot be deleted" in (
        caught.value.problems[0])
    # listed, it is any other profile: nothing resets it
    listed = reconcile(Profiles(client, reset_factory=True), [{"name": "Factory", "errors": {"crc_error": {
        "alert_type": "none"}}}, {"name": "Strict"}, {"name": "Old"}], "overridden", check_mode=False)
    assert listed["changed"] is False and client.writes == []


def test_a_new_input_without_a_profile_gets_the_factory_profile_by_its_id(recording_client):
    client = recording_client({dev.PROFILES: RENAMED, dev.INPUTS: []})
    result = reconcile(Inputs(client), [{"name": "New", "source": {"asi": {"port": 1}}}], "merged", check_mode=False)
    assert result["after"][0]["alert_profile"] == "Factory"
    (path, body), = client.sent("POST")
    assert path == dev.INPUTS and body["alerts_config"]["profile_id"] == dev.FACTORY_PROFILE_ID
    # the ids ts_alert_profile returned name the factory profile: the profiles are not read again
    known = recording_client({dev.INPUTS: []})
    reconcile(Inputs(known, {"Factory": 1, "Strict": 2}), [{"name": "New", "source": {"asi": {"port": 1}}}], "merged",
              check_mode=True)
    assert known.paths("GET") == [dev.INPUTS]
    # ids that leave it out do not stand for it: the profiles are read
    unknown = recording_client({dev.PROFILES: RENAMED, dev.INPUTS: []})
    reconcile(Inputs(unknown, {"Strict": 2}), [{"name": "New", "source": {"asi": {"port": 1}}}], "merged",
              check_mode=True)
    assert unknown.paths("GET") == [dev.INPUTS, dev.PROFILES]


def test_replaced_inputs_without_a_profile_go_to_the_factory_profile(recording_client):
    on_strict = {"id": 4, "name": "Mux", "config": {"asi": {"port": 1}}, "alerts_config": {"profile_id": 2},
                 "monitoring": True}
    client = recording_client({dev.PROFILES: RENAMED, dev.INPUTS: [on_strict]})
    result = reconcile(Inputs(client), [{"name": "Mux", "source": {"asi": {"port": 1}}}], "replaced", check_mode=True)
    assert result["after"][0]["alert_profile"] == "Factory", result

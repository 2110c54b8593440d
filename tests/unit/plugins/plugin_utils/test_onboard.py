"""Unit tests of onboarding's conversion: readings to role variables, with no secret in them."""

from __future__ import annotations

import jinja2
import yaml

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._onboard import (
    READS,
    Reference,
    document,
    plain_strings,
    role_variables,
    variable_texts,
    without_secrets,
)
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._state_parts import PARTS, part_names


def test_every_part_of_the_role_is_read_in_the_roles_order():
    for device_type, parts in PARTS.items():
        ordered = []
        for part in parts:
            if part.name not in ordered:
                ordered.append(part.name)
        assert [read.part for read in READS[device_type]] == ordered


def fm_reading(active):
    tuner = {"tuner_id": 0, "name": "One", "frequency": 94800, "operating_state": "enabled", "station_id": None}
    return {"network": {"dhcp": True, "address": "10.0.0.5", "netmask": "255.255.255.0", "gateway": "10.0.0.1",
                        "dns": ["10.0.0.53"], "hostname": "fm-a"},
            "time": {"ntp": False, "ntp_servers": [], "timezone": -5},
            "logging": {"level": "info", "remote_syslog": {"enabled": False, "server": ""}},
            "tuners": [tuner], "thresholds": [{"tuner_id": 0, "rssi_interval": 10}],
            "schedules": [{"tuner_id": 0, "active": active, "events": {}}]}


def test_fm_variables_are_the_roles_and_leave_out_what_the_role_refuses():
    variables = role_variables("fm_monitor", fm_reading(active=True))
    assert sorted(variables) == sorted("fm_monitor_" + name for name in part_names("fm_monitor"))
    assert variables["fm_monitor_network"] == {"dhcp": True, "dns": ["10.0.0.53"], "hostname": "fm-a"}
    assert variables["fm_monitor_time"]["timezone"] == "-5"
    assert variables["fm_monitor_logging"] == {"level": "info", "remote_syslog": {"enabled": False}}
    # an active schedule sets the state: declaring it too is refused by the role
    assert variables["fm_monitor_tuners"] == [{"tuner_id": 0, "name": "One", "frequency": 94800}]
    assert [variables["fm_monitor_%s_all" % part] for part in ("tuners", "thresholds", "schedules")] == [None] * 3
    inactive = role_variables("fm_monitor", fm_reading(active=False))
    assert inactive["fm_monitor_tuners"][0]["operating_state"] == "enabled"


def test_secrets_become_vault_references():
    srt = {"url": "srt://bob:pw@10.0.0.1:9000", "passphrase": "s3cret"}
    value = {"ts_analyzer_inputs": [{"name": "Mux @ studio", "source": {"srt": srt}}],
             "ts_analyzer_logging": {"remote_syslog": {"server": "alice:pw@logs.example"}},
             "ts_analyzer_snmp": {"trap_addresses": ["10.0.0.100:162"], "password": None}}
    out, names = without_secrets("ts-001", value)
    text = yaml.safe_dump(plain_strings(out))
    assert "pw@" not in text and "s3cret" not in text and "bob" not in text and "alice" not in text
    assert names == ["vault_ts_001_ts_analyzer_inputs_mux_studio_source_srt_url_userinfo",
                     "vault_ts_001_ts_analyzer_inputs_mux_studio_source_srt_passphrase",
                     "vault_ts_001_ts_analyzer_logging_remote_syslog_server_userinfo"]
    srt = out["ts_analyzer_inputs"][0]["source"]["srt"]
    assert isinstance(srt["url"], Reference) and isinstance(srt["passphrase"], Reference)
    assert jinja2.Template(srt["url"]).render({names[0]: "bob:pw"}) == "srt://bob:pw@10.0.0.1:9000"
    assert srt["passphrase"] == "{{ %s }}" % names[1]
    assert out["ts_analyzer_inputs"][0]["name"] == "Mux @ studio"  # a name is not an address
    assert out["ts_analyzer_snmp"] == value["ts_analyzer_snmp"]


def test_the_document_reads_back_as_the_variables():
    variables = role_variables("fm_monitor", fm_reading(active=False))
    text = document("fm-001", "fm_monitor", variables, [])
    assert text.startswith("---\n# fm-001: ")
    assert yaml.load(text, Loader=TaggedLoader) == variables


def test_any_of_the_variable_texts_one_after_the_other_read_back_as_those_variables():
    """onboard.yml with onboard_group_vars puts some of them in a group's file, the rest in the host's."""
    variables = role_variables("fm_monitor", fm_reading(active=False))
    variables["fm_monitor_tuners"][0]["name"] = "{{ lookup('pipe', 'id') }}"  # device text
    texts = variable_texts(variables)
    assert list(texts) == list(variables)
    for chosen in (list(variables), list(variables)[::2], list(variables)[1::2]):
        TaggedLoader.tagged = []
        assert yaml.load("---\n" + "".join(texts[name] for name in chosen), Loader=TaggedLoader) == {
            name: variables[name] for name in chosen}
        if "fm_monitor_tuners" in chosen:  # the device text is still !unsafe
            assert any("lookup" in str(value) for value in TaggedLoader.tagged), texts["fm_monitor_tuners"]


class TaggedLoader(yaml.SafeLoader):
    """Loads ``!unsafe`` as Ansible does (the node's own value), recording what it tagged."""

    tagged = []


def _construct_unsafe(loader, node):
    copied = yaml.ScalarNode(loader.resolve(yaml.ScalarNode, node.value, (True, False)), node.value) \
        if isinstance(node, yaml.ScalarNode) else node
    if isinstance(node, yaml.MappingNode):
        value = loader.construct_mapping(node, deep=True)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_object(copied, deep=True)
    TaggedLoader.tagged.append(value)
    return value


TaggedLoader.add_constructor("!unsafe", _construct_unsafe)


def _strings(value):
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


HOSTILE = "{{ lookup('pipe', 'touch marker') }}"


def test_device_text_is_written_unsafe_and_only_vault_references_stay_templates():
    """Every string the device gave is inside an !unsafe node (Ansible never templates it); a
    vault reference is not, and keeps the device's text around it as escaped literals."""
    reading = fm_reading(active=False)
    reading["tuners"][0]["name"] = HOSTILE
    reading["logging"]["remote_syslog"] = {"enabled": True, "server": "bob:pw@{%% raw %%}%s'\\\"" % HOSTILE}
    reading["logging"]["level"] = "123"  # beside a reference, so on its own: text that reads as a number
    variables, secrets = without_secrets("fm-001", role_variables("fm_monitor", reading))
    text = document("fm-001", "fm_monitor", variables, secrets)
    TaggedLoader.tagged = []
    loaded = yaml.load(text, Loader=TaggedLoader)
    assert loaded == plain_strings(variables)
    assert loaded["fm_monitor_tuners"][0]["name"] == HOSTILE
    assert loaded["fm_monitor_logging"]["level"] == "123"  # Ansible's !unsafe would make it a number: untagged
    inert = _strings(TaggedLoader.tagged)
    live = [s for s in _strings(loaded) if s not in inert]
    assert live == ["123", loaded["fm_monitor_logging"]["remote_syslog"]["server"]], live
    assert HOSTILE in inert
    server = jinja2.Template(live[1]).render({secrets[0]: "bob:pw"})
    assert server == reading["logging"]["remote_syslog"]["server"]
    assert "{" not in live[1][2:-2] and "'" not in live[1] and "\\\\" not in live[1]


def test_a_device_string_equal_to_a_reference_stays_data():
    """A device cannot make its own text a reference: only what without_secrets made is one."""
    variables, secrets = without_secrets("ts-001", {"ts_analyzer_inputs": [
        {"name": "{{ vault_ts_001_ts_analyzer_inputs_x_passphrase }}", "passphrase": "s3cret"}]})
    text = document("ts-001", "ts_analyzer", variables, secrets)
    TaggedLoader.tagged = []
    loaded = yaml.load(text, Loader=TaggedLoader)
    assert _strings(TaggedLoader.tagged) == ["{{ vault_ts_001_ts_analyzer_inputs_x_passphrase }}"]
    assert loaded["ts_analyzer_inputs"][0]["passphrase"] == "{{ %s }}" % secrets[0]

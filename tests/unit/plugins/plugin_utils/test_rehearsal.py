"""A rehearsal on twins never reaches a unit: the check the roles run before any request."""

from ansible_collections.broadcast.monitoring.plugins.plugin_utils._rehearsal import rehearsal_refusal

TWIN = {"host": "127.0.20.1", "port": 41000}


def host_vars(name, **more):
    variables = {"inventory_hostname": name, "groups": {"all": ["ts-a", "ts-b"], "twins": ["ts-a"]}}
    variables.update(more)
    return variables


def test_an_inventory_without_twins_is_not_judged():
    assert rehearsal_refusal("ts_analyzer", {"inventory_hostname": "ts-b", "groups": {"all": ["ts-b"]}}) is None
    assert rehearsal_refusal("ts_analyzer", {"inventory_hostname": "ts-b", "groups": {"twins": []}}) is None


def test_a_twin_at_its_own_address_runs():
    variables = host_vars("ts-a", ansible_host="127.0.20.1", device_port=41000, broadcast_monitoring_twin=TWIN,
                          ts_analyzer_host="{{ ansible_host | default(inventory_hostname) }}")
    assert rehearsal_refusal("ts_analyzer", variables) is None


def test_a_unit_in_an_inventory_of_twins_is_refused():
    names, message = rehearsal_refusal("ts_analyzer", host_vars("ts-b", ansible_host="10.20.0.12"))
    assert "ts-b is a unit, not a twin" in message and "nothing was run on ts-b" in message


def test_a_twin_pointed_elsewhere_is_refused_naming_the_variable():
    variables = host_vars("ts-a", ansible_host="10.20.0.11", device_port=41000, broadcast_monitoring_twin=TWIN)
    names, message = rehearsal_refusal("ts_analyzer", variables)
    assert names == ["ansible_host"] and "ansible_host is 10.20.0.11" in message and "127.0.20.1:41000" in message
    variables = host_vars("ts-a", ansible_host="127.0.20.1", device_port=41000, broadcast_monitoring_twin=TWIN,
                          ts_analyzer_port=80)
    names, message = rehearsal_refusal("ts_analyzer", variables)
    assert names == ["ts_analyzer_port"] and "ts_analyzer_port is 80" in message


def test_a_twin_without_its_address_is_refused():
    names, message = rehearsal_refusal("backup", host_vars("ts-a", ansible_host="127.0.20.1"))
    assert names == ["broadcast_monitoring_twin"] and "bm-simulator twin" in message

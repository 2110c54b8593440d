"""The validation_result and validation_report filters: checks derived from the declared state,
confirmed over a second reading, skipped and waived; reports that keep device text inert."""

import json
import re
import xml.etree.ElementTree as ET

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.broadcast.monitoring.plugins.filter.validation_report import FilterModule as Report
from ansible_collections.broadcast.monitoring.plugins.filter.validation_result import FilterModule as Result

result = Result().filters()["validation_result"]
report = Report().filters()["validation_report"]


def an_input(ident, name, **fields):
    out = {"id": ident, "name": name, "monitoring": True, "state": "ok", "receiving": True, "bitrate": 12000000,
           "priority1": "ok", "priority1_errors": [], "alarms": []}
    out.update(fields)
    return out


def ts_reading(*inputs, snmp=None, firmware="1.0.0"):
    return {"snapshot": {"device_type": "ts_analyzer", "firmware_version": firmware, "inputs": list(inputs)},
            "snmp": snmp}


def a_tuner(ident, **fields):
    out = {"id": ident, "name": "Tuner %d" % ident, "state": "enabled", "frequency": 94800, "tuned": True,
           "signal_ok": True, "stream_enabled": False, "alarms": []}
    out.update(fields)
    return out


def fm_reading(*tuners):
    return {"snapshot": {"device_type": "fm_monitor", "firmware_version": "1.0.0", "tuners": list(tuners)}}


TS = {"device_type": "ts_analyzer", "inputs": [{"name": "Mux 1", "monitoring": "started"}, {"name": "Mux 2"},
                                               {"name": "ASI", "monitoring": "stopped"}],
      "snmp": {"enabled": True, "trap_addresses": ["192.0.2.100:162"]}}
SNMP = {"enabled": True, "listen_addresses": ["0.0.0.0"], "trap_addresses": ["192.0.2.100:162", "192.0.2.7:162"]}


def statuses(out):
    return {c["id"]: c["status"] for c in out["checks"]}


def test_a_healthy_analyzer_passes_every_check_and_a_stopped_input_is_not_checked():
    out = result([ts_reading(an_input(1, "Mux 1"), an_input(2, "Mux 2"), an_input(3, "ASI", monitoring=False),
                             snmp=SNMP)], TS, host="ts-001")
    assert out["status"] == "passed" and out["host"] == "ts-001"
    assert statuses(out) == {"device_answers": "passed", "input_receiving[Mux 1]": "passed",
                             "input_priority1[Mux 1]": "passed", "input_receiving[Mux 2]": "passed",
                             "input_priority1[Mux 2]": "passed", "input_receiving[ASI]": "skipped",
                             "input_priority1[ASI]": "skipped", "snmp_traps": "passed"}
    assert out["counts"] == {"passed": 6, "failed": 0, "waived": 0, "skipped": 2}


def test_a_failure_confirmed_in_the_second_reading_names_the_input_and_the_waiver():
    broken = ts_reading(an_input(1, "Mux 1", state="no_signal", bitrate=0, priority1="critical",
                                 priority1_errors=["ts_sync_loss"]), an_input(2, "Mux 2"), snmp=SNMP)
    out = result([broken, broken], TS, waive_variable="validate_waive")
    assert out["status"] == "failed"
    check = next(c for c in out["checks"] if c["id"] == "input_receiving[Mux 1]")
    assert check["status"] == "failed" and "input Mux 1 (id 1): does not receive its stream (state no_signal" in \
        check["message"] and "validate_waive: [input_receiving[Mux 1]]" in check["message"]
    assert "ts_sync_loss" in next(c for c in out["checks"] if c["id"] == "input_priority1[Mux 1]")["message"]


def test_a_failure_that_clears_in_the_second_reading_passes_and_says_so():
    broken = ts_reading(an_input(1, "Mux 1", state="no_signal", bitrate=0), an_input(2, "Mux 2"), snmp=SNMP)
    healthy = ts_reading(an_input(1, "Mux 1"), an_input(2, "Mux 2"), snmp=SNMP)
    out = result([broken, healthy], TS)
    assert out["status"] == "passed"
    assert "failed at the first reading" in next(c for c in out["checks"] if c["id"] == "input_receiving[Mux 1]")["message"]


def test_skip_and_waive_by_kind_or_id():
    broken = ts_reading(an_input(1, "Mux 1", state="no_signal", bitrate=0, priority1="critical"), snmp={
        "enabled": False, "trap_addresses": []})
    out = result([broken, broken], TS, skip=["snmp_traps"], waive=["input_receiving[Mux 1]", "input_priority1"],
                 skip_variable="validate_skip", waive_variable="validate_waive")
    got = statuses(out)
    assert got["snmp_traps"] == "skipped" and got["input_receiving[Mux 1]"] == "waived"
    assert got["input_priority1[Mux 1]"] == "waived" and got["input_receiving[Mux 2]"] == "failed"  # not on the device
    assert "waived by validate_waive: input_priority1" in next(
        c for c in out["checks"] if c["id"] == "input_priority1[Mux 1]")["message"]
    with pytest.raises(AnsibleFilterError, match="validate_skip/validate_waive: unknown check.*input_bitrate"):
        result([broken], TS, skip=["input_bitrate"], skip_variable="validate_skip", waive_variable="validate_waive")


def test_snmp_traps_as_declared_exactly_with_purge():
    declared = dict(TS, inputs=[], purge_snmp=True)
    out = result([ts_reading(snmp=SNMP)], declared)
    assert out["checks"][-1]["status"] == "failed" and "not declared: 192.0.2.7:162" in out["checks"][-1]["message"]
    out = result([ts_reading(snmp=dict(SNMP, trap_addresses=[]))], dict(declared, purge_snmp=False))
    assert "missing: 192.0.2.100:162" in out["checks"][-1]["message"]


def test_tuners_enabled_are_checked_streaming_where_declared_and_firmware():
    declared = {"device_type": "fm_monitor", "firmware_version": "2.0.0", "tuners_all": {"stream": {"enabled": True}},
                "tuners": [{"tuner_id": 0}, {"tuner_id": 1, "stream": {"enabled": False}},
                           {"tuner_id": 2, "operating_state": "sleep"}, {"tuner_id": 3}]}
    reading = fm_reading(a_tuner(0, stream_enabled=True), a_tuner(1, tuned=False, signal_ok=False), a_tuner(2),
                         a_tuner(3, state="sleep"))
    out = result([reading, reading], declared)
    assert statuses(out) == {"device_answers": "passed", "tuner_signal[0]": "passed", "tuner_streaming[0]": "passed",
                             "tuner_signal[1]": "failed", "tuner_signal[2]": "skipped", "tuner_streaming[2]": "skipped",
                             "tuner_signal[3]": "skipped", "tuner_streaming[3]": "skipped", "firmware": "failed"}
    assert "not tuned" in next(c for c in out["checks"] if c["id"] == "tuner_signal[1]")["message"]
    assert "firmware 1.0.0, declared baseline 2.0.0" in out["checks"][-1]["message"]


def test_a_device_that_does_not_answer_fails_one_check():
    out = result([{"error": "connection refused"}, {"error": "connection refused"}], TS)
    assert statuses(out) == {"device_answers": "failed"} and "connection refused" in out["checks"][0]["message"]


def test_a_device_error_names_the_device_and_any_other_failure_names_the_task():
    """Issue 41: a reading that failed with the device's error (its kind given by the module)
    blames the device; one that failed otherwise (an error of Ansible or of the collection) is
    reported as such, naming the task, and neither skip nor waive of device_answers hides it."""
    refused = {"error": "connection refused (check host and port)", "task": "Read what the device is doing",
               "error_details": {"kind": "connection", "status": None, "code": None, "device_message": None}}
    out = result([refused], TS, waive=["device_answers"])
    assert statuses(out) == {"device_answers": "waived"} and out["status"] == "passed"
    for details in (None, "a text", {"status": 500}, {"kind": None}):
        broken = {"error": "Task failed: cannot import name 'remove_internal_keys'", "task": "Read what the device is doing",
                  "error_details": details}
        out = result([broken], TS, skip=["device_answers"], waive=["device_answers"])
        assert statuses(out) == {"task_error": "failed"} and out["status"] == "failed", details
        message = out["checks"][0]["message"]
        assert "task 'Read what the device is doing' failed with an error of Ansible or of this collection" in message
        assert "cannot import name 'remove_internal_keys'" in message
        assert "did not answer" not in message and "waive it" not in message, message
    with pytest.raises(AnsibleFilterError, match="unknown check"):
        result([broken], TS, waive=["task_error"])


HOSTILE = 'Mux <b>&"</b> ]]> [x](http://evil) | `rm` \x01'


def hostile_results():
    broken = ts_reading(an_input(1, HOSTILE, state="no_signal", bitrate=0), snmp=SNMP)
    return {"ts-001": result([broken, broken], dict(TS, inputs=[{"name": HOSTILE}]), host="ts-001"),
            "fm-001": result([fm_reading(a_tuner(0))], {"device_type": "fm_monitor", "tuners": [{"tuner_id": 0}]},
                             host="fm-001")}


def test_junit_has_one_testcase_per_check_with_failures_and_device_text_escaped():
    results = hostile_results()
    root = ET.fromstring(report(results, "junit").encode())
    assert root.get("tests") == "6" and root.get("failures") == "1"
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    hostile_id = "input_receiving[%s]" % HOSTILE.replace("\x01", "\ufffd")
    failure = cases[("ts-001", hostile_id)].find("failure")
    assert failure is not None and HOSTILE.replace("\x01", "\ufffd") in failure.get("message")
    assert cases[("fm-001", "tuner_signal[0]")].find("failure") is None
    json.dumps(results)  # the JSON report is the results as they are


def test_markdown_keeps_device_text_inert():
    text = report(hostile_results(), "markdown")
    assert "<b>" not in text and not re.search(r"(?<!\\)\]\(http", text) and "| `rm`" not in text and "\\`rm\\`" in text
    assert "\\<b\\>" in text and "\\[x\\](http://evil)" in text and "\\|" in text
    assert "2 device(s), 1 passed, 1 failed." in text
    with pytest.raises(AnsibleFilterError, match="kind must be junit or markdown"):
        report({}, "html")


def test_snmp_traps_message_says_what_the_device_has_and_what_was_declared_each_as_it_is():
    """Issue 43 item 2: a receiver added by hand is not "as declared": without purge the check
    passes, and its message names the device's list, the declared list and the one left apart."""
    declared = dict(TS, inputs=[], snmp={"enabled": True, "trap_addresses": ["192.0.2.100:162"]})
    device = {"enabled": True, "trap_addresses": ["192.0.2.77:162", "192.0.2.100:162"]}
    check = result([ts_reading(snmp=device)], declared)["checks"][-1]
    assert check["status"] == "passed", check
    assert check["message"] == ("SNMP trap receivers: the device has 192.0.2.77:162, 192.0.2.100:162; declared "
                                "192.0.2.100:162; not declared, left on the device: 192.0.2.77:162"), check
    check = result([ts_reading(snmp=device)], dict(declared, purge_snmp=True))["checks"][-1]
    assert check["status"] == "failed" and "the device has 192.0.2.77:162, 192.0.2.100:162; declared 192.0.2.100:162" \
        in check["message"], check

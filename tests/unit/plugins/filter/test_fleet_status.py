"""The fleet_status filter: the document's order and marks, metrics that read back as written
(label values escaped), and a page whose policy allows exactly its own style and script and that
keeps device text inert."""

import base64
import hashlib
import html
import re

import pytest

from ansible.errors import AnsibleFilterError
from prometheus_client.parser import text_string_to_metric_families

from ansible_collections.broadcast.monitoring.plugins.filter.fleet_status import FilterModule

fleet_status = FilterModule().filters()["fleet_status"]
HOSTILE = 'Sport "A"\\B\n<script>alert(1)</script>'


def analyzer(version="1.0.0", inputs=None, **fields):
    snapshot = {"device_type": "ts_analyzer", "model": "TSA-4", "firmware_version": version, "reboot_needed": False,
                "inputs": inputs if inputs is not None else [
                    {"id": 1, "name": "News", "monitoring": True, "state": "ok", "receiving": True,
                     "priority1_errors": [], "alarms": []}]}
    reading = {"device_type": "ts_analyzer", "groups": ["ts_analyzers", "north"], "read_at": "2026-11-28T09:00:00Z",
               "snapshot": snapshot, "declared": None}
    reading.update(fields)
    return reading


def monitor(tuned=True, rssi=40):
    return {"device_type": "fm_monitor", "groups": ["fm_monitors", "south"], "read_at": "2026-11-28T09:00:00Z",
            "snapshot": {"device_type": "fm_monitor", "model": "FMM-8", "firmware_version": "2.0.0",
                         "reboot_needed": True, "tuners": [
                             {"id": 0, "name": "Tuner 1", "state": "enabled", "tuned": tuned, "rssi": rssi,
                              "alarms": []},
                             {"id": 1, "name": "Tuner 2", "state": "disabled", "tuned": False, "alarms": ["rssi"]}]}}


READINGS = {
    "a-ok": analyzer(),
    "b-old": analyzer("0.9.0"),
    "c-offair": analyzer(inputs=[{"id": 1, "name": HOSTILE, "monitoring": True, "state": "no_signal",
                                  "receiving": False, "priority1_errors": ["ts_sync_loss"], "alarms": ["ts_sync_loss"]},
                                 {"id": 2, "name": "Paused", "monitoring": False, "state": "paused", "receiving": False}]),
    "d-gone": {"device_type": "ts_analyzer", "groups": [], "read_at": "2026-11-28T09:00:00Z", "snapshot": None,
               "error": "GET /api/system/device: no answer"},
    "e-unlocked": monitor(tuned=False),
}


def test_problems_first_each_marked_in_order_of_severity():
    doc = fleet_status(READINGS, "document", audit={"a-ok": {"drift": [{"section": "snmp", "changed": True}]}},
                       validation={"b-old": {"status": "failed", "counts": {"failed": 2}, "checks": []}})
    order = [(d["name"], d["state"]) for d in doc["devices"]]
    assert order == [("c-offair", "critical"), ("e-unlocked", "critical"), ("d-gone", "unreachable"),
                     ("a-ok", "warning"), ("b-old", "warning")]
    devices = {d["name"]: d for d in doc["devices"]}
    assert devices["b-old"]["firmware_outdated"] and not devices["a-ok"]["firmware_outdated"]
    assert doc["newest_firmware"] == {"ts_analyzer": "1.0.0", "fm_monitor": "2.0.0"}
    assert devices["a-ok"]["audit"] == {"status": "drift", "sections": ["snmp"], "message": ""}
    assert "validation failed (2 check(s))" in devices["b-old"]["problems"]
    # a paused input is not off air; a disabled tuner's alarms are not active
    assert devices["c-offair"]["in_use"] == 1 and len(devices["c-offair"]["problems"]) == 1
    assert devices["e-unlocked"]["alarms_active"] == 0 and devices["e-unlocked"]["in_use"] == 1
    assert "reboot pending" in devices["e-unlocked"]["problems"]
    assert devices["d-gone"]["problems"] == ["unreachable: GET /api/system/device: no answer"]


def test_the_reports_of_the_audit_and_the_rollout_are_read_as_their_artifacts():
    report = {"audited": ["a-ok"], "drift": {"a-ok": []}, "failed": {"b-old": "timeout"}}
    rollout = {"run": "x", "devices": [{"host": "a-ok", "status": "regression", "message": ""}]}
    doc = fleet_status(READINGS, "document", audit=report, rollout=rollout)
    devices = {d["name"]: d for d in doc["devices"]}
    assert devices["a-ok"]["audit"]["status"] == "in_sync" and devices["b-old"]["audit"]["status"] == "failed"
    assert devices["a-ok"]["rollout"]["status"] == "regression" and devices["a-ok"]["state"] == "warning"
    assert devices["e-unlocked"]["audit"]["status"] == "not_audited"


def test_the_metrics_read_back_as_the_document_says_label_values_escaped():
    doc = fleet_status(READINGS, "document")
    samples = {}
    for family in text_string_to_metric_families(fleet_status(doc, "metrics")):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    assert samples[("broadcast_monitoring_input_receiving",
                    (("device", "c-offair"), ("input", HOSTILE), ("type", "ts_analyzer")))] == 0
    assert samples[("broadcast_monitoring_input_priority1_errors",
                    (("device", "c-offair"), ("input", HOSTILE), ("type", "ts_analyzer")))] == 1
    assert samples[("broadcast_monitoring_device_up", (("device", "d-gone"), ("type", "ts_analyzer")))] == 0
    assert samples[("broadcast_monitoring_tuner_locked",
                    (("device", "e-unlocked"), ("tuner", "Tuner 1"), ("type", "fm_monitor")))] == 0
    assert samples[("broadcast_monitoring_tuner_rssi",
                    (("device", "e-unlocked"), ("tuner", "Tuner 1"), ("type", "fm_monitor")))] == 40
    assert not [key for key in samples if key[0] == "broadcast_monitoring_tuner_locked" and ("tuner", "Tuner 2") in key[1]]
    assert samples[("broadcast_monitoring_firmware_info", (("device", "b-old"), ("model", "TSA-4"),
                                                           ("type", "ts_analyzer"), ("version", "0.9.0")))] == 1
    assert samples[("broadcast_monitoring_firmware_outdated", (("device", "b-old"), ("type", "ts_analyzer")))] == 1


def _sha256(text):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def test_the_page_allows_exactly_its_own_style_and_script_and_escapes_device_text():
    page = fleet_status(fleet_status(READINGS, "document"), "page")
    policy = html.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1))
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    assert "style-src %s;" % _sha256(style) in policy and "script-src %s;" % _sha256(script) in policy
    assert policy.startswith("default-src 'none';") and "unsafe" not in policy
    assert page.count("<script") == 1 and "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "Sport &#34;A&#34;" in page
    assert 'data-groups="north ts_analyzers"' in page


def test_bad_input_names_the_filter_and_the_kind():
    with pytest.raises(AnsibleFilterError, match="kind must be document, metrics or page"):
        fleet_status({}, "csv")
    with pytest.raises(AnsibleFilterError, match="needs a document made by fleet_status"):
        fleet_status(READINGS, "page")


def test_no_known_secret_reaches_the_document_and_a_host_named_like_a_secret_field_is_a_name():
    from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import register_secret
    register_secret("Issued-Token-7731")
    readings = {"new_password": analyzer(), "ts-9": analyzer(snapshot=None, error="login refused for Issued-Token-7731")}
    doc = fleet_status(readings, "document")
    names = {dev["name"]: dev for dev in doc["devices"]}
    assert sorted(names) == ["new_password", "ts-9"] and names["new_password"]["reachable"] is True
    for kind in ("page", "metrics"):
        assert "Issued-Token-7731" not in fleet_status(doc, kind)
    assert "Issued-Token-7731" not in str(doc) and "login refused for" in names["ts-9"]["error"]

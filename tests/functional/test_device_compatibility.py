"""device_compatibility (issue 19): the report on the first contact with a device, over real
HTTP: as documented every declared answer is read and nothing required is missing; a firmware
that lacks a required field is named with the request and the field; the extra and reordered
shape variants are covered in test_shape_variants.py."""

import pytest

from .conftest import EXAMPLE_VARS, connection, module_examples
from .device_api import Api


@pytest.mark.parametrize("name", ["ts-001", "fm-001"])
def test_a_documented_device_is_compatible_for_the_user_role(play, sim, name):
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    out = play.run([{"broadcast.monitoring.device_compatibility": dict(
        connection(device, password="user", role="user"), device_type=device.kind)}], name)[0]
    assert out.get("failed") is not True and out["changed"] is False, out
    assert out["compatible"] is True, out["summary"]
    # the identity a user reports with a difference, from the answers already read
    if device.kind == "ts_analyzer":
        raw = Api(device).get("/system/device")
        identity = {key: raw[key] for key in ("model", "serial_number", "firmware_version")}
    else:
        raw = Api(device).get("/status")["versions"]
        identity = {"model": raw["model_name"], "serial_number": raw["serial_number"],
                    "firmware_version": raw["package_ver"]}
    assert out["device"] == identity, out["device"]
    assert out["summary"]["endpoints"] == len(out["endpoints"]) >= 6
    assert all(not e["missing_required"] and "error" not in e for e in out["endpoints"]), out["endpoints"]
    assert "vendor_extension" not in str(out["endpoints"])
    assert sim.call(lambda: [r for r in device.requests if r["kind"] in ("write", "action")]) == []


def test_a_missing_required_field_is_named_and_the_examples_stop_there(play, sim):
    device = sim.fleet.by_name("ts-002")
    sim.call(device.reset)
    sim.call(lambda: device.state["log_settings"].pop("level"))
    try:
        out = play.run(module_examples("device_compatibility"), device.name, extra_vars=EXAMPLE_VARS)
    finally:
        sim.call(device.reset)
    report, check = out[0], out[1]
    assert report.get("failed") is not True and report["compatible"] is False, report
    assert report["summary"]["missing_required"] == ["/api/system/log/settings level"]
    entry = [e for e in report["endpoints"] if e["path"] == "/api/system/log/settings"][0]
    assert entry["missing_required"] == ["level"] and entry["confirmed"] == ["remote_syslog"]
    assert check["failed"] is True and "/api/system/log/settings level" in check["msg"]

"""Issue 19: the collection against the same devices shaped as another firmware might shape
them (the simulator's ``shape`` variants, simulator/README.md): ``extra`` (a field no
document names in every object, taken back in writes), ``reordered`` (every list answer in
another order), ``sparse`` (null fields left out), ``aliases`` (the other field names of the
notes) and ``unsorted`` (a day's schedule events in another order; issue 43). ``renamed`` (the
analyzer's DNS servers under another name) is refused clearly, by its own test. Every writing module runs through device_state with the example inventory's
whole declared state (purge on), then again: nothing to change and nothing written; then in
check mode: nothing written. Both info modules read every subset, and a backup taken while
the device lists everything in another order equals one taken before."""

import json

import pytest

from bm_simulator.fleet import running_fleet

from .conftest import Play, connection, example_state
from .tasks import writes

VARIANTS = ("extra", "reordered", "sparse", "aliases", "unsorted")


@pytest.fixture(scope="module", params=VARIANTS)
def sim(request):
    with running_fleet(ts=1, fm=1, time_scale=0.02, shape=request.param) as runner:
        runner.shape = request.param
        yield runner


@pytest.mark.parametrize("device_type", ["ts_analyzer", "fm_monitor"])
def test_every_writing_module_settles_and_check_mode_writes_nothing(play, sim, device_type):
    device = sim.fleet.of_kind(device_type)[0]
    state = {"name": "declared state", "broadcast.monitoring.device_state": dict(
        connection(device), device_type=device_type, purge=True, parts=example_state(device_type))}
    info = "ts_info" if device_type == "ts_analyzer" else "fm_info"
    gather = {"name": "every subset", "broadcast.monitoring." + info: dict(connection(device), gather_subset=["all"])}
    first = play.run([state, gather], device.name)
    assert first[0].get("failed") is not True and first[0]["changed"] is True, first[0]
    assert first[1].get("failed") is not True and "failed_subsets" not in first[1], first[1]
    sim.call(device.requests.clear)
    again = play.run([state], device.name)[0]
    assert again.get("failed") is not True and again["changed"] is False, {
        part: result.get("changes") or result.get("diff") for part, result in again["parts"].items()
        if result.get("changed")}
    assert writes(sim, device) == []
    checked = play.run([state], device.name, check=True)[0]
    assert checked.get("failed") is not True and checked["changed"] is False, checked
    assert writes(sim, device) == []


@pytest.mark.parametrize("device_type", ["ts_analyzer", "fm_monitor"])
def test_a_backup_does_not_depend_on_the_order_of_the_answers(play, sim, tmp_path, device_type):
    device = sim.fleet.of_kind(device_type)[0]
    if device_type == "fm_monitor":  # a day with two events, whatever the tests before left
        events = {"monday": [{"minute": 360, "state": 1}, {"minute": 1320, "state": 2}]}
        sim.call(lambda: device.state["tuners"][3]["schedule"].update(active=False, events=events))
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    backup = {"broadcast.monitoring.device_backup": dict(connection(device), dest=str(first))}
    assert play.run([backup], device.name)[0].get("failed") is not True
    shape = device.shape
    # the reordered device then lists everything in the documented order; the extra one keeps
    # its field (a backup holds what the device reports) and must give the same file again
    device.shape = "documented" if shape in ("reordered", "unsorted") else shape
    try:
        out = play.run([{"broadcast.monitoring.device_backup": dict(connection(device), dest=str(second))}],
                       device.name)[0]
    finally:
        device.shape = shape
    assert out.get("failed") is not True, out
    before, after = json.loads(first.read_text())["raw"], json.loads(second.read_text())["raw"]
    assert before == after, differing(before, after)


def differing(before, after, path=""):
    """The paths where two answers differ (for a failure message)."""
    if isinstance(before, dict) and isinstance(after, dict):
        return [p for key in sorted(set(before) | set(after), key=str)
                for p in differing(before.get(key), after.get(key), "%s.%s" % (path, key))]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [p for index, pair in enumerate(zip(before, after)) for p in differing(*pair, "%s[%d]" % (path, index))]
    return [] if before == after else ["%s: %r != %r" % (path, before, after)]


@pytest.mark.parametrize("device_type", ["ts_analyzer", "fm_monitor"])
def test_the_compatibility_report_names_the_fields_the_collection_does_not_read(play, sim, device_type):
    device = sim.fleet.of_kind(device_type)[0]
    out = play.run([{"broadcast.monitoring.device_compatibility": dict(connection(device), device_type=device_type)}],
                   device.name)[0]
    assert out.get("failed") is not True and out["compatible"] is True, out
    extra = {e["path"]: e["extra"] for e in out["endpoints"]}
    if sim.shape == "extra":
        # (an empty list answer, e.g. no inputs yet when this test runs alone, has no object to carry it)
        assert all("vendor_extension" in fields for fields in extra.values() if fields), extra
    else:
        assert not any("vendor_extension" in fields for fields in extra.values()), extra
    aliases = out["summary"]["aliases"]
    if sim.shape == "aliases" and device_type == "fm_monitor":
        assert any(alias.endswith("streamer_uptime as xcast_uptime") for alias in aliases), out["summary"]
        # fm_info reports the document's names whichever the firmware used
        status = play.run([{"broadcast.monitoring.fm_info": dict(connection(device), gather_subset=["status"])}],
                          device.name)[0]["status"]
        assert status["streamer_uptime"] >= 0 and "xcast_uptime" not in status, status
        assert status["versions"]["fpga_ver"] and status["versions"]["streamer_ver"], status["versions"]
    else:
        assert aliases == [], aliases


def test_dns_servers_under_another_name_are_refused_clearly(collections_path, tmp_path):
    """Issue 43: an analyzer that names its DNS servers dns_servers (the simulator's "renamed"
    shape; ts-analyzer-api.md does not name the system endpoints' fields). Read as no DNS servers,
    device_network would rewrite them on every run; it fails instead, naming the field, before any
    write, in check mode too; so does the device_state part."""
    with running_fleet(ts=1, fm=0, time_scale=0.02, shape="renamed") as renamed:
        device = renamed.fleet.of_kind("ts_analyzer")[0]
        play = Play(renamed, collections_path, tmp_path)
        network = {"broadcast.monitoring.device_network": dict(connection(device), device_type="ts_analyzer",
                                                               dns=["192.0.2.53"])}
        state = {"broadcast.monitoring.device_state": dict(connection(device), device_type="ts_analyzer",
                                                           parts={"network": {"dns": ["192.0.2.53"]}})}
        for check in (True, False):
            for result in play.run([network, state], device.name, check=check).results:
                text = json.dumps(result)
                assert result.get("failed") is True, result
                assert "GET /api/system/network" in text and "no field 'dns'" in text, result
                assert "dns_servers instead" in text, result
        assert writes(renamed, device) == []

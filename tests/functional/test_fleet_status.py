"""playbooks/fleet_status.yml (issue 46): the fleet at a glance, over real HTTP against a simulated
fleet with an input off air, a tuner unlocked, a device that does not answer and one on older
firmware. The JSON, the metrics (parsed back with prometheus_client, checked by promtool) and the
page (rendered by headless Chromium: rows, order, marks, filters, no console error, device text
shown as text) each show those first and marked. Nothing is written to any device."""

import html
import json
import os
import re
import shutil
import socket

import pytest
import yaml

from bm_simulator.fleet import running_fleet
from bm_simulator.ts import PRIORITY_1

from . import fleet_page
from .conftest import ROOT, ansible_playbook, module_examples, recap
from .device_api import Api
from .tasks import clear_log, writes
from .test_awx_pipeline import (Job, SLICES, assert_no_secret, awx_slices, effective_artifacts, meta_vars, run_jobs,
                                set_password, slice_inventory, sliced_job)

HOSTILE = "<img src=x onerror=alert(1)>"
#: a device whose inventory name is markup (a second inventory entry for fm-002)
HOSTILE_DEVICE = "<img src=x onerror=alert(document.domain)>"
GONE = "ts-gone"
#: an input whose name is a template: device text, shown as written, never evaluated
PLANTED_INPUT = "{{ 'evalu' ~ 'ated' }}"
SITES = {"studio_north": ["ts-001", "fm-001"], "transmitter_south": ["ts-002", "ts-003", "fm-002", GONE]}
OLD_FIRMWARE = "0.9.0"


@pytest.fixture(scope="module")
def fleet():
    with running_fleet(ts=3, fm=2, time_scale=0.02) as runner:
        setup(runner)
        yield runner


def quiet_analyzer(sim, name, inputs):
    """Inputs receiving under a profile that does not raise the simulated streams' random
    priority-1 errors; {input name: id}."""
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    api = Api(device)
    profile = api.post("/profiles", {"name": "Quiet", "entries": [
        {"error_name": error, "threshold": 100} for error in PRIORITY_1]})["id"]
    ids = {}
    for index, label in enumerate(inputs):
        ids[label] = api.add_input(label, {"eth": {"stream_protocol": 0, "multicast": {
            "multicast_address": "239.1.1.%d" % (index + 1), "multicast_port": 5000}}}, profile_id=profile)["id"]
    return device, ids


def monitor_on_air(sim, name):
    """Tuner 0 enabled on a strong station."""
    device = sim.fleet.by_name(name)
    sim.call(device.reset)
    frequency = sorted(f for f, station in device.band.items() if station["rssi"] >= 30)[0]
    sim.call(lambda: device.state["tuners"][0].update(frequency=frequency, state=1))
    return device


def setup(sim):
    quiet_analyzer(sim, "ts-001", ["News", HOSTILE])
    off_air, ids = quiet_analyzer(sim, "ts-002", ["Sport"])
    sim.call(off_air.lose_signal, ids["Sport"])
    old = quiet_analyzer(sim, "ts-003", ["Music", PLANTED_INPUT])[0]
    sim.call(lambda: old.state.update(firmware_version=OLD_FIRMWARE))
    unlocked = monitor_on_air(sim, "fm-001")
    sim.call(unlocked.lose_signal, 0)
    monitor_on_air(sim, "fm-002")


def closed_port():
    """A loopback port nothing listens on: the device that does not answer."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def inventory(sim, path):
    sim.write_inventory(str(path))
    data = yaml.safe_load(path.read_text())
    data["all"]["vars"]["broadcast_monitoring_password"] = "admin"
    data["all"]["children"]["ts_analyzers"]["hosts"][GONE] = {
        "ansible_host": "127.0.0.1", "device_port": closed_port(), "device_type": "ts_analyzer"}
    data["all"]["children"]["fm_monitors"]["hosts"][HOSTILE_DEVICE] = dict(
        data["all"]["children"]["fm_monitors"]["hosts"]["fm-002"])
    # declared items: an analyzer's inputs are counted against the device's; a monitor's tuners are its hardware
    data["all"]["children"]["ts_analyzers"]["hosts"]["ts-001"]["ts_analyzer_inputs"] = [
        {"name": name} for name in ("News", HOSTILE, "Weather")]
    data["all"]["children"]["fm_monitors"]["hosts"]["fm-002"]["fm_monitor_tuners"] = [{"tuner_id": 0}]
    for site, hosts in SITES.items():
        data["all"]["children"][site] = {"hosts": {host: {} for host in hosts}}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def fleet_status(sim, collections_path, workdir, options=(), env=None):
    args = ["-i", str(inventory(sim, workdir / "hosts.yml")), ROOT + "/playbooks/fleet_status.yml",
            "-e", "status_dir=status"] + list(options)
    proc = ansible_playbook(sim, collections_path, workdir, args, cwd=str(workdir), env=env)
    return proc.returncode, proc.output, workdir / "status"


@pytest.fixture(scope="module")
def status(fleet, collections_path, tmp_path_factory):
    """One status run in check mode; (output, status directory)."""
    workdir = tmp_path_factory.mktemp("fleet-status")
    for device in fleet.devices:
        clear_log(fleet, device)
    # the latest audit as its report file, the latest validation as a job's artifact holding a
    # template (outside text: shown as written, never evaluated)
    (workdir / "audit.json").write_text(json.dumps({"audited": ["ts-001", "fm-002"], "failed": {}, "drift": {
        "ts-001": [{"section": "snmp", "changed": True}], "fm-002": [{"section": "time", "changed": False}]}}))
    (workdir / "artifacts.json").write_text(json.dumps({"broadcast_monitoring_validation_7": {"ts-003": {
        "status": "failed", "counts": {"failed": 1}, "checks": [{"status": "failed", "message": PLANTED}]}}}))
    code, output, folder = fleet_status(fleet, collections_path, workdir, [
        "--check", "-e", "fleet_status_audit_report=audit.json", "-e", "@artifacts.json"])
    assert code == 0, output
    hosts = recap(output)
    assert set(hosts) == {"ts-001", "ts-002", "ts-003", "fm-001", "fm-002", GONE}, output  # recap() reads no spaces
    assert all(counts["failed"] == 0 for counts in hosts.values()), output
    assert re.search("^" + re.escape(HOSTILE_DEVICE) + r"\s+: ok=\d+ .* failed=0 ", output, re.M), output
    for device in fleet.devices:
        assert writes(fleet, device) == [], device.name
    return output, folder


PROBLEMS = {"fm-001": "critical", "ts-002": "critical", GONE: "unreachable", "ts-001": "warning", "ts-003": "warning"}
PLANTED = "{{ lookup('ansible.builtin.env', 'HOME') }}"


def test_the_json_lists_the_problems_first_each_marked(status):
    doc = json.loads((status[1] / "fleet-status.json").read_text())
    assert doc["format"] == "broadcast.monitoring.fleet_status/1"
    names = [d["name"] for d in doc["devices"]]
    states = {d["name"]: d["state"] for d in doc["devices"]}
    assert {n: states[n] for n in PROBLEMS} == PROBLEMS, doc["devices"]
    assert states["fm-002"] == "ok" and states[HOSTILE_DEVICE] == "ok", doc["devices"]
    assert names[:5] == ["fm-001", "ts-002", GONE, "ts-001", "ts-003"], names
    assert doc["counts"] == {"devices": 7, "critical": 2, "unreachable": 1, "warning": 2, "ok": 2}
    assert doc["sources"]["validation"] == ["broadcast_monitoring_validation_7"] and len(doc["sources"]["audit"]) == 1
    device = {d["name"]: d for d in doc["devices"]}
    assert device["ts-002"]["working"] == 0 and device["ts-002"]["declared"] is None
    assert device["ts-001"]["declared"] == 3 and "3 input(s) declared, 2 on the device" in device["ts-001"]["problems"]
    assert device["fm-002"]["declared"] is None
    assert any("input Sport: off air" in p for p in device["ts-002"]["problems"]), device["ts-002"]
    assert device["fm-001"]["working"] == 0 and device["fm-001"]["in_use"] == 1
    assert any("not locked" in p for p in device["fm-001"]["problems"])
    assert device[GONE]["reachable"] is False and device[GONE]["error"]
    assert device["ts-003"]["firmware_outdated"] is True and device["ts-003"]["firmware_version"] == OLD_FIRMWARE
    assert device["ts-001"]["firmware_outdated"] is False and device["ts-001"]["model"]
    assert device["ts-001"]["audit"]["sections"] == ["snmp"] and device["fm-002"]["audit"]["status"] == "in_sync"
    assert device["ts-003"]["validation"] == {"status": "failed", "failed": 1, "messages": [PLANTED]}
    assert [i["name"] for i in device["ts-003"]["items"]] == ["Music", PLANTED_INPUT]
    assert device["ts-002"]["audit"]["status"] == "not_audited" and device["ts-002"]["validation"] is None
    assert [i["name"] for i in device["ts-001"]["items"]] == ["News", HOSTILE]
    assert "studio_north" in device["ts-001"]["groups"]
    assert isinstance(device["fm-002"]["items"][0]["rssi"], int)


def test_module_processes_give_the_same_readings(fleet, status, collections_path, tmp_path):
    """The reading's snapshot as a module process (BROADCAST_MONITORING_DIRECT_EXECUTION=false),
    not in check mode: the same rows, each device read in one task, nothing written to any device."""
    for device in fleet.devices:
        clear_log(fleet, device)
    given = status[1].parent  # the check run's reports
    code, output, folder = fleet_status(fleet, collections_path, tmp_path, [
        "-e", "fleet_status_audit_report=%s" % (given / "audit.json"), "-e", "@%s" % (given / "artifacts.json")],
        env={"BROADCAST_MONITORING_DIRECT_EXECUTION": "false"})
    assert code == 0, output
    assert "device_snapshot runs as a module process" in output, output
    assert "(direct execution)" not in output
    assert all(counts["failed"] == 0 for counts in recap(output).values()), output
    for device in fleet.devices:
        assert writes(fleet, device) == [], device.name

    def rows(doc):  # the device that does not answer has a closed port of its own in each inventory
        return [(d["name"], d["state"], [re.sub(r"127\.0\.0\.1:\d+", "port", p) for p in d["problems"]],
                 [i["name"] for i in d["items"]], d["declared"]) for d in doc["devices"]]
    checked = json.loads((status[1] / "fleet-status.json").read_text())
    assert rows(json.loads((folder / "fleet-status.json").read_text())) == rows(checked)


def test_documented_examples_run_as_written(fleet, collections_path, tmp_path):
    """fleet_status_reading's EXAMPLES task as a role's task (the role's argument spec and
    defaults those of roles/fleet_status): a device read, a device that does not answer recorded
    without failing its host; outside a role, check_role_variables is refused."""
    role = tmp_path / "roles" / "fleet_status"
    for folder in ("meta", "defaults"):
        shutil.copytree(os.path.join(ROOT, "roles", "fleet_status", folder), role / folder)
    (role / "tasks").mkdir()
    (role / "tasks" / "main.yml").write_text(yaml.safe_dump(module_examples("fleet_status_reading") + [
        {"name": "Keep the reading", "ansible.builtin.copy": {
            "content": "{{ fleet_status_reading | to_json }}", "dest": str(tmp_path) + "/{{ inventory_hostname }}.json",
            "mode": "0600"}, "delegate_to": "localhost"}], sort_keys=False))
    playbook = tmp_path / "demo.yml"
    playbook.write_text(yaml.safe_dump([
        {"name": "Demo", "hosts": "ts-001:%s" % GONE, "gather_facts": False, "connection": "local", "roles": ["fleet_status"]},
        {"name": "Outside a role", "hosts": "ts-001", "gather_facts": False, "connection": "local", "tasks": [
            dict(module_examples("fleet_status_reading")[0], ignore_errors=True, register="outside"),
            {"name": "Refused", "ansible.builtin.assert": {"that": [
                "outside.msg == 'check_role_variables: the task is not part of a role'"]}}]}]))
    proc = ansible_playbook(fleet, collections_path, tmp_path, [
        "-i", str(inventory(fleet, tmp_path / "hosts.yml")), "-e", "fleet_status_device_type=ts_analyzer", str(playbook)])
    assert proc.returncode == 0, proc.output
    read, gone = (json.loads((tmp_path / (name + ".json")).read_text()) for name in ("ts-001", GONE))
    assert read["device_type"] == "ts_analyzer" and read["error"] == "" and read["declared"] == 3, read
    assert [i["name"] for i in read["snapshot"]["inputs"]] == ["News", HOSTILE], read
    assert gone["snapshot"] is None and "cannot connect" in gone["error"] and "ts_analyzers" in gone["groups"], gone


def test_the_metrics_say_the_same_and_promtool_passes(status):
    from prometheus_client.parser import text_string_to_metric_families

    doc = json.loads((status[1] / "fleet-status.json").read_text())
    text = (status[1] / "fleet-status.prom").read_text()
    assert not (status[1] / ".fleet-status.prom.tmp").exists()
    samples = {}
    for family in text_string_to_metric_families(text):
        assert family.documentation and family.type in ("gauge", "info"), family
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    for dev in doc["devices"]:
        base = (("device", dev["name"]), ("type", dev["type"]))
        assert samples["broadcast_monitoring_device_up"][base] == (1 if dev["reachable"] else 0)
        assert samples["broadcast_monitoring_device_problem"][base] == (0 if dev["state"] == "ok" else 1)
        if not dev["reachable"]:
            assert base not in samples["broadcast_monitoring_alarms_active"]
            continue
        assert samples["broadcast_monitoring_alarms_active"][base] == dev["alarms_active"]
        assert samples["broadcast_monitoring_firmware_outdated"][base] == (1 if dev["firmware_outdated"] else 0)
        info = tuple(sorted(base + (("model", dev["model"]), ("version", dev["firmware_version"]))))
        assert samples["broadcast_monitoring_firmware_info"][info] == 1
        for item in dev["items"]:
            key = tuple(sorted(base + ((item["kind"], item["name"]),)))
            if item["kind"] == "input":
                assert samples["broadcast_monitoring_input_receiving"][key] == (1 if item["working"] else 0)
                assert samples["broadcast_monitoring_input_priority1_errors"][key] == len(item["priority1_errors"])
            elif item["in_use"]:
                assert samples["broadcast_monitoring_tuner_locked"][key] == (1 if item["working"] else 0)
                assert samples["broadcast_monitoring_tuner_rssi"][key] == item["rssi"]
    assert samples["broadcast_monitoring_input_receiving"][
        (("device", "ts-002"), ("input", "Sport"), ("type", "ts_analyzer"))] == 0
    assert samples["broadcast_monitoring_drift"][(("device", "ts-001"), ("type", "ts_analyzer"))] == 1
    assert samples["broadcast_monitoring_device_up"][(("device", GONE), ("type", "ts_analyzer"))] == 0
    assert samples["broadcast_monitoring_firmware_outdated"][(("device", "ts-003"), ("type", "ts_analyzer"))] == 1
    assert samples["broadcast_monitoring_device_up"][(("device", HOSTILE_DEVICE), ("type", "fm_monitor"))] == 1
    assert samples["broadcast_monitoring_validation_failed"][(("device", "ts-003"), ("type", "ts_analyzer"))] == 1
    assert [v for k, v in samples["broadcast_monitoring_tuner_locked"].items() if ("device", "fm-001") in k] == [0]
    # the hostile input name is an escaped label value, read back as it was
    assert samples["broadcast_monitoring_input_receiving"][
        (("device", "ts-001"), ("input", HOSTILE), ("type", "ts_analyzer"))] == 1
    code, output = fleet_page.promtool("check", "metrics", stdin=text)
    assert code == 0, output


def test_the_page_in_chromium_shows_the_problems_first_and_filters(status):
    page = status[1] / "fleet-status.html"
    text = page.read_text()
    # self-contained: no element loads anything, the style imports nothing
    assert not {"src", "href", "srcset", "data"} & fleet_page.Dom(text).attributes, "an element loads something"
    style = text.split("<style>", 1)[1].split("</style>", 1)[0]
    assert "url(" not in style and "@import" not in style
    # a strict policy: nothing from anywhere, no inline code but the page's own by hash
    policy = html.unescape(re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', text).group(1))
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["base-uri"] == "'none'", policy
    assert re.fullmatch(r"'sha256-[A-Za-z0-9+/]+=*'", directives["script-src"]), policy
    assert re.fullmatch(r"'sha256-[A-Za-z0-9+/]+=*'", directives["style-src"]), policy
    dom, console = fleet_page.page_dom(page)
    assert console == [], console
    assert dom.body.get("data-ready") == "1", "the page's script did not run"
    assert [r["data-name"] for r in dom.rows][:5] == ["fm-001", "ts-002", GONE, "ts-001", "ts-003"]
    assert len(dom.shown()) == 7 and dom.body.get("data-shown") == "7"
    rows = {r["data-name"]: r for r in dom.rows}
    assert rows["fm-001"]["class"] == "critical" and "not locked" in rows["fm-001"]["text"]
    assert rows["ts-002"]["class"] == "critical" and "off air" in rows["ts-002"]["text"]
    assert rows[GONE]["class"] == "unreachable" and "unreachable" in rows[GONE]["text"]
    assert rows["ts-003"]["class"] == "warning" and "older than" in rows["ts-003"]["text"]
    assert re.search(r'<td data-label="Firmware" class="warn">%s \(older than ' % re.escape(OLD_FIRMWARE), dom.text)
    assert PLANTED in rows["ts-003"]["text"]
    assert rows["ts-001"]["class"] == "warning" and "snmp" in rows["ts-001"]["text"] and rows["fm-002"]["class"] == "ok"
    # device text is text: the hostile device and input names show as written, and no image element exists
    assert HOSTILE in rows["ts-001"]["text"] and "img" not in dom.tags
    assert rows[HOSTILE_DEVICE]["class"] == "ok" and HOSTILE_DEVICE in rows[HOSTILE_DEVICE]["text"]
    for fragment, expected in [("state=critical", ["fm-001", "ts-002"]),
                               ("type=fm_monitor", ["fm-001", "fm-002", HOSTILE_DEVICE]),
                               ("site=studio_north", ["fm-001", "ts-001"]), ("state=problem", list(PROBLEMS)),
                               ("state=unreachable&type=ts_analyzer", [GONE]), ("q=ts-00", ["ts-002", "ts-003", "ts-001"])]:
        dom, console = fleet_page.page_dom(page, fragment)
        assert console == [] and sorted(dom.shown()) == sorted(expected), (fragment, dom.shown(), console)
        assert dom.body.get("data-shown") == str(len(expected))


#: each device row as laid out: its box, its state mark (the first cell's coloured edge and the
#: state word), and whether its detail's lines are rendered
ROWS_LAID_OUT = """Array.prototype.map.call(document.querySelectorAll("tbody tr"), function(row) {
  var box = row.getBoundingClientRect(), cell = row.cells[0], mark = row.querySelector(".state"),
      markBox = mark.getBoundingClientRect(), lines = row.querySelectorAll("details li");
  return {name: row.dataset.name, state: row.dataset.state, shown: row.checkVisibility(),
          display: getComputedStyle(row).display, left: box.left, right: box.right, top: box.top,
          height: box.height, mark: mark.checkVisibility() ? mark.textContent : null,
          markLeft: markBox.left, markRight: markBox.right,
          edge: getComputedStyle(cell).borderLeftWidth + " " + getComputedStyle(cell).borderLeftStyle,
          lines: lines.length, linesShown: Array.prototype.filter.call(lines, function(li) {
            return li.checkVisibility(); }).length};
})"""
#: how wide the page is laid out, against the viewport
WIDTHS = "[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]"
#: a phone's viewport: CSS pixels, touch, device pixels per CSS pixel
PHONE = {"width": 390, "height": 844, "mobile": True, "scale": 3}
#: an A4 portrait page's printable width in CSS pixels (210 mm less Chromium's default margins of 0.4 in)
PRINTED_WIDTH = 718


def assert_fits(widths):
    document, body, viewport = widths
    assert document <= viewport and body <= viewport, "laid out %s px wide for %s px" % (max(document, body), viewport)


def test_the_page_reads_on_a_phone(status):
    """On a phone (390 x 844, device emulation): one card per device, the page never scrolls
    sideways, not even with every device's detail open, and the problem rows come first on the
    first screen with their marks (coloured edge, state word) inside the screen's width."""
    with fleet_page.Browser() as browser:
        browser.open(status[1] / "fleet-status.html", **PHONE)
        assert browser.console == [] and browser.evaluate("document.body.dataset.ready") == "1", browser.console
        assert_fits(browser.evaluate(WIDTHS))
        rows = browser.evaluate(ROWS_LAID_OUT)
        assert browser.evaluate("getComputedStyle(document.querySelector('thead')).display") == "none"
        assert len(rows) == 7 and all(row["display"] == "block" and row["shown"] for row in rows), rows
        problems = [row for row in rows if row["state"] != "ok"]
        assert [row["name"] for row in problems] == [row["name"] for row in rows[:5]], rows
        assert rows[0]["top"] < PHONE["height"], rows[0]
        for row in problems:
            assert 0 <= row["left"] and row["right"] <= PHONE["width"], row
            assert row["mark"] == row["state"] and 0 <= row["markLeft"] and row["markRight"] <= PHONE["width"], row
            assert row["edge"] == "4px solid", row
        browser.evaluate("document.querySelectorAll('details').forEach(function(d) { d.open = true; }), 0")
        assert_fits(browser.evaluate(WIDTHS))
        for row in browser.evaluate(ROWS_LAID_OUT):
            assert row["linesShown"] == row["lines"] and row["right"] <= PHONE["width"], row
        assert browser.console == [], browser.console


def test_the_page_prints_every_device_with_its_detail(status, tmp_path):
    """Printed (print media emulated, on an A4 page's width): every device's row, even those the
    screen's filter hides, each with its detail's lines; no filter controls; no column cut off.
    Chromium prints it to a PDF."""
    page = status[1] / "fleet-status.html"
    with fleet_page.Browser() as browser:
        browser.open(page, "state=critical", width=PRINTED_WIDTH, media="print")
        assert browser.console == [] and browser.evaluate("document.body.dataset.shown") == "2", browser.console
        assert browser.evaluate("getComputedStyle(document.getElementById('filters')).display") == "none"
        assert_fits(browser.evaluate(WIDTHS))
        rows = browser.evaluate(ROWS_LAID_OUT)
        assert len(rows) == 7, rows
        for row in rows:
            assert row["shown"] and row["height"] > 0 and row["mark"] == row["state"], row
            assert row["lines"] > 0 and row["linesShown"] == row["lines"], row
        text = browser.evaluate("document.body.innerText")
        assert "input Sport: off air" in text and HOSTILE in text and HOSTILE_DEVICE in text
        printed = browser.pdf(paperWidth=8.27, paperHeight=11.69)
        assert printed.startswith(b"%PDF-") and printed.count(b"/Type /Page") >= 1
        (tmp_path / "fleet-status.pdf").write_bytes(printed)
        # the screen keeps the filter: the print rules apply to print only
        browser.open(page, "state=critical", width=PRINTED_WIDTH)
        assert sorted(row["name"] for row in browser.evaluate(ROWS_LAID_OUT) if row["shown"]) == ["fm-001", "ts-002"]


def test_the_page_sorts_by_a_column(status):
    """A column header sorts the rows by it, again the other way round; problems first as loaded."""
    with fleet_page.Browser() as browser:
        browser.open(status[1] / "fleet-status.html")
        order = "Array.prototype.map.call(document.querySelectorAll('tbody tr'), function(r) { return r.dataset.name; })"
        loaded = browser.evaluate(order)
        assert loaded[:5] == ["fm-001", "ts-002", GONE, "ts-001", "ts-003"]
        click = "document.querySelector('th[data-key=name] button').click(), 0"
        browser.evaluate(click)
        assert browser.evaluate(order) == sorted(loaded, key=lambda name: name.lower()), browser.evaluate(order)
        browser.evaluate(click)
        assert browser.evaluate(order) == sorted(loaded, key=lambda name: name.lower(), reverse=True)
        assert browser.console == [], browser.console


def test_a_script_the_page_policy_does_not_allow_is_a_console_error(status, tmp_path):
    """The control of the console check: the page with one character of its script changed no
    longer matches its policy's hash; Chromium refuses the script and says so."""
    text = (status[1] / "fleet-status.html").read_text()
    changed = tmp_path / "changed.html"
    changed.write_text(text.replace('"use strict";', '"use strict"; ', 1))
    dom, console = fleet_page.page_dom(changed)
    assert any("Content Security Policy" in line for line in console), console
    assert "data-ready" not in dom.body


def test_under_awx_each_slice_hands_its_devices_on_and_the_report_renders_one_page(fleet, collections_path, tmp_path):
    """The status job sliced in 3, through ansible-runner as an AWX execution node runs it
    (tests/functional/test_awx_pipeline.py); a child node's report.yml renders one page, one
    metrics file and one JSON for all the slices' devices from the merged artifacts."""
    set_password(fleet)
    jobs = run_jobs(sliced_job(fleet, tmp_path, collections_path, "status", "playbooks/fleet_status.yml", {}, 400))
    assert [job.status for job in jobs] == ["successful"] * SLICES, [job.stdout for job in jobs]
    names = sorted(device.name for device in fleet.devices)
    merged = effective_artifacts(jobs)
    assert sorted(merged) == ["broadcast_monitoring_status_%d" % number for number in (401, 402, 403)]
    assert [sorted(merged["broadcast_monitoring_status_%d" % (400 + n)]) for n in range(1, SLICES + 1)] == [
        sorted(part) for part in awx_slices(names, SLICES)]
    reports = tmp_path / "reports"
    report = run_jobs([Job(tmp_path, "status-report", collections_path, "playbooks/report.yml",
                           slice_inventory(fleet, names), dict(merged, report_dir=str(reports), **meta_vars(500)))])[0]
    assert report.status == "successful", report.stdout
    doc = json.loads((reports / "fleet-status.json").read_text())
    assert sorted(d["name"] for d in doc["devices"]) == names
    assert [(d["name"], d["state"]) for d in doc["devices"][:3]] == [
        ("fm-001", "critical"), ("ts-002", "critical"), ("ts-003", "warning")], doc["devices"]
    dom, console = fleet_page.page_dom(reports / "fleet-status.html")
    assert console == [] and [r["data-name"] for r in dom.rows][:3] == ["fm-001", "ts-002", "ts-003"]
    code, output = fleet_page.promtool("check", "metrics", stdin=(reports / "fleet-status.prom").read_text())
    assert code == 0, output
    assert_no_secret(fleet, jobs + [report], reports)

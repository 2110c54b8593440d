"""The JUnit and Markdown reports take any text a device can send (issue 42, part 6): device
names, check ids and messages of random text - control characters, lone surrogates (a device's
JSON may hold them), XML- and Markdown-special characters - always give a report that can be
written as UTF-8, that an XML parser reads back (JUnit) or whose table cells read back (Markdown)
as the text, with only what the format cannot carry replaced by U+FFFD. Examples are derandomized
(repeatable, no example database)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.broadcast.monitoring.plugins.filter.validation_report import FilterModule

report = FilterModule().filters()["validation_report"]

#: every code point, surrogates and control characters included, and more often the ones that matter
DEVICE_CHARACTERS = st.one_of(
    st.characters(exclude_categories=()),
    st.sampled_from(list("<>&\"'|\\`*_[]!~#\r\n\t\x00\x08\x0b\x1f\x7f\x85\x9f\ud800\udbff\udc00\udfff\ufffe\uffff")))
DEVICE_TEXT = st.text(DEVICE_CHARACTERS, max_size=30)
CHECK = st.fixed_dictionaries({"id": DEVICE_TEXT, "message": DEVICE_TEXT, "check": DEVICE_TEXT,
                               "status": st.sampled_from(["passed", "failed", "skipped", "waived"])})
RESULTS = st.dictionaries(DEVICE_TEXT, st.fixed_dictionaries({"checks": st.lists(CHECK, max_size=4)}), max_size=3)

XML_CANNOT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
MARKDOWN_CANNOT = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def in_xml(text):
    return XML_CANNOT.sub("\ufffd", text)


def in_markdown(text):
    return MARKDOWN_CANNOT.sub("\ufffd", " ".join(text.split()))


def cells(line):
    """A Markdown table row's cells, read back: a backslash escapes the next character, an
    unescaped ``|`` ends a cell."""
    out, cell, index = [], "", 0
    assert line.startswith("| ") and line.endswith(" |"), line
    while index < len(line):
        char = line[index]
        if char == "\\":
            cell += line[index + 1]
            index += 2
            continue
        if char == "|":
            out.append(cell)
            cell = ""
        else:
            cell += char
        index += 1
    return [c[1:-1] for c in out[1:]]


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(RESULTS)
def test_the_junit_report_of_any_device_text_is_written_and_read_back(results):
    text = report(results, "junit")
    root = ET.fromstring(text.encode("utf-8"))  # a lone surrogate would fail here
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [in_xml(host) for host in sorted(results)]
    for suite, host in zip(suites, sorted(results)):
        cases = suite.findall("testcase")
        assert len(cases) == len(results[host]["checks"])
        for case, check in zip(cases, results[host]["checks"]):
            assert case.get("classname") == in_xml(host) and case.get("name") == in_xml(check["id"])
            outcome = case.find("failure") if check["status"] == "failed" else case.find("skipped")
            if outcome is not None:
                assert outcome.get("message") == in_xml(check["message"])


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(RESULTS)
def test_the_markdown_report_of_any_device_text_keeps_its_table_and_reads_back(results):
    text = report(results, "markdown")
    text.encode("utf-8")  # a lone surrogate would fail here
    assert not re.search(r"(?<!\\)[<>&]", text.replace("\\\\", "")), text  # no HTML or entity reaches the page
    lines = text.split("\n")
    hosts = sorted(results)
    summary = lines[6:6 + len(hosts)]
    assert [cells(line)[0] for line in summary] == [in_markdown(host) for host in hosts]
    index = 6 + len(hosts)
    for host in hosts:
        assert lines[index + 1] == "## " + lines[index + 1][3:] and lines[index + 3:index + 5] == [
            "| Check | Status | Message |", "|---|---|---|"]
        rows = lines[index + 5:index + 5 + len(results[host]["checks"])]
        assert [cells(row) for row in rows] == [
            [in_markdown(check["id"]), check["status"], in_markdown(check["message"])]
            for check in results[host]["checks"]]
        index += 5 + len(rows)
    assert lines[index:] == [""]


def test_a_host_named_like_a_secret_field_is_reported_and_a_known_secret_is_not():
    from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import register_secret
    register_secret("Issued-Token-7731")
    results = {"new_password": {"checks": [{"id": "device_answers", "status": "failed",
                                            "message": "refused Issued-Token-7731"}]}}
    for kind in ("junit", "markdown"):
        text = report(results, kind)
        assert ("new_password" if kind == "junit" else "new\\_password") in text
        assert "refused" in text and "Issued-Token-7731" not in text

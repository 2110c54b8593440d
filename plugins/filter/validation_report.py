# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The validation_report filter: the validate role's results as JUnit XML or Markdown."""

from __future__ import annotations

DOCUMENTATION = r"""
name: validation_report
short_description: Validation results of a fleet as a JUnit XML or Markdown report
version_added: 1.0.0
description:
  - Renders the results of P(broadcast.monitoring.validation_result#filter), one per device, as a report.
  - V(junit) - a C(testsuites) document with one C(testsuite) per device and one C(testcase) per check (C(classname)
    the device, C(name) the check's id); a failed check has a C(failure) element, a skipped or waived one a
    C(skipped) element, each with the check's message. Written with an XML library, so the device's text (input
    names, messages) is escaped.
  - V(markdown) - a summary table per device and a table of its checks; device text is escaped, so that it shows as
    written and never becomes markup, an inline link or HTML (a renderer may still link a bare URL).
  - The report holds no secret - a password or token the controller knows (from the BROADCAST_MONITORING_PASSWORD,
    _TOKEN or _NEW_PASSWORD environment variables), a field named like a secret and the user-info of a URL are
    masked, as in every output of the collection.
author:
  - Broadcast Monitoring Team (@broadcast-monitoring)
positional: _input, kind
options:
  _input:
    description: The results, a mapping of inventory name to result.
    type: dict
    required: true
  kind:
    description: The report's format.
    type: str
    choices: [junit, markdown]
    required: true
"""

EXAMPLES = r"""
- name: Write the JUnit report
  ansible.builtin.copy:
    content: "{{ validate_results | broadcast.monitoring.validation_report('junit') }}"
    dest: reports/validate.xml
    mode: "0644"
"""

RETURN = r"""
_value:
  description: The report's text.
  type: str
"""

import re
import xml.etree.ElementTree as ET

from ansible.errors import AnsibleFilterError

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import masked

#: characters that XML 1.0 cannot carry at all, even escaped, and lone surrogates (a device's JSON
#: may hold them), which no UTF-8 file can: each becomes U+FFFD, so the report can always be written
XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: what Markdown text shows as U+FFFD: those, and every other control character (DEL, C1)
MARKDOWN_INVALID = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
#: characters that Markdown or the HTML inside it would read as markup within a table cell (the
#: report puts device text nowhere else): emphasis, code, links, images, HTML, entities, cells
MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]!|<>&~])")


def _text(value):
    return XML_INVALID.sub("\ufffd", str(value))


def _checked(results):
    if not isinstance(results, dict):
        raise AnsibleFilterError("validation_report: the results must be a mapping of host to result")
    for host, result in results.items():
        if not isinstance(result, dict) or not isinstance(result.get("checks"), list):
            raise AnsibleFilterError("validation_report: the result of %s is not a validation result" % host)
    return sorted(results.items())


def junit(results):
    items = _checked(results)
    root = ET.Element("testsuites", name="validate")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for host, result in items:
        checks = result["checks"]
        suite = ET.SubElement(root, "testsuite", name=_text(host), tests=str(len(checks)),
                              failures=str(sum(1 for c in checks if c.get("status") == "failed")),
                              errors="0", skipped=str(sum(1 for c in checks if c.get("status") in ("skipped", "waived"))))
        for key in totals:
            totals[key] += int(suite.get(key))
        for check in checks:
            case = ET.SubElement(suite, "testcase", classname=_text(host), name=_text(check.get("id")))
            message = _text(check.get("message", ""))
            if check.get("status") == "failed":
                ET.SubElement(case, "failure", message=message, type=_text(check.get("check"))).text = message
            elif check.get("status") in ("skipped", "waived"):
                ET.SubElement(case, "skipped", message=message)
            else:
                ET.SubElement(case, "system-out").text = message
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def escape_markdown(value):
    """``value`` as inert Markdown text: one line, every markup character escaped, no control
    character or lone surrogate."""
    return MARKDOWN_SPECIAL.sub(r"\\\1", MARKDOWN_INVALID.sub("\ufffd", " ".join(str(value).split())))


def markdown(results):
    items = _checked(results)
    failed = [host for host, result in items if result.get("status") == "failed"]
    lines = ["# Validation", "",
             "%d device(s), %d passed, %d failed." % (len(items), len(items) - len(failed), len(failed)), "",
             "| Device | Type | Status | Passed | Failed | Waived | Skipped |", "|---|---|---|---|---|---|---|"]
    for host, result in items:
        counts = result.get("counts") or {}
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % tuple(escape_markdown(v) for v in (
            host, result.get("device_type", ""), result.get("status", ""), counts.get("passed", 0),
            counts.get("failed", 0), counts.get("waived", 0), counts.get("skipped", 0))))
    for host, result in items:
        lines += ["", "## %s" % escape_markdown(host), "", "| Check | Status | Message |", "|---|---|---|"]
        for check in result["checks"]:
            lines.append("| %s | %s | %s |" % tuple(escape_markdown(check.get(k, "")) for k in ("id", "status", "message")))
    return "\n".join(lines) + "\n"


def validation_report(results, kind):
    # a report is an output: no secret in it, whatever the results hold; each host's result is
    # masked on its own, as a host named like a secret field (new_password) is a name, not a secret
    if isinstance(results, dict):
        results = dict((masked(host), masked(result)) for host, result in results.items())
    if kind == "junit":
        return junit(results)
    if kind == "markdown":
        return markdown(results)
    raise AnsibleFilterError("validation_report: kind must be junit or markdown, got %r" % (kind,))


class FilterModule:
    def filters(self):
        return {"validation_report": validation_report}

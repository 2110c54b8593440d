"""The real readers of the fleet status files: headless Chromium for fleet-status.html (Debian's
chromium package) and promtool for fleet-status.prom (Debian's prometheus package), shared by the
functional test, the docs test and the benchmark. Each is skipped, with the reason, where the
Makefile's fleet-status-tools target could not install it."""

import html.parser
import os
import shutil
import subprocess
import tempfile
import time

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROMTOOL = shutil.which("promtool")


def need_chromium():
    if not CHROMIUM:
        pytest.skip("headless Chromium is not installed (Debian's chromium package: make fleet-status-tools as root)")


def need_promtool():
    if not PROMTOOL:
        pytest.skip("promtool is not installed (Debian's prometheus package: make fleet-status-tools as root)")


def chromium(args, url, timeout=120):
    """Run headless Chromium on ``url``; (stdout, console lines, seconds). A console line is any
    message the page's scripts logged or the browser reported about the page (a script error, a
    Content-Security-Policy violation): Chromium writes them to stderr as ``INFO:CONSOLE``."""
    need_chromium()
    with tempfile.TemporaryDirectory(prefix="bm-chromium-") as profile:
        command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                   "--disable-extensions", "--enable-logging=stderr", "--v=0",
                   "--user-data-dir=" + profile] + list(args) + [url]
        started = time.monotonic()
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                              env=dict(os.environ, HOME=profile))
        took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr[-3000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console, took


def page_dom(path, fragment=""):
    """The page's DOM after its script ran (``--dump-dom``), opened from disk with ``fragment``
    (the filters, as the page reads them from the address); (Dom, console lines)."""
    url = "file://" + os.path.abspath(str(path)) + (("#" + fragment) if fragment else "")
    out, console, took = chromium(["--dump-dom"], url)
    return Dom(out), console


class Dom(html.parser.HTMLParser):
    """What the tests look at in a dumped page: the body's data attributes, each device row (its
    attributes and text) and every element name."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.body, self.rows, self.tags, self._row = {}, [], [], None
        self.text = text
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        elif tag == "tr" and "data-state" in attrs:
            self._row = dict(attrs, text="")
            self.rows.append(self._row)

    def handle_endtag(self, tag):
        if tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._row is not None:
            self._row["text"] += data

    def shown(self):
        return [row["data-name"] for row in self.rows if "hidden" not in row]


def promtool(*args, stdin=None):
    """promtool's (exit code, output)."""
    need_promtool()
    proc = subprocess.run([PROMTOOL] + list(args), input=stdin, capture_output=True, text=True, timeout=60,
                          check=False)
    return proc.returncode, proc.stdout + proc.stderr

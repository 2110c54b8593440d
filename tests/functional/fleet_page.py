"""The real readers of the fleet status files: headless Chromium for fleet-status.html (Debian's
chromium package) and promtool for fleet-status.prom (Debian's prometheus package), shared by the
functional test, the docs test and the benchmark. Each is skipped, with the reason, where the
Makefile's fleet-status-tools target could not install it."""

import asyncio
import base64
import html.parser
import os
import shutil
import subprocess
import tempfile
import time

import aiohttp
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
    attributes and text), every element name and every attribute name."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.body, self.rows, self.tags, self.attributes, self._row = {}, [], [], set(), None
        self.text = text
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        self.attributes.update(attrs)
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


class Browser:
    """Headless Chromium driven over its DevTools protocol (aiohttp's websocket client), for what
    ``--dump-dom`` cannot tell: the layout under a phone's viewport or print media, a printed PDF,
    and the time the page takes in the browser. One browser, one tab; use as a context manager."""

    def __init__(self):
        need_chromium()
        self.profile = tempfile.TemporaryDirectory(prefix="bm-chromium-")
        self.loop = asyncio.new_event_loop()
        self.proc = self.session = self.socket = None
        self.events, self.console, self._next = [], [], 0

    def __enter__(self):
        self.log = open(os.path.join(self.profile.name, "chromium.log"), "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
             "--user-data-dir=" + self.profile.name, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=self.log, env=dict(os.environ, HOME=self.profile.name))
        active = os.path.join(self.profile.name, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not (os.path.exists(active) and open(active, encoding="ascii").read().count("\n") >= 1):
            assert self.proc.poll() is None and time.monotonic() < deadline, "Chromium did not start its DevTools port"
            time.sleep(0.05)
        port = int(open(active, encoding="ascii").read().split()[0])
        self.loop.run_until_complete(self._connect(port))
        for domain in ("Page", "Runtime", "Log"):
            self.send(domain + ".enable")
        return self

    def __exit__(self, *exc):
        if self.session:
            self.loop.run_until_complete(self.session.close())
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        self.loop.close()
        self.profile.cleanup()

    async def _connect(self, port):
        self.session = aiohttp.ClientSession()
        async with self.session.get("http://127.0.0.1:%d/json/list" % port) as answer:
            targets = await answer.json()
        page = [t for t in targets if t["type"] == "page"][0]
        self.socket = await self.session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)

    async def _call(self, method, params, timeout):
        self._next += 1
        number = self._next
        await self.socket.send_json({"id": number, "method": method, "params": params})
        while True:
            message = await asyncio.wait_for(self.socket.receive_json(), timeout)
            if message.get("id") == number:
                assert "error" not in message, (method, message["error"])
                return message["result"]
            self._event(message)

    def _event(self, message):
        method, params = message.get("method"), message.get("params", {})
        self.events.append(method)
        # what the page's scripts logged, a script error, a refused resource or script (CSP)
        if method == "Runtime.consoleAPICalled":
            self.console.append("console.%s: %s" % (params["type"], [a.get("value") for a in params["args"]]))
        elif method == "Runtime.exceptionThrown":
            self.console.append("exception: %s" % params["exceptionDetails"].get("text"))
        elif method == "Log.entryAdded":
            self.console.append("%s: %s" % (params["entry"]["level"], params["entry"]["text"]))

    async def _until(self, event, timeout):
        while event not in self.events:
            self._event(await asyncio.wait_for(self.socket.receive_json(), timeout))

    def send(self, method, timeout=120, **params):
        return self.loop.run_until_complete(self._call(method, params, timeout))

    def open(self, path, fragment="", width=1280, height=900, mobile=False, scale=1, media=""):
        """Load the file ``path`` (with ``#fragment``) in a viewport of ``width`` x ``height`` CSS
        pixels (``mobile``: a phone's, with touch and ``scale`` device pixels per CSS pixel) under
        the CSS ``media`` type emulated (``print``; empty: screen); returns once it has loaded."""
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=scale,
                  mobile=mobile)
        self.send("Emulation.setTouchEmulationEnabled", enabled=mobile)
        self.send("Emulation.setEmulatedMedia", media=media)
        # from a blank page: a new fragment of the page already shown would not load it again
        self.events = []
        self.send("Page.navigate", url="about:blank")
        self.loop.run_until_complete(self._until("Page.loadEventFired", 120))
        self.events, self.console = [], []
        url = "file://" + os.path.abspath(str(path)) + (("#" + fragment) if fragment else "")
        self.send("Page.navigate", url=url)
        self.loop.run_until_complete(self._until("Page.loadEventFired", 120))

    def evaluate(self, expression):
        """The value of a JavaScript expression in the page (DevTools' evaluation: not the page's
        script, and not subject to its Content-Security-Policy)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def pdf(self, **options):
        """The page printed to PDF (Chromium's print path, print media), as bytes."""
        return base64.b64decode(self.send("Page.printToPDF", **options)["data"])

"""A simulated device over its own HTTP API, to set up and check state without the modules
(the one such helper of the functional and reliability tests; their tasks are in tasks.py)."""

import time

import requests

USER = {"role": "user", "password": "user"}


def login(device, password="admin", role="admin", session=requests):
    """The device's answer to a login at its own login path. On the FM monitor with
    keep_logged_in, as the collection logs in: fm-monitor-api.md leaves the lifetime of other
    tokens open, and a test's session must outlast its slowest step."""
    body = {"role": role, "password": password}
    if device.kind == "fm_monitor":
        body["keep_logged_in"] = True
    return session.post(device.base_url + "/api" + device.login_path, json=body, timeout=5)


class Api:
    """The device's API as an admin (or user) sees it: either device type, logged in at the
    device's own login path; every call must answer 200."""

    def __init__(self, device, password="admin", role="admin"):
        self.device = device
        self.base = device.base_url + "/api"
        self.session = requests.Session()
        answer = login(device, password, role, self.session)
        assert answer.status_code == 200, answer.text
        self.token = answer.json()["token"]
        self.session.headers["Authorization"] = "Bearer " + self.token

    def call(self, method, path, body=None, **kwargs):
        kwargs.setdefault("timeout", 10)
        for attempt in range(50):  # a tuner switching frequency answers 503 for a moment: retry, as a client should
            response = self.session.request(method, self.base + path, json=body, **kwargs)
            if response.status_code != 503:
                break
            time.sleep(0.05 * (attempt + 1))
        assert response.status_code == 200, (method, path, body, response.status_code, response.text)
        return response.json() if response.headers.get("Content-Type", "").startswith("application/json") else response

    def get(self, path, **kwargs):
        return self.call("GET", path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.call("POST", path, body, **kwargs)

    def add_input(self, name, config=None, profile_id=1):
        multicast = {"multicast_address": "239.1.1.1", "multicast_port": 5000}
        config = config or {"eth": {"stream_protocol": 0, "multicast": multicast}}
        return self.post("/inputs", {"name": name, "config": config, "alerts_config": {"profile_id": profile_id}})

    def firmware_version(self):
        if self.device.kind == "ts_analyzer":
            return self.get("/system/device")["firmware_version"]
        return self.get("/status")["versions"]["package_ver"]

    def reboot(self):
        """Reboot and wait, so that settings pending until a reboot are in effect: the
        device answers, goes away for the reboot gap, then answers again."""
        self.post("/system/reboot")
        self.session.close()  # connections opened before the reboot are dropped by it
        for gone in (True, False):
            deadline = time.monotonic() + 30
            while (self.uptime() is None) != gone:
                assert time.monotonic() < deadline, "the device did not %s" % ("go away" if gone else "come back")
                time.sleep(0.02)

    def uptime(self):
        """The device's uptime from GET /system/alive (no token needed), None while it does not answer."""
        try:
            response = requests.get(self.base + "/system/alive", timeout=2)  # a new connection each time
        except requests.RequestException:
            return None
        return response.json()["system_uptime"] if response.status_code == 200 else None

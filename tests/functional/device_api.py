"""A simulated device over its own HTTP API, to set up and check state without the modules
(the one such helper of the functional and reliability tests; their tasks are in tasks.py)."""

import time

import requests

USER = {"role": "user", "password": "user"}


class Api:
    """The device's API as an admin (or user) sees it: either device type, logged in at the
    device's own login path; every call must answer 200."""

    def __init__(self, device, password="admin", role="admin"):
        self.device = device
        self.base = device.base_url + "/api"
        self.session = requests.Session()
        answer = self.session.post(self.base + device.login_path, json={"role": role, "password": password}, timeout=5)
        assert answer.status_code == 200, answer.text
        self.session.headers["Authorization"] = "Bearer " + answer.json()["token"]

    def call(self, method, path, body=None, **kwargs):
        for attempt in range(50):  # a tuner switching frequency answers 503 for a moment: retry, as a client should
            response = self.session.request(method, self.base + path, json=body, timeout=10, **kwargs)
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

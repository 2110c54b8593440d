"""The analyzer seen over its own HTTP API, for the analyzer-side functional tests (their tasks
are in tasks.py)."""

import requests

USER = {"role": "user", "password": "user"}


class Api:
    """The analyzer's API as an admin (or user) sees it, for setting up and checking state."""

    def __init__(self, device, role="admin", password="admin"):
        self.base = device.base_url + "/api"
        self.session = requests.Session()
        answer = self.session.post(self.base + "/user/login", json={"role": role, "password": password}, timeout=5)
        self.session.headers["Authorization"] = "Bearer " + answer.json()["token"]

    def call(self, method, path, body=None, **kwargs):
        response = self.session.request(method, self.base + path, json=body, timeout=10, **kwargs)
        assert response.status_code == 200, (method, path, response.status_code, response.text)
        return response.json() if response.headers.get("Content-Type", "").startswith("application/json") else response

    def get(self, path, **kwargs):
        return self.call("GET", path, **kwargs)

    def post(self, path, body=None, **kwargs):
        return self.call("POST", path, body, **kwargs)

    def add_input(self, name, config=None, profile_id=1):
        multicast = {"multicast_address": "239.1.1.1", "multicast_port": 5000}
        config = config or {"eth": {"stream_protocol": 0, "multicast": multicast}}
        return self.post("/inputs", {"name": name, "config": config, "alerts_config": {"profile_id": profile_id}})

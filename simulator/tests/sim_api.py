"""A plain HTTP helper for the simulator's own tests: requests against one simulated device."""

import os
import sys

import requests

import bm_simulator

#: the environment of a ``bm-simulator`` child process: it imports the package under test,
#: whether installed or run from its source tree
COMMAND_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
    [os.path.dirname(os.path.dirname(os.path.abspath(bm_simulator.__file__)))]
    + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))


def command(*args):
    """The ``bm-simulator`` command line with ``args``, run by this Python."""
    return [sys.executable, "-m", "bm_simulator", *args]


class Api:
    """Plain requests against one simulated device, for asserting status codes and bodies."""

    def __init__(self, device):
        self.device = device
        self.session = requests.Session()
        self.token = None

    @property
    def base(self):
        return self.device.base_url

    def login(self, role="admin", password=None):
        path = "/api" + self.device.login_path
        body = {"role": role, "password": role if password is None else password}
        if self.device.kind == "fm_monitor":
            body["keep_logged_in"] = True
        response = self.session.post(self.base + path, json=body, timeout=10)
        if response.status_code == 200:
            self.token = response.json()["token"]
        return response

    def request(self, method, path, token=True, **kwargs):
        headers = kwargs.pop("headers", {})
        if token is True and self.token:
            headers["Authorization"] = "Bearer " + self.token
        elif isinstance(token, str):
            headers["Authorization"] = "Bearer " + token
        kwargs.setdefault("timeout", 10)
        return self.session.request(method, self.base + "/api" + path, headers=headers, **kwargs)

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, body=None, **kwargs):
        if body is not None:
            kwargs["json"] = body
        return self.request("POST", path, **kwargs)

    def delete(self, path, **kwargs):
        return self.request("DELETE", path, **kwargs)

    def sim(self, method, path, **kwargs):
        kwargs.setdefault("timeout", 10)
        return self.session.request(method, self.base + "/_sim" + path, **kwargs)

    def reset(self):
        """Factory state, empty request log, no faults: each test starts from a new unit."""
        assert self.sim("POST", "/reset").status_code == 200
        self.token = None


def fresh_api(runner, kind, shape=None):
    """An admin session on the first ``kind`` device of ``runner``, reset to factory state
    (and serving answers in ``shape``, a simulator shape variant, when given)."""
    device = runner.fleet.of_kind(kind)[0]
    if shape is not None:
        device.shape = shape
    api = Api(device)
    api.reset()
    api.login()
    return api


def ok(response):
    """The JSON of a 200 answer (the test fails with the body otherwise)."""
    assert response.status_code == 200, response.text
    return response.json()

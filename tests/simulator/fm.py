"""FM monitor model (stub, being written)."""
from .core import ApiError, Device, endpoint


class FmMonitor(Device):
    kind = "fm_monitor"
    login_path = "/login"

    def factory_state(self):
        return {}

    @endpoint("POST", "/login", kind="login", role=None)
    async def login_route(self, call):
        role, token = self.login(call.body)
        return {"role": role, "token": token}

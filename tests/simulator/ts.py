"""Transport-stream analyzer model (stub, being written)."""
from .core import ApiError, Device, endpoint


class TsAnalyzer(Device):
    kind = "ts_analyzer"
    login_path = "/user/login"
    role_denied_status = 403
    bad_credentials_status = 405

    def factory_state(self):
        return {}

    @endpoint("POST", "/user/login", kind="login", role=None)
    async def user_login(self, call):
        role, token = self.login(call.body)
        return {"role": role, "token": token}

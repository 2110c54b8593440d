"""Tasks of the collection's modules against a simulated device, and what the device was sent:
the helpers every functional test file uses, analyzer and FM monitor alike."""

from .conftest import connection


def task(module, device, name=None, **options):
    """A task of ``broadcast.monitoring.<module>`` against ``device``: admin, unless ``options``
    give another ``role`` (whose password is then the simulator's factory one, its name) or
    ``password``."""
    role = options.pop("role", "admin")
    args = dict(connection(device, password=options.pop("password", role), role=role), **options)
    return {"name": name or module, "broadcast.monitoring.%s" % module: args}


def checked(one_task):
    """The task, run in check mode with diff whatever the play says."""
    return dict(one_task, check_mode=True, diff=True)


def write_log(sim, device):
    """Every write and action the device received since its log was cleared, as it logged them
    (method, path, status, body)."""
    return sim.call(device.writes)


def writes(sim, device, status=False):
    """(method, path) of every write and action in the device's log, with the answer's status
    when ``status``."""
    return [(w["method"], w["path"], w["status"]) if status else (w["method"], w["path"])
            for w in write_log(sim, device)]


def clear_log(sim, device):
    sim.call(device.requests.clear)


def ok(result):
    """A task result that did not fail (the test fails with the result otherwise)."""
    assert result.get("failed") is not True, result
    return result

"""Tasks of the collection's modules against a simulated device, and what the device was sent:
the helpers every functional test file uses, analyzer and FM monitor alike."""

from .conftest import EXAMPLE_VARS, connection, module_examples


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


def factory_fresh(sim, name):
    """The device ``name`` back in factory state, power cycled, its request log empty."""
    device = sim.fleet.by_name(name)
    sim.call(device.power_cycle)
    sim.call(device.reset)
    return device


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


def succeeded(tasks, out):
    """The outcome ``out`` of a play of ``tasks``, none of which failed (the test fails naming
    the first that did)."""
    for one_task, result in zip(tasks, out.results):
        assert result.get("failed") is not True, (one_task["name"], result)
    return out


def run_examples(play, module, device):
    """The outcome of the module's EXAMPLES, exactly as documented, run as one play against
    ``device`` with the example variables; none may fail."""
    examples = module_examples(module)
    return succeeded(examples, play.run(examples, device.name, extra_vars=EXAMPLE_VARS))


def refused_before_any_write(play, sim, device, cases):
    """Runs the tasks of ``cases`` ((task, message) pairs) as one play against ``device``: each
    must fail with its message in ``msg``, and the device must have been sent no write or action."""
    out = play.run([one_task for one_task, message in cases], device.name)
    for (one_task, message), result in zip(cases, out.results):
        assert result.get("failed") is True, (message, result)
        assert message in result["msg"], (message, result["msg"])
    sent = writes(sim, device)
    assert sent == [], sent
    return out

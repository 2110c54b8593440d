"""The controller check: real processes arranged as Ansible arranges them (here rather than in
tests/unit: it starts processes that outlive their parent, and under ansible-test's unit runner
it blocked until the controller's 600 s sleep ended)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from ansible_collections.broadcast.monitoring.plugins.module_utils import _client as client_mod, _errors as errors
from ansible_collections.broadcast.monitoring.plugins.module_utils._controller import Lineage
from ansible_collections.broadcast.monitoring.plugins.module_utils._device_api import Request

# The module: notes its lineage, says what gone() says, and again after each line on stdin.
MODULE = textwrap.dedent("""
    import sys
    from ansible_collections.broadcast.monitoring.plugins.module_utils._controller import Lineage
    lineage = Lineage()
    print(lineage.gone(), flush=True)
    for line in sys.stdin:
        print(lineage.gone(), flush=True)
""")

# The controller: forks a worker that, like Ansible's, calls setsid() and runs the module in a
# shell (so the module's own parent, the shell, outlives the controller); then waits.
CONTROLLER = textwrap.dedent("""
    import os, subprocess, sys, time
    if os.fork() == 0:
        os.setsid()
        subprocess.run(["/bin/sh", "-c", '"$0" -c "$1" && true', sys.executable, sys.argv[1]])
        os._exit(0)
    time.sleep(600)
""")


def test_a_killed_controller_is_noticed_though_the_module_keeps_its_parent():
    controller = subprocess.Popen([sys.executable, "-c", CONTROLLER, MODULE], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=dict(os.environ))
    try:
        assert controller.stdout.readline().strip() == "None"  # all there
        controller.stdin.write("\n")
        controller.stdin.flush()
        assert controller.stdout.readline().strip() == "None"
        controller.send_signal(signal.SIGKILL)  # the worker and the module go on
        controller.wait()
        controller.stdin.write("\n")
        controller.stdin.flush()
        answer = controller.stdout.readline().strip()
        assert "lost its parent (pid %d)" % controller.pid in answer, answer
    finally:
        controller.stdin.close()  # the module ends at the end of its input; the worker with it
        controller.stdout.close()


def test_the_process_running_the_tests_has_its_controller():
    assert Lineage().gone() is None
    assert Lineage().chain[0] == (os.getpid(), os.getppid())


def test_the_client_sends_no_write_once_the_controller_is_gone():
    client = client_mod.Client("127.78.0.1", Request("/user/login", {}), port=9, password="x")
    client.lineage.parent = -1  # as if the parent had exited since the start
    try:
        client.post("/inputs", {"name": "x"})
    except errors.DeviceError as err:
        assert err.kind == errors.ABANDONED
        assert "POST /inputs not sent: this module's parent process (pid -1) has exited" in err.describe()
        assert "run the play again" in err.describe()
    else:
        raise AssertionError("the write was not refused")
    assert client.counts == {"login": 0, "read": 0, "write": 0}  # nothing sent, not even a login

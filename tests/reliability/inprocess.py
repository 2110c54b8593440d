"""Run one module of the collection in this process: what ansible-playbook does for one
module call, minus the process.

ansible-playbook hands a module its arguments as JSON (with the ``_ansible_*`` internal
options such as check mode and diff), the module's ``main()`` prints one JSON result and
exits. Here the arguments are given with ``ansible.module_utils.testing.patch_module_args``
(ansible-core's own API for this), ``main()`` runs in this interpreter, its stdout is
captured and its ``SystemExit`` caught. The module still talks to the device over real HTTP;
only the ~1-3 s of starting ansible-playbook and a Python process per call is saved, which
is what lets property tests run hundreds of examples.

Needs the collection importable as ``ansible_collections.broadcast.monitoring``
(``PYTHONPATH=build/collections`` after ``make link``).

A registered result differs from the module's own JSON only in keys the controller
manages (``CONTROLLER_KEYS``: it adds ``failed``, and drops ``invocation`` unless run
verbosely); ``test_check_mode_matrix`` proves the results agree with a real
ansible-playbook run.
"""

import contextlib
import importlib
import io
import json

from ansible.module_utils.testing import patch_module_args

from ansible_collections.broadcast.monitoring.plugins.module_utils import _errors as errors

PACKAGE = "ansible_collections.broadcast.monitoring.plugins.modules."

#: keys in which a registered result and the module's own JSON may differ
CONTROLLER_KEYS = ("failed", "invocation", "_ansible_no_log")


def run_module(name, args, check=False, diff=True):
    """The result of module ``name`` with ``args`` (a dict of its options), as a dict.

    ``check``/``diff``: what ``--check``/``--diff`` give a task. A failed module's result
    has ``failed: true`` and its ``msg`` like a registered result has.
    """
    module = importlib.import_module(PACKAGE + name)
    # A module run is a process of its own under Ansible: the secrets it learns (_errors.SECRETS,
    # the passwords given and the tokens issued) die with it, so one run here starts with none
    errors.SECRETS = errors.Secrets()
    internal = {"_ansible_check_mode": bool(check), "_ansible_diff": bool(diff),
                "_ansible_module_name": "broadcast.monitoring." + name}
    out = io.StringIO()
    code = None
    with patch_module_args(dict(args, **internal)), contextlib.redirect_stdout(out):
        try:
            module.main()
        except SystemExit as stop:
            code = stop.code
    text = out.getvalue().strip()
    if not text:
        raise AssertionError("module %s printed nothing (exit %r)" % (name, code))
    try:
        result = json.loads(text)
    except ValueError:
        raise AssertionError("module %s printed no JSON result (exit %r):\n%s" % (name, code, text)) from None
    if code not in (0, None):
        result.setdefault("failed", True)
    return result

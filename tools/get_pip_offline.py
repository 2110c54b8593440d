"""Stand-in for the pip bootstrap script ansible-test downloads (get-pip.py).

ansible-test fetches get-pip from a host our machines (and air-gapped users) cannot reach.
This script does the same job with the pip wheel bundled in CPython's ensurepip: it runs
``pip install`` with the arguments ansible-test passes, so the per-test virtual environments
still get their packages from the configured package index.
"""

import glob
import os
import sys

import ensurepip

WHEEL = sorted(glob.glob(os.path.join(os.path.dirname(ensurepip.__file__), "_bundled", "pip-*.whl")))[-1]
sys.path.insert(0, WHEEL)

from pip._internal.cli.main import main  # noqa: E402  (importable only once the wheel is on the path)

ARGS = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
sys.exit(main(["install"] + ARGS))

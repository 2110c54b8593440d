"""Sanity and unit tests against each ansible-core release line (`make test-matrix`).

For every version given (2.16 2.17 2.18 2.19): a virtual environment build/matrix/<version>
with the newest ansible-core of that line plus the unit tests' packages, a copy of the tree at
.../ansible_collections/broadcast/monitoring (ansible-test resolves symlinks), then
`ansible-test sanity --venv --python 3.11` and pytest on tests/unit. The pip bootstrap
ansible-test would download is seeded from tools/get_pip_offline.py. Prints a summary table
and exits non-zero if any step failed.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATRIX = os.path.join(ROOT, "build", "matrix")
COPIES = os.path.join(os.path.expanduser("~"), ".cache", "broadcast.monitoring", "matrix-" + os.path.basename(ROOT))
CACHE = os.path.join(os.path.expanduser("~"), ".ansible", "test", "cache")
EXCLUDE = {".venv", "build", ".git", "tests/output", ".pytest_cache", ".hypothesis"}
UNIT_PACKAGES = ["pytest==9.2.0", "requests==2.34.2", "hypothesis==6.170.15", "aiohttp==3.14.5", "PyYAML==6.0.3"]


def run(command, log, **kwargs):
    started = time.monotonic()
    with open(log, "a", encoding="utf-8") as handle:
        handle.write("$ %s\n" % " ".join(command))
        handle.flush()
        code = subprocess.call(command, stdout=handle, stderr=subprocess.STDOUT, **kwargs)
    return code, time.monotonic() - started


def copy_tree(target):
    shutil.rmtree(os.path.dirname(os.path.dirname(os.path.dirname(target))), ignore_errors=True)
    os.makedirs(target)
    archive = target + ".tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(ROOT, arcname=".", filter=lambda info: None if info.name[2:] in EXCLUDE else info)
    with tarfile.open(archive) as tar:
        tar.extractall(target)  # noqa: S202  (our own archive)
    os.remove(archive)


def seed_get_pip(venv):
    """ansible-test downloads get_pip_<pip version>.py; give it the offline stand-in."""
    versions = set()
    for path in glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "ansible_test", "_internal", "*.py")):
        with open(path, encoding="utf-8") as handle:
            versions.update(re.findall(r"""pip=['"]([0-9.]+)['"]""", handle.read()))
    os.makedirs(CACHE, exist_ok=True)
    for version in versions or {"24.2"}:
        target = os.path.join(CACHE, "get_pip_%s.py" % version.replace(".", "_"))
        if not os.path.exists(target):
            shutil.copy(os.path.join(ROOT, "tools", "get_pip_offline.py"), target)
    return sorted(versions)


def one(version):
    log = os.path.join(MATRIX, "%s.log" % version)
    if os.path.exists(log):
        os.remove(log)
    venv = os.path.join(MATRIX, version)
    python = os.path.join(venv, "bin", "python")
    result = {"version": version}
    if not os.path.exists(python):
        run([sys.executable, "-m", "venv", venv], log)
    code, seconds = run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                         "ansible-core~=%s.0" % version] + UNIT_PACKAGES, log)
    if code:
        result.update(core="does not install", sanity="-", units="-")
        return result
    result["core"] = subprocess.run([python, "-c", "import ansible.release as r; print(r.__version__)"],
                                    capture_output=True, text=True, check=False).stdout.strip()
    seed_get_pip(venv)
    copy = os.path.join(COPIES, version, "ansible_collections", "broadcast", "monitoring")
    copy_tree(copy)
    env = dict(os.environ, PATH=os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"])
    env.pop("PYTHONPATH", None)
    code, seconds = run([os.path.join(venv, "bin", "ansible-test"), "sanity", "--venv", "--python", "3.11",
                         "--color", "no"], log, cwd=copy, env=env)
    result["sanity"] = "%s (%.0f s)" % ("passed" if code == 0 else "FAILED", seconds)
    env["PYTHONPATH"] = os.path.join(COPIES, version)
    code, seconds = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/unit"], log, cwd=copy, env=env)
    result["units"] = "%s (%.0f s)" % ("passed" if code == 0 else "FAILED", seconds)
    return result


def main():
    versions = sys.argv[1:] or ["2.16", "2.17", "2.18", "2.19"]
    os.makedirs(MATRIX, exist_ok=True)
    results = []
    for version in versions:
        results.append(one(version))
        print("%(version)s: ansible-core %(core)s, sanity %(sanity)s, units %(units)s" % results[-1], flush=True)
    print("\n| ansible-core | sanity | units |\n|---|---|---|")
    for result in results:
        print("| %(core)s | %(sanity)s | %(units)s |" % result)
    print("\nlogs: %s" % os.path.relpath(os.path.join(MATRIX, "<version>.log"), ROOT))
    if any("FAILED" in r["sanity"] + r["units"] or r["core"] == "does not install" for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()

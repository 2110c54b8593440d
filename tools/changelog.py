"""Generate CHANGELOG.rst for the unreleased version from changelogs/fragments.

`antsibull-changelog release` consumes the fragments (keep_fragments: false), so it is run
on a temporary copy of the collection: the fragments stay where they are until the real
release, and CHANGELOG.rst shows what the next version (galaxy.yml's) will contain.

    python tools/changelog.py           write CHANGELOG.rst
    python tools/changelog.py --check   fail if CHANGELOG.rst is not what the fragments give
"""

import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPY = ["galaxy.yml", "changelogs", "plugins", "meta", "roles"]


def generate():
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
        version = yaml.safe_load(handle)["version"]
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "ansible_collections", "broadcast", "monitoring")
        os.makedirs(tree)
        for name in COPY:
            source = os.path.join(ROOT, name)
            if os.path.isdir(source):
                shutil.copytree(source, os.path.join(tree, name),
                                ignore=shutil.ignore_patterns("__pycache__", ".plugin-cache.yaml"))
            elif os.path.exists(source):
                shutil.copy(source, tree)
        with open(os.path.join(tree, "changelogs", "fragments", "zz-unreleased-summary.yml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump({"release_summary": "Not released yet: what version %s will contain so far." % version}, handle)
        bindir = os.path.dirname(sys.executable)
        env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=tmp, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        subprocess.run([os.path.join(bindir, "antsibull-changelog"), "release", "--version", version,
                        "--date", "2026-01-01", "--reload-plugins"], cwd=tree, env=env, check=True)
        with open(os.path.join(tree, "CHANGELOG.rst"), encoding="utf-8") as handle:
            return handle.read()


def main():
    text = generate()
    target = os.path.join(ROOT, "CHANGELOG.rst")
    if "--check" in sys.argv[1:]:
        current = open(target, encoding="utf-8").read() if os.path.exists(target) else ""
        if current != text:
            sys.exit("CHANGELOG.rst is not up to date with changelogs/fragments: run `make changelog`")
        print("CHANGELOG.rst is up to date")
        return
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(text)
    print("wrote CHANGELOG.rst")


if __name__ == "__main__":
    main()

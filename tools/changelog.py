"""Generate CHANGELOG.rst for the unreleased version from changelogs/fragments.

`antsibull-changelog release` consumes the fragments (keep_fragments: false), so it is run
on a temporary copy of the collection: the fragments stay where they are until the real
release, and CHANGELOG.rst shows what the next version (galaxy.yml's) will contain.

The first release (changelogs/changelog.yaml has none yet) has nothing to be "breaking" or a
"bugfix" against: its entry is the release summary (fragments holding only release_summary)
and the list of modules, roles and plugins antsibull-changelog makes; the other fragments are
notes of the development before it, which the summary replaces.

    python tools/changelog.py           write CHANGELOG.rst
    python tools/changelog.py --check   fail if CHANGELOG.rst is not what the fragments give
    python tools/changelog.py --release release galaxy.yml's version for real (for the first
                                        release, after removing the development notes)
"""

import os
import shutil
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPY = ["galaxy.yml", "changelogs", "plugins", "meta", "roles"]


def first_release(tree):
    with open(os.path.join(tree, "changelogs", "changelog.yaml"), encoding="utf-8") as handle:
        return not (yaml.safe_load(handle) or {}).get("releases")


def keep_only_the_summary(tree):
    """For the first release: drop every fragment but those that hold only a release_summary."""
    fragments = os.path.join(tree, "changelogs", "fragments")
    kept = []
    for name in sorted(os.listdir(fragments)):
        path = os.path.join(fragments, name)
        with open(path, encoding="utf-8") as handle:
            content = yaml.safe_load(handle) or {}
        if set(content) == {"release_summary"}:
            kept.append(name)
        else:
            os.remove(path)
    if not kept:
        sys.exit("the first release needs a fragment with a release_summary (and nothing else)")
    return kept


def release(tree, version, date=None, collections=None):
    """antsibull-changelog release in ``tree`` (found as a collection under ``collections``)."""
    bindir = os.path.dirname(sys.executable)
    collections = collections or os.path.dirname(os.path.dirname(os.path.dirname(tree)))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections,
               PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    command = [os.path.join(bindir, "antsibull-changelog"), "release", "--version", version, "--reload-plugins"]
    subprocess.run(command + (["--date", date] if date else []), cwd=tree, env=env, check=True)


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
        if first_release(tree):
            keep_only_the_summary(tree)
        else:
            with open(os.path.join(tree, "changelogs", "fragments", "zz-unreleased-summary.yml"), "w",
                      encoding="utf-8") as handle:
                yaml.safe_dump({"release_summary": "Not released yet: what version %s will contain so far." % version},
                               handle)
        release(tree, version, "2026-01-01")
        with open(os.path.join(tree, "CHANGELOG.rst"), encoding="utf-8") as handle:
            return handle.read()


def main():
    if "--release" in sys.argv[1:]:
        with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
            version = yaml.safe_load(handle)["version"]
        if first_release(ROOT):
            print("first release: kept %s" % ", ".join(keep_only_the_summary(ROOT)))
        release(ROOT, version, collections=os.path.join(ROOT, "build", "collections"))  # `make link` puts it there
        return
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

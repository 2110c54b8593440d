"""Check an execution environment build context that `ansible-builder create` wrote (`make ee`).

No container engine is needed: the check reads the generated Containerfile and proves that
every step that installs Python packages or the collection runs with the interpreter the
definition names in dependencies.python_interpreter, and that the ansible-core it pins
admits that interpreter's version (its Requires-Python).

    python tools/check_ee.py execution-environment.yml build/ee/Containerfile
"""

import re
import sys

import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

# Requires-Python is read from the ansible-core installed here (no network): the definition must
# pin the version this repository is tested with, which is the installed one.
INSTALLED = "ansible-core"


def arguments(containerfile):
    """The ARG defaults at the top of the Containerfile."""
    return dict(re.findall(r'^ARG (\w+)="([^"]*)"$', containerfile, re.MULTILINE))


def requires_python(pin):
    """Requires-Python of the pinned ansible-core (``ansible-core==X``), from the installed one."""
    from importlib import metadata

    wanted = pin.split("==", 1)[1]
    installed = metadata.version(INSTALLED)
    if installed != wanted:
        raise SystemExit("ee: the definition pins %s but this machine has ansible-core %s installed; "
                         "pin the version the collection is tested with" % (pin, installed))
    return SpecifierSet(metadata.metadata(INSTALLED)["Requires-Python"])


def problems(definition, containerfile):
    found = []
    interpreter = (definition.get("dependencies") or {}).get("python_interpreter") or {}
    python_path = interpreter.get("python_path")
    if not python_path:
        return ["dependencies.python_interpreter.python_path is not set: the build would use the base image's "
                "/usr/bin/python3, whatever its version"]
    args = arguments(containerfile)
    if args.get("PYCMD") != python_path:
        found.append("PYCMD is %r, not the python_path %r" % (args.get("PYCMD"), python_path))
    package = interpreter.get("package_system")
    if package:
        if args.get("PYPKG") != package:
            found.append("PYPKG is %r, not the package_system %r" % (args.get("PYPKG"), package))
        if "RUN $PKGMGR install $PYPKG -y" not in containerfile:
            found.append("the base stage does not install the interpreter package ($PYPKG)")
    version = re.search(r"python(\d+\.\d+)$", python_path)
    if not version:
        found.append("python_path %r does not name a versioned interpreter (python3.N)" % python_path)
    pin = (definition["dependencies"].get("ansible_core") or {}).get("package_pip", "")
    if not pin.startswith("ansible-core=="):
        found.append("ansible_core.package_pip must pin one version (ansible-core==X), got %r" % pin)
    elif version and Version(version.group(1)) not in requires_python(pin):
        found.append("%s needs Python %s; %s is Python %s" % (
            pin, requires_python(pin), python_path, version.group(1)))
    if pin and pin not in args.get("ANSIBLE_INSTALL_REFS", ""):
        found.append("ANSIBLE_INSTALL_REFS does not hold %s" % pin)
    for step in ("RUN /output/scripts/pip_install $PYCMD", "RUN $PYCMD -m pip install --no-cache-dir $ANSIBLE_INSTALL_REFS",
                 "RUN /output/scripts/check_ansible $PYCMD"):
        if step not in containerfile:
            found.append("missing step: %s" % step)
    runs = [line for line in containerfile.splitlines() if line.startswith("RUN ")]
    galaxy = [line for line in runs if "collection install" in line]
    if not galaxy:
        found.append("no step installs the collection")
    for line in runs:
        bare = re.search(r"(^RUN |&& |; )(pip3?|python3?|ansible-galaxy) ", line)
        if bare:
            found.append("a step runs %s without $PYCMD: %s" % (bare.group(2), line))
    for line in galaxy:
        if not line.startswith("RUN $PYCMD -m ansible.cli.galaxy ") and python_path + " -m ansible.cli.galaxy" not in line:
            found.append("the collection is not installed with $PYCMD's ansible-galaxy: %s" % line)
    return found


def main(argv):
    definition_path, containerfile_path = argv
    with open(definition_path, encoding="utf-8") as handle:
        definition = yaml.safe_load(handle)
    with open(containerfile_path, encoding="utf-8") as handle:
        containerfile = handle.read()
    found = problems(definition, containerfile)
    for problem in found:
        print("ee: %s" % problem, file=sys.stderr)
    if not found:
        print("ee: %s installs ansible-core, ansible-runner and the collection with %s" % (
            containerfile_path, definition["dependencies"]["python_interpreter"]["python_path"]))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

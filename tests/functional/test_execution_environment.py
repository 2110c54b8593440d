"""The execution environment definition: the build context ansible-builder generates from it
installs ansible-core, ansible-runner and the collection with a Python that ansible-core 2.19
accepts (tools/check_ee.py, which `make ee` runs). ansible-builder runs for real (`create`,
which needs no container engine); the image itself is not built here."""

import os
import subprocess
import sys

import pytest
import yaml

from tests.functional.conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import check_ee  # noqa: E402  (a tool of this repository, not a package)

BIN = os.path.dirname(sys.executable)


def load_definition():
    with open(os.path.join(ROOT, "execution-environment.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def build_context(tmp_path, definition):
    """``ansible-builder create`` of ``definition`` (paths made absolute); the Containerfile."""
    definition = yaml.safe_load(yaml.safe_dump(definition))
    definition["dependencies"]["system"] = os.path.join(ROOT, "bindep.txt")
    definition["additional_build_files"] = []  # the collection tarball: `make ee` builds and checks it
    path = tmp_path / "execution-environment.yml"
    path.write_text(yaml.safe_dump(definition))
    subprocess.run([os.path.join(BIN, "ansible-builder"), "create", "-f", str(path), "-c", str(tmp_path / "ee"),
                    "--output-filename", "Containerfile"], check=True, capture_output=True, text=True)
    return definition, (tmp_path / "ee" / "Containerfile").read_text()


def test_the_definition_installs_everything_with_its_python_3_11(tmp_path):
    definition, containerfile = build_context(tmp_path, load_definition())
    assert check_ee.problems(definition, containerfile) == []
    assert 'ARG PYCMD="/usr/bin/python3.11"' in containerfile
    assert "RUN $PYCMD -m ansible.cli.galaxy collection install" in containerfile


def test_the_check_refuses_the_base_image_python(tmp_path):
    """0.1.0's first definition: ansible-core 2.19 on awx-ee's /usr/bin/python3 (3.9)."""
    definition = load_definition()
    definition["images"]["base_image"]["name"] = "quay.io/ansible/awx-ee:24.6.1"
    del definition["dependencies"]["python_interpreter"]
    definition, containerfile = build_context(tmp_path, definition)
    assert any("python_path is not set" in problem for problem in check_ee.problems(definition, containerfile))


@pytest.mark.parametrize("python_path, expected", [
    ("/usr/bin/python3.9", "needs Python >=3.11"),
    ("/usr/bin/python3", "does not name a versioned interpreter"),
])
def test_the_check_refuses_an_interpreter_ansible_core_does_not_run_on(tmp_path, python_path, expected):
    definition = load_definition()
    definition["dependencies"]["python_interpreter"] = {"package_system": "python3", "python_path": python_path}
    definition, containerfile = build_context(tmp_path, definition)
    assert any(expected in problem for problem in check_ee.problems(definition, containerfile))


def test_the_check_refuses_a_collection_installed_by_another_python(tmp_path):
    definition = load_definition()
    definition["additional_build_steps"]["append_final"][-1] = (
        "RUN ansible-galaxy collection install --offline -p /usr/share/ansible/collections /tmp/collections/x.tar.gz")
    definition, containerfile = build_context(tmp_path, definition)
    found = check_ee.problems(definition, containerfile)
    assert any("without $PYCMD" in problem for problem in found), found

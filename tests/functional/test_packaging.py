"""What a Galaxy user gets: the collection tarball as `ansible-galaxy collection build` makes it
(the license text in it), a README that does not send them to files the tarball lacks, and a
documentation site whose landing page links the guides and the release notes."""

import ast
import glob
import os
import re
import subprocess
import sys
import tarfile

import yaml

from tests.functional.conftest import ROOT


def galaxy():
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def built_members(tmp_path):
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-galaxy"), "collection", "build",
                    "--output-path", str(tmp_path), ROOT], check=True, capture_output=True, text=True)
    (tarball,) = tmp_path.glob("broadcast-monitoring-*.tar.gz")
    with tarfile.open(tarball) as archive:
        return {member.name: archive.extractfile(member).read().decode("utf-8", "replace")
                for member in archive.getmembers() if member.isfile() and "/" not in member.name}


def test_the_tarball_carries_the_gpl_3_text_galaxy_yml_names(tmp_path):
    assert galaxy()["license"] == ["GPL-3.0-or-later"]
    members = built_members(tmp_path)
    assert "LICENSE" in members, sorted(members)
    text = members["LICENSE"]
    assert text.lstrip().startswith("GNU GENERAL PUBLIC LICENSE\n")
    assert "Version 3, 29 June 2007" in text and "END OF TERMS AND CONDITIONS" in text
    assert "Makefile" not in members  # which is why the README must say where the demo is


def paragraphs(text):
    return [part for part in re.split(r"\n\s*\n", text) if part.strip()]


def test_the_readme_sends_galaxy_users_to_the_source_repository_for_the_demo():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        parts = paragraphs(handle.read())
    repository = galaxy()["repository"]
    demo = [index for index, part in enumerate(parts) if "make demo" in part]
    assert demo
    for index in demo:
        nearby = "\n".join(parts[max(0, index - 2):index + 1])
        assert "source repository" in nearby, parts[index]
    first = demo[0]
    assert repository in "\n".join(parts[max(0, first - 2):first + 1]), "say where the source repository is"


def test_the_docs_landing_page_links_every_guide_and_the_release_notes():
    with open(os.path.join(ROOT, "docs", "site", "rst", "index.rst"), encoding="utf-8") as handle:
        index = handle.read()
    entries = set(re.findall(r"^   (\S+)$", index, re.MULTILINE))
    with open(os.path.join(ROOT, "docs", "docsite", "extra-docs.yml"), encoding="utf-8") as handle:
        guides = [guide for section in yaml.safe_load(handle)["sections"] for guide in section["toctree"]]
    assert guides
    for guide in guides:
        assert "collections/broadcast/monitoring/docsite/" + guide in entries, guide
    assert "changelog" in entries
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as handle:
        assert "cp CHANGELOG.rst $(DOCS)/rst/changelog.rst" in handle.read()


def all_members(tmp_path):
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-galaxy"), "collection", "build",
                    "--output-path", str(tmp_path), ROOT], check=True, capture_output=True, text=True)
    (tarball,) = tmp_path.glob("broadcast-monitoring-*.tar.gz")
    with tarfile.open(tarball) as archive:
        return {member.name for member in archive.getmembers()}


def test_test_only_files_stay_out_of_the_tarball_and_what_galaxy_asks_for_is_in(tmp_path):
    members = all_members(tmp_path)
    for test_only in ("tests/benchmarks", "tests/reliability", "tests/matrix", "simulator"):
        assert os.path.exists(os.path.join(ROOT, test_only)), test_only  # what is left out exists
        assert not [m for m in members if m == test_only or m.startswith(test_only + "/")], test_only
    for wanted in ("README.md", "LICENSE", "CHANGELOG.rst", "CODE_OF_CONDUCT.md", "CONTRIBUTING.md", "MAINTAINERS",
                   "SECURITY.md", "meta/runtime.yml", "plugins/filter/snapshot_compare.py"):
        assert wanted in members, wanted


def test_the_simulator_distribution_has_the_collections_version():
    """simulator/pyproject.toml's version follows galaxy.yml's (issue 33: "Its version follows the
    collection's"); a release bumps both."""
    import tomllib  # Python 3.11+: the controller's Python here

    with open(os.path.join(ROOT, "simulator", "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)["project"]
    assert project["name"] == "broadcast-monitoring-simulator"
    assert project["version"] == galaxy()["version"]
    assert project["scripts"] == {"bm-simulator": "bm_simulator.cli:main"}


def test_galaxy_renders_the_readme_with_links_that_work_there():
    """Galaxy shows the README outside the repository: a relative link would lead nowhere."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#"))]
    assert not relative, relative
    repository = galaxy()["repository"]
    for key in ("homepage", "documentation", "issues"):
        assert galaxy()[key].startswith(repository), key
    assert "ansible-galaxy collection install broadcast.monitoring" in text
    for section in ("Installing", "Tested ansible-core versions", "Communication", "Support", "Release notes",
                    "Licensing"):
        assert "\n## %s\n" % section in text, section


def test_the_docs_site_defines_every_environment_variable_the_modules_read():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "plugins", "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        names.update("BROADCAST_MONITORING_" + n for n in re.findall(r'_env\("([A-Z_]+)"\)', source))
        names.update(re.findall(r'env_fallback, \["(BROADCAST_MONITORING_[A-Z_]+)"\]', source))
        names.update(re.findall(r'[A-Z_]+ = "(BROADCAST_MONITORING_[A-Z_]+)"', source))
    names.discard("BROADCAST_MONITORING_READ_AUDIT")  # a test hook of the read audit, not for users
    assert "BROADCAST_MONITORING_HOST" in names and "BROADCAST_MONITORING_NEW_PASSWORD" in names
    with open(os.path.join(ROOT, "docs", "docsite", "config.yml"), encoding="utf-8") as handle:
        declared = yaml.safe_load(handle)["envvar_directives"]
    with open(os.path.join(ROOT, "docs", "docsite", "rst", "environment_variables.rst"), encoding="utf-8") as handle:
        defined = re.findall(r"^\.\. envvar:: (\S+)$", handle.read(), re.MULTILINE)
    assert sorted(declared) == sorted(defined) == sorted(names)


def test_the_docs_landing_page_names_the_tested_versions_as_the_matrix_runs_them():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as handle:
        (matrix,) = re.findall(r"^MATRIX\s*:=\s*(.+)$", handle.read(), re.MULTILINE)
    versions = matrix.split()
    with open(os.path.join(ROOT, "tools", "test_matrix.py"), encoding="utf-8") as handle:
        lines = ast.literal_eval(re.search(r"^LINES = (\{.*?^\})$", handle.read(), re.MULTILINE | re.DOTALL).group(1))
    with open(os.path.join(ROOT, "docs", "site", "rst", "index.rst"), encoding="utf-8") as handle:
        index = " ".join(handle.read().split())
    pythons = ["%s (%s)" % (lines[version][0], version) for version in versions]
    assert "Tested ansible-core versions: %s and %s, on Python %s and %s" % (
        ", ".join(versions[:-1]), versions[-1], ", ".join(pythons[:-1]), pythons[-1]) in index

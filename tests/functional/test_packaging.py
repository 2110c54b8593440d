"""What a Galaxy user gets: the collection tarball as `ansible-galaxy collection build` makes it
(the license text in it), a README that does not send them to files the tarball lacks, and a
documentation site whose landing page links the guides and the release notes."""

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

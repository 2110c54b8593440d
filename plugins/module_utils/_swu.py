# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Firmware bundles (.swu): read the version on the controller, upload without loading
the bundle into memory.

A bundle is a newc cpio archive whose first member is ``sw-description`` (libconfig text
with ``version = "X";``). Only that member is read to learn the version and the bundle's
target: the models named by SWUpdate's ``hardware-compatibility: [ "...", ... ];`` (every
such list in the description, board sections included). A bundle without one has no
readable target.

The description also lists each image by ``filename`` with its ``sha256``; ``image_mismatches``
reads the whole archive, a block at a time, and compares each image with its checksum, so that an
altered bundle is refused before anything is sent.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import uuid

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import BundleError

HEADER = 110
MAGICS = (b"070701", b"070702")
DESCRIPTION = "sw-description"
MAX_DESCRIPTION = 1024 * 1024
VERSION_RE = re.compile(rb'\bversion\s*=\s*"([^"]+)"')
TARGET_RE = re.compile(rb'\bhardware-compatibility\s*[:=]\s*\[([^\]]*)\]')
STRING_RE = re.compile(rb'"([^"]*)"')
GROUP_RE = re.compile(rb'\{[^{}]*\}')  # a libconfig group holding no other group: one image's settings
FILENAME_RE = re.compile(rb'\bfilename\s*[:=]\s*"([^"]+)"')
SHA256_RE = re.compile(rb'\bsha256\s*[:=]\s*"([0-9A-Fa-f]{64})"')
TRAILER = "TRAILER!!!"
BLOCK = 1024 * 1024


def _pad(length):
    return (4 - length % 4) % 4


def _member(handle, path):
    """The next cpio member's (name, size), the handle left at its data."""
    header = handle.read(HEADER)
    if len(header) < HEADER or header[:6] not in MAGICS:
        raise BundleError("%s is not a .swu bundle (no newc cpio header at byte %d)" % (
            path, handle.tell() - len(header)))
    try:
        size, namesize = int(header[54:62], 16), int(header[94:102], 16)
    except ValueError:
        raise BundleError("%s has a corrupt cpio header" % path) from None
    name = handle.read(namesize)[:-1].decode("utf-8", "replace")
    handle.read(_pad(HEADER + namesize))
    return name, size


def _read_description_text(handle, path):
    name, size = _member(handle, path)
    if name != DESCRIPTION:
        raise BundleError("the first member of %s is %r, not sw-description" % (path, name))
    if size > MAX_DESCRIPTION:
        raise BundleError("sw-description of %s is implausibly large (%d bytes)" % (path, size))
    text = handle.read(size)
    handle.read(_pad(size))
    return text


def read_description(path):
    """``{"version": str, "target": [model, ...] or None}`` of a bundle's ``sw-description``."""
    with open(path, "rb") as handle:
        text = _read_description_text(handle, path)
    match = VERSION_RE.search(text)
    if not match:
        raise BundleError("sw-description of %s carries no version" % path)
    target = []
    for listed in TARGET_RE.findall(text):
        for model in STRING_RE.findall(listed):
            model = model.decode("utf-8", "replace").strip()
            if model and model not in target:
                target.append(model)
    return {"version": match.group(1).decode("utf-8", "replace"), "target": target or None}


def listed_checksums(text):
    """``{filename: sha256}`` of the images a ``sw-description`` lists with a checksum."""
    listed = {}
    for group in GROUP_RE.findall(text):
        name, digest = FILENAME_RE.search(group), SHA256_RE.search(group)
        if name and digest:
            listed[name.group(1).decode("utf-8", "replace")] = digest.group(1).decode().lower()
    return listed


def image_mismatches(path):
    """What in the bundle does not match the checksums its ``sw-description`` lists: a list of
    sentences, empty when every listed image is there and matches (or none is listed)."""
    stat = os.stat(path)
    return list(_image_mismatches(path, stat.st_size, stat.st_mtime_ns))


# A rollout checks one bundle for many devices in one process; size and mtime make a changed
# file another key.
@functools.lru_cache(maxsize=8)
def _image_mismatches(path, file_size, mtime):  # pylint: disable=unused-argument
    with open(path, "rb") as handle:
        listed = listed_checksums(_read_description_text(handle, path))
        found = {}
        while listed:
            name, size = _member(handle, path)
            if name == TRAILER:
                break
            digest, left = hashlib.sha256() if name in listed else None, size
            while left:
                block = handle.read(min(BLOCK, left))
                if not block:
                    raise BundleError("%s ends inside its member %s" % (path, name))
                if digest:
                    digest.update(block)
                left -= len(block)
            handle.read(_pad(size))
            if digest:
                found[name] = digest.hexdigest()
    return tuple("it lacks the image %s its sw-description lists" % name if name not in found else
                 "its image %s does not match the sha256 its sw-description lists (altered after it was made)"
                 % name for name, digest in sorted(listed.items()) if found.get(name) != digest)


def read_version(path):
    """The software version a bundle's ``sw-description`` carries."""
    return read_description(path)["version"]


def same_model(name, other):
    """Whether two model names are the same, whatever their case and spacing."""
    return " ".join(name.split()).casefold() == " ".join(other.split()).casefold()


def _version_key(version):
    return [int(part) if part.isdigit() else part for part in re.findall(r"\d+|[A-Za-z]+", version)]


def compare_versions(first, second):
    """-1, 0 or 1 as ``first`` is older than, the same as, or newer than ``second``, by their
    numeric and alphabetic parts (2.10.0 is newer than 2.9.1); None when they cannot be ordered
    (a word where the other has a number)."""
    if first == second:
        return 0
    left, right = _version_key(first), _version_key(second)
    try:
        return (left > right) - (left < right)
    except TypeError:
        return None


class MultipartFile:
    """A ``multipart/form-data`` body of one file field, read from disk piece by piece.

    requests sends it with a Content-Length (from ``len``) and reads it in blocks, so a
    bundle of any size costs a few kilobytes of memory.
    """

    def __init__(self, path, field="file"):
        boundary = uuid.uuid4().hex
        self.content_type = "multipart/form-data; boundary=%s" % boundary
        name = os.path.basename(path).replace('"', "")
        self._head = ('--%s\r\nContent-Disposition: form-data; name="%s"; filename="%s"\r\n'
                      'Content-Type: application/octet-stream\r\n\r\n' % (boundary, field, name)).encode()
        self._tail = ("\r\n--%s--\r\n" % boundary).encode()
        self._path = path
        self.len = len(self._head) + os.path.getsize(path) + len(self._tail)
        self._handle = None
        self._stage = 0

    def seek(self, offset):
        """Start over (only offset 0 is meaningful: a retried upload)."""
        if self._handle is not None:
            self._handle.close()
        self._handle = None
        self._stage = offset

    def read(self, size=-1):
        if size is None or size < 0:
            size = 64 * 1024
        if self._stage == 0:
            self._stage = 1
            self._handle = open(self._path, "rb")  # pylint: disable=consider-using-with
            return self._head
        if self._stage == 1:
            chunk = self._handle.read(size)
            if chunk:
                return chunk
            self._handle.close()
            self._stage = 2
            return self._tail
        return b""

# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Files the modules write where they run (the controller with connection=local):
downloads streamed from a device, and documents made in memory. Either way a file is
replaced only when its content differs, through a temporary file beside it, so a second
run reports no change and a failure never leaves half a file.

What is at the destination counts only when it is a regular file. A symlink there (or
anything else that is not a regular file) is never read or written through: it is
replaced by the new file, as Ansible's copy and template replace one (their default
``follow: false``), and the diff shows no content before. A new file is 0600 (a backup
or a capture is the site's business only); a regular file that is replaced keeps its mode.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import (
    UNREACHABLE,
    UNSAFE,
    DeviceError,
    InputError,
    TransportError,
)

CHUNK = 1024 * 1024
#: the mode of a new file (the umask can only take from it)
NEW_FILE_MODE = 0o600


def name_problem(name):
    """Why ``name`` cannot be a file name inside a directory (it would lead out of it, or
    is not a name), or None when it can. Every name a device or a user gives for a file in
    ``dest`` passes here: a device on a site network is not trusted to pick paths."""
    if not isinstance(name, str) or not name.strip():
        return "it is empty"
    if name in (".", ".."):
        return "it names a directory, not a file"
    if "/" in name or "\\" in name:
        return "it holds a path separator"
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        return "it holds a NUL or control character"
    return None


def plain_name(name, where):
    """``name`` when it is a plain file name; InputError naming the parameter ``where`` when not."""
    problem = name_problem(name)
    if problem:
        raise InputError(["%s: must be a plain file name (no path separator, '..', NUL or control character);"
                          " %s, got %r" % (where, problem, name)])
    return name


def device_name(name, what):
    """``name``, given by the device for ``what``, when it is a plain file name; a
    DeviceError that quotes it (repr) when not, before anything is written."""
    problem = name_problem(name)
    if problem:
        raise DeviceError(UNSAFE, "the device gave %s the name %r, which is not a plain file name (%s);"
                                  " nothing was written" % (what, name, problem))
    return name


def destination(dest, default_name):
    """The file to write: ``dest``, or ``dest/default_name`` when ``dest`` is a directory.
    InputError when its directory does not exist (checked before any request).
    ``default_name`` must have passed ``plain_name`` or ``device_name``; a name that did
    not is refused here too, so nothing is ever written outside ``dest``."""
    if os.path.isdir(dest):
        if name_problem(default_name):
            raise InputError(["dest: refusing to write %r into %s: not a plain file name" % (default_name, dest)])
        path = os.path.join(dest, default_name)
    else:
        path = dest
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(["dest: directory %s does not exist" % folder])
    return path


def regular_file(path):
    """True when ``path`` itself (not what a symlink there points to) is a regular file."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def file_sha256(path):
    """The SHA-256 of the regular file ``path`` (a symlink there is refused, not followed)."""
    digest = hashlib.sha256()
    with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(client, path, dest, params=None, idempotent=True, method="GET", body=None, check_mode=False):
    """Stream the answer to ``method path`` (``body``: a query sent as JSON) to ``dest``
    through a temporary file beside it (never the whole body in memory); replace ``dest``
    only when the content differs, and in ``check_mode`` never. Returns ``(changed, {"dest",
    "size", "sha256"})``. Messages never carry the query (it may hold a one-time token)."""
    folder = os.path.dirname(os.path.abspath(dest))
    handle, part = tempfile.mkstemp(prefix=".%s." % os.path.basename(dest), suffix=".part", dir=folder)
    digest, size = hashlib.sha256(), 0
    try:
        with os.fdopen(handle, "wb") as out:
            response = client.request(method, path, body=body, params=params, raw=True, stream=True,
                                      idempotent=idempotent)
            try:
                chunks = response.iter_content(CHUNK)
                while True:
                    try:
                        chunk = next(chunks, None)
                    except TransportError as err:
                        raise DeviceError(UNREACHABLE, "%s %s: the transfer broke off after %d bytes (%s)" % (
                            method, path, size, err)) from None
                    if chunk is None:
                        break
                    out.write(chunk)
                    digest.update(chunk)
                    size += len(chunk)
                expected = response.headers.get("Content-Length")
                if expected is not None and expected.isdigit() and int(expected) != size:
                    raise DeviceError(UNREACHABLE, "%s %s: the transfer ended after %d of %s bytes" % (
                        method, path, size, expected))
            finally:
                response.close()
        sha256 = digest.hexdigest()
        info = {"dest": dest, "size": size, "sha256": sha256}
        if regular_file(dest) and os.path.getsize(dest) == size and file_sha256(dest) == sha256:
            os.unlink(part)
            return False, info
        if check_mode:
            os.unlink(part)
            return True, info
        _keep_mode(part, dest)
        os.replace(part, dest)
        return True, info
    except BaseException:
        if os.path.exists(part):
            os.unlink(part)
        raise


def write_if_changed(dest, data, check_mode):
    """Write ``data`` (bytes) to ``dest`` when its content differs. Returns ``(changed,
    old)``, ``old`` the previous content, or None when ``dest`` is not a regular file (a
    symlink there is not followed)."""
    old = None
    if regular_file(dest):
        handle = os.open(dest, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(handle, "rb") as opened:
            old = opened.read()
    changed = old != data
    if changed and not check_mode:
        handle, part = tempfile.mkstemp(prefix=".%s." % os.path.basename(dest), suffix=".part",
                                        dir=os.path.dirname(os.path.abspath(dest)))
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            _keep_mode(part, dest)
            os.replace(part, dest)
        except BaseException:
            if os.path.exists(part):
                os.unlink(part)
            raise
    return changed, old


def _keep_mode(part, dest):
    """Give the new file the mode of the regular file it replaces, or NEW_FILE_MODE less
    the umask (never what a symlink at ``dest`` points to)."""
    if regular_file(dest):
        mode = os.lstat(dest).st_mode & 0o7777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = NEW_FILE_MODE & ~umask
    os.chmod(part, mode)

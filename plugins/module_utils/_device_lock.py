# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One writer at a time per device, from one controller.

The devices offer no atomic update: a module reads, compares and writes, and a second run
writing to the same device between its read and its write is not seen (two ``ts_input
state=merged`` runs both create every input; two ``ts_snmp lists=add`` runs each write the
list they read, and one run's addresses are gone). So every module run that may write to a
device holds a lock of that device for its whole read-compare-write: an ``flock`` of a file
named after the device's address and port, in a folder only the user who runs Ansible may
write to (lock_folder). A module process and a module run inside the controller (direct
execution) take the same lock.

Only runs that may write take it: check mode, ``state=gathered`` / ``parsed`` / ``rendered``
and the modules that only read never wait. The lock is per controller (and per user): two
controllers, or a person at the device's web page, are not serialized; what the modules
detect of those writers is documented in the README (Limits).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import stat
import tempfile
import time

from ansible_collections.broadcast.monitoring.plugins.module_utils._errors import InputError, LockError

#: how long a run waits for another run writing to the same device, in seconds
DEFAULT_TIMEOUT = 300
TIMEOUT_ENV = "BROADCAST_MONITORING_LOCK_TIMEOUT"
#: how often a waiting run tries the lock again, in seconds
POLL = 0.1


def timeout_from(environ):
    """The wait in seconds: ``TIMEOUT_ENV`` when set (a number >= 0), else DEFAULT_TIMEOUT."""
    text = environ.get(TIMEOUT_ENV)
    if text is None or not str(text).strip():
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        value = -1
    if not value >= 0 or value == float("inf"):
        raise InputError(["%s: must be a number of seconds >= 0 (how long to wait for another run writing to the"
                          " same device), got %r" % (TIMEOUT_ENV, text)])
    return value


def device_key(host, port, protocol):
    """``host:port`` as the lock knows a device: the address as given (lower case), and the
    port, or the protocol's default."""
    host = host.strip().strip("[]").lower()
    return "%s:%d" % (host, port or (443 if protocol == "https" else 80))


#: the lock folder in the user's home, which no other account can create: the same for every run
#: of the account (XDG_RUNTIME_DIR is not: cron, services and AWX jobs run without it)
HOME_FOLDER = os.path.join("~", ".ansible", "broadcast.monitoring-locks")


def lock_folder():
    """The folder of the lock files, the running user's own: ``~/.ansible/broadcast.monitoring-locks``,
    else (a home that is not this user's, or not writable) ``broadcast.monitoring-locks-<uid>`` in
    the temporary directory. Made 0700; a folder of this user's that others may read or write is
    narrowed to 0700. A folder another account made, or that is not a folder, is never used (no one
    else can plant or hold a lock file): the next place is."""
    home = os.path.expanduser(HOME_FOLDER)
    candidates = [(os.path.dirname(home), home)] if not home.startswith("~") else []
    candidates.append((None, os.path.join(tempfile.gettempdir(), "broadcast.monitoring-locks-%d" % os.getuid())))
    for parent, folder in candidates:
        if parent is not None and _own_folder(parent, parent=True) is None:
            continue
        if _own_folder(folder) is not None:
            return folder
    raise LockError("no folder for the device locks: %s are another account's, not folders, or cannot be made;"
                    " nothing was sent to the device" % " and ".join(candidate[1] for candidate in candidates))


def _own_folder(path, parent=False):
    """``path`` when it is (or is now made, 0700) a folder of this user's that no one else may
    write to, None otherwise. The lock folder is never a symbolic link, and one of this user's
    with wider modes is narrowed to 0700; a ``parent`` (``~/.ansible``, which only this user can
    have made a link) may be a link, and with wider modes is not used, never changed."""
    try:
        os.mkdir(path, 0o700)
    except OSError as err:
        if err.errno != errno.EEXIST:
            return None
    try:
        no_link = 0 if parent else getattr(os, "O_NOFOLLOW", 0)
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | no_link)
    except OSError:
        return None  # a symbolic link, or not a folder
    try:
        info = os.fstat(handle)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return None
        wide = info.st_mode & (0o022 if parent else 0o077)
        if wide and parent:
            return None
        if wide:
            os.fchmod(handle, 0o700)
        return path
    except OSError:
        return None
    finally:
        os.close(handle)


def lock_file(key):
    """The lock file of the device ``key`` (a readable name, with a digest of the key so
    that two keys the name cannot tell apart still get two files)."""
    readable = re.sub(r"[^a-z0-9.-]+", "_", key)[:80]
    return os.path.join(lock_folder(), "%s-%s.lock" % (readable, hashlib.sha256(key.encode()).hexdigest()[:12]))


@contextlib.contextmanager
def device_lock(key, timeout, holder):
    """Hold the lock of the device ``key`` while the block runs; wait at most ``timeout``
    seconds for another run holding it, then raise LockError naming the device and the
    wait. ``holder`` (the module's name) is written into the file, so that the message of
    a run that waited in vain says who held it."""
    path = lock_file(key)
    handle = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as err:
                if err.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise
            if time.monotonic() >= deadline:
                raise LockError(
                    "another run from this controller (%s) has been writing to the device %s for longer than the wait"
                    " of %s s; nothing was sent to the device. Run again when it is done, or wait longer with the"
                    " environment variable %s (lock file %s)" % (
                        _holder(handle) or "unknown", key, _seconds(timeout), TIMEOUT_ENV, path))
            time.sleep(POLL)
        os.ftruncate(handle, 0)
        os.pwrite(handle, ("%s, process %d\n" % (holder, os.getpid())).encode(), 0)
        yield path
    finally:
        os.close(handle)  # closing the file releases the lock


def _holder(handle):
    try:
        return os.pread(handle, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return None


def _seconds(value):
    return ("%d" % value) if value == int(value) else ("%g" % value)

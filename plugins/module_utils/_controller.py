# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the run that started this module is still there.

Killing ansible-playbook (kill -9, a cancelled CI job) does not end the modules it started:
each of Ansible's worker processes calls setsid(), so the worker, the shell it runs the
module in and the module carry on, and a retry of the run then writes alongside the orphan
(two inputs of one name). So a module notes, when it starts, its chain of parent processes
up to the head of its session (Ansible's worker) and the parent of each; the client checks
before each write that none of them has been given another parent (which happens when its
parent exits). Where /proc cannot be read, only the module's own parent is checked.
"""

from __future__ import annotations

import os

#: how far up the chain is followed at most (module, shells, worker: about four)
MAX_DEPTH = 16


def _parent_of(pid):
    """The parent pid of ``pid`` from /proc, or None when it cannot be read (no such process,
    or no /proc)."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as handle:
            stat = handle.read()
        # "pid (command) state ppid ...": the command may hold spaces and parentheses
        return int(stat[stat.rindex(b")") + 2:].split()[1])
    except (OSError, ValueError, IndexError):
        return None


class Lineage:
    """The processes between this one and the controller, as they were at start."""

    def __init__(self):
        self.parent = os.getppid()
        self.chain = []
        session = os.getsid(0)
        pid = os.getpid()
        for _level in range(MAX_DEPTH):
            parent = _parent_of(pid)
            if parent is None:
                break
            self.chain.append((pid, parent))
            if pid == session or parent <= 1:
                break  # the head of the session: its parent is the controller
            pid = parent

    def gone(self):
        """Why the controller is no longer there, or None while it is."""
        if os.getppid() != self.parent:
            return "this module's parent process (pid %d) has exited" % self.parent
        for pid, parent in self.chain:
            now = _parent_of(pid)
            if now != parent:
                return "process %d, which started this module, %s" % (
                    pid, "has exited" if now is None else "lost its parent (pid %d) and was adopted by pid %d" % (
                        parent, now))
        return None

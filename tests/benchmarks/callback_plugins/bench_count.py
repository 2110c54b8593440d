# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Counts module invocations per host for the fleet benchmark (tests/benchmarks).

Enabled only by the benchmark (ANSIBLE_CALLBACKS_ENABLED=bench_count); writes
{"hosts": {host: {"invocations", "by_action", "ok", "changed", "failed", "skipped", "unreachable"}},
"tasks": [{"name", "action", "wall_s"}]} to the file named by BENCH_COUNT_FILE when the playbook ends.
"""

from __future__ import annotations

DOCUMENTATION = r"""
name: bench_count
type: aggregate
short_description: Module invocations per host, for the fleet benchmark
description:
  - Counts the module processes a playbook starts per host (each loop item is one, and each module an action
    plugin lists in its C(modules) result) and the
    task outcomes, and writes them as JSON to the file named by E(BENCH_COUNT_FILE).
requirements:
  - enabled in ANSIBLE_CALLBACKS_ENABLED
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

#: actions that run on the controller only and start no module process
CONTROLLER_ONLY = frozenset((
    "set_fact", "debug", "assert", "fail", "meta", "include_tasks", "import_tasks", "include_role", "import_role",
    "include_vars", "add_host", "group_by", "set_stats", "pause", "validate_argument_spec", "include",
))


def _short(action):
    return action.rsplit(".", 1)[-1]


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "bench_count"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self.hosts = {}
        # wall time per task (from its start to the next task's or play's start), so that a
        # run's time can be split into module tasks, skipped tasks and controller-only tasks
        self.tasks = []
        self._current = None

    def _close_task(self):
        if self._current is not None:
            self._current["wall_s"] = round(time.perf_counter() - self._current.pop("_started"), 4)
            self.tasks.append(self._current)
            self._current = None

    def v2_playbook_on_play_start(self, play):
        self._close_task()
        self._current = {"name": "(play start) %s" % play.get_name(), "action": "(play start)",
                         "_started": time.perf_counter()}

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._close_task()
        self._current = {"name": task.get_name(), "action": _short(task.action), "_started": time.perf_counter()}

    def _host(self, result):
        name = result._host.get_name()
        return self.hosts.setdefault(name, {"invocations": 0, "by_action": {}, "ok": 0, "changed": 0, "failed": 0,
                                            "skipped": 0, "unreachable": 0})

    def _invoked(self, result):
        action = _short(result._task.action)
        if action in CONTROLLER_ONLY:
            return
        entry = self._host(result)
        # an action plugin that runs modules itself (device_state) says which it ran
        count = len(result._result["modules"]) if isinstance(result._result.get("modules"), list) else 1
        entry["invocations"] += count
        entry["by_action"][action] = entry["by_action"].get(action, 0) + count

    def _outcome(self, result, key):
        entry = self._host(result)
        entry[key] += 1
        if key == "ok" and result._result.get("changed"):
            entry["changed"] += 1

    @staticmethod
    def _is_loop(result):
        # a looped task reports each item, then once more as a whole: count the items only
        return "results" in result._result and result._task.loop is not None

    def v2_runner_on_ok(self, result):
        self._outcome(result, "ok")
        if not self._is_loop(result):
            self._invoked(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._outcome(result, "failed")
        if not self._is_loop(result):
            self._invoked(result)

    def v2_runner_on_skipped(self, result):
        self._outcome(result, "skipped")

    def v2_runner_on_unreachable(self, result):
        self._outcome(result, "unreachable")

    def v2_runner_item_on_ok(self, result):
        self._invoked(result)

    def v2_runner_item_on_failed(self, result):
        self._invoked(result)

    def v2_playbook_on_stats(self, stats):
        self._close_task()
        path = os.environ.get("BENCH_COUNT_FILE")
        if path:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump({"hosts": self.hosts, "tasks": self.tasks}, handle, indent=1, sort_keys=True)

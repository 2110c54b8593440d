"""Fitness test (issue 42, 1.; docs/docsite/rst/security.rst): outside text reaches a template only marked
as data. Every template of playbooks/, roles/ and extensions/ (YAML strings, bare conditionals and .j2 files)
is parsed with Jinja and must not:

- name the EDA event (``ansible_eda``) or a job artifact (``broadcast_monitoring_<kind>[_<job id>]``, the
  names the tree's set_stats hand on) other than through the ``broadcast.monitoring.outside_data`` lookup,
  which returns the value marked unsafe (a name, ``hostvars[...].ansible_eda``, ``vars['ansible_eda']``);
- read a variable by a computed name (``ansible.builtin.vars``, ``vars[...]``, ``hostvars[h][...]``) unless
  the name ends in a fixed text no outside-data name ends with (ansible.builtin.vars templates the value);
- in a rulebook, put the event into a playbook's extra variables (ansible-rulebook renders ``{{ event }}``
  into them, and ansible-core trusts ``-e @file`` data as a template): the event reaches playbooks as
  ``ansible_eda`` only;
- turn text into code: a template rendered from anything but one of our own ``.j2`` files, vars or tasks
  loaded from a computed path, a conditional holding ``{{ }}`` (evaluated twice).

Module results are marked unsafe by ansible-core (registered variables) and stay so through the paths
left; tests/functional/test_outside_data.py proves the whole with templates planted in events,
artifacts and device answers."""

from __future__ import annotations

import os
import re

import jinja2
import pytest
import yaml
from jinja2 import nodes

# every mapping of a YAML document (tasks, handlers, blocks): what could be a task
from ansible_collections.broadcast.monitoring.plugins.plugin_utils._role_variables import _walk as _tasks

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOLDERS = ("playbooks", "roles", "extensions")
RULEBOOKS = os.path.join("extensions", "eda", "rulebooks")
READER = {"broadcast.monitoring.outside_data"}
LOOKUPS = {"lookup", "query", "q"}
VARS_LOOKUPS = {"vars", "ansible.builtin.vars", "ansible.legacy.vars"}
TEMPLATE_LOOKUPS = {"template", "ansible.builtin.template", "ansible.legacy.template"}
CONDITIONALS = {"when", "changed_when", "failed_when", "until", "that"}
CODE_LOADERS = {"include_vars", "include_tasks", "import_tasks", "import_playbook", "vars_files"}
TEMPLATE_MODULES = {"template", "ansible.builtin.template", "ansible.legacy.template"}
ENV = jinja2.Environment(extensions=["jinja2.ext.loopcontrols", "jinja2.ext.do"])


class _Loader(yaml.SafeLoader):
    """Reads Ansible YAML: ``!unsafe``, ``!vault`` and the like as their plain values."""


_Loader.add_multi_constructor("!", lambda loader, suffix, node: loader.construct_scalar(node)
                              if isinstance(node, yaml.ScalarNode) else None)


def tree_files():
    for folder in FOLDERS:
        for directory, _dirs, files in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(files):
                if name.endswith((".yml", ".yaml", ".j2")):
                    yield os.path.relpath(os.path.join(directory, name), ROOT)


def templates_of(path, text):
    """[(where, kind, template text)] of one file: kind ``text`` (a templated string or a .j2 file),
    ``expression`` (a bare conditional), ``loader`` (a path code or vars are loaded from), ``template_src``."""
    if path.endswith(".j2"):
        return [(path, "text", text)]
    found = []

    def walk(value, where, key=None):
        if isinstance(value, dict):
            for name, item in value.items():
                walk(name, where)
                walk(item, "%s.%s" % (where, name), name)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, "%s[%d]" % (where, index), key)
        elif isinstance(value, str):
            if path.startswith(RULEBOOKS) and key == "condition":
                return  # ansible-rulebook's own condition language, not Jinja
            if key in CONDITIONALS and not path.startswith(RULEBOOKS):
                found.append((where, "expression", value))
            elif "{{" in value or "{%" in value:
                found.append((where, "text", value))
            if isinstance(key, str) and key.split(".")[-1] in CODE_LOADERS:
                found.append((where, "loader", value))

    for number, document in enumerate(yaml.load_all(text, Loader=_Loader)):
        walk(document, "%s#%d" % (path, number))
        for task in _tasks(document):
            for module in TEMPLATE_MODULES & set(task):
                args = task[module]
                if isinstance(args, dict) and isinstance(args.get("src"), str):
                    found.append(("%s#%d %s src" % (path, number, module), "template_src", args["src"]))
    return found


def artifact_kinds(files):
    """The kinds of artifact the tree hands on: broadcast_monitoring_<kind> in a set_stats' data."""
    kinds = set()
    for path, text in files.items():
        if path.endswith(".j2"):
            continue
        for document in yaml.load_all(text, Loader=_Loader):
            for task in _tasks(document):
                for module in ("set_stats", "ansible.builtin.set_stats"):
                    if isinstance(task.get(module), dict):
                        kinds.update(re.findall(r"'broadcast_monitoring_([a-z]+)'", str(task[module].get("data"))))
    return kinds


class Rules:
    def __init__(self, kinds):
        self.kinds = sorted(kinds)
        self.bases = ["ansible_eda"] + ["broadcast_monitoring_" + kind for kind in self.kinds]
        self.pattern = re.compile(r"^(ansible_eda|broadcast_monitoring_(%s)(_[0-9]+)?)$" % "|".join(self.kinds))

    def outside(self, name):
        return isinstance(name, str) and bool(self.pattern.match(name))

    def name_may_be_outside(self, node):
        """Whether the computed variable name ``node`` may name outside data: a constant that does, or
        anything but a text ending in a fixed suffix no outside-data name ends with."""
        if isinstance(node, nodes.Const):
            return self.outside(node.value)
        suffix = _suffix(node)
        if not suffix or suffix[-1].isdigit():
            return True
        return any(base.endswith(suffix) for base in self.bases)

    def check(self, where, kind, text, rulebook=False):
        """The problems of one template, as sentences."""
        problems = []
        if kind == "expression":
            if "{{" in text or "{%" in text:
                return ["%s: a conditional holding {{ }} is templated twice: write the bare expression" % where]
            text = "{{ (%s) }}" % text
        if kind in ("loader", "template_src"):
            tree = _parse(text)
            if tree is None:
                return ["%s: cannot be parsed as Jinja" % where]
            parts = list(tree.find_all(nodes.Output))
            items = [n for p in parts for n in p.nodes]
            if kind == "template_src":
                if not (items and isinstance(items[0], nodes.TemplateData) and isinstance(items[-1], nodes.TemplateData)
                        and items[-1].data.endswith(".j2")):
                    problems.append("%s: a template from a computed path (%r): only our own .j2 files are templates"
                                    % (where, text))
            elif len(items) != 1 or not isinstance(items[0], nodes.TemplateData):
                problems.append("%s: tasks or variables loaded from a computed path (%r)" % (where, text))
            return problems
        tree = _parse(text)
        if tree is None:
            return ["%s: cannot be parsed as Jinja: %r" % (where, text[:80])]
        readers = set()
        for call in tree.find_all(nodes.Call):
            plugin = _lookup_name(call)
            if plugin in READER:
                readers.update(id(arg) for arg in call.args)
            elif plugin in VARS_LOOKUPS:
                for term in call.args[1:]:
                    if self.name_may_be_outside(term):
                        problems.append("%s: ansible.builtin.vars of a name that may be outside data templates it: "
                                        "use the broadcast.monitoring.outside_data lookup" % where)
            elif plugin in TEMPLATE_LOOKUPS:
                term = call.args[1] if len(call.args) > 1 else None
                if not (isinstance(term, nodes.Const) and isinstance(term.value, str) and term.value.endswith(".j2")):
                    problems.append("%s: a template lookup of a computed path: only our own .j2 files are templates"
                                    % where)
        for name in tree.find_all(nodes.Name):
            if self.outside(name.name) or (rulebook and name.name in ("event", "events")):
                problems.append("%s: names %s directly: read it with lookup('broadcast.monitoring.outside_data', %r)"
                                % (where, name.name, name.name) if not rulebook else
                                "%s: puts the event (%s) into the playbook's variables: it reaches playbooks as "
                                "ansible_eda only" % (where, name.name))
        for attr in tree.find_all(nodes.Getattr):
            if self.outside(attr.attr):
                problems.append("%s: reads %s as an attribute: use the outside_data lookup" % (where, attr.attr))
        for item in tree.find_all(nodes.Getitem):
            if id(item.arg) in readers:
                continue
            by_name = isinstance(item.node, nodes.Name) and item.node.name == "vars" or (
                isinstance(item.node, nodes.Getitem) and isinstance(item.node.node, nodes.Name)
                and item.node.node.name == "hostvars")
            if (by_name and self.name_may_be_outside(item.arg)) or (
                    isinstance(item.arg, nodes.Const) and self.outside(item.arg.value)):
                problems.append("%s: reads a variable by a name that may be outside data: use the outside_data lookup"
                                % where)
        return problems


def _parse(text):
    try:
        return ENV.parse(text)
    except jinja2.TemplateSyntaxError:
        return None


def _lookup_name(call):
    if isinstance(call.node, nodes.Name) and call.node.name in LOOKUPS and call.args:
        first = call.args[0]
        if isinstance(first, nodes.Const) and isinstance(first.value, str):
            return first.value
    return None


def _suffix(node):
    """The fixed text a computed string ends with, or None."""
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        return node.value
    if isinstance(node, nodes.Concat) and node.nodes:
        return _suffix(node.nodes[-1])
    if isinstance(node, nodes.Add):
        return _suffix(node.right)
    return None


def problems_in(files, kinds=None):
    rules = Rules(kinds if kinds is not None else artifact_kinds(files))
    problems = []
    for path, text in files.items():
        for where, kind, template in templates_of(path, text):
            problems.extend(rules.check(where, kind, template, rulebook=path.startswith(RULEBOOKS)))
    return problems


@pytest.fixture(scope="module")
def tree():
    files = {}
    for path in tree_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            files[path] = handle.read()
    return files


def test_the_artifacts_the_tree_hands_on_are_known(tree):
    assert {"audit", "rollout", "validation"} <= artifact_kinds(tree)


def test_outside_text_reaches_templates_only_through_the_outside_data_lookup(tree):
    assert len(tree) > 50  # the whole tree was read
    problems = problems_in(tree)
    assert not problems, "\n".join(problems)


KINDS = {"audit", "rollout", "validation"}
#: each rule, broken as the tree once broke it or as it could: (file, text)
BROKEN = {
    "event by name": ("playbooks/x.yml", "- hosts: all\n  tasks:\n    - broadcast.monitoring.ts_recording:\n"
                                         "        input: \"{{ ansible_eda.event.object.name }}\"\n"),
    "event in play vars": ("playbooks/x.yml", "- hosts: all\n  vars:\n    eda_object: \"{{ ansible_eda.event.object }}\"\n"),
    "event through hostvars": ("playbooks/x.yml", "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n"
                                                  "        msg: \"{{ hostvars[inventory_hostname].ansible_eda }}\"\n"),
    "event through vars[]": ("playbooks/x.yml", "- hosts: all\n  tasks:\n    - ansible.builtin.debug:\n"
                                                "        msg: \"{{ vars['ansible_eda'] }}\"\n"),
    "artifact by name": ("roles/x/tasks/main.yml", "- ansible.builtin.debug:\n"
                                                   "    msg: \"{{ broadcast_monitoring_audit_12 }}\"\n"),
    "artifact through the vars lookup": ("playbooks/templates/x.j2",
                                         "{% set _ = merged.update(lookup('ansible.builtin.vars', pair[1])) %}"),
    "artifact through a computed vars[]": ("playbooks/templates/x.j2", "{{ vars['broadcast_monitoring_' ~ kind] }}"),
    "event into a rulebook's extra vars": ("extensions/eda/rulebooks/x.yml",
                                           "- name: r\n  rules:\n    - condition: event.kind == \"x\"\n      action:\n"
                                           "        run_playbook:\n          extra_vars:\n"
                                           "            name: \"{{ event.object.name }}\"\n"),
    "a templated conditional": ("roles/x/tasks/main.yml", "- ansible.builtin.debug:\n  when: \"{{ r.name }} == 'x'\"\n"),
    "a template from a computed path": ("roles/x/tasks/main.yml", "- ansible.builtin.template:\n"
                                        "    src: \"{{ result.dest }}\"\n    dest: out.txt\n"),
    "a template lookup of a computed path": ("playbooks/x.yml", "- hosts: all\n  vars:\n"
                                             "    x: \"{{ lookup('ansible.builtin.template', result.dest) }}\"\n"),
    "vars from a computed path": ("roles/x/tasks/main.yml", "- ansible.builtin.include_vars: \"{{ backup.dest }}\"\n"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_each_rule_can_fail(case):
    path, text = BROKEN[case]
    assert problems_in({path: text}, KINDS), "not caught: %s" % case


def test_what_the_tree_does_passes():
    """The sanctioned forms: the lookup, the role's own connection variables by suffix, our own templates."""
    good = {
        "playbooks/x.yml": "- hosts: all\n  vars:\n"
                           "    eda_event: \"{{ lookup('broadcast.monitoring.outside_data', 'ansible_eda').event }}\"\n"
                           "  tasks:\n    - ansible.builtin.template:\n        src: \"report.{{ item }}.j2\"\n"
                           "        dest: out\n      when: eda_event.object is not none\n",
        "roles/x/tasks/main.yml": "- ansible.builtin.debug:\n"
                                  "    msg: \"{{ lookup('ansible.builtin.vars', x__prefix ~ '_host', default=1) }}\"\n",
        "playbooks/templates/x.j2": "{% set _ = merged.update(lookup('broadcast.monitoring.outside_data', pair[1])) %}",
    }
    assert problems_in(good, KINDS) == []

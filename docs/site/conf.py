# Copyright (c) Ansible Project
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later

# Created with antsibull-docs 2.28.0

# This file only contains a selection of the most common options. For a full list see the
# documentation:
# http://www.sphinx-doc.org/en/master/config

project = 'broadcast.monitoring'
copyright = 'broadcast.monitoring contributors'

title = 'broadcast.monitoring'
html_short_title = 'broadcast.monitoring'

extensions = ['sphinx.ext.autodoc', 'sphinx.ext.intersphinx', 'sphinx_antsibull_ext']

pygments_style = 'ansible'

highlight_language = 'YAML+Jinja'

html_theme = 'sphinx_ansible_theme'
html_show_sphinx = False

display_version = False

html_use_smartypants = True
html_use_modindex = False
html_use_index = False
html_copy_source = False

# See https://www.sphinx-doc.org/en/master/usage/extensions/intersphinx.html#confval-intersphinx_mapping for the syntax
intersphinx_mapping = {
    'python': ('https://docs.python.org/2/', (None, '../python2.inv')),
    'python3': ('https://docs.python.org/3/', (None, '../python3.inv')),
    'jinja2': ('http://jinja.palletsprojects.com/', (None, '../jinja2.inv')),
    'ansible_devel': ('https://docs.ansible.com/projects/ansible/devel/', (None, '../ansible_devel.inv')),
    # If you want references to resolve to a released Ansible version (say, `5`), uncomment and replace X by this version:
    # 'ansibleX': ('https://docs.ansible.com/projects/ansible/X/', (None, '../ansibleX.inv')),
}

# Offline builds (`make docs`, CI machines without internet) cannot fetch the inventories:
# DOCS_OFFLINE=1 empties the mapping, so links into docs.ansible.com render as plain text.
import os  # noqa: E402  pylint: disable=wrong-import-position

if os.environ.get('DOCS_OFFLINE'):
    intersphinx_mapping = {}

# The generated pages refer to a few labels of the Ansible documentation. Offline, without
# intersphinx, they resolve to these fixed addresses; any other missing label still warns
# (and fails the build, which runs with -W).
ANSIBLE_DOCS = 'https://docs.ansible.com/ansible/latest/'
EXTERNAL_LABELS = {
    'common_return_values': ANSIBLE_DOCS + 'reference_appendices/common_return_values.html',
    'ansible_configuration_settings': ANSIBLE_DOCS + 'reference_appendices/config.html',
    'action_plugins': ANSIBLE_DOCS + 'plugins/action.html',
}


def _external_label(app, env, node, contnode):  # pylint: disable=unused-argument
    from docutils import nodes  # pylint: disable=import-outside-toplevel

    uri = EXTERNAL_LABELS.get(node.get('reftarget'))
    if uri is None or node.get('reftype') not in ('ref', 'any'):
        return None
    return nodes.reference('', '', contnode, internal=False, refuri=uri)


def setup(app):
    app.connect('missing-reference', _external_label)


default_role = 'any'

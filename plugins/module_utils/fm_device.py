# -*- coding: utf-8 -*-
# Copyright: broadcast.monitoring contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every path and response shape of the FM monitoring receiver that modules use.

Where the interface document says "not shown", the shapes here are the ones chosen and
documented in tests/simulator/README.md; meeting a real device means changing this file.
"""

from __future__ import annotations

# keep_logged_in: one token serves a whole play (roles hand it to every module)
LOGIN = ("/api/login", {"keep_logged_in": True})

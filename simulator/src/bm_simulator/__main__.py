"""python -m bm_simulator: the bm-simulator command."""

import sys

from .cli import main

sys.exit(main())

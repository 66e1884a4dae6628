"""Where the bundled KB and rules live.

In a checkout they sit beside ``engine/``; in an installed distribution they are shipped inside the
``gpukb`` package (``gpukb/kb``, ``gpukb/rules``), again beside ``engine``. ``GPUKB_KB`` and
``GPUKB_RULES`` point elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUNDLED_KB = ROOT / "kb"
BUNDLED_RULES = ROOT / "rules"
DEFAULT_KB = Path(os.environ.get("GPUKB_KB") or BUNDLED_KB)
DEFAULT_RULES = Path(os.environ.get("GPUKB_RULES") or BUNDLED_RULES)

"""Task loops, the record pipeline and the worker run in this process, on an embedded log of their own."""

from __future__ import annotations

import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]

# Task classes are named by dotted path (`tests.runtime.tasks:...`), as a worker names them.
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))

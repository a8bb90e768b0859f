"""What `GET /` reports about this worker: Conveyor's version and the commit it was built from."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import conveyor

UNKNOWN_COMMIT = "unknown"


def version() -> str:
    return conveyor.__version__


@functools.cache
def commit_id() -> str:
    """The source checkout's commit (16 hex digits, as Kafka reports), or "unknown" outside a checkout."""
    try:
        completed = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=Path(conveyor.__file__).parent,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return UNKNOWN_COMMIT
    return completed.stdout.strip()[:16] or UNKNOWN_COMMIT

"""The memory a process holds: what a task's status shows of the executor process that runs it."""

from __future__ import annotations

import os

_PAGE_BYTES = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes(pid: int | None = None) -> int | None:
    """The resident set size (RSS) in bytes of `pid` (this process by default); None where `/proc` does
    not tell it."""
    try:
        with open(f"/proc/{'self' if pid is None else pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_BYTES
    except (OSError, ValueError, IndexError):
        return None

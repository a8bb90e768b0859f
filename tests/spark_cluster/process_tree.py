"""Processes by parentage, read from /proc: what runs under a Spark worker, and killing all of it."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (entry / "stat").read_text()
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return parents


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid``, children before grandchildren."""
    parents = _parents()
    found: list[int] = []
    frontier = [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found.extend(children)
        frontier = children
    return found


def kill_tree(pid: int) -> list[int]:
    """SIGKILL ``pid`` and everything below it (found first, so that none is re-parented away)."""
    victims = [pid, *descendants(pid)]
    for victim in victims:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)
    return victims

"""Waiting in tests for what happens on other threads and processes: for a condition, never for a time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    condition: Callable[[], T | None], what: str, timeout_s: float = 30.0, every_s: float = 0.05
) -> T:
    """The first truthy value of `condition()`, polled every `every_s` until `timeout_s`; fails naming `what`.

    The deadline only bounds a test that would otherwise hang: it is generous, and nothing is asserted of
    how long the wait took.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(every_s)

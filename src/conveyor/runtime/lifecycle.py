"""The shape every task loop's run shares: loop, then a final commit only after a clean end, then release."""

from __future__ import annotations

from collections.abc import Callable, Sequence


def run_task_loop(
    loop: Callable[[], None], finish: Callable[[], None], release: Sequence[Callable[[], None]]
) -> None:
    """Run `loop`; if it returned (a stop, not a failure) run `finish`; then, whatever happened, each
    `release` step in order. A failure propagates after the release, so the task is reported FAILED."""
    failed = True
    try:
        loop()
        failed = False
    finally:
        try:
            if not failed:
                finish()
        finally:
            for step in release:
                step()

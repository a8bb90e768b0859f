"""The garbage collector's pace in a process whose task loops move records by the thousand."""

from __future__ import annotations

import gc

YOUNG_GENERATION_THRESHOLD = 50_000
"""Net allocations between two collections of the young generation (CPython's default is 700)."""


def collect_less_often() -> None:
    """Raise the young generation's threshold to `YOUNG_GENERATION_THRESHOLD`; never lower it.

    A task loop allocates objects by the record, a batch of thousands at a time, so at CPython's
    default the collector ran a few times per batch, walked the batch in flight each time and moved it
    into older generations whose collections walk far more: a quarter of the loop's CPU time, measured.
    A sink loop's consumer does the same with a message object and a list of headers per record.
    Cycles are still collected, a few batches later. A threshold of 0 (collection turned off) is kept.
    """
    young, middle, old = gc.get_threshold()
    if 0 < young < YOUNG_GENERATION_THRESHOLD:
        gc.set_threshold(YOUNG_GENERATION_THRESHOLD, middle, old)

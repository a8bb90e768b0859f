"""Waiting until a committed or aborted transaction's markers are written (DescribeTransactions v0).

Kafka's coordinator acknowledges ``EndTxn`` once it has decided, and writes the markers that make the
outcome visible (records to read_committed readers, offsets to their group) a moment later. The log's
interface promises visibility when ``commit_transaction`` returns, so the producer waits for it here.
"""

from __future__ import annotations

import time

from conveyor.log.kafka.coordinators import NOT_AVAILABLE, TRANSACTION, Coordinators
from conveyor.log.kafka.wire import Writer

DESCRIBE_TRANSACTIONS = 65
_PREPARED = frozenset({"PrepareCommit", "PrepareAbort", "PrepareEpochFence"})
_WAIT_S = 30.0
_FIRST_LOOK_S = 0.001
"""About how long the markers of a commit or abort take to be written (median 0.85-1.0 ms after the commit
returned, on one broker): the first look comes that long after the decision. A look at once nearly always
found them on their way and cost a request."""
_LOOK_EVERY_S = 0.002
"""When the first look missed them: the next comes 2 ms after the decision, and then every 2 ms, as when
the first look came at 2 ms."""
_LOOK_AGAIN_S = 0.0005
"""The least time between the first look and the second, when the first came late."""


def transaction_state(coordinators: Coordinators, transactional_id: str) -> str | None:
    """The coordinator's state of the id (``Ongoing``, ``PrepareCommit``, ``CompleteCommit``, ...)."""
    body = (
        Writer()
        .compact_array([transactional_id], lambda w, t: w.compact_string(t))  # type: ignore[arg-type]
        .no_tagged_fields()
        .build()
    )
    reader = coordinators.call(transactional_id, TRANSACTION, DESCRIBE_TRANSACTIONS, 0, body, flexible=True)
    reader.int32()
    state: str | None = None
    for _ in range(reader.compact_count()):
        error = reader.int16()
        reader.compact_string()
        state = reader.compact_string()
        if error in NOT_AVAILABLE:
            coordinators.forget(transactional_id, TRANSACTION)
            return "PrepareCommit"
        if error:
            return None
    return state


def wait_until_completed(
    coordinators: Coordinators, transactional_id: str, decided_at: float | None = None
) -> None:
    """Return once the id's last transaction is no longer between its decision and its markers.

    ``decided_at`` (``time.monotonic()``) is when the coordinator acknowledged the commit or abort: the
    first look comes ``_FIRST_LOOK_S`` after it, at once when that has passed already."""
    now = time.monotonic()
    deadline = now + _WAIT_S
    decided = now if decided_at is None else decided_at
    _sleep_until(decided + _FIRST_LOOK_S)
    if transaction_state(coordinators, transactional_id) not in _PREPARED:
        return
    _sleep_until(max(decided + _LOOK_EVERY_S, time.monotonic() + _LOOK_AGAIN_S))
    while transaction_state(coordinators, transactional_id) in _PREPARED and time.monotonic() < deadline:
        time.sleep(_LOOK_EVERY_S)


def _sleep_until(moment: float) -> None:
    pause = moment - time.monotonic()
    if pause > 0:
        time.sleep(pause)

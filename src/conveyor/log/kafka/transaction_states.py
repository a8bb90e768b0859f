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
_LOOK_EVERY_S = 0.002
"""How long the markers of a commit or abort take to be written, give or take: the first look waits that
long, since a look at once found them still on their way nearly every time and cost a request."""


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
    first look comes ``_LOOK_EVERY_S`` after it, at once when that has passed already."""
    now = time.monotonic()
    deadline = now + _WAIT_S
    first_look = (now if decided_at is None else decided_at) + _LOOK_EVERY_S
    if first_look > now:
        time.sleep(first_look - now)
    while transaction_state(coordinators, transactional_id) in _PREPARED and time.monotonic() < deadline:
        time.sleep(_LOOK_EVERY_S)

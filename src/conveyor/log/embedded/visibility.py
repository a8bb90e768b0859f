"""Keeping last stable offsets moving: abort transactions that outlived their timeout before reading."""

from __future__ import annotations

from conveyor.log.embedded import transactions
from conveyor.log.embedded.database import Database, now_ms


def abort_expired_if_any(database: Database) -> int:
    """Abort timed-out transactions, taking the write lock only when a read shows there are some."""
    now = now_ms()
    with database.read() as conn:
        if not transactions.has_expired_transactions(conn, now):
            return 0
    with database.write() as conn:
        return transactions.abort_expired_transactions(conn, now)

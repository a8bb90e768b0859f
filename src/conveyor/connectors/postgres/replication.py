"""The logical replication connection: creating the slot, streaming ``pgoutput`` from it, and telling the
server how far Conveyor has durably written (only then may it discard the WAL)."""

from __future__ import annotations

import contextlib
import select
from dataclasses import dataclass

import psycopg2
import psycopg2.extras
from psycopg2 import sql

from conveyor.connectors.postgres.catalog import CaptureError
from conveyor.connectors.postgres.connection import (
    PostgresAddress,
    PostgresConnectionError,
    connect,
    first_line,
)
from conveyor.connectors.postgres.pgoutput import Message, decode, parse_lsn


@dataclass(frozen=True)
class CreatedSlot:
    """A new slot: it streams every transaction that commits after ``consistent_point``; ``snapshot`` names
    the exported snapshot that sees exactly the transactions committed before it."""

    consistent_point: int
    snapshot: str | None


class ReplicationStream:
    """One replication connection for one slot; all calls from one thread."""

    def __init__(
        self, address: PostgresAddress, slot: str, publication: str, status_interval_s: float
    ) -> None:
        self.slot = slot
        self.publication = publication
        self.status_interval_s = status_interval_s
        self._connection = connect(address, replication=True, application_name=f"conveyor-{slot}")
        self._cursor: psycopg2.extras.ReplicationCursor = self._connection.cursor()
        self._started = False
        self.flushed_lsn = 0

    def create_slot(self, *, export_snapshot: bool, temporary: bool = False) -> CreatedSlot:
        """Create the slot; with ``export_snapshot`` the snapshot stays importable until the next command
        on this connection (so import it before :meth:`start`). A ``temporary`` slot goes with the
        connection."""
        mode = "EXPORT_SNAPSHOT" if export_snapshot else "NOEXPORT_SNAPSHOT"
        kind = "TEMPORARY LOGICAL" if temporary else "LOGICAL"
        command = sql.SQL(f"CREATE_REPLICATION_SLOT {{}} {kind} pgoutput {mode}").format(
            sql.Identifier(self.slot)
        )
        try:
            self._cursor.execute(command)
        except psycopg2.Error as error:
            raise CaptureError(
                f"Could not create replication slot {self.slot}: {first_line(error)}. The user needs the "
                "REPLICATION attribute, and max_replication_slots must leave a slot free"
            ) from error
        row = self._cursor.fetchone()
        assert row is not None
        return CreatedSlot(parse_lsn(row[1]), row[2])

    def start(self, start_lsn: int) -> None:
        """Stream from the slot: the server resumes at its confirmed position or ``start_lsn``, whichever is
        later."""
        try:
            self._cursor.start_replication(
                slot_name=self.slot,
                slot_type=psycopg2.extras.REPLICATION_LOGICAL,
                start_lsn=start_lsn,
                options={"proto_version": "1", "publication_names": self.publication},
                decode=False,
                status_interval=max(1.0, self.status_interval_s),
            )
        except psycopg2.Error as error:
            message = first_line(error)
            hint = (
                "another connection holds the slot: give this connector its own slot.name, or stop the "
                "other one"
                if "is active for PID" in message
                else "check that the slot and the publication exist and that the user may replicate"
            )
            raise CaptureError(
                f"Could not stream from replication slot {self.slot}: {message}; {hint}"
            ) from error
        self._started = True

    @property
    def started(self) -> bool:
        return self._started

    def read(self, timeout_s: float) -> tuple[int, Message] | None:
        """The next message and the WAL position it starts at, waiting up to ``timeout_s``; None if none.

        A broken connection (the server restarting, the walsender ended) is a ``PostgresConnectionError``,
        whatever psycopg2 calls it."""
        try:
            message = self._cursor.read_message()
            if message is None:
                ready, _, _ = select.select([self._connection], [], [], timeout_s)
                if not ready:
                    return None
                message = self._cursor.read_message()
                if message is None:
                    return None
        except psycopg2.DatabaseError as error:
            raise PostgresConnectionError(
                f"The replication connection of slot {self.slot} broke: {first_line(error)}"
            ) from error
        return int(message.data_start), decode(bytes(message.payload))

    def confirm(self, lsn: int) -> None:
        """Everything before ``lsn`` is durably written downstream: the server may discard that WAL."""
        if lsn > self.flushed_lsn:
            self.flushed_lsn = lsn
            if self._started:
                self._cursor.send_feedback(write_lsn=lsn, flush_lsn=lsn, apply_lsn=lsn, force=True)

    def close(self) -> None:
        with contextlib.suppress(psycopg2.Error):
            self._connection.close()

"""A database of its own for each test module on the session's PostgreSQL server."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.waiting import wait_until

from conveyor.connectors.postgres.connection import PostgresAddress, connect
from conveyor.postgres_server import PostgresServer


def address(server: PostgresServer, dbname: str) -> PostgresAddress:
    return PostgresAddress(server.host, server.port, dbname, server.user, server.password)


@contextmanager
def fresh_database(server: PostgresServer, prefix: str = "cdc") -> Iterator[PostgresAddress]:
    """A new, empty database; dropped (with any slot left in it) on the way out."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = connect(address(server, "postgres"), autocommit=True)
    try:
        admin.cursor().execute(f"CREATE DATABASE {name}")
        yield address(server, name)
        cursor = admin.cursor()

        def slots_dropped() -> bool:
            cursor.execute(
                "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots "
                "WHERE database = %s AND active_pid IS NOT NULL",
                (name,),
            )
            cursor.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                "WHERE database = %s AND active_pid IS NULL",
                (name,),
            )
            cursor.execute("SELECT count(*) FROM pg_replication_slots WHERE database = %s", (name,))
            row = cursor.fetchone()
            return row is not None and row[0] == 0

        wait_until(slots_dropped, f"the replication slots of {name} to be dropped", 60)
        cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        admin.close()


def execute(target: PostgresAddress, *statements: str, params: Any = None) -> None:
    """Run ``statements`` in one transaction, committed."""
    connection = connect(target)
    try:
        with connection, connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement, params)
    finally:
        connection.close()


def query(target: PostgresAddress, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
    connection = connect(target)
    try:
        with connection, connection.cursor() as cursor:
            cursor.execute(statement, params)
            return list(cursor.fetchall())
    finally:
        connection.close()

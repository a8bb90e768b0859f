"""The embedded database hands each thread its own connection, does not keep those of finished threads, and
never closes a connection another thread is using."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from conveyor.log.embedded.database import Database


def read_once(database: Database) -> None:
    with database.read() as conn:
        conn.execute("SELECT count(*) FROM topics").fetchone()


def test_connections_of_finished_threads_are_closed(tmp_path: Path) -> None:
    database = Database(tmp_path)
    for _ in range(20):
        thread = threading.Thread(target=read_once, args=(database,))
        thread.start()
        thread.join()
    read_once(database)
    assert database.connection_count <= 2
    database.close()


def test_each_thread_gets_its_own_connection(tmp_path: Path) -> None:
    database = Database(tmp_path)
    seen = []
    thread = threading.Thread(target=lambda: seen.append(database.connection()))
    thread.start()
    thread.join()
    assert seen[0] is not database.connection()
    database.close()


def test_closing_the_database_leaves_another_threads_transaction_to_finish(tmp_path: Path) -> None:
    database = Database(tmp_path)
    inside, closed = threading.Event(), threading.Event()
    counted: list[int] = []

    def read_across_the_close() -> None:
        with database.read() as conn:
            inside.set()
            closed.wait()
            counted.append(conn.execute("SELECT count(*) FROM topics").fetchone()[0])

    thread = threading.Thread(target=read_across_the_close)
    thread.start()
    inside.wait()
    database.close()
    closed.set()
    thread.join()
    assert counted == [0]


def test_a_connection_left_open_by_close_is_closed_when_its_thread_asks_for_another(tmp_path: Path) -> None:
    database = Database(tmp_path)
    held, closed = threading.Event(), threading.Event()
    seen: list[str] = []

    def hold_across_the_close() -> None:
        first = database.connection()
        held.set()
        closed.wait()
        second = database.connection()
        try:
            first.execute("SELECT 1")
        except sqlite3.ProgrammingError:
            seen.append("first closed")
        seen.append("second open" if second.execute("SELECT 1").fetchone() == (1,) else "second closed")

    thread = threading.Thread(target=hold_across_the_close)
    thread.start()
    held.wait()
    database.close()
    assert database.connection_count == 1
    closed.set()
    thread.join()
    assert seen == ["first closed", "second open"]
    database.close()

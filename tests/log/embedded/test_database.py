"""The embedded database hands each thread its own connection and does not keep those of finished threads."""

from __future__ import annotations

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

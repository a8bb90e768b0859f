"""The pgoutput decoder reads the messages a real PostgreSQL writes for real changes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from tests.connectors.postgres.databases import execute, fresh_database, query

from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.connectors.postgres.pgoutput import (
    UNCHANGED_TOAST,
    Begin,
    Commit,
    Delete,
    Insert,
    Message,
    PgOutputError,
    Relation,
    Truncate,
    TypeMessage,
    Update,
    decode,
    format_lsn,
    parse_lsn,
)
from conveyor.postgres_server import PostgresServer


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "pgoutput") as target:
        execute(target, "CREATE PUBLICATION everything FOR ALL TABLES")
        yield target


@pytest.fixture
def slot(database: PostgresAddress) -> Iterator[str]:
    name = f"decoder_{uuid.uuid4().hex[:8]}"
    execute(database, f"SELECT pg_create_logical_replication_slot('{name}', 'pgoutput')")
    yield name
    execute(database, f"SELECT pg_drop_replication_slot('{name}')")


def messages(database: PostgresAddress, slot: str) -> list[tuple[int, Message]]:
    """Every message the slot holds so far, decoded, with its LSN."""
    rows = query(
        database,
        "SELECT lsn - '0/0'::pg_lsn, data FROM pg_logical_slot_get_binary_changes("
        "%s, NULL, NULL, 'proto_version', '1', 'publication_names', 'everything')",
        (slot,),
    )
    return [(int(lsn), decode(bytes(data))) for lsn, data in rows]


def kinds(decoded: list[tuple[int, Message]]) -> list[str]:
    return [type(message).__name__ for _, message in decoded]


def test_an_insert_is_a_transaction_with_the_table_s_relation_and_the_new_row(
    database: PostgresAddress, slot: str
) -> None:
    execute(database, "CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(8,2))")
    execute(database, "INSERT INTO items VALUES (1, 'pen', 1.50), (2, NULL, 3)")
    decoded = messages(database, slot)
    assert kinds(decoded) == ["Begin", "Relation", "Insert", "Insert", "Commit"]
    begin, relation, first, second, commit = (message for _, message in decoded)
    assert isinstance(begin, Begin) and isinstance(commit, Commit)
    assert begin.final_lsn == commit.commit_lsn < commit.end_lsn
    assert begin.commit_time_us == commit.commit_time_us
    assert isinstance(relation, Relation)
    assert (relation.namespace, relation.name, relation.replica_identity) == ("public", "items", "d")
    assert [(c.name, c.type_oid, c.part_of_key) for c in relation.columns] == [
        ("id", 23, True),
        ("name", 25, False),
        ("price", 1700, False),
    ]
    assert relation.columns[2].type_modifier == ((8 << 16) | 2) + 4
    assert first == Insert(relation.oid, ("1", "pen", "1.50"))
    assert second == Insert(relation.oid, ("2", None, "3.00"))


def test_an_update_of_the_key_carries_the_old_key(database: PostgresAddress, slot: str) -> None:
    execute(database, "CREATE TABLE keyed (id int PRIMARY KEY, v text)", "INSERT INTO keyed VALUES (1, 'a')")
    messages(database, slot)
    execute(database, "UPDATE keyed SET v = 'b' WHERE id = 1", "UPDATE keyed SET id = 2 WHERE id = 1")
    updates = [message for _, message in messages(database, slot) if isinstance(message, Update)]
    assert [(u.old, u.old_is_key, u.new) for u in updates] == [
        (None, False, ("1", "b")),
        (("1", None), True, ("2", "b")),
    ]


def test_replica_identity_full_sends_the_whole_old_row(database: PostgresAddress, slot: str) -> None:
    execute(
        database,
        "CREATE TABLE full_rows (id int PRIMARY KEY, v text)",
        "ALTER TABLE full_rows REPLICA IDENTITY FULL",
    )
    execute(database, "INSERT INTO full_rows VALUES (1, 'a')")
    execute(database, "UPDATE full_rows SET v = 'b'", "DELETE FROM full_rows")
    decoded = [message for _, message in messages(database, slot)]
    update = next(m for m in decoded if isinstance(m, Update))
    delete = next(m for m in decoded if isinstance(m, Delete))
    assert (update.old, update.old_is_key) == (("1", "a"), False)
    assert (delete.old, delete.old_is_key) == (("1", "b"), False)


def test_a_delete_carries_the_old_key(database: PostgresAddress, slot: str) -> None:
    execute(database, "CREATE TABLE gone (id int PRIMARY KEY, v text)", "INSERT INTO gone VALUES (7, 'x')")
    messages(database, slot)
    execute(database, "DELETE FROM gone WHERE id = 7")
    delete = next(m for _, m in messages(database, slot) if isinstance(m, Delete))
    assert (delete.old, delete.old_is_key) == (("7", None), True)


def test_an_unchanged_toasted_value_is_marked_as_not_sent(database: PostgresAddress, slot: str) -> None:
    execute(database, "CREATE TABLE big (id int PRIMARY KEY, doc text, n int)")
    execute(database, "ALTER TABLE big ALTER COLUMN doc SET STORAGE EXTERNAL")
    execute(database, "INSERT INTO big VALUES (1, repeat('x', 100000), 0)")
    messages(database, slot)
    execute(database, "UPDATE big SET n = 1")
    update = next(m for _, m in messages(database, slot) if isinstance(m, Update))
    assert update.new == ("1", UNCHANGED_TOAST, "1")


def test_truncate_names_every_table(database: PostgresAddress, slot: str) -> None:
    execute(database, "CREATE TABLE t1 (id int PRIMARY KEY)", "CREATE TABLE t2 (id int PRIMARY KEY)")
    execute(database, "TRUNCATE t1, t2 RESTART IDENTITY")
    truncate = next(m for _, m in messages(database, slot) if isinstance(m, Truncate))
    oids = {row[0] for row in query(database, "SELECT oid FROM pg_class WHERE relname IN ('t1', 't2')")}
    assert set(truncate.relation_oids) == oids
    assert truncate.restart_identity and not truncate.cascade


def test_a_column_of_a_user_type_is_preceded_by_its_type(database: PostgresAddress, slot: str) -> None:
    execute(
        database,
        "CREATE TYPE colour AS ENUM ('red', 'green')",
        "CREATE TABLE paint (id int PRIMARY KEY, c colour)",
    )
    execute(database, "INSERT INTO paint VALUES (1, 'green')")
    decoded = [m for _, m in messages(database, slot)]
    type_message = next(m for m in decoded if isinstance(m, TypeMessage))
    assert (type_message.namespace, type_message.name) == ("public", "colour")
    assert next(m for m in decoded if isinstance(m, Insert)).new == ("1", "green")


def test_a_new_column_gives_a_new_relation_message(database: PostgresAddress, slot: str) -> None:
    execute(database, "CREATE TABLE grows (id int PRIMARY KEY)", "INSERT INTO grows VALUES (1)")
    execute(database, "ALTER TABLE grows ADD COLUMN extra text", "INSERT INTO grows VALUES (2, 'e')")
    relations = [m for _, m in messages(database, slot) if isinstance(m, Relation)]
    assert [[c.name for c in r.columns] for r in relations] == [["id"], ["id", "extra"]]


def test_changes_of_one_transaction_have_increasing_lsns(database: PostgresAddress, slot: str) -> None:
    execute(database, "CREATE TABLE seq (id int PRIMARY KEY)")
    execute(
        database, "INSERT INTO seq VALUES (1)", "INSERT INTO seq VALUES (2)", "DELETE FROM seq WHERE id = 1"
    )
    lsns = [lsn for lsn, m in messages(database, slot) if isinstance(m, Insert | Delete)]
    assert lsns == sorted(lsns) and len(set(lsns)) == 3


def test_unknown_and_truncated_messages_are_errors() -> None:
    with pytest.raises(PgOutputError, match="Unknown pgoutput message type 'Z'"):
        decode(b"Z")
    with pytest.raises(PgOutputError, match="malformed"):
        decode(b"B\x00\x00")


def test_lsns_read_and_write_as_postgresql_prints_them() -> None:
    assert parse_lsn("16/B374D848") == 0x16B374D848
    assert format_lsn(0x16B374D848) == "16/B374D848"

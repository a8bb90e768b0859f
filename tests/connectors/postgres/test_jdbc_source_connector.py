"""The JDBC source connector checks its config, lists and spreads tables, and takes Confluent's offsets."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from tests.connectors.postgres.databases import execute, fresh_database
from tests.connectors.postgres.jdbc_support import jdbc_config, task_configs

from conveyor.api import ConnectError, ConnectorContext, ExactlyOnceSupport
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.connectors.postgres.jdbc_source import JdbcSourceConnector
from conveyor.connectors.postgres.jdbc_tables import parse_tables
from conveyor.postgres_server import PostgresServer

WAIT_S = 60.0


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "jdbcconn") as target:
        execute(
            target,
            "CREATE TABLE alpha (id serial PRIMARY KEY, ts timestamp NOT NULL DEFAULT now())",
            "CREATE TABLE beta (id serial PRIMARY KEY, ts timestamp NOT NULL DEFAULT now())",
            "CREATE TABLE gamma (id int, ts timestamp)",
            "CREATE SCHEMA other",
            "CREATE TABLE other.alpha (id serial PRIMARY KEY)",
            "CREATE VIEW alpha_view AS SELECT * FROM alpha",
        )
        yield target


def errors(config: dict[str, str]) -> dict[str, list[str]]:
    """The validation errors by key."""
    return {value.name: value.errors for value in JdbcSourceConnector().validate(config) if value.errors}


def assigned(configs: list[dict[str, str]]) -> list[list[str]]:
    return [[table.unquoted for table in parse_tables(config["tables"])] for config in configs]


def test_tables_are_spread_over_the_tasks_in_contiguous_groups(database: PostgresAddress) -> None:
    config = jdbc_config(database, mode="bulk", **{"table.include.list": "public\\..*"})
    assert assigned(task_configs(config, max_tasks=2)) == [["public.alpha", "public.beta"], ["public.gamma"]]
    assert assigned(task_configs(config, max_tasks=5)) == [
        ["public.alpha"],
        ["public.beta"],
        ["public.gamma"],
    ]


def test_table_types_choose_views_too(database: PostgresAddress) -> None:
    config = jdbc_config(
        database, mode="bulk", **{"table.include.list": "public\\.alpha.*", "table.types": "TABLE,VIEW"}
    )
    assert assigned(task_configs(config)) == [["public.alpha", "public.alpha_view"]]


def test_schema_pattern_narrows_the_tables_to_matching_schemas(database: PostgresAddress) -> None:
    config = jdbc_config(database, mode="bulk", **{"schema.pattern": "oth%"})
    assert assigned(task_configs(config)) == [["other.alpha"]]


def test_whitelist_and_blacklist_name_tables_by_name_or_schema_and_name(database: PostgresAddress) -> None:
    whitelisted = jdbc_config(database, mode="bulk", **{"table.whitelist": "beta,public.gamma"})
    blacklisted = jdbc_config(
        database, mode="bulk", **{"table.blacklist": "alpha", "schema.pattern": "public"}
    )
    assert assigned(task_configs(whitelisted)) == [["public.beta", "public.gamma"]]
    assert assigned(task_configs(blacklisted)) == [["public.beta", "public.gamma"]]


def test_a_query_runs_in_one_task(database: PostgresAddress) -> None:
    config = jdbc_config(database, mode="bulk", query="SELECT * FROM alpha")
    assert [c["tables"] for c in task_configs(config, max_tasks=3)] == [""]


def test_two_tables_of_one_name_are_refused_at_start(database: PostgresAddress) -> None:
    config = jdbc_config(database, mode="bulk", **{"table.include.list": ".*\\.alpha"})
    with pytest.raises(ConnectError, match="duplicate unqualified table names"):
        JdbcSourceConnector().start(config)


def test_a_wrong_password_fails_the_start_saying_what_to_check(database: PostgresAddress) -> None:
    config = jdbc_config(database, mode="bulk", **{"connection.password": "wrong"})
    with pytest.raises(ConnectError, match="Check the host, port, database name, user and password"):
        JdbcSourceConnector().start(config)


def test_a_valid_config_has_no_errors(database: PostgresAddress) -> None:
    config = jdbc_config(database, mode="incrementing", **{"table.whitelist": "public.alpha,beta"})
    assert errors(config) == {}


@pytest.mark.parametrize(
    ("settings", "key", "fragment"),
    [
        ({"table.whitelist": "alpha"}, "mode", "Query mode must be specified"),
        ({"mode": "sometimes", "table.whitelist": "alpha"}, "mode", "String must be one of"),
        ({"mode": "timestamp", "table.whitelist": "alpha"}, "timestamp.column.name", "needs"),
        (
            {"mode": "bulk", "table.whitelist": "alpha", "table.include.list": "public.beta"},
            "table.include.list",
            "Cannot mix",
        ),
        ({"mode": "bulk", "table.exclude.list": "x"}, "table.exclude.list", "cannot be used without"),
        ({"mode": "bulk", "query": "DELETE FROM alpha"}, "query", "Only SELECT statements"),
        ({"mode": "bulk", "query": "SELECT 1", "table.whitelist": "alpha"}, "query", "Do not specify"),
        ({"mode": "incrementing", "query": "SELECT * FROM alpha"}, "incrementing.column.name", "must be"),
        ({"mode": "bulk", "table.include.list": "("}, "table.include.list", "regular expression"),
        ({"mode": "bulk", "topic.prefix": "a b"}, "topic.prefix", "must not contain"),
        ({"mode": "bulk", "numeric.mapping": "exact"}, "numeric.mapping", "String must be one of"),
        ({"mode": "bulk", "table.types": "TABLE,SYNONYM"}, "table.types", "Unknown table type"),
        ({"mode": "bulk", "db.timezone": "Mars/Olympus"}, "db.timezone", "time zone"),
        ({"mode": "bulk", "connection.url": ""}, "connection.url", "jdbc:postgresql://"),
        (
            {"mode": "incrementing", "incrementing.column.mapping": "alpha"},
            "incrementing.column.mapping",
            "Expected",
        ),
        (
            {"mode": "timestamp", "timestamp.columns.mapping": "a:ts"},
            "timestamp.columns.mapping",
            "square brackets",
        ),
        ({"mode": "bulk", "incrementing.column.mapping": "public.alpha:id"}, "mode", "Remove"),
        (
            {"mode": "bulk", "connection.url": "jdbc:mysql://db/shop"},
            "connection.url",
            "not a PostgreSQL JDBC URL",
        ),
    ],
)
def test_config_errors_name_the_key(
    database: PostgresAddress, settings: dict[str, str], key: str, fragment: str
) -> None:
    found = errors(jdbc_config(database, **settings))
    assert key in found, found
    assert any(fragment in message for message in found[key]), found[key]


@pytest.mark.parametrize(
    ("settings", "key", "fragment"),
    [
        (
            {"mode": "incrementing", "incrementing.column.name": "seq", "table.whitelist": "alpha"},
            "incrementing.column.name",
            "Incrementing column: seq does not exist in table 'public.alpha'",
        ),
        (
            {"mode": "incrementing", "table.whitelist": "gamma"},
            "incrementing.column.name",
            "no serial or identity column",
        ),
        (
            {"mode": "incrementing", "incrementing.column.name": "id", "table.whitelist": "gamma"},
            "incrementing.column.name",
            "nullable",
        ),
        (
            {"mode": "timestamp", "timestamp.column.name": "changed", "table.whitelist": "beta"},
            "timestamp.column.name",
            "Timestamp columns: changed do not exist",
        ),
        (
            {"mode": "bulk", "table.include.list": "public\\.missing"},
            "table.include.list",
            "match(es) no table",
        ),
        (
            {"mode": "bulk", "table.whitelist": "alpha,nothere"},
            "table.whitelist",
            "nothere match(es) no table",
        ),
        ({"mode": "bulk", "query": "SELECT nope FROM alpha"}, "query", "not valid"),
        (
            {
                "mode": "incrementing",
                "table.whitelist": "beta",
                "incrementing.column.mapping": "public\\.alpha:id",
            },
            "incrementing.column.mapping",
            "Table public.beta matches no mappings",
        ),
        (
            {
                "mode": "timestamp",
                "table.whitelist": "beta",
                "timestamp.columns.mapping": "public\\.beta:[nope]",
            },
            "timestamp.columns.mapping",
            "Timestamp columns: nope do not exist",
        ),
        (
            {"mode": "incrementing", "query": "SELECT ts FROM alpha", "incrementing.column.name": "id"},
            "incrementing.column.name",
            "not among the query's columns",
        ),
    ],
)
def test_tables_and_columns_the_config_names_are_checked_against_the_database(
    database: PostgresAddress, settings: dict[str, str], key: str, fragment: str
) -> None:
    found = errors(jdbc_config(database, **settings))
    assert key in found, found
    assert any(fragment in message for message in found[key]), found[key]


def test_a_database_that_cannot_be_reached_is_no_validation_error(database: PostgresAddress) -> None:
    config = jdbc_config(
        database, mode="incrementing", **{"table.whitelist": "nothere", "connection.password": "wrong"}
    )
    assert errors(config) == {}


def test_exactly_once_is_supported_in_the_incremental_modes_only() -> None:
    connector = JdbcSourceConnector()
    supported = {mode: connector.exactly_once_support({"mode": mode}) for mode in ("bulk", "incrementing")}
    assert supported == {"bulk": ExactlyOnceSupport.UNSUPPORTED, "incrementing": ExactlyOnceSupport.SUPPORTED}


@pytest.mark.parametrize(
    ("partition", "offset"),
    [
        ({"protocol": "1", "table": "public.orders"}, {"incrementing": 5}),
        ({"protocol": "1", "table": "public.orders"}, {"timestamp": 1704103200000, "timestamp_nanos": 1000}),
        ({"query": "query"}, {"incrementing": 5, "timestamp": 1, "timestamp_nanos": 0}),
        ({"table": "orders"}, None),
    ],
)
def test_offsets_in_confluents_shape_can_be_altered(
    partition: dict[str, str], offset: dict[str, int]
) -> None:
    assert JdbcSourceConnector().alter_offsets({}, [(partition, offset)])


@pytest.mark.parametrize(
    ("partition", "offset", "fragment"),
    [
        ({"file": "x"}, {"incrementing": 1}, "should contain the key 'table'"),
        ({"protocol": "1", "table": "public.orders"}, {"incrementing": "5"}, "Long value"),
        ({"protocol": "1", "table": "public.orders"}, {"position": 5}, "unknown key"),
        ({"protocol": "1", "table": "public.orders"}, {"timestamp": 1, "timestamp_nanos": -1}, "nanoseconds"),
    ],
)
def test_offsets_of_another_shape_are_refused(
    partition: dict[str, str], offset: dict[str, object], fragment: str
) -> None:
    with pytest.raises(ConnectError, match=fragment):
        JdbcSourceConnector().alter_offsets({}, [(partition, offset)])


class RecordingContext(ConnectorContext):
    def __init__(self) -> None:
        self.reconfigured = threading.Event()

    def request_task_reconfiguration(self) -> None:
        self.reconfigured.set()

    def raise_error(self, error: Exception) -> None:
        raise AssertionError(error)


def test_a_new_table_reconfigures_the_tasks(database: PostgresAddress) -> None:
    config = jdbc_config(
        database, mode="bulk", **{"table.include.list": "public\\.delta.*", "table.poll.interval.ms": "100"}
    )
    execute(database, "CREATE TABLE delta1 (id serial PRIMARY KEY)")
    connector = JdbcSourceConnector()
    context = RecordingContext()
    connector.initialize(context)
    connector.start(config)
    try:
        assert assigned(connector.task_configs(2)) == [["public.delta1"]]
        execute(database, "CREATE TABLE delta2 (id serial PRIMARY KEY)")
        assert context.reconfigured.wait(WAIT_S)
        assert assigned(connector.task_configs(2)) == [["public.delta1"], ["public.delta2"]]
    finally:
        connector.stop()

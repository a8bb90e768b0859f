"""A bad CDC config is refused at validation with what to do; Debezium's names resolve to the connector."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.connectors.postgres.cdc_tasks import cdc_config
from tests.connectors.postgres.databases import execute, fresh_database

from conveyor.api import ExactlyOnceSupport
from conveyor.api.config import import_dotted_class
from conveyor.connectors import BUILTIN_CONNECTOR_ALIASES, BUILTIN_CONNECTORS
from conveyor.connectors.postgres.cdc_source import PostgresCdcSourceConnector
from conveyor.connectors.postgres.connection import PostgresAddress
from conveyor.kafka_broker.jvm import free_port
from conveyor.plugins.catalog import PluginCatalog, plugin_entry
from conveyor.postgres_server import PostgresServer


@pytest.fixture(scope="module")
def database(postgres: PostgresServer) -> Iterator[PostgresAddress]:
    with fresh_database(postgres, "cdcvalid") as target:
        execute(target, "CREATE TABLE keyed (id int PRIMARY KEY)")
        yield target


def errors(config: dict[str, str]) -> dict[str, list[str]]:
    """The validation errors by key."""
    values = PostgresCdcSourceConnector().validate(config)
    return {value.name: value.errors for value in values if value.errors}


def test_a_good_config_validates(database: PostgresAddress) -> None:
    assert errors(cdc_config(database)) == {}


@pytest.mark.parametrize(
    "name",
    ["io.debezium.connector.postgresql.PostgresConnector", "PostgresCdcSourceConnector", "PostgresConnector"],
)
def test_debezium_s_and_conveyor_s_names_resolve_to_the_connector(name: str) -> None:
    catalog = PluginCatalog(
        (plugin_entry(import_dotted_class(path), listed), BUILTIN_CONNECTOR_ALIASES.get(listed, ()))
        for listed, path in BUILTIN_CONNECTORS.items()
    )
    entry = catalog.find(name)
    assert entry is not None and entry.cls is PostgresCdcSourceConnector


def test_exactly_once_is_supported() -> None:
    assert PostgresCdcSourceConnector().exactly_once_support({}) is ExactlyOnceSupport.SUPPORTED


def test_decoderbufs_is_refused_with_what_to_set_instead(database: PostgresAddress) -> None:
    found = errors(cdc_config(database, **{"plugin.name": "decoderbufs"}))
    assert found.keys() == {"plugin.name"}
    assert "set plugin.name=pgoutput" in found["plugin.name"][0]


def test_a_missing_topic_prefix_is_named(database: PostgresAddress) -> None:
    config = cdc_config(database)
    del config["topic.prefix"]
    assert "topic.prefix" in errors(config)


def test_an_unknown_snapshot_mode_lists_the_modes(database: PostgresAddress) -> None:
    found = errors(cdc_config(database, **{"snapshot.mode": "sometimes"}))
    assert "initial" in found["snapshot.mode"][0] and "when_needed" in found["snapshot.mode"][0]


def test_a_wrong_password_says_what_to_check(database: PostgresAddress) -> None:
    found = errors(cdc_config(database, **{"database.password": "wrong"}))
    assert "password authentication failed" in found["database.hostname"][0]
    assert "Check the host, port, database name, user and password" in found["database.hostname"][0]


def test_an_unreachable_host_says_where_it_tried(database: PostgresAddress) -> None:
    found = errors(cdc_config(database, **{"database.port": str(free_port())}))
    assert "Could not connect to PostgreSQL at" in found["database.hostname"][0]


def test_a_missing_publication_with_autocreate_disabled_says_how_to_create_it(
    database: PostgresAddress,
) -> None:
    found = errors(
        cdc_config(database, **{"publication.autocreate.mode": "disabled", "publication.name": "absent"})
    )
    assert "CREATE PUBLICATION absent" in found["publication.name"][0]


def test_a_table_without_primary_key_or_replica_identity_says_how_to_fix_it(
    database: PostgresAddress,
) -> None:
    execute(database, "CREATE TABLE loose (v int)")
    try:
        found = errors(cdc_config(database))
        assert "REPLICA IDENTITY FULL" in found["table.include.list"][0]
        assert errors(cdc_config(database, **{"table.exclude.list": "public.loose"})) == {}
    finally:
        execute(database, "DROP TABLE loose")


def test_wal_level_replica_is_refused_with_how_to_enable_logical(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with PostgresServer(settings={"wal_level": "replica"}) as server:
        server.start()
        target = PostgresAddress(server.host, server.port, "postgres", server.user, server.password)
        found = errors(cdc_config(target))
    assert "wal_level=logical" in found["database.hostname"][0]

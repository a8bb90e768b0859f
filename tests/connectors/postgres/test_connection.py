"""Addresses from JDBC URLs and Debezium keys, and the errors of a connection that cannot be made."""

from __future__ import annotations

import pytest

from conveyor.connectors.postgres.connection import (
    PostgresAddress,
    PostgresConnectionError,
    address_from_debezium,
    connect,
    parse_jdbc_url,
)
from conveyor.errors import ConfigError
from conveyor.kafka_broker.jvm import free_port
from conveyor.postgres_server import PostgresServer


def test_a_jdbc_url_gives_host_port_database_and_options() -> None:
    address = parse_jdbc_url("jdbc:postgresql://db.example:5433/shop?user=u&password=p&sslmode=require")
    assert address == PostgresAddress("db.example", 5433, "shop", "u", "p", "require")


def test_a_jdbc_url_without_port_uses_postgresql_s_default() -> None:
    assert parse_jdbc_url("jdbc:postgresql://db/shop").port == 5432


@pytest.mark.parametrize(
    "url",
    ["jdbc:mysql://db/shop", "postgresql://db/shop", "jdbc:postgresql:///shop", "jdbc:postgresql://a,b/shop"],
)
def test_a_url_that_is_not_one_postgresql_host_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match=r"connection\.url"):
        parse_jdbc_url(url)


def test_connector_credentials_win_over_the_url_s() -> None:
    address = parse_jdbc_url("jdbc:postgresql://db/shop?user=url").with_credentials("key", "secret")
    assert (address.user, address.password) == ("key", "secret")


def test_debezium_keys_give_the_address() -> None:
    address = address_from_debezium(
        {"database.hostname": "db", "database.port": "6432", "database.user": "u", "database.dbname": "x"}
    )
    assert address.describe() == "u@db:6432/x"


def test_the_password_never_shows_in_an_address_s_text() -> None:
    assert "secret" not in repr(PostgresAddress("db", password="secret"))


def test_a_wrong_password_says_what_to_check(postgres: PostgresServer) -> None:
    address = PostgresAddress(postgres.host, postgres.port, "postgres", postgres.user, "wrong")
    with pytest.raises(PostgresConnectionError, match=r"password authentication failed.*Check the host"):
        connect(address)


def test_an_unreachable_host_says_where_it_tried() -> None:
    address = PostgresAddress("127.0.0.1", free_port(), "postgres", "u", "p", connect_timeout_s=2)
    with pytest.raises(PostgresConnectionError, match=r"127\.0\.0\.1:\d+/postgres"):
        connect(address)


def test_a_replication_connection_can_be_opened(postgres: PostgresServer) -> None:
    address = PostgresAddress(postgres.host, postgres.port, "postgres", postgres.user, postgres.password)
    connection = connect(address, replication=True)
    try:
        cursor = connection.cursor()
        cursor.execute("IDENTIFY_SYSTEM")
        assert cursor.fetchone() is not None
    finally:
        connection.close()

"""Debezium's plugins, fetched from Maven Central into the cache Kafka's jars use."""

from __future__ import annotations

from conveyor.kafka_broker.debezium import (
    DEBEZIUM_JDBC_VERSION,
    DEBEZIUM_VERSION,
    fetch_debezium_jdbc_sink,
    fetch_debezium_postgres,
)


def test_the_jdbc_sink_plugin_holds_its_connector_and_postgresql_driver() -> None:
    plugins = fetch_debezium_jdbc_sink()
    jars = {jar.name for jar in plugins.glob("*/*.jar")}
    assert f"debezium-connector-jdbc-{DEBEZIUM_JDBC_VERSION}.jar" in jars
    assert any(name.startswith("postgresql-") for name in jars)


def test_the_postgres_plugin_and_the_jdbc_sink_plugin_are_cached_apart() -> None:
    postgres = fetch_debezium_postgres()
    assert any(postgres.glob(f"*/debezium-connector-postgres-{DEBEZIUM_VERSION}.jar"))
    assert postgres != fetch_debezium_jdbc_sink()

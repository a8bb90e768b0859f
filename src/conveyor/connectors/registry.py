"""The names the shipped connectors are listed under, for the plugin catalog.

The table has the format of ``conveyor.plugins.BUILTIN_CONNECTORS`` (listed class name, Kafka's Java
name where there is one, to ``"module:Class"``); the catalog derives the simple-name aliases
(``FileStreamSourceConnector``, ``FileStreamSource``) from it. Aliases it cannot derive are listed in
``BUILTIN_CONNECTOR_ALIASES``. ``BUILTIN_TASKS`` gives their tasks' Java names.
"""

from __future__ import annotations

_FILE = "conveyor.connectors.file"
_JAVA_FILE_PACKAGE = "org.apache.kafka.connect.file"
_MIRROR = "conveyor.connectors.mirror"
_JAVA_MIRROR_PACKAGE = "org.apache.kafka.connect.mirror"
_POSTGRES = "conveyor.connectors.postgres"
_POSTGRES_CDC = f"{_POSTGRES}.cdc_source"
_DEBEZIUM_POSTGRES_PACKAGE = "io.debezium.connector.postgresql"

BUILTIN_CONNECTORS: dict[str, str] = {
    f"{_JAVA_FILE_PACKAGE}.FileStreamSourceConnector": f"{_FILE}.source:FileStreamSourceConnector",
    f"{_JAVA_FILE_PACKAGE}.FileStreamSinkConnector": f"{_FILE}.sink:FileStreamSinkConnector",
    "GeneratorSourceConnector": "conveyor.connectors.generator.connector:GeneratorSourceConnector",
    "SparkFileSinkConnector": "conveyor.connectors.spark_sink.connector:SparkFileSinkConnector",
    f"{_JAVA_MIRROR_PACKAGE}.MirrorSourceConnector": f"{_MIRROR}.source:MirrorSourceConnector",
    f"{_JAVA_MIRROR_PACKAGE}.MirrorCheckpointConnector": f"{_MIRROR}.checkpoint:MirrorCheckpointConnector",
    f"{_JAVA_MIRROR_PACKAGE}.MirrorHeartbeatConnector": f"{_MIRROR}.heartbeat:MirrorHeartbeatConnector",
    "MirrorSinkConnector": f"{_MIRROR}.sink:MirrorSinkConnector",
    "io.confluent.connect.jdbc.JdbcSinkConnector": f"{_POSTGRES}.jdbc_sink:JdbcSinkConnector",
    "io.confluent.connect.jdbc.JdbcSourceConnector": f"{_POSTGRES}.jdbc_source:JdbcSourceConnector",
    f"{_DEBEZIUM_POSTGRES_PACKAGE}.PostgresConnector": f"{_POSTGRES_CDC}:PostgresCdcSourceConnector",
}

BUILTIN_TASKS: dict[str, str] = {
    f"{_JAVA_FILE_PACKAGE}.FileStreamSourceTask": f"{_FILE}.source:FileStreamSourceTask",
    f"{_JAVA_FILE_PACKAGE}.FileStreamSinkTask": f"{_FILE}.sink:FileStreamSinkTask",
    f"{_JAVA_MIRROR_PACKAGE}.MirrorSourceTask": f"{_MIRROR}.source:MirrorSourceTask",
    f"{_JAVA_MIRROR_PACKAGE}.MirrorCheckpointTask": f"{_MIRROR}.checkpoint:MirrorCheckpointTask",
    f"{_JAVA_MIRROR_PACKAGE}.MirrorHeartbeatTask": f"{_MIRROR}.heartbeat:MirrorHeartbeatTask",
    "io.confluent.connect.jdbc.source.JdbcSourceTask": f"{_POSTGRES}.jdbc_source:JdbcSourceTask",
    f"{_DEBEZIUM_POSTGRES_PACKAGE}.PostgresConnectorTask": f"{_POSTGRES_CDC}:PostgresCdcSourceTask",
}
"""Task classes by the Java name Kafka Connect writes in ``task.class``, so that task configs written by
either runtime name a task both can run."""

BUILTIN_CONNECTOR_ALIASES: dict[str, tuple[str, ...]] = {
    "GeneratorSourceConnector": ("Generator",),
    "io.confluent.connect.jdbc.JdbcSinkConnector": ("io.debezium.connector.jdbc.JdbcSinkConnector",),
    f"{_DEBEZIUM_POSTGRES_PACKAGE}.PostgresConnector": ("PostgresCdcSourceConnector", "PostgresCdcSource"),
}
"""Extra names, by listed name, beyond those the catalog derives."""

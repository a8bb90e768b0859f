"""Debezium's connectors as Kafka Connect plugins, fetched from Maven Central into the cache that Kafka's
jars use: tests and benches run them on Apache Kafka Connect beside Conveyor's own connectors."""

from __future__ import annotations

import shutil
from pathlib import Path

from conveyor.kafka_broker.fetch import (
    DEPENDENCY_PLUGIN,
    KafkaFetchError,
    default_cache_dir,
    fetch_once,
    run_maven,
)

DEBEZIUM_VERSION = "3.6.1.Final"
POSTGRES_CONNECTOR = "debezium-connector-postgres"
JDBC_SINK_CONNECTOR = "debezium-connector-jdbc"
# The newest release of the JDBC sink that Maven Central serves (it has no 3.6.1.Final).
DEBEZIUM_JDBC_VERSION = "3.6.0.Final"
_EMPTY_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>conveyor</groupId><artifactId>debezium-plugin</artifactId><version>1</version>
  <packaging>pom</packaging></project>
"""


def fetch_debezium_plugin(artifact: str, version: str, cache_dir: Path | None = None) -> Path:
    """A ``plugin.path`` directory holding the Debezium plugin ``io.debezium:<artifact>`` (its release
    archive, unpacked), fetched with Maven on first use; safe to call from several processes at once."""
    name = artifact.removeprefix("debezium-connector-")
    home = (cache_dir or default_cache_dir()) / f"debezium-{name}-{version}"
    plugins = home / "plugins"

    def fetch() -> None:
        mvn = shutil.which("mvn")
        if mvn is None:
            raise KafkaFetchError("Maven (mvn) is not on PATH; it is needed to fetch Debezium's jars")
        (home / "pom.xml").write_text(_EMPTY_POM)
        shutil.rmtree(plugins, ignore_errors=True)
        run_maven(
            mvn,
            home,
            f"{DEPENDENCY_PLUGIN}:unpack",
            f"-Dartifact=io.debezium:{artifact}:{version}:tar.gz:plugin",
            f"-DoutputDirectory={plugins}",
        )
        if not any(plugins.glob(f"*/{artifact}-{version}.jar")):
            raise KafkaFetchError(f"Maven fetched no {artifact}-{version}.jar")

    fetch_once(home, version, fetch)
    return plugins


def fetch_debezium_postgres(version: str = DEBEZIUM_VERSION, cache_dir: Path | None = None) -> Path:
    """A ``plugin.path`` directory holding Debezium's PostgreSQL connector plugin."""
    return fetch_debezium_plugin(POSTGRES_CONNECTOR, version, cache_dir)


def fetch_debezium_jdbc_sink(version: str = DEBEZIUM_JDBC_VERSION, cache_dir: Path | None = None) -> Path:
    """A ``plugin.path`` directory holding Debezium's JDBC sink connector plugin."""
    return fetch_debezium_plugin(JDBC_SINK_CONNECTOR, version, cache_dir)

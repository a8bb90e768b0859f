"""Debezium's PostgreSQL connector as a Kafka Connect plugin, fetched from Maven Central into the cache
that Kafka's jars use: tests run it on Apache Kafka Connect beside Conveyor's own CDC source."""

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
_EMPTY_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>conveyor</groupId><artifactId>debezium-plugin</artifactId><version>1</version>
  <packaging>pom</packaging></project>
"""


def fetch_debezium_postgres(version: str = DEBEZIUM_VERSION, cache_dir: Path | None = None) -> Path:
    """A ``plugin.path`` directory holding Debezium's PostgreSQL connector plugin (its release archive,
    unpacked), fetched with Maven on first use; safe to call from several processes at once."""
    home = (cache_dir or default_cache_dir()) / f"debezium-postgres-{version}"
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
            f"-Dartifact=io.debezium:debezium-connector-postgres:{version}:tar.gz:plugin",
            f"-DoutputDirectory={plugins}",
        )
        if not any(plugins.glob(f"*/debezium-connector-postgres-{version}.jar")):
            raise KafkaFetchError(f"Maven fetched no debezium-connector-postgres-{version}.jar")

    fetch_once(home, version, fetch)
    return plugins

"""Delta Lake and Apache Iceberg in the worker's SparkSession: the Maven release of each for the Spark
it runs, their jars fetched into the cache, and the session settings they need from its start.

Spark reads ``spark.jars``, ``spark.sql.extensions`` and catalog classes once, when the session starts,
so a worker loads a table format only when its ``table.formats`` names it: others start as fast as before.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pyspark

from conveyor.errors import ConfigError, ConnectError
from conveyor.kafka_broker.fetch import DEPENDENCY_PLUGIN, default_cache_dir, fetch_once, run_maven

ICEBERG_CATALOG: Final = "iceberg"
"""The worker's Iceberg catalog, a Hadoop catalog in ``iceberg.warehouse``: its tables are
``iceberg.<namespace>.<name>``."""

DELTA_EXTENSION: Final = "io.delta.sql.DeltaSparkSessionExtension"
DELTA_CATALOG: Final = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
ICEBERG_CATALOG_CLASS: Final = "org.apache.iceberg.spark.SparkCatalog"


CONVEYOR_SPARK: Final = ("4.2", "4.3")
"""The Spark minor versions Conveyor runs on (its data source needs Spark 4.2's streaming read limits)."""


class TableFormatError(ConfigError):
    """A table format this worker cannot load: unknown, no release for its Spark, or Maven failed."""


@dataclass(frozen=True)
class TableFormat:
    """One table format's Spark release on Maven Central and what a session needs to use it."""

    name: str
    artifacts: tuple[str, ...]
    """Maven coordinates of the jars Spark loads (their other dependencies are Spark's own jars)."""
    built_for: str
    """The Spark minor version the release is built for."""
    runs_on: tuple[str, ...]
    """The Spark minor versions it was seen to write and read tables on; others fail inside it."""
    incompatible: str
    """What the release does on the Spark versions it does not run on, as measured."""

    @property
    def version(self) -> str:
        return self.artifacts[0].rsplit(":", 1)[1]

    def session_conf(self, warehouse: Path | None) -> dict[str, str]:
        """The settings the session starts with (``spark.jars`` aside)."""
        if self.name == "delta":
            return {"spark.sql.extensions": DELTA_EXTENSION, "spark.sql.catalog.spark_catalog": DELTA_CATALOG}
        if warehouse is None:
            raise TableFormatError("table.formats=iceberg needs the worker's iceberg.warehouse directory")
        prefix = f"spark.sql.catalog.{ICEBERG_CATALOG}"
        return {
            prefix: ICEBERG_CATALOG_CLASS,
            f"{prefix}.type": "hadoop",
            f"{prefix}.warehouse": str(warehouse),
        }


DELTA: Final = TableFormat(
    "delta",
    ("io.delta:delta-spark_2.13:4.4.0", "io.delta:delta-storage:4.4.0"),
    "4.2",
    ("4.2",),
    "on Spark 4.3.0 a first write commits, but every read of the table, and a streaming write's next "
    "batch, fails inside Delta's snapshot state cache with NoSuchMethodError "
    "org.apache.spark.sql.execution.LogicalRDD.<init>: Spark 4.3 added a parameter to it (Delta 4.1.0, "
    "4.2.0, 4.3.0 and 4.4.0 alike; 4.0.0 fails to write with NoClassDefFoundError TimeAdd)",
)
ICEBERG: Final = TableFormat(
    "iceberg",
    ("org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0",),
    "4.1",
    ("4.1",),
    "on Spark 4.2.1 and 4.3.0 its catalog does not load: IncompatibleClassChangeError, class "
    "org.apache.iceberg.spark.source.SparkView can not implement "
    "org.apache.spark.sql.connector.catalog.View; "
    "Maven Central serves no iceberg-spark-runtime-4.2 or -4.3",
)
TABLE_FORMATS: Final = {f.name: f for f in (DELTA, ICEBERG)}


def spark_minor(version: str = pyspark.__version__) -> str:
    return ".".join(version.split(".")[:2])


def resolve(names: Iterable[str], spark_version: str = pyspark.__version__) -> list[TableFormat]:
    """The formats ``names`` (a worker's ``table.formats``), each checked to have a release for this Spark."""
    formats: list[TableFormat] = []
    for name in (n.strip().lower() for n in names):
        if not name:
            continue
        if name not in TABLE_FORMATS:
            raise TableFormatError(
                f"table.formats: unknown table format '{name}'; use any of {', '.join(TABLE_FORMATS)}"
            )
        table_format = TABLE_FORMATS[name]
        if spark_minor(spark_version) not in table_format.runs_on:
            usable = [v for v in table_format.runs_on if v in CONVEYOR_SPARK]
            remedy = (
                f"Run the worker with pyspark {usable[-1]}.x, or remove '{name}' from table.formats"
                if usable
                else f"No Spark that Conveyor runs on ({', '.join(CONVEYOR_SPARK)}) has one: remove "
                f"'{name}' from table.formats"
            )
            raise TableFormatError(
                f"table.formats={name}: the newest {name} release for Spark on Maven Central, "
                f"{table_format.artifacts[0]}, is built for Spark {table_format.built_for}, runs on Spark "
                f"{' and '.join(table_format.runs_on)}, and this worker runs Spark {spark_version} "
                f"({table_format.incompatible}). {remedy}"
            )
        formats.append(table_format)
    return formats


def fetch_jars(table_format: TableFormat, cache_dir: Path | None = None) -> list[Path]:
    """The format's jars in the cache (``~/.cache/conveyor/spark-<name>-<version>``), fetched with Maven
    first if they are not there yet; several processes may call it at once."""
    home = (cache_dir or default_cache_dir()) / f"spark-{table_format.name}-{table_format.version}"
    fetch_once(home, table_format.version, lambda: _fetch(table_format, home))
    return sorted((home / "jars").glob("*.jar"))


def _fetch(table_format: TableFormat, home: Path) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise TableFormatError(
            f"Maven (mvn) is not on PATH; it is needed to fetch {table_format.name}'s jars"
        )
    jars = home / "jars"
    shutil.rmtree(jars, ignore_errors=True)
    for artifact in table_format.artifacts:
        try:
            run_maven(
                mvn, home, f"{DEPENDENCY_PLUGIN}:copy", f"-Dartifact={artifact}", f"-DoutputDirectory={jars}"
            )
        except ConnectError as error:
            raise TableFormatError(f"Could not fetch {artifact} for table.formats: {error}") from error


def session_conf(
    conf: Mapping[str, str],
    names: Iterable[str],
    warehouse: Path | None,
    cache_dir: Path | None = None,
    spark_version: str = pyspark.__version__,
) -> dict[str, str]:
    """``conf`` (the worker's ``spark.*`` settings) with the jars, extensions and catalogs of the table
    formats ``names``; list settings the worker gave too (``spark.jars``, ``spark.sql.extensions``) are
    joined, not replaced."""
    merged = dict(conf)
    for table_format in resolve(names, spark_version):
        jars = [str(jar) for jar in fetch_jars(table_format, cache_dir)]
        _append(merged, "spark.jars", jars)
        for key, value in table_format.session_conf(warehouse).items():
            if key == "spark.sql.extensions":
                _append(merged, key, [value])
            else:
                merged.setdefault(key, value)
    return merged


def _append(conf: dict[str, str], key: str, values: list[str]) -> None:
    present = [v for v in conf.get(key, "").split(",") if v]
    conf[key] = ",".join(present + [v for v in values if v not in present])


def missing_from_session(conf: Mapping[str, str], name: str) -> str | None:
    """Why a session with settings ``conf`` cannot write ``name`` tables, or None when it can."""
    loaded = (
        DELTA_EXTENSION in conf.get("spark.sql.extensions", "").split(",")
        if name == "delta"
        else conf.get(f"spark.sql.catalog.{ICEBERG_CATALOG}") == ICEBERG_CATALOG_CLASS
    )
    if loaded:
        return None
    return (
        f"format={name} needs the worker's SparkSession to load {name}: add '{name}' to the worker's "
        "table.formats and restart the worker (see docs/spark.md, Delta Lake and Iceberg tables)"
    )

"""Fetching Apache Kafka's jars with Maven into a per-version cache shared by every checkout."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conveyor.errors import ConnectError

KAFKA_VERSION = "4.3.1"
LOG4J_VERSION = "2.25.4"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.11.0"

#: Broker, Connect and MirrorMaker 2 share one classpath, as the release tarball's ``libs/`` does. The
#: log4j binding is not in Kafka's poms (the tarball adds it), so it is named here.
_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>conveyor</groupId><artifactId>kafka-runtime</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId>
      <version>{kafka}</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId>
      <version>{kafka}</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>connect-mirror</artifactId>
      <version>{kafka}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId>
      <version>{log4j}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId>
      <version>{log4j}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId>
      <version>{log4j}</version></dependency>
  </dependencies>
</project>
"""

_LOG4J2_PROPERTIES = """status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.out.ref = OUT
"""

#: Jars whose absence means the fetch went wrong (the broker, and the logging it cannot start without).
_REQUIRED_JARS = ("kafka_2.13-", "kafka-server-", "log4j-core-", "log4j-slf4j-impl-", "connect-runtime-")


class KafkaFetchError(ConnectError):
    """Maven could not fetch Kafka's jars (no network, no ``mvn``, or an artifact missing)."""


@dataclass(frozen=True)
class KafkaDistribution:
    """A fetched Kafka: ``lib/`` is the classpath, ``plugins/connect-file`` a Connect plugin directory."""

    home: Path
    version: str

    @property
    def lib(self) -> Path:
        return self.home / "lib"

    @property
    def classpath(self) -> str:
        return str(self.lib / "*")

    @property
    def connect_file_plugin(self) -> Path:
        return self.home / "plugins" / "connect-file"

    @property
    def log4j_config(self) -> Path:
        return self.home / "log4j2.properties"


def default_cache_dir() -> Path:
    """``$CONVEYOR_KAFKA_CACHE``, else ``$XDG_CACHE_HOME/conveyor`` (``~/.cache/conveyor``)."""
    explicit = os.environ.get("CONVEYOR_KAFKA_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "conveyor"


def fetch_kafka(version: str = KAFKA_VERSION, cache_dir: Path | None = None) -> KafkaDistribution:
    """The Kafka ``version`` in the cache, fetching it with Maven first if it is not there yet.

    Safe to call from several processes at once: one fetches while the others wait on a file lock.
    """
    home = (cache_dir or default_cache_dir()) / f"kafka-{version}"
    distribution = KafkaDistribution(home, version)
    fetch_once(home, version, lambda: _fetch(distribution))
    return distribution


def fetch_once(home: Path, version: str, fetch: Callable[[], None]) -> None:
    """Run ``fetch`` to fill the cache directory ``home`` unless a completed fetch is marked there; one
    process fetches while the others wait on a file lock, and a failed fetch leaves no mark."""
    marker = home / ".complete"
    if marker.exists():
        return
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            fetch()
            marker.write_text(version + "\n")


def _fetch(distribution: KafkaDistribution) -> None:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise KafkaFetchError("Maven (mvn) is not on PATH; it is needed to fetch Apache Kafka's jars")
    home = distribution.home
    (home / "pom.xml").write_text(_POM.format(kafka=distribution.version, log4j=LOG4J_VERSION))
    distribution.log4j_config.write_text(_LOG4J2_PROPERTIES)
    shutil.rmtree(distribution.lib, ignore_errors=True)
    run_maven(
        mvn,
        home,
        f"{DEPENDENCY_PLUGIN}:copy-dependencies",
        "-DincludeScope=runtime",
        f"-DoutputDirectory={distribution.lib}",
    )
    run_maven(
        mvn,
        home,
        f"{DEPENDENCY_PLUGIN}:copy",
        f"-Dartifact=org.apache.kafka:connect-file:{distribution.version}",
        f"-DoutputDirectory={distribution.connect_file_plugin}",
    )
    names = [jar.name for jar in distribution.lib.glob("*.jar")]
    missing = [prefix for prefix in _REQUIRED_JARS if not any(name.startswith(prefix) for name in names)]
    if missing:
        raise KafkaFetchError(f"Maven fetched Kafka {distribution.version} without {missing}")


def run_maven(mvn: str, home: Path, *arguments: str) -> None:
    """Run Maven quietly in ``home``; a failure raises ``KafkaFetchError`` with its output."""
    result = subprocess.run(
        [mvn, "-q", "-B", *arguments], cwd=home, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise KafkaFetchError(f"mvn {arguments[0]} failed:\n{result.stdout[-4000:]}{result.stderr[-4000:]}")

"""A Spark that Delta Lake runs on, for processes the Delta tests start.

The newest Delta release on Maven Central is built for Spark 4.2 and writes and reads tables on Spark
4.2 but not on 4.3 (``conveyor.spark.table_formats``). When the virtualenv's pyspark is one Delta runs
on, the processes use it; otherwise pyspark 4.2 is installed with pip into the cache, outside the
virtualenv, and put first on the ``PYTHONPATH`` of the worker and reader processes these tests start;
the tests' own process keeps the virtualenv's pyspark. Run as a script, this reads a Delta table back
with Spark and prints it as JSON.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyspark

from conveyor.spark.table_formats import DELTA, spark_minor

PYSPARK_VERSION = "4.2.1"
READ_TIMEOUT_S = 600.0


def runs_delta(version: str = pyspark.__version__) -> bool:
    """Whether Delta runs on pyspark ``version``."""
    return spark_minor(version) in DELTA.runs_on


def delta_site(cache_dir: Path) -> Path | None:
    """None when the virtualenv's pyspark runs Delta, else ``pyspark_site``."""
    return None if runs_delta() else pyspark_site(cache_dir)


def pyspark_site(cache_dir: Path) -> Path:
    """A directory holding pyspark ``PYSPARK_VERSION`` alone, installed on first use."""
    home = cache_dir / f"pyspark-{PYSPARK_VERSION}"
    site, marker = home / "site", home / ".complete"
    if not marker.exists():
        home.mkdir(parents=True, exist_ok=True)
        with open(home / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not marker.exists():
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "pip",
                        "install",
                        "--quiet",
                        "--no-deps",
                        "--upgrade",
                        "--target",
                        str(site),
                        f"pyspark=={PYSPARK_VERSION}",
                    ],
                    check=True,
                )
                marker.write_text(PYSPARK_VERSION + "\n")
    return site


def environment(site: Path | None) -> dict[str, str]:
    """This process's environment with ``site``'s pyspark, if any, ahead of the virtualenv's."""
    if site is None:
        return dict(os.environ)
    paths = [str(site), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def read_table(site: Path | None, path: Path) -> dict[str, Any]:
    """The Delta table at ``path`` as Spark reads it: its rows and its partition columns."""
    finished = subprocess.run(
        [sys.executable, __file__, str(path)],
        env=environment(site),
        capture_output=True,
        text=True,
        timeout=READ_TIMEOUT_S,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr[-4000:]
    table: dict[str, Any] = json.loads(finished.stdout.strip().splitlines()[-1])
    return table


def _print_table(path: str) -> None:
    from conveyor.spark.session import get_or_create_session
    from conveyor.spark.table_formats import session_conf

    conf = session_conf({}, [DELTA.name], None)
    spark = get_or_create_session("local[2]", "conveyor-delta-reader", conf)
    rows = [row.asDict() for row in spark.read.format("delta").load(path).collect()]
    detail = spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0].asDict()
    print(json.dumps({"rows": rows, "partition_columns": list(detail["partitionColumns"])}, default=str))


if __name__ == "__main__":
    _print_table(sys.argv[1])

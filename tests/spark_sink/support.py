"""Helpers of the Spark sink tests: JSON records with the schema envelope, workers, and reading files."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
from pyspark.sql import SparkSession

import waiting
from conveyor.cli.worker_process import StandaloneWorker
from conveyor.log import Log
from conveyor.settings.worker_config import WorkerConfig

T = TypeVar("T")

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
WAIT_S = 90.0

PERSON_SCHEMA = {
    "type": "struct",
    "name": "person",
    "optional": False,
    "fields": [
        {"field": "id", "type": "int64", "optional": False},
        {"field": "name", "type": "string", "optional": True},
        {"field": "email", "type": "string", "optional": True},
    ],
}


def person(i: int) -> bytes:
    """Record ``i`` as the JsonConverter writes it with schemas enabled (the envelope)."""
    payload = {"id": i, "name": f"name-{i}", "email": f"user{i}@example.com"}
    return json.dumps({"schema": PERSON_SCHEMA, "payload": payload}).encode()


def write_people(log: Log, topic: str, ids: range) -> None:
    """Records ``ids`` into ``topic``, spread over its partitions by their keys."""
    with log.producer() as producer:
        for i in ids:
            producer.send(topic, value=person(i), key=str(i).encode())
        producer.flush()


def worker_config(data_dir: Path, **overrides: str) -> WorkerConfig:
    """A standalone worker with JSON values (schemas enabled) and string keys."""
    props = {
        "data.dir": str(data_dir),
        "listeners": "http://127.0.0.1:0",
        "key.converter": STRING_CONVERTER,
        "value.converter": JSON_CONVERTER,
        "value.converter.schemas.enable": "true",
        "task.shutdown.graceful.timeout.ms": "10000",
    }
    return WorkerConfig.from_props(props | overrides)


@contextmanager
def running_worker(data_dir: Path) -> Iterator[StandaloneWorker]:
    worker = StandaloneWorker(worker_config(data_dir))
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()


def sink_config(topic: str, path: Path, **settings: str) -> dict[str, str]:
    """A SparkFileSink writing ``topic`` as Parquet to ``path``, batching every 200 ms."""
    return {
        "connector.class": "SparkFileSink",
        "topics": topic,
        "path": str(path),
        "trigger.interval.ms": "200",
        **settings,
    }


def wait_until(condition: Callable[[], T | None], what: str, timeout_s: float = WAIT_S) -> T:
    """`waiting.wait_until` with this folder's deadline."""
    return waiting.wait_until(condition, what, timeout_s)


def rows(spark: SparkSession, path: Path, file_format: str = "parquet") -> list[dict[str, Any]]:
    """What Spark reads back from a file sink's directory (only files its metadata log committed)."""
    if not (path / "_spark_metadata" / "0").exists():
        return []
    return [row.asDict() for row in spark.read.format(file_format).load(str(path)).collect()]


def data_files(path: Path) -> set[str]:
    """The names of the data files a file sink wrote so far, committed or not."""
    return {p.name for p in path.rglob("part-*")} if path.exists() else set()


def task_status(client: httpx.Client, name: str) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"/connectors/{name}/status").json()
    tasks: list[dict[str, Any]] = body.get("tasks", [])
    return tasks[0] if tasks else {}

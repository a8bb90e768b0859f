"""Conveyor's own read-only endpoints under `/conveyor`: the console's history, the group's workers and
the topic browser.

They are not Kafka Connect's: their prefix keeps them apart from its paths. Like every endpoint they
pass the REST extensions' filters (basic authentication) and are served on the regular listeners,
where the console calls them.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from conveyor.api import Converter, HeaderConverter
from conveyor.convert.header_values import value_to_text
from conveyor.data.schema import SchemaAndValue
from conveyor.errors import BadRequestError, NotFoundError
from conveyor.herder.api import Herder
from conveyor.herder.base import BaseHerder
from conveyor.log.api import ConsumerRecord, Log
from conveyor.log.errors import InvalidTopicError, UnknownTopicOrPartitionError
from conveyor.positions import TopicPartition
from conveyor.rest.console.history import ConsoleHistory, TaskFailures
from conveyor.rest.openapi import body, errors
from conveyor.settings.converters import build_converter, build_header_converter
from conveyor.settings.worker_config import WorkerConfig

TAG = "conveyor"
PREFIX = "/conveyor"
DEFAULT_RECORDS = 20
MAX_RECORDS = 500
READ_TIMEOUT_S = 10.0


class ConnectorPoint(BaseModel):
    rate: float
    lag: float | None


class HistorySample(BaseModel):
    t: int
    connectors: dict[str, ConnectorPoint]


class TaskRestarts(BaseModel):
    task: int
    failures: int
    next_restart_ms: int | None


class HistoryBody(BaseModel):
    """`GET /conveyor/history`: samples oldest first, and the failures seen of each connector's tasks."""

    interval_ms: int
    window_ms: int
    samples: list[HistorySample]
    restarts: dict[str, list[TaskRestarts]]


class SlotsBody(BaseModel):
    total: int
    in_use: int
    waiting_tasks: int


class WorkerBody(BaseModel):
    """One worker of the group; `error` says why the rest is unknown (it did not answer)."""

    worker_id: str
    error: str | None
    memory_bytes: int | None
    cpu_percent: float | None
    processes: int
    slots: SlotsBody | None
    spark_ui_url: str | None


class TopicSummary(BaseModel):
    name: str
    partitions: int
    internal: bool


class PartitionBody(BaseModel):
    partition: int
    beginning_offset: int
    end_offset: int
    last_stable_offset: int


class TopicBody(BaseModel):
    name: str
    internal: bool
    config: dict[str, str]
    partitions: list[PartitionBody]


class Decoded(BaseModel):
    """A key, value or header as the worker's converter reads it, or its bytes in base64 if it cannot."""

    text: str | None
    error: str | None = None
    base64: str | None = None


class RecordBody(BaseModel):
    offset: int
    timestamp: int
    key: Decoded
    value: Decoded
    headers: dict[str, Decoded]


class RecordsBody(BaseModel):
    topic: str
    partition: int
    key_converter: str
    value_converter: str
    records: list[RecordBody]


def conveyor_router(herder: Herder, history: ConsoleHistory) -> APIRouter:
    """`/conveyor/history` over any herder; the topic browser only over a herder with a log of its own."""
    router = APIRouter(prefix=PREFIX, tags=[TAG], responses=errors(404, 500))

    @router.get(
        "/history",
        summary="The console's samples of records/s and lag over the last hour, and task failures seen",
        response_model=None,
        responses=body(HistoryBody, 200),
    )
    def console_history(
        since: Annotated[int, Query(description="only samples taken after this time (ms since epoch)")] = 0,
    ) -> dict[str, Any]:
        return {
            "interval_ms": round(history.interval_s * 1000),
            "window_ms": round(history.window_s * 1000),
            "samples": [sample.to_json() for sample in history.since(since)],
            "restarts": task_restarts(history.task_failures(), _worker_config(herder)),
        }

    @router.get(
        "/workers",
        summary="Every worker of the group, this one first: memory, CPU, Spark slots in use, Spark's UI",
        response_model=None,
        responses=body(list[WorkerBody], 200),
    )
    def workers() -> list[dict[str, Any]]:
        return [usage.to_json() for usage in herder.workers_usage()]

    if isinstance(herder, BaseHerder):
        _add_topic_browser(router, herder.log, herder.config)
    return router


def _worker_config(herder: Herder) -> WorkerConfig | None:
    return herder.config if isinstance(herder, BaseHerder) else None


def task_restarts(
    failures: dict[tuple[str, int], TaskFailures], config: WorkerConfig | None
) -> dict[str, list[dict[str, Any]]]:
    """Per connector, its tasks that failed: how often, and when the worker's backoff tries again."""
    restarts: dict[str, list[dict[str, Any]]] = {}
    for (connector, task), seen in sorted(failures.items()):
        if not seen.count:
            continue
        next_restart = None
        if seen.failed and config is not None and config.task_restart_enabled:
            delay = min(config.task_restart_initial_ms * 2 ** (seen.count - 1), config.task_restart_max_ms)
            next_restart = seen.last_seen_ms + delay
        restarts.setdefault(connector, []).append(
            {"task": task, "failures": seen.count, "next_restart_ms": next_restart}
        )
    return restarts


def _add_topic_browser(router: APIRouter, log: Log, config: WorkerConfig) -> None:
    internal_topics = {config.configs_topic, config.offsets_topic, config.status_topic}

    def describe(topic: str) -> Any:
        try:
            return log.admin().describe_topics([topic])[topic]
        except (UnknownTopicOrPartitionError, InvalidTopicError) as error:
            raise NotFoundError(f"Topic {topic} does not exist: GET /conveyor/topics lists them") from error

    @router.get(
        "/topics",
        summary="The topics of the worker's log, with their partition counts",
        response_model=None,
        responses=body(list[TopicSummary], 200),
    )
    def list_topics() -> list[dict[str, Any]]:
        admin = log.admin()
        names = sorted(admin.list_topics())
        described = admin.describe_topics(names)
        return [
            {"name": name, "partitions": described[name].partitions, "internal": name in internal_topics}
            for name in names
            if name in described
        ]

    @router.get(
        "/topics/{topic:segment}",
        summary="A topic's settings and each partition's beginning and end offsets",
        response_model=None,
        responses={**body(TopicBody, 200), **errors(404)},
    )
    def topic_partitions(topic: str) -> dict[str, Any]:
        description = describe(topic)
        offsets = log.admin().list_offsets(description.topic_partitions())
        return {
            "name": topic,
            "internal": topic in internal_topics,
            "config": dict(description.config),
            "partitions": [
                {
                    "partition": tp.partition,
                    "beginning_offset": offsets[tp].earliest,
                    "end_offset": offsets[tp].latest,
                    "last_stable_offset": offsets[tp].last_stable,
                }
                for tp in description.topic_partitions()
            ],
        }

    @router.get(
        "/topics/{topic:segment}/partitions/{partition}/records",
        summary="The last committed records of a partition, decoded with the worker's converters",
        response_model=None,
        responses={**body(RecordsBody, 200), **errors(400, 404)},
    )
    def last_records(
        topic: str,
        partition: int,
        limit: Annotated[int, Query(description=f"records to show, at most {MAX_RECORDS}")] = DEFAULT_RECORDS,
    ) -> dict[str, Any]:
        if not 1 <= limit <= MAX_RECORDS:
            raise BadRequestError(f"limit must be between 1 and {MAX_RECORDS}, got {limit}")
        description = describe(topic)
        if not 0 <= partition < description.partitions:
            raise NotFoundError(
                f"Topic {topic} has partitions 0 to {description.partitions - 1}, not {partition}"
            )
        records = _read_last(log, TopicPartition(topic, partition), limit)
        key_converter = build_converter({}, config, "key.converter")
        value_converter = build_converter({}, config, "value.converter")
        header_converter = build_header_converter({}, config)
        return {
            "topic": topic,
            "partition": partition,
            "key_converter": config.key_converter,
            "value_converter": config.value_converter,
            "records": [_decoded(r, key_converter, value_converter, header_converter) for r in records],
        }


def _read_last(log: Log, partition: TopicPartition, limit: int) -> list[ConsumerRecord]:
    """The last `limit` committed records before the partition's last stable offset, oldest first."""
    bounds = log.admin().list_offsets([partition])[partition]
    end = bounds.last_stable
    start = max(bounds.earliest, end - limit)
    if start >= end:
        return []
    records: list[ConsumerRecord] = []
    with log.consumer() as consumer:
        consumer.assign([partition])
        consumer.seek(partition, start)
        deadline = time.monotonic() + READ_TIMEOUT_S
        while consumer.position(partition) < end and time.monotonic() < deadline:
            records.extend(r for r in consumer.poll(timeout=0.5, max_records=limit) if r.offset < end)
    return records[-limit:]


def _decoded(
    record: ConsumerRecord, keys: Converter, values: Converter, headers: HeaderConverter
) -> dict[str, Any]:
    topic = record.topic
    return {
        "offset": record.offset,
        "timestamp": record.timestamp,
        "key": _decode(partial(keys.to_connect_data, topic, record.key), record.key),
        "value": _decode(partial(values.to_connect_data, topic, record.value), record.value),
        "headers": {
            k: _decode(partial(headers.to_connect_header, topic, k, raw), raw) for k, raw in record.headers
        },
    }


def _decode(convert: Callable[[], SchemaAndValue], raw: bytes | None) -> dict[str, Any]:
    """The converted value as text, or the converter's error and the raw bytes in base64."""
    if raw is None:
        return {"text": None}
    try:
        converted = convert()
    except Exception as error:
        return {"text": None, "error": str(error), "base64": base64.b64encode(raw).decode("ascii")}
    if converted.value is None:
        return {"text": None}
    return {"text": value_to_text(converted.schema, converted.value)}

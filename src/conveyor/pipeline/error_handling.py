"""Error handling as Kafka Connect's KIP-298: retries, tolerance, error logging and the dead letter queue.

Conveyor applies it to source connectors too: a source record that fails conversion or a transform
goes to the dead letter queue like a sink record does, instead of failing the task.
"""

from __future__ import annotations

import enum
import logging
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from conveyor.api.errors import RetriableError
from conveyor.data import ConnectError
from conveyor.log import Log, Producer
from conveyor.pipeline.topics import TopicCreator
from conveyor.settings.connector_config import ErrorPolicy as ErrorPolicy  # the tasks take it from here

logger = logging.getLogger(__name__)

T = TypeVar("T")

ERROR_HEADER_PREFIX = "__connect.errors."


class Stage(enum.Enum):
    """Where in the pipeline an error happened (Kafka's `Stage` names)."""

    TASK_POLL = "TASK_POLL"
    TASK_PUT = "TASK_PUT"
    TRANSFORMATION = "TRANSFORMATION"
    KEY_CONVERTER = "KEY_CONVERTER"
    VALUE_CONVERTER = "VALUE_CONVERTER"
    HEADER_CONVERTER = "HEADER_CONVERTER"
    KAFKA_PRODUCE = "KAFKA_PRODUCE"
    KAFKA_CONSUME = "KAFKA_CONSUME"


TOLERABLE_STAGES = frozenset(
    {Stage.TRANSFORMATION, Stage.KEY_CONVERTER, Stage.VALUE_CONVERTER, Stage.HEADER_CONVERTER}
)


class ToleranceExceededError(ConnectError):
    """An error the connector's `errors.tolerance` does not allow; the task fails with it."""


@dataclass(frozen=True)
class FailedRecord:
    """What the dead letter queue keeps of a record that failed: its raw bytes and where it came from."""

    key: bytes | None
    value: bytes | None
    topic: str | None = None
    partition: int | None = None
    offset: int | None = None
    description: str = ""


class ErrorHandler:
    """Runs one pipeline operation with retries and tolerance, reporting failures as configured."""

    def __init__(
        self,
        policy: ErrorPolicy,
        connector: str,
        task: int,
        dlq_producer: Producer | None = None,
        topics: TopicCreator | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.policy = policy
        self._connector = connector
        self._task = task
        self._dlq = dlq_producer if policy.dlq_topic else None
        self._topics = topics
        self._sleep = sleep
        self.total_record_failures = 0
        self.total_record_errors = 0
        self.total_records_skipped = 0
        self.total_retries = 0
        self.total_errors_logged = 0
        self.dlq_produce_requests = 0
        self.dlq_produce_failures = 0
        self.last_error_timestamp = 0

    def execute(
        self, stage: Stage, operation: Callable[[], T], failed: Callable[[], FailedRecord]
    ) -> T | None:
        """The operation's result; None if it failed and the failure is tolerated (record skipped)."""
        deadline = time.monotonic() + self.policy.retry_timeout_ms / 1000
        delay = 0.3
        while True:
            try:
                return operation()
            except RetriableError as exc:
                self.total_record_failures += 1
                if self.policy.retry_timeout_ms == -1 or (
                    self.policy.retry_timeout_ms > 0 and time.monotonic() + delay < deadline
                ):
                    self.total_retries += 1
                    self._sleep(delay)
                    delay = min(delay * 2, self.policy.retry_delay_max_ms / 1000)
                    continue
                self._fail(stage, exc, failed())
                return None
            except Exception as exc:
                self.total_record_failures += 1
                self._fail(stage, exc, failed())
                return None

    def _fail(self, stage: Stage, exc: Exception, record: FailedRecord) -> None:
        self._count_error()
        self.report(stage, exc, record)
        if not self.policy.tolerance_all or stage not in TOLERABLE_STAGES:
            raise ToleranceExceededError(
                f"Tolerance exceeded in error handler at stage {stage.value} "
                f"for {record.description or 'a record'}: {type(exc).__name__}: {exc}"
            ) from exc
        self.total_records_skipped += 1

    def _count_error(self) -> None:
        self.total_record_errors += 1
        self.last_error_timestamp = int(time.time() * 1000)

    def report_errant(self, stage: Stage, exc: BaseException, record: FailedRecord) -> None:
        """A record the task itself reported as failed (KIP-610): counted as a failed record, then
        logged and sent to the dead letter queue as configured."""
        self.total_record_failures += 1
        self._count_error()
        self.report(stage, exc, record)

    def report(self, stage: Stage, exc: BaseException, record: FailedRecord) -> None:
        """Log the failure and send the record to the dead letter queue, as configured."""
        if self.policy.log_enable:
            message = (
                f"Error encountered in task {self._connector}-{self._task}. Executing stage '{stage.value}'"
            )
            if self.policy.log_include_messages:
                message += f" with {record.description}"
            logger.error(message, exc_info=exc)
            self.total_errors_logged += 1
        if self._dlq is None:
            return
        if self._topics is not None:
            self._topics.ensure(self.policy.dlq_topic)
        headers: list[tuple[str, bytes | None]] = []
        if self.policy.dlq_context_headers:
            headers = self._context_headers(stage, exc, record)
        self.dlq_produce_requests += 1
        try:
            self._dlq.send(self.policy.dlq_topic, record.value, key=record.key, headers=headers)
            self._dlq.flush()
        except Exception:
            self.dlq_produce_failures += 1
            raise

    def _context_headers(
        self, stage: Stage, exc: BaseException, record: FailedRecord
    ) -> list[tuple[str, bytes | None]]:
        fields: dict[str, object | None] = {
            "topic": record.topic,
            "partition": record.partition,
            "offset": record.offset,
            "connector.name": self._connector,
            "task.id": self._task,
            "stage": stage.value,
            "class.name": type(exc).__module__,
            "exception.class.name": f"{type(exc).__module__}.{type(exc).__qualname__}",
            "exception.message": str(exc),
            "exception.stacktrace": "".join(traceback.format_exception(exc)),
        }
        return [
            (ERROR_HEADER_PREFIX + name, None if value is None else str(value).encode())
            for name, value in fields.items()
        ]

    def metrics(self) -> dict[str, int]:
        """Kafka Connect's `task-error-metrics`."""
        return {
            "total-record-failures": self.total_record_failures,
            "total-record-errors": self.total_record_errors,
            "total-records-skipped": self.total_records_skipped,
            "total-retries": self.total_retries,
            "total-errors-logged": self.total_errors_logged,
            "deadletterqueue-produce-requests": self.dlq_produce_requests,
            "deadletterqueue-produce-failures": self.dlq_produce_failures,
            "last-error-timestamp": self.last_error_timestamp,
        }


@contextmanager
def connector_error_handler(
    log: Log, config: Mapping[str, str], connector: str, task: int
) -> Iterator[ErrorHandler]:
    """An error handler for the connector's ``errors.*`` settings, with a producer of its own for the
    dead letter queue while one is configured (closed on the way out)."""
    policy = ErrorPolicy.from_connector_config(config)
    producer = log.producer() if policy.dlq_topic else None
    try:
        yield ErrorHandler(policy, connector, task, producer, TopicCreator(log, config))
    finally:
        if producer is not None:
            producer.close()

"""The Kafka backend: a ``Log`` over a real Apache Kafka cluster, through confluent-kafka (librdkafka)."""

from __future__ import annotations

import threading

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from conveyor.log.api import Consumer, GroupCoordinator, IsolationLevel, Log, Producer
from conveyor.log.errors import IllegalStateError, InvalidConfigError
from conveyor.log.kafka.admin import KafkaAdmin
from conveyor.log.kafka.client_logs import with_client_logger
from conveyor.log.kafka.consumer import KafkaLogConsumer
from conveyor.log.kafka.coordinators import Coordinators
from conveyor.log.kafka.producer import KafkaLogProducer
from conveyor.log.kafka.settings import KafkaSettings


class KafkaLog(Log):
    """Topics on a Kafka cluster; producers and consumers are librdkafka clients made on demand."""

    def __init__(self, settings: KafkaSettings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._admin: KafkaAdmin | None = None
        self._coordinator: GroupCoordinator | None = None
        self._coordinators: Coordinators | None = None
        self._closed = False

    @classmethod
    def from_url(cls, url: str) -> KafkaLog:
        return cls(KafkaSettings.from_url(url))

    @property
    def url(self) -> str:
        return self._settings.url()

    @property
    def settings(self) -> KafkaSettings:
        return self._settings

    def admin(self) -> KafkaAdmin:
        with self._lock:
            self._ensure_open()
            if self._admin is None:
                try:
                    client = AdminClient(with_client_logger(self._settings.client_config("admin")))
                except KafkaException as error:
                    raise InvalidConfigError(f"Admin settings: {error}") from error
                self._admin = KafkaAdmin(self._settings, client)
            return self._admin

    def producer(self, transactional_id: str | None = None, **config: object) -> Producer:
        with self._lock:
            self._ensure_open()
            coordinators = self._shared_coordinators() if transactional_id is not None else None
        return KafkaLogProducer(self._settings, transactional_id, dict(config), coordinators)

    def consumer(
        self,
        group_id: str | None = None,
        isolation_level: IsolationLevel = "read_committed",
        **config: object,
    ) -> Consumer:
        admin = self.admin()
        return KafkaLogConsumer(self._settings, admin, group_id, isolation_level, dict(config))

    def group_coordinator(self) -> GroupCoordinator:
        from conveyor.log.kafka.group_coordinator import KafkaGroupCoordinator

        with self._lock:
            self._ensure_open()
            if self._coordinator is None:
                self._coordinator = KafkaGroupCoordinator(self._settings, self._shared_coordinators())
            return self._coordinator

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._admin = None
            self._coordinator = None
            coordinators, self._coordinators = self._coordinators, None
        if coordinators is not None:
            coordinators.close()

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (KafkaLog.from_url, (self.url,))

    def _shared_coordinators(self) -> Coordinators:
        if self._coordinators is None:
            self._coordinators = Coordinators(self._settings)
        return self._coordinators

    def _ensure_open(self) -> None:
        if self._closed:
            raise IllegalStateError("The log is closed")

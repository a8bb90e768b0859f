"""Per-connector client overrides and the worker's `connector.client.config.override.policy` (Kafka Connect's
`None`, `Principal` and `All`): what each policy allows, which clients a connector's overrides are checked
for, and the task that fails when its connector's overrides are not allowed."""

from __future__ import annotations

import pytest

from conveyor.errors import ConfigError, ConnectError
from conveyor.log import Log, Producer
from conveyor.log.kafka.settings import KafkaSettings
from conveyor.runtime.control import LocalTaskControl
from conveyor.runtime.sink_task import SinkTaskLoop
from conveyor.runtime.source_task import SourceTaskLoop
from conveyor.runtime.task_logs import task_log_url
from conveyor.settings.client_overrides import (
    ClientType,
    OffsetsConsumerSettings,
    allowed_overrides,
    clients_used,
    override_policy,
    override_violations,
    source_offsets_consumer,
)
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage import OffsetStore

from .support import CONNECTOR, OFFSETS_TOPIC, running, task_spec, worker_props
from .tasks import RecordingSinkTask, ScriptedSourceTask

POLICY = "connector.client.config.override.policy"
NONE_REFUSES_LINGER = (
    "The 'None' policy does not allow 'linger.ms' to be overridden in the connector configuration."
)
KAFKA_LOG = "kafka://broker:9092?admin.request.timeout.ms=1000&namespace=t1."


def test_the_default_policy_is_all_and_allows_every_override() -> None:
    policy = WorkerConfig.from_props({}).client_override_policy
    assert policy.name == "All"
    config = {"producer.override.linger.ms": "10", "producer.override.bootstrap.servers": "elsewhere:9092"}
    assert override_violations(policy, config, [ClientType.PRODUCER]) == {}


def test_the_none_policy_refuses_every_override_with_kafkas_message() -> None:
    policy = override_policy("None")
    config = {"producer.override.linger.ms": "10", "producer.override.security.protocol": "SSL"}
    violations = override_violations(policy, config, [ClientType.PRODUCER])
    assert violations == {
        "producer.override.linger.ms": NONE_REFUSES_LINGER,
        "producer.override.security.protocol": "The 'None' policy does not allow 'security.protocol' to be "
        "overridden in the connector configuration.",
    }


def test_the_principal_policy_allows_only_the_clients_principal() -> None:
    policy = override_policy("Principal")
    config = {
        "consumer.override.sasl.jaas.config": "...",
        "consumer.override.sasl.mechanism": "PLAIN",
        "consumer.override.security.protocol": "SASL_SSL",
        "consumer.override.sasl.username": "connector-a",
        "consumer.override.sasl.password": "secret",
        "consumer.override.max.poll.records": "10",
    }
    assert override_violations(policy, config, [ClientType.CONSUMER]) == {
        "consumer.override.max.poll.records": "The 'Principal' policy does not allow 'max.poll.records' to "
        "be overridden in the connector configuration."
    }


@pytest.mark.parametrize(
    "name",
    [
        "None",
        "NoneConnectorClientConfigOverridePolicy",
        "org.apache.kafka.connect.connector.policy.NoneConnectorClientConfigOverridePolicy",
    ],
)
def test_a_policy_is_named_by_alias_or_kafka_class_name(name: str) -> None:
    assert WorkerConfig.from_props({POLICY: name}).client_override_policy.name == "None"


def test_an_unknown_policy_is_refused_naming_the_worker_setting() -> None:
    with pytest.raises(ConfigError, match=POLICY):
        WorkerConfig.from_props({POLICY: "Some"})


def test_a_source_is_checked_for_its_producer_and_for_admin_and_consumer_with_offsets_of_its_own() -> None:
    producer, admin, consumer = ClientType.PRODUCER, ClientType.ADMIN, ClientType.CONSUMER
    assert set(clients_used({}, is_source=True, exactly_once=False)) == {producer}
    creating = {"topic.creation.default.partitions": "3"}
    assert set(clients_used(creating, is_source=True, exactly_once=False)) == {producer, admin}
    assert set(clients_used({}, is_source=True, exactly_once=True)) == {producer, admin, consumer}
    own_offsets = {"offsets.storage.topic": "own"}
    assert set(clients_used(own_offsets, is_source=True, exactly_once=False)) == {producer, admin, consumer}


def test_a_sink_is_checked_for_its_consumer_and_for_producer_and_admin_with_a_dead_letter_queue() -> None:
    producer, admin, consumer = ClientType.PRODUCER, ClientType.ADMIN, ClientType.CONSUMER
    assert set(clients_used({}, is_source=False, exactly_once=True)) == {consumer}
    dlq = {"errors.deadletterqueue.topic.name": "dead"}
    assert set(clients_used(dlq, is_source=False, exactly_once=False)) == {consumer, producer, admin}


def test_a_task_gets_its_overrides_without_their_prefix_when_the_policy_allows_them() -> None:
    config = {"producer.override.linger.ms": "10", "consumer.override.fetch.min.bytes": "1"}
    assert allowed_overrides(override_policy("All"), config, ClientType.PRODUCER) == {"linger.ms": "10"}


def test_a_source_task_whose_producer_overrides_the_policy_refuses_fails_to_start(log: Log) -> None:
    spec = task_spec(
        {"topic": "lines", "producer.override.linger.ms": "10"}, worker_props(log.url, **{POLICY: "None"})
    )
    with pytest.raises(ConnectError, match="Client Config Overrides not allowed") as failure:
        SourceTaskLoop(spec, LocalTaskControl(), log, ScriptedSourceTask([]))
    assert NONE_REFUSES_LINGER in str(failure.value)


def test_a_sink_task_whose_consumer_overrides_the_policy_refuses_fails_to_start(log: Log) -> None:
    spec = task_spec(
        {"topics": "lines", "consumer.override.max.poll.records": "10"},
        worker_props(log.url, **{POLICY: "None"}),
        kind="sink",
    )
    with pytest.raises(ConnectError, match=r"'max\.poll\.records' to be overridden"):
        SinkTaskLoop(spec, LocalTaskControl(), log, RecordingSinkTask())


def test_a_source_task_whose_stored_config_holds_an_unsafe_override_fails_to_start(log: Log) -> None:
    """A config stored before the worker refused it (or by a laxer worker) is refused again here."""
    spec = task_spec(
        {"topic": "lines", "producer.override.plugin.library.paths": "/tmp/x.so"}, worker_props(log.url)
    )
    with pytest.raises(ConnectError, match=r"plugin\.library\.paths.*loads native code"):
        SourceTaskLoop(spec, LocalTaskControl(), log, ScriptedSourceTask([]))


def test_a_sink_whose_stored_log_url_carries_an_unsafe_setting_fails_before_the_log_is_opened(
    log: Log,
) -> None:
    url = "kafka://127.0.0.1:9?sasl.oauthbearer.token.endpoint.url=http://127.0.0.1:9/token"
    spec = task_spec(
        {"topics": "lines", "consumer.override.log.url": url}, worker_props(log.url), kind="sink"
    )
    with pytest.raises(ConnectError, match=r"sasl\.oauthbearer\.token\.endpoint\.url"):
        task_log_url(spec)


def test_admin_overrides_join_the_admin_settings_of_a_kafka_log() -> None:
    spec = task_spec(
        {"topic": "lines", "admin.override.request.timeout.ms": "5000", "admin.override.retries": "3"},
        worker_props(KAFKA_LOG),
    )
    settings = KafkaSettings.from_url(task_log_url(spec))
    assert settings.per_client["admin"] == {"request.timeout.ms": "5000", "retries": "3"}
    assert settings.namespace == "t1."


def test_admin_overrides_leave_an_embedded_log_as_it_is(log: Log) -> None:
    spec = task_spec({"topic": "lines", "admin.override.request.timeout.ms": "5000"}, worker_props(log.url))
    assert task_log_url(spec) == log.url


def test_an_exactly_once_task_keeps_its_transactional_id_whatever_an_override_says(log: Log) -> None:
    spec = task_spec(
        {"topic": "lines", "producer.override.transactional.id": "borrowed"},
        worker_props(log.url, **{"exactly.once.source.support": "enabled"}),
    )
    control = LocalTaskControl()
    loop = SourceTaskLoop(spec, control, log, ScriptedSourceTask([]))
    with running(loop, control) as handle:
        handle.wait_for_state("RUNNING")
        assert loop.producer.transactional_id == "tests-conn-0"


ALL = override_policy("All")
READ_UNCOMMITTED = {"consumer.override.isolation.level": "read_uncommitted"}
EOS_WORKER = {"exactly.once.source.support": "enabled"}
PARTITION = {"file": "input"}


def test_an_exactly_once_tasks_offsets_consumer_takes_the_consumer_overrides_and_reads_committed() -> None:
    config = {"consumer.override.max.poll.records": "10", **READ_UNCOMMITTED}
    assert source_offsets_consumer(ALL, config, exactly_once=True) == OffsetsConsumerSettings(
        "read_committed", {"max.poll.records": "10"}
    )


def test_a_task_with_an_offsets_topic_of_its_own_reads_it_as_its_consumer_overrides_say() -> None:
    config = {"offsets.storage.topic": "own-offsets", "consumer.override.max.poll.records": "10"}
    assert source_offsets_consumer(ALL, config, exactly_once=False) == OffsetsConsumerSettings(
        "read_committed", {"max.poll.records": "10"}
    )
    assert source_offsets_consumer(ALL, {**config, **READ_UNCOMMITTED}, exactly_once=False) == (
        OffsetsConsumerSettings("read_uncommitted", {"max.poll.records": "10"})
    )


def test_a_task_on_the_workers_offsets_topic_gets_no_consumer_override() -> None:
    config = {"consumer.override.max.poll.records": "10", **READ_UNCOMMITTED}
    assert source_offsets_consumer(ALL, config, exactly_once=False) == OffsetsConsumerSettings(
        "read_committed", {}
    )


def open_transaction_with_an_offset(log: Log, topic: str) -> Producer:
    """A producer whose open transaction holds an offset of the connector's `PARTITION` in `topic`."""
    store = OffsetStore(log, topic, partitions=1)
    store.start()
    producer = log.producer(transactional_id="offsets-writer")
    producer.init_transactions()
    producer.begin_transaction()
    store.write(producer, CONNECTOR, [(PARTITION, {"position": 7})])
    producer.flush()
    store.stop()
    return producer


def offset_read_at_start(log: Log, config: dict[str, str], **worker: str) -> object:
    """The offset of `PARTITION` a source task's offset reader gives once the task runs."""
    task = ScriptedSourceTask([])
    control = LocalTaskControl()
    loop = SourceTaskLoop(
        task_spec({"topic": "lines", **config}, worker_props(log.url, **worker)), control, log, task
    )
    with running(loop, control) as handle:
        handle.wait_for_state("RUNNING")
        return task.context.offset_storage_reader().offset(PARTITION)


def test_a_task_with_an_offsets_topic_of_its_own_may_read_uncommitted_offsets(log: Log) -> None:
    writer = open_transaction_with_an_offset(log, "own-offsets")
    try:
        offset = offset_read_at_start(log, {"offsets.storage.topic": "own-offsets", **READ_UNCOMMITTED})
    finally:
        writer.close()
    assert offset == {"position": 7}


def test_an_exactly_once_task_reads_only_committed_offsets_whatever_its_consumer_override_says(
    log: Log,
) -> None:
    """An aborted offset, which a read_uncommitted reader would see. (While a transaction is open, an
    exactly-once task's read waits for it to end: tests/storage/test_offsets_beside_open_transactions.py.)"""
    writer = open_transaction_with_an_offset(log, OFFSETS_TOPIC)
    try:
        writer.abort_transaction()
        offset = offset_read_at_start(log, READ_UNCOMMITTED, **EOS_WORKER)
    finally:
        writer.close()
    assert offset is None


def test_an_exactly_once_task_whose_offsets_consumer_refuses_an_override_fails_naming_it(log: Log) -> None:
    spec = task_spec(
        {"topic": "lines", "consumer.override.max.poll.records": "0"}, worker_props(log.url, **EOS_WORKER)
    )
    control = LocalTaskControl()
    loop = SourceTaskLoop(spec, control, log, ScriptedSourceTask([]))
    with running(loop, control) as handle:
        error = handle.join()
    assert isinstance(error, ConnectError)
    assert "consumer.override.max.poll.records" in str(error)


def test_an_exactly_once_task_whose_consumer_overrides_the_policy_refuses_fails_to_start(log: Log) -> None:
    spec = task_spec(
        {"topic": "lines", "consumer.override.max.poll.records": "10"},
        worker_props(log.url, **{POLICY: "None", **EOS_WORKER}),
    )
    with pytest.raises(ConnectError, match=r"'max\.poll\.records' to be overridden"):
        SourceTaskLoop(spec, LocalTaskControl(), log, ScriptedSourceTask([]))

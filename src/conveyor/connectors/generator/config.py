"""The settings of the generator source connector and of each of its tasks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from conveyor.api import ConfigDef, ConfigType, Importance, Range
from conveyor.connectors.generator.payload import HEADER_LENGTH, MAX_TASKS
from conveyor.connectors.source_keys import TOPIC_CONFIG, topic_key

RECORDS_CONFIG = "records"
RECORD_SIZE_CONFIG = "record.size"
RATE_CONFIG = "rate"
BATCH_SIZE_CONFIG = "batch.size"
KEY_CARDINALITY_CONFIG = "key.cardinality"
SEED_CONFIG = "seed"
TRANSACTION_RECORDS_CONFIG = "transaction.records"
TASK_ID_CONFIG = "generator.task.id"

ENDLESS = -1

CONFIG_DEF = (
    ConfigDef()
    .define_key(topic_key("The topic to write the generated records to."))
    .define(RECORDS_CONFIG, ConfigType.LONG, default=ENDLESS, validator=Range.at_least(ENDLESS),
        importance=Importance.HIGH,
        documentation="How many records each task produces in total before it goes idle; -1 for no end.")
    .define(RECORD_SIZE_CONFIG, ConfigType.INT, default=100, validator=Range.at_least(HEADER_LENGTH),
        importance=Importance.MEDIUM,
        documentation=f"The size of each value in bytes (ASCII characters); at least {HEADER_LENGTH}, "
        "the length of the task and sequence number header every value starts with.")
    .define(RATE_CONFIG, ConfigType.DOUBLE, default=0.0, validator=Range.at_least(0),
        importance=Importance.MEDIUM,
        documentation="Records per second per task; 0 produces as fast as the runtime takes them.")
    .define(BATCH_SIZE_CONFIG, ConfigType.INT, default=1000, validator=Range.at_least(1),
        importance=Importance.LOW, documentation="The most records one poll returns.")
    .define(KEY_CARDINALITY_CONFIG, ConfigType.LONG, default=0, validator=Range.at_least(0),
        importance=Importance.MEDIUM,
        documentation="Keys cycle over this many distinct strings, shared by all tasks; "
        "0 leaves records without keys.")
    .define(SEED_CONFIG, ConfigType.LONG, default=0, importance=Importance.LOW,
        documentation="Seeds the value padding: the same seed, task and seqno give the same record.")
    .define(TRANSACTION_RECORDS_CONFIG, ConfigType.LONG, default=0, validator=Range.at_least(0),
        importance=Importance.LOW,
        documentation="With transaction.boundary=connector, ask for a commit after every this many "
        "records (and after the last one); 0 never asks.")
)  # fmt: skip

TASK_CONFIG_DEF = ConfigDef(CONFIG_DEF).define(
    TASK_ID_CONFIG,
    ConfigType.INT,
    default=0,
    validator=Range.between(0, MAX_TASKS - 1),
    importance=Importance.LOW,
    documentation="Which task this is; set by the connector for each task it configures.",
)


@dataclass(frozen=True)
class GeneratorSettings:
    """One task's parsed settings."""

    topic: str
    records: int
    record_size: int
    rate: float
    batch_size: int
    key_cardinality: int
    seed: int
    transaction_records: int
    task_id: int

    @property
    def is_endless(self) -> bool:
        return self.records == ENDLESS

    @classmethod
    def from_props(cls, props: Mapping[str, str]) -> GeneratorSettings:
        config = TASK_CONFIG_DEF.parse(props)
        return cls(
            topic=config[TOPIC_CONFIG],
            records=config[RECORDS_CONFIG],
            record_size=config[RECORD_SIZE_CONFIG],
            rate=config[RATE_CONFIG],
            batch_size=config[BATCH_SIZE_CONFIG],
            key_cardinality=config[KEY_CARDINALITY_CONFIG],
            seed=config[SEED_CONFIG],
            transaction_records=config[TRANSACTION_RECORDS_CONFIG],
            task_id=config[TASK_ID_CONFIG],
        )

"""A datagen-like source for benchmarks and demos, and a verifier for what it produced."""

from conveyor.connectors.generator.connector import GeneratorSourceConnector
from conveyor.connectors.generator.payload import generated_key, generated_value
from conveyor.connectors.generator.task import GeneratorSourceTask
from conveyor.connectors.generator.verify import TaskTally, Verification, verify

__all__ = [
    "GeneratorSourceConnector",
    "GeneratorSourceTask",
    "TaskTally",
    "Verification",
    "generated_key",
    "generated_value",
    "verify",
]

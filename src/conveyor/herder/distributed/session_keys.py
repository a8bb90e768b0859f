"""KIP-507 session keys: how the leader makes one and when it must make the next.

The leader generates a random key with ``inter.worker.key.generation.algorithm`` and
``inter.worker.key.size``, writes it to the config topic, and replaces it once it is
``inter.worker.key.ttl.ms`` old, or sooner if the worker's key settings no longer match it, as Kafka's
``DistributedHerder.checkForKeyRotation`` does.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from conveyor.errors import ConfigError
from conveyor.settings.mac_algorithms import key_size_bytes
from conveyor.settings.worker_config import WorkerConfig
from conveyor.storage.config_records import SessionKey

__all__ = [
    "DEFAULT_KEY_GENERATION_ALGORITHM",
    "DEFAULT_KEY_TTL_MS",
    "Clock",
    "SessionKey",
    "SessionKeyGenerator",
    "SessionKeyRotation",
    "system_clock_ms",
]

DEFAULT_KEY_GENERATION_ALGORITHM = "HmacSHA256"
DEFAULT_KEY_TTL_MS = 60 * 60 * 1000

Clock = Callable[[], int]
"""Wall-clock time in epoch milliseconds, the unit of a session key's creation timestamp."""


def system_clock_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class SessionKeyGenerator:
    """Makes random session keys of one algorithm and size (Kafka's ``KeyGenerator``)."""

    algorithm: str = DEFAULT_KEY_GENERATION_ALGORITHM
    key_size_bits: int | None = None

    def __post_init__(self) -> None:
        key_size_bytes(self.algorithm, self.key_size_bits)

    @property
    def key_size_bytes(self) -> int:
        return key_size_bytes(self.algorithm, self.key_size_bits)

    def generate(self, creation_timestamp: int) -> SessionKey:
        """A new key from the operating system's secure random source, made at ``creation_timestamp``."""
        return SessionKey(secrets.token_bytes(self.key_size_bytes), self.algorithm, creation_timestamp)

    def matches(self, session_key: SessionKey) -> bool:
        """Whether ``session_key`` has the algorithm and length this generator would give it."""
        return session_key.algorithm == self.algorithm and len(session_key.key) == self.key_size_bytes


@dataclass(frozen=True)
class SessionKeyRotation:
    """When the leader must distribute a new key: none yet, the current one expired, or settings changed.

    A key expires ``ttl_ms`` after its creation; a ``ttl_ms`` of 0 never expires a key, as Kafka's
    herder never tracks an expiration when the TTL is 0.
    """

    generator: SessionKeyGenerator
    ttl_ms: int = DEFAULT_KEY_TTL_MS
    clock: Clock = system_clock_ms

    @classmethod
    def for_worker(cls, config: WorkerConfig, clock: Clock = system_clock_ms) -> SessionKeyRotation:
        """The rotation the worker's ``inter.worker.key.*`` settings ask for."""
        generator = SessionKeyGenerator(config.key_generation_algorithm, config.key_size_bits)
        return cls(generator, ttl_ms=config.key_ttl_ms, clock=clock)

    def __post_init__(self) -> None:
        if self.ttl_ms < 0:
            raise ConfigError("inter.worker.key.ttl.ms", self.ttl_ms, "Value must be at least 0")

    def expiration(self, session_key: SessionKey) -> int | None:
        """The epoch millisecond at which ``session_key`` is due for rotation, or None if never."""
        return None if self.ttl_ms == 0 else session_key.creation_timestamp + self.ttl_ms

    def rotation_due(self, session_key: SessionKey | None) -> bool:
        if session_key is None or not self.generator.matches(session_key):
            return True
        expiration = self.expiration(session_key)
        return expiration is not None and expiration <= self.clock()

    def new_key(self) -> SessionKey:
        """A fresh key created now."""
        return self.generator.generate(self.clock())

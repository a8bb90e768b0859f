"""Session keys are random keys of the configured algorithm and size, due for rotation after their TTL."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.errors import ConfigError
from conveyor.herder.distributed.session_keys import SessionKey, SessionKeyGenerator, SessionKeyRotation
from conveyor.settings.worker_config import WorkerConfig

CREATED = 1_700_000_000_000
TTL_MS = 60_000


class FakeClock:
    """A wall clock in epoch milliseconds that moves only when told to."""

    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now


def rotation_at(now: int, ttl_ms: int = TTL_MS) -> SessionKeyRotation:
    return SessionKeyRotation(SessionKeyGenerator(), ttl_ms=ttl_ms, clock=FakeClock(now))


def test_default_key_is_a_256_bit_hmac_sha256_key() -> None:
    key = SessionKeyGenerator().generate(CREATED)
    assert (key.algorithm, len(key.key), key.creation_timestamp) == ("HmacSHA256", 32, CREATED)


def test_key_size_is_given_in_bits() -> None:
    assert len(SessionKeyGenerator("HmacSHA512", key_size_bits=1024).generate(CREATED).key) == 128


def test_each_generated_key_is_different() -> None:
    generator = SessionKeyGenerator()
    assert generator.generate(CREATED).key != generator.generate(CREATED).key


def test_an_unknown_generation_algorithm_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"inter\.worker\.key\.generation\.algorithm"):
        SessionKeyGenerator("AES")


def test_a_key_shorter_than_40_bits_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="at least 40 bits"):
        SessionKeyGenerator(key_size_bits=32)


def test_new_key_is_created_at_the_clocks_time() -> None:
    assert rotation_at(CREATED).new_key().creation_timestamp == CREATED


def test_rotation_is_due_when_there_is_no_key() -> None:
    assert rotation_at(CREATED).rotation_due(None)


def test_rotation_is_not_due_one_millisecond_before_the_ttl() -> None:
    key = SessionKeyGenerator().generate(CREATED)
    assert not rotation_at(CREATED + TTL_MS - 1).rotation_due(key)


def test_rotation_is_due_exactly_at_the_ttl() -> None:
    key = SessionKeyGenerator().generate(CREATED)
    assert rotation_at(CREATED + TTL_MS).rotation_due(key)


def test_rotation_follows_the_clock() -> None:
    clock = FakeClock(CREATED)
    rotation = SessionKeyRotation(SessionKeyGenerator(), ttl_ms=TTL_MS, clock=clock)
    key = rotation.new_key()
    assert not rotation.rotation_due(key)
    clock.now += TTL_MS
    assert rotation.rotation_due(key)


def test_a_ttl_of_zero_never_expires_a_key() -> None:
    key = SessionKeyGenerator().generate(CREATED)
    assert not rotation_at(CREATED + 10 * TTL_MS, ttl_ms=0).rotation_due(key)


def test_rotation_is_due_for_a_key_of_another_algorithm() -> None:
    key = SessionKeyGenerator("HmacSHA512").generate(CREATED)
    assert rotation_at(CREATED).rotation_due(key)


def test_rotation_is_due_for_a_key_of_another_size() -> None:
    key = SessionKey(b"\x00" * 16, "HmacSHA256", CREATED)
    assert rotation_at(CREATED).rotation_due(key)


def test_a_negative_ttl_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"inter\.worker.key\.ttl\.ms"):
        SessionKeyRotation(SessionKeyGenerator(), ttl_ms=-1)


def test_the_worker_config_chooses_the_algorithm_size_and_ttl(tmp_path: Path) -> None:
    config = WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path),
            "inter.worker.key.generation.algorithm": "HmacSHA384",
            "inter.worker.key.size": "256",
            "inter.worker.key.ttl.ms": "1000",
        }
    )
    rotation = SessionKeyRotation.for_worker(config, clock=FakeClock(CREATED))
    key = rotation.new_key()
    assert (key.algorithm, len(key.key), rotation.expiration(key)) == ("HmacSHA384", 32, CREATED + 1000)

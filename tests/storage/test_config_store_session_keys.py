"""The config store writes and reads KIP-507 ``session-key`` records as Kafka's config backing store does."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from conveyor.log import Log, open_log
from conveyor.storage import ConfigStore, ConfigUpdateListener, SessionKey

RawRecords = Callable[[str], list[tuple[bytes | None, bytes | None]]]
TOPIC = "connect-configs"
KEY = SessionKey(bytes(range(32)), "HmacSHA256", 1_700_000_000_000)


@pytest.fixture
def store(log: Log) -> Iterator[ConfigStore]:
    started = ConfigStore(log)
    started.start()
    yield started
    started.stop()


def write_raw(log: Log, key: bytes, value: bytes) -> None:
    with log.producer() as producer:
        producer.send(TOPIC, value, key=key)
        producer.flush()


class SessionKeyListener(ConfigUpdateListener):
    def __init__(self) -> None:
        self.keys: list[SessionKey] = []

    def on_session_key_update(self, session_key: SessionKey) -> None:
        self.keys.append(session_key)


def test_session_key_record_has_kafkas_key_and_fields(store: ConfigStore, raw_records: RawRecords) -> None:
    store.put_session_key(KEY)
    [(key, value)] = raw_records(TOPIC)
    assert key == b"session-key"
    assert value is not None
    assert json.loads(value) == {
        "key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        "algorithm": "HmacSHA256",
        "creation-timestamp": 1_700_000_000_000,
    }


def test_snapshot_has_no_session_key_before_one_is_written(store: ConfigStore) -> None:
    assert store.snapshot().session_key is None


def test_session_key_round_trips_to_a_second_store(log_url: str, store: ConfigStore) -> None:
    store.put_session_key(KEY)
    with open_log(log_url) as second_log:
        second = ConfigStore(second_log)
        second.start()
        session_key = second.snapshot().session_key
        second.stop()
    assert session_key == KEY


def test_the_latest_session_key_replaces_the_previous_one(store: ConfigStore) -> None:
    rotated = SessionKey(b"\x01" * 32, "HmacSHA256", KEY.creation_timestamp + 3_600_000)
    store.put_session_key(KEY)
    store.put_session_key(rotated)
    assert store.snapshot().session_key == rotated


def test_listeners_hear_each_new_session_key(store: ConfigStore) -> None:
    listener = SessionKeyListener()
    store.add_listener(listener)
    store.put_session_key(KEY)
    assert listener.keys == [KEY]


def test_a_session_key_written_by_kafka_connect_is_read(log: Log, store: ConfigStore) -> None:
    kafka_value = (
        b'{"key":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",'
        b'"algorithm":"HmacSHA256","creation-timestamp":1700000000000}'
    )
    write_raw(log, b"session-key", kafka_value)
    store.read_to_end()
    assert store.snapshot().session_key == KEY


@pytest.mark.parametrize(
    "value",
    [
        b'{"key":"not base64!","algorithm":"HmacSHA256","creation-timestamp":1}',
        b'{"key":"AAEC","algorithm":"HmacSHA256"}',
        b'{"key":"AAEC","algorithm":7,"creation-timestamp":1}',
        b'"a string"',
    ],
)
def test_a_malformed_session_key_record_is_ignored(log: Log, store: ConfigStore, value: bytes) -> None:
    store.put_session_key(KEY)
    listener = SessionKeyListener()
    store.add_listener(listener)
    write_raw(log, b"session-key", value)
    store.read_to_end()
    assert store.snapshot().session_key == KEY
    assert listener.keys == []


def test_the_session_key_is_hidden_from_repr() -> None:
    assert "AAEC" not in repr(KEY) and repr(bytes(range(32))) not in repr(KEY)

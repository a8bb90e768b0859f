"""The worker's own Kafka clients reach an OAuth token endpoint only if it is listed in
`org.apache.kafka.sasl.oauthbearer.allowed.urls` (CVE-2025-27817), a worker property or, as Kafka takes it,
a JVM option in `KAFKA_OPTS`; as in Kafka 4, an empty list allows none."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.errors import ConfigError
from conveyor.settings.worker_config import WorkerConfig

ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls"
TOKEN_URL = "https://login.example.com/oauth2/token"


def kafka_worker(tmp_path: Path, **props: str) -> WorkerConfig:
    return WorkerConfig.from_props(
        {
            "data.dir": str(tmp_path),
            "bootstrap.servers": "127.0.0.1:9092",
            "sasl.mechanism": "OAUTHBEARER",
            **props,
        }
    )


@pytest.fixture(autouse=True)
def no_kafka_opts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KAFKA_OPTS", raising=False)


@pytest.mark.parametrize(
    "key", ["sasl.oauthbearer.token.endpoint.url", "producer.sasl.oauthbearer.token.endpoint.url"]
)
def test_a_worker_refuses_a_token_url_that_is_not_listed(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError) as refused:
        kafka_worker(tmp_path, **{key: TOKEN_URL})
    assert "sasl.oauthbearer.token.endpoint.url" in str(refused.value)
    assert ALLOWED_URLS in str(refused.value)


def test_a_worker_refuses_a_token_url_in_its_log_url(tmp_path: Path) -> None:
    url = f"kafka://127.0.0.1:9092?sasl.oauthbearer.token.endpoint.url={TOKEN_URL}"
    with pytest.raises(ConfigError, match=ALLOWED_URLS):
        WorkerConfig.from_props({"data.dir": str(tmp_path), "log.url": url})


def test_a_worker_accepts_a_token_url_listed_in_its_properties(tmp_path: Path) -> None:
    config = kafka_worker(
        tmp_path,
        **{
            "sasl.oauthbearer.token.endpoint.url": TOKEN_URL,
            ALLOWED_URLS: f"https://other.example.com/t, {TOKEN_URL}",
        },
    )
    assert TOKEN_URL in config.log_url.replace("%3A", ":").replace("%2F", "/")


def test_a_worker_accepts_a_token_url_listed_in_kafka_opts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KAFKA_OPTS", f"-Xmx1g -D{ALLOWED_URLS}={TOKEN_URL}")
    kafka_worker(tmp_path, **{"sasl.oauthbearer.token.endpoint.url": TOKEN_URL})


def test_the_worker_property_wins_over_kafka_opts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFKA_OPTS", f"-D{ALLOWED_URLS}={TOKEN_URL}")
    with pytest.raises(ConfigError, match=ALLOWED_URLS):
        kafka_worker(
            tmp_path,
            **{"sasl.oauthbearer.token.endpoint.url": TOKEN_URL, ALLOWED_URLS: "https://other.example.com/t"},
        )

"""The KIP-507 ``inter.worker.*`` worker keys take Kafka's defaults and are checked as Kafka checks them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.api import ConfigError
from conveyor.settings.worker_config import WorkerConfig


def parse(tmp_path: Path, **props: str) -> WorkerConfig:
    return WorkerConfig.from_props({"data.dir": str(tmp_path), **props})


def test_inter_worker_keys_default_to_hmac_sha256_and_a_one_hour_ttl(tmp_path: Path) -> None:
    config = parse(tmp_path)
    assert config.key_generation_algorithm == "HmacSHA256"
    assert config.key_size_bits is None
    assert config.key_ttl_ms == 3_600_000
    assert config.signature_algorithm == "HmacSHA256"
    assert config.verification_algorithms == ("HmacSHA256",)


def test_inter_worker_keys_are_typed(tmp_path: Path) -> None:
    config = parse(
        tmp_path,
        **{
            "inter.worker.key.generation.algorithm": "HmacSHA512",
            "inter.worker.key.size": "512",
            "inter.worker.key.ttl.ms": "60000",
            "inter.worker.signature.algorithm": "HmacSHA512",
            "inter.worker.verification.algorithms": "HmacSHA256, HmacSHA512",
        },
    )
    assert config.key_generation_algorithm == "HmacSHA512"
    assert config.key_size_bits == 512
    assert config.key_ttl_ms == 60000
    assert config.signature_algorithm == "HmacSHA512"
    assert config.verification_algorithms == ("HmacSHA256", "HmacSHA512")


def test_a_signature_algorithm_missing_from_the_verification_list_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Signature algorithm must be present in") as raised:
        parse(
            tmp_path,
            **{
                "inter.worker.signature.algorithm": "HmacSHA512",
                "inter.worker.verification.algorithms": "HmacSHA256",
            },
        )
    assert raised.value.name == "inter.worker.signature.algorithm"


@pytest.mark.parametrize(
    "key",
    [
        "inter.worker.key.generation.algorithm",
        "inter.worker.signature.algorithm",
        "inter.worker.verification.algorithms",
    ],
)
def test_an_unsupported_algorithm_is_refused_naming_the_key(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigError, match="not supported") as raised:
        parse(tmp_path, **{key: "HmacWhirlpool"})
    assert raised.value.name == key


def test_an_empty_verification_list_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="At least one signature verification algorithm"):
        parse(tmp_path, **{"inter.worker.verification.algorithms": ""})


def test_a_negative_key_ttl_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        parse(tmp_path, **{"inter.worker.key.ttl.ms": "-1"})
    assert raised.value.name == "inter.worker.key.ttl.ms"


def test_a_key_size_below_40_bits_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Unable to create key generator"):
        parse(tmp_path, **{"inter.worker.key.size": "32"})

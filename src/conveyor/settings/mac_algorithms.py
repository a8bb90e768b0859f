"""The MAC algorithms a worker can sign and verify internal requests with, under the JVM's names.

Kafka Connect names its KIP-507 algorithms as the JVM does (``HmacSHA256``); workers of a mixed cluster
must agree on those names, so Conveyor keeps them and maps each onto the ``hashlib`` digest that
computes it. The worker config validates its ``inter.worker.*`` keys here, as Kafka's ``Crypto`` does.
"""

from __future__ import annotations

from typing import Any

from conveyor.errors import ConfigError

HMAC_DIGESTS: dict[str, str] = {
    "HmacMD5": "md5",
    "HmacSHA1": "sha1",
    "HmacSHA224": "sha224",
    "HmacSHA256": "sha256",
    "HmacSHA384": "sha384",
    "HmacSHA512": "sha512",
    "HmacSHA3-224": "sha3_224",
    "HmacSHA3-256": "sha3_256",
    "HmacSHA3-384": "sha3_384",
    "HmacSHA3-512": "sha3_512",
}
"""Each supported HMAC algorithm with the ``hashlib`` digest that computes it."""

DEFAULT_KEY_SIZE_BYTES: dict[str, int] = {
    "HmacMD5": 64,
    "HmacSHA1": 64,
    "HmacSHA224": 28,
    "HmacSHA256": 32,
    "HmacSHA384": 48,
    "HmacSHA512": 64,
    "HmacSHA3-224": 28,
    "HmacSHA3-256": 32,
    "HmacSHA3-384": 48,
    "HmacSHA3-512": 64,
}
"""The key length each JVM key generator produces when no key size is given."""

MIN_KEY_SIZE_BITS = 40
"""The smallest key the JVM's HMAC key generators accept."""


def ensure_mac_algorithm(name: str, algorithm: Any) -> None:
    """Raise Kafka's ``ConfigError`` for config ``name`` unless ``algorithm`` is a supported one."""
    if algorithm not in HMAC_DIGESTS:
        raise ConfigError(
            name,
            algorithm,
            f"the algorithm is not supported by this worker; the supported algorithms are: "
            f"{list(HMAC_DIGESTS)}",
        )


def ensure_mac_algorithms(name: str, algorithms: Any) -> None:
    """A non-empty list of supported algorithms, as Kafka's ``inter.worker.verification.algorithms``."""
    if not algorithms:
        raise ConfigError(name, algorithms, "At least one signature verification algorithm must be provided")
    for algorithm in algorithms:
        ensure_mac_algorithm(name, algorithm)


def key_size_bytes(algorithm: str, key_size_bits: int | None) -> int:
    """The length of the keys generated for ``algorithm`` and ``inter.worker.key.size`` (in bits, or None)."""
    ensure_mac_algorithm("inter.worker.key.generation.algorithm", algorithm)
    if key_size_bits is None:
        return DEFAULT_KEY_SIZE_BYTES[algorithm]
    if key_size_bits < MIN_KEY_SIZE_BITS:
        raise ConfigError(
            f"Unable to create key generator with algorithm {algorithm} and key size {key_size_bits}: "
            f"Key length must be at least {MIN_KEY_SIZE_BITS} bits"
        )
    return (key_size_bits + 7) // 8

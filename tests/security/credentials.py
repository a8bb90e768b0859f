"""A credentials file (Kafka's PropertyFileLoginModule format) and the JAAS file that names it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import bcrypt

BASIC_AUTH_EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"

PLAIN_USER = ("alice", "alice-secret")
BCRYPT_USER = ("bob", "bob-secret")
SHA256_USER = ("carol", "carol-secret")


def write_credentials(folder: Path) -> Path:
    """The JAAS file; its KafkaConnect entry names a credentials file of a plain and two hashed passwords."""
    credentials = folder / "credentials.properties"
    bob_hash = bcrypt.hashpw(BCRYPT_USER[1].encode(), bcrypt.gensalt(rounds=4)).decode()
    carol_hash = hashlib.sha256(SHA256_USER[1].encode()).hexdigest()
    credentials.write_text(
        f"{PLAIN_USER[0]}={PLAIN_USER[1]}\n{BCRYPT_USER[0]}={{bcrypt}}{bob_hash}\n"
        f"{SHA256_USER[0]}: {{sha256}}{carol_hash}\n"
    )
    jaas = folder / "connect_jaas.conf"
    jaas.write_text(
        "KafkaConnect {\n"
        "  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n"
        f'  file="{credentials}";\n'
        "};\n"
    )
    return jaas


def stored_password(jaas: Path, user: str) -> str:
    """The password of `user` as the credentials file beside `jaas` stores it."""
    for line in (jaas.parent / "credentials.properties").read_text().splitlines():
        name, _, stored = line.replace(":", "=", 1).partition("=")
        if name.strip() == user:
            return stored.strip()
    raise KeyError(user)


def basic_auth_props(folder: Path) -> dict[str, str]:
    """Worker properties that turn basic authentication on."""
    return {
        "rest.extension.classes": BASIC_AUTH_EXTENSION,
        "java.security.auth.login.config": str(write_credentials(folder)),
    }

"""The users and passwords of a credentials file (Kafka's `PropertyFileLoginModule` format, `user=password`).

A password may be stored hashed: `{bcrypt}$2b$...` (or a bare `$2a$`/`$2b$`/`$2y$` bcrypt hash),
`{sha256}<hex>` or `{sha512}<hex>` (the digest of the UTF-8 password), and `{noop}<text>` for plain text
that starts with `{`. Anything else is the password itself, as Kafka reads it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import bcrypt

from conveyor.errors import ConfigError
from conveyor.settings.properties import read_properties

_BCRYPT_PREFIXES = ("$2a$", "$2b$", "$2y$")
_DIGESTS = {"{sha256}": "sha256", "{sha512}": "sha512"}


@dataclass(frozen=True)
class Credentials:
    """Users and their stored passwords; `check` says whether a user and password match one."""

    passwords: Mapping[str, str]

    @classmethod
    def read(cls, path: Path) -> Credentials:
        try:
            text = path.read_text()
        except OSError as error:
            raise ConfigError(f"The credentials file {path} cannot be read: {error}") from error
        return cls(read_properties(text))

    def check(self, user: str, password: str) -> bool:
        stored = self.passwords.get(user)
        return stored is not None and verify_password(password, stored)


def verify_password(password: str, stored: str) -> bool:
    """Whether `password` is the one `stored` (plain or hashed) stands for, compared in constant time."""
    given = password.encode()
    if stored.startswith("{bcrypt}"):
        stored = stored.removeprefix("{bcrypt}")
    if stored.startswith(_BCRYPT_PREFIXES):
        try:
            return bcrypt.checkpw(given, stored.encode())
        except ValueError:
            return False
    for prefix, algorithm in _DIGESTS.items():
        if stored.startswith(prefix):
            digest = hashlib.new(algorithm, given).hexdigest()
            return hmac.compare_digest(digest, stored.removeprefix(prefix).strip().lower())
    return hmac.compare_digest(given, stored.removeprefix("{noop}").encode())

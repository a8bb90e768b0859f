"""Client settings a connector may not override whatever the override policy says, because they make the
worker load code, run commands, read files or reach URLs (`conveyor.log.setting_risks`), and the
worker settings that let some of them through.

- `connector.client.config.override.allowed.unsafe.keys`: settings the worker lets connectors set anyway
  (the override policy still applies to them).
- `connector.client.config.override.allowed.paths`: directories the file settings of connectors may point
  into (symlinks and `..` resolved first).
- `org.apache.kafka.sasl.oauthbearer.allowed.urls`: the OAuth URLs clients may reach (Kafka's
  CVE-2025-27817 property, read from the worker config or, as Kafka reads it, from `-D...` in `KAFKA_OPTS`).
  It binds the worker's own Kafka settings too: as in Kafka 4, when it is empty no URL is allowed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from conveyor.errors import ConfigError
from conveyor.log.setting_risks import OAUTH_URL_SETTINGS, Risk, canonical_name, setting_risk
from conveyor.log.url import client_settings_in_url
from conveyor.settings.properties import jvm_option

ALLOWED_UNSAFE_KEYS_CONFIG = "connector.client.config.override.allowed.unsafe.keys"
ALLOWED_PATHS_CONFIG = "connector.client.config.override.allowed.paths"
ALLOWED_URLS_CONFIG = "org.apache.kafka.sasl.oauthbearer.allowed.urls"


@dataclass(frozen=True)
class UnsafeOverrides:
    """What a worker lets a connector's client overrides do although it is unsafe: `keys` in canonical
    spelling, `paths` resolved directories, `urls` exact OAuth URLs."""

    keys: frozenset[str] = frozenset()
    paths: tuple[Path, ...] = ()
    urls: frozenset[str] = frozenset()

    @classmethod
    def of(cls, keys: Iterable[str], paths: Iterable[str], urls: Iterable[str]) -> UnsafeOverrides:
        return cls(
            frozenset(canonical_name(key) for key in keys if key.strip()),
            tuple(Path(path.strip()).resolve() for path in paths if path.strip()),
            frozenset(url.strip() for url in urls if url.strip()),
        )

    def refusal(self, setting: str, value: str) -> str | None:
        """Why a connector may not set client `setting` to `value` on this worker; None if it may."""
        risk = setting_risk(setting, value)
        if risk is None:
            return None
        listed = canonical_name(setting) in self.keys
        unless = f"unless the worker lists '{canonical_name(setting)}' in {ALLOWED_UNSAFE_KEYS_CONFIG}"
        refused = f"'{setting}' {risk.value}: a connector may not set it, whatever the override policy,"
        if risk is Risk.FILE:
            if self.paths:
                if self._inside(value):
                    return None
                return (
                    f"'{setting}' {risk.value}: the file must be in a directory of {ALLOWED_PATHS_CONFIG} "
                    "(symlinks and '..' are followed first)"
                )
            return (
                None
                if listed
                else f"{refused} {unless} or the file lies in a directory of {ALLOWED_PATHS_CONFIG}"
            )
        if risk is Risk.URL:
            if listed and value.strip() in self.urls:
                return None
            return f"{refused} {unless} and the URL in {ALLOWED_URLS_CONFIG}"
        return None if listed else f"{refused} {unless}"

    def log_url_refusal(self, url: str) -> str | None:
        """Why a connector may not open the Kafka log at `url` (a sink's consumer log, a MirrorMaker
        cluster): the first client setting of the URL this worker refuses; None if none."""
        for setting, value in client_settings_in_url(url):
            refusal = self.refusal(setting, value)
            if refusal is not None:
                return f"The log URL sets {setting}: {refusal}"
        return None

    def _inside(self, value: str) -> bool:
        """Whether the file `value` names, its symlinks and `..` followed, lies under an allowed directory
        (a name that cannot be resolved, with a NUL or a symlink loop, does not)."""
        try:
            resolved = Path(value.strip()).resolve()
        except (OSError, ValueError, RuntimeError):
            return False
        return any(resolved.is_relative_to(directory) for directory in self.paths)


def unsafe_settings_in_log_urls(urls: Iterable[str]) -> frozenset[str]:
    """The unsafe client settings the `kafka://` URLs among `urls` carry, in canonical spelling: what a
    worker must allow for connectors that open those logs, when their operator wrote them."""
    return frozenset(
        canonical_name(setting)
        for url in urls
        for setting, value in client_settings_in_url(url)
        if setting_risk(setting, value) is not None
    )


NO_UNSAFE_OVERRIDES = UnsafeOverrides()
"""A worker that allows no unsafe override (the default)."""


def allowed_oauth_urls(configured: Iterable[str] | None) -> frozenset[str]:
    """The worker's `org.apache.kafka.sasl.oauthbearer.allowed.urls` (`configured`), else the JVM option
    `-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=...` in `KAFKA_OPTS`; empty when neither is given."""
    if configured is None:
        configured = (jvm_option(ALLOWED_URLS_CONFIG) or "").split(",")
    return frozenset(url.strip() for url in configured if url.strip())


def refuse_unlisted_oauth_urls(log_url: str, allowed: frozenset[str]) -> None:
    """Refuse a worker whose own Kafka clients would reach an OAuth URL that `allowed` does not list, with
    Kafka's message (its clients refuse to start the same way)."""
    for setting, value in client_settings_in_url(log_url):
        if canonical_name(setting) in OAUTH_URL_SETTINGS and value.strip() not in allowed:
            raise ConfigError(
                setting,
                value,
                f"The URL cannot be accessed due to restrictions. Update the system property "
                f"'{ALLOWED_URLS_CONFIG}' to allow the URL to be accessed.",
            )

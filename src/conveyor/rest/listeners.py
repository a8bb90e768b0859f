"""Kafka Connect's `listeners` setting: a comma-separated list of `protocol://host:port` URLs."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from conveyor.errors import ConfigError

DEFAULT_LISTENERS = "http://:8083"
SUPPORTED_PROTOCOLS = ("http", "https")


@dataclass(frozen=True)
class Listener:
    """One address to serve on; an empty host means every interface, port 0 a free port."""

    protocol: str
    host: str
    port: int


def parse_listeners(listeners: str, *, allow_none: bool = False) -> list[Listener]:
    """Parse `listeners`, refusing unknown protocols, malformed entries and (unless `allow_none`) none."""
    parsed = [_parse_listener(entry.strip()) for entry in listeners.split(",") if entry.strip()]
    if not parsed and not allow_none:
        raise ConfigError(f"No listeners in {listeners!r}")
    return parsed


def _parse_listener(entry: str) -> Listener:
    parts = urlsplit(entry)
    protocol = parts.scheme.lower()
    if protocol not in SUPPORTED_PROTOCOLS:
        scheme = parts.scheme or "(none)"
        raise ConfigError(f"Listener {entry!r}: protocol {scheme!r} is not supported; use http or https")
    try:
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"Listener {entry!r}: {exc}") from exc
    if port is None:
        raise ConfigError(f"Listener {entry!r} has no port")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(f"Listener {entry!r} must be protocol://host:port only")
    return Listener(protocol=protocol, host=parts.hostname or "", port=port)

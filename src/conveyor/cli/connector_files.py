"""Reading a connector's name and config (and, for `conveyor apply`, its state and starting offsets) from
the files operators keep them in: JSON, YAML, or Kafka's `.properties`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conveyor.errors import ConfigError
from conveyor.settings.properties import read_properties

CONNECTOR_FILE_SUFFIXES = (".json", ".yaml", ".yml", ".properties")
STATES = ("running", "paused", "stopped")


@dataclass(frozen=True)
class ConnectorFile:
    """One connector as a file describes it; ``state`` is lower case, ``offsets`` as a PATCH body's list."""

    path: Path
    name: str
    config: dict[str, str]
    state: str = "running"
    offsets: list[dict[str, Any]] | None = field(default=None)


def read_connector_file(path: Path) -> tuple[str, dict[str, str]]:
    """A connector's name and config from a `.properties`, JSON or YAML file: Kafka Connect's
    `{"name", "config"}` body of `POST /connectors`, or a flat config holding `name`."""
    described = read_connector_spec(path)
    return described.name, described.config


def read_connector_spec(path: Path) -> ConnectorFile:
    """Everything a connector file says: name, config, and for JSON and YAML `state` and `offsets`."""
    text = path.read_text()
    if path.suffix == ".properties":
        config = read_properties(text)
        return ConnectorFile(path, _name(path, {}, config), config)
    body = _parse(path, text)
    if not isinstance(body, dict):
        raise ConfigError(f"{path}: a connector file holds an object: its name, config and state")
    raw_config = body.get("config", body)
    if not isinstance(raw_config, dict):
        raise ConfigError(f"{path}: 'config' must be a map of settings")
    config = {
        str(k): _text(v) for k, v in raw_config.items() if "config" in body or k not in ("state", "offsets")
    }
    state = str(body.get("state", "running")).lower()
    if state not in STATES:
        raise ConfigError(f"{path}: state must be one of {', '.join(STATES)}, not {body.get('state')!r}")
    offsets = body.get("offsets")
    if offsets is not None and not (
        isinstance(offsets, list) and all(isinstance(entry, dict) for entry in offsets)
    ):
        raise ConfigError(f'{path}: offsets must be a list of {{"partition": ..., "offset": ...}}')
    return ConnectorFile(path, _name(path, body, config), config, state, offsets)


def connector_files(path: Path) -> list[Path]:
    """``path`` itself, or the connector files of a directory (not its subdirectories), sorted."""
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.is_file() and p.suffix in CONNECTOR_FILE_SUFFIXES)
    return [path]


def _parse(path: Path, text: str) -> Any:
    try:
        return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        kind = "JSON" if path.suffix == ".json" else "YAML"
        raise ConfigError(f"{path}: not {kind}: {error}") from error


def _text(value: Any) -> str:
    """A config value as Kafka Connect reads it: text, with JSON and YAML booleans as `true`/`false`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _name(path: Path, body: dict[str, Any], config: dict[str, str]) -> str:
    name = str(body.get("name") or config.get("name", ""))
    if not name:
        raise ConfigError(f"{path}: the connector config has no 'name'")
    return name

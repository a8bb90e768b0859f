"""Reading a connector's name and config from the files operators keep them in."""

from __future__ import annotations

import json
from pathlib import Path

from conveyor.errors import ConfigError
from conveyor.runtime.properties import read_properties


def read_connector_file(path: Path) -> tuple[str, dict[str, str]]:
    """A connector's name and config from a `.properties` file or a JSON file: Kafka Connect's
    `{"name", "config"}` body of `POST /connectors`, or a flat config holding `name`."""
    text = path.read_text()
    if path.suffix == ".json":
        try:
            body = json.loads(text)
        except json.JSONDecodeError as error:
            raise ConfigError(f"{path}: not JSON: {error}") from error
        if not isinstance(body, dict):
            raise ConfigError(f"{path}: a connector config is a JSON object")
        config = {str(k): str(v) for k, v in body.get("config", body).items()}
        name = str(body.get("name") or config.get("name", ""))
    else:
        config = read_properties(text)
        name = config.get("name", "")
    if not name:
        raise ConfigError(f"{path}: the connector config has no 'name'")
    return name, config

"""Java `.properties` text, as worker configs, connector files and secrets files are written."""

from __future__ import annotations

import os
import shlex


def jvm_option(name: str) -> str | None:
    """The value of ``-D<name>=...`` in ``KAFKA_OPTS``, where Kafka's scripts take JVM system properties."""
    option = f"-D{name}="
    words = shlex.split(os.environ.get("KAFKA_OPTS", ""))
    return next((word.removeprefix(option) for word in words if word.startswith(option)), None)


def read_properties(text: str) -> dict[str, str]:
    """Parse a Java `.properties` file: `key=value` or `key: value`, `#`/`!` comments, `\\` continuations."""
    props: dict[str, str] = {}
    pending = ""
    for raw_line in text.splitlines():
        line = pending + raw_line.strip() if pending else raw_line.strip()
        if not pending and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending = line[:-1]
            continue
        pending = ""
        separator = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if separator < 0:
            key, value = line, ""
        else:
            key, value = line[:separator], line[separator + 1 :]
        props[key.strip()] = value.strip()
    return props

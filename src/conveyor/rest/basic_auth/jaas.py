"""Reads a JAAS login configuration file, the way Kafka Connect is told where its credentials are.

KafkaConnect {
  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
  file="/etc/conveyor/credentials.properties";
};
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from conveyor.errors import ConfigError

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<comment>//[^\n]*|/\*.*?\*/)
      | "(?P<quoted>(?:[^"\\]|\\.)*)"
      | (?P<punct>[{};=])
      | (?P<word>[^\s{};="]+)
    )""",
    re.VERBOSE | re.DOTALL,
)
_FLAGS = ("required", "requisite", "sufficient", "optional")


@dataclass(frozen=True)
class JaasLoginModule:
    """One login module of a JAAS entry: its class, control flag and options."""

    class_name: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)


def read_jaas_config(path: Path) -> dict[str, list[JaasLoginModule]]:
    """Every entry of the JAAS file at `path`, by name; a malformed file is a `ConfigError`."""
    try:
        text = path.read_text()
    except OSError as error:
        raise ConfigError(f"The JAAS configuration {path} cannot be read: {error}") from error
    try:
        return _parse(_tokens(text))
    except ValueError as error:
        raise ConfigError(f"The JAAS configuration {path} is malformed: {error}") from error


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        if match is None:
            raise ValueError(f"unexpected text at offset {position}")
        position = match.end()
        kind = match.lastgroup
        if kind is None or kind == "comment":
            continue
        value = match.group(kind)
        tokens.append(("word" if kind == "quoted" else kind, _unescape(value) if kind == "quoted" else value))
    return tokens


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _parse(tokens: list[tuple[str, str]]) -> dict[str, list[JaasLoginModule]]:
    entries: dict[str, list[JaasLoginModule]] = {}
    stream = iter(tokens)

    def take(kind: str) -> str:
        found = next(stream, None)
        if found is None or found[0] != kind:
            raise ValueError(f"expected {kind}, found {found[1] if found else 'the end'}")
        return found[1]

    for kind, name in stream:
        if kind != "word":
            raise ValueError(f"expected an entry name, found {name!r}")
        take("punct")
        modules: list[JaasLoginModule] = []
        for token_kind, token in stream:
            if token == "}":
                break
            if token_kind != "word":
                raise ValueError(f"expected a login module, found {token!r}")
            flag = take("word").lower()
            if flag not in _FLAGS:
                raise ValueError(f"{flag!r} is not a control flag ({', '.join(_FLAGS)})")
            options: dict[str, str] = {}
            for option_kind, option in stream:
                if option == ";":
                    break
                if option_kind != "word" or take("punct") != "=":
                    raise ValueError(f"expected option=value, found {option!r}")
                options[option] = take("word")
            modules.append(JaasLoginModule(token, flag, options))
        if take("punct") != ";":
            raise ValueError(f"entry {name} does not end with a semicolon after its closing brace")
        entries[name] = modules
    return entries

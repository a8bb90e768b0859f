"""Keys and values a source task hands over already written by the JSON converter.

Internal to Conveyor's own connectors, not part of Kafka Connect's API: when a task's records reach the log
through JsonConverters with their defaults (``schemas.enable`` true, ``decimal.format`` BASE64,
``replace.null.with.default`` true) and no transformation, the runtime says so
(``SourceTaskContext.writes_json_unchanged``) and the task may give a record's key or value as an
:class:`EncodedJson`: the exact bytes the converter would write for the record's schema and value. The
pipeline writes those bytes as they are; should it convert after all (a pipeline that changed), it reads
the Connect value back from them with the record's schema.
"""

from __future__ import annotations

import decimal
import json
import re
from functools import lru_cache
from typing import Any, Final

from conveyor.convert.json_converter import JsonConverter
from conveyor.convert.json_decode import ValueDecoder, compile_decoder
from conveyor.convert.json_options import JsonOptions
from conveyor.data import Schema

DEFAULT_OPTIONS: Final = JsonOptions()
_PARSER: Final = json.JSONDecoder(parse_float=decimal.Decimal)
_LOWER_HEX_ESCAPE: Final = re.compile(rb"(\\\\)|\\u00([0-9a-f]{2})")


class EncodedJson:
    """A key or value as JsonConverter's bytes (envelope and payload), written by the task itself."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __eq__(self, other: object) -> bool:
        return type(other) is EncodedJson and other.data == self.data

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EncodedJson({self.data[:80]!r}...)"


def writes_unchanged(converter: object) -> bool:
    """Whether ``converter`` writes exactly what :class:`EncodedJson` holds: a JsonConverter with its
    defaults."""
    return (
        isinstance(converter, JsonConverter)
        and converter.schemas_enabled
        and converter.options == DEFAULT_OPTIONS
    )


def default_converter(is_key: bool) -> JsonConverter:
    """A JsonConverter with the defaults, for a task to write :class:`EncodedJson`'s constant parts."""
    converter = JsonConverter()
    converter.configure({}, is_key)
    return converter


def finish_json_bytes(data: bytes) -> bytes:
    """Upper-case the hex of ``\\u00xx`` escapes, as Jackson (and so JsonConverter) writes them; PostgreSQL
    and Python's ``json`` write them lower-case."""
    if b"\\u00" not in data:
        return data
    return _LOWER_HEX_ESCAPE.sub(lambda m: m.group(1) or b"\\u00" + m.group(2).upper(), data)


def connect_value(encoded: EncodedJson, schema: Schema | None) -> Any:
    """The Connect value ``encoded`` holds, read with ``schema`` (the record's own)."""
    payload = _PARSER.decode(encoded.data.decode("utf-8"))["payload"]
    return _decoder(schema)(payload)


@lru_cache(maxsize=64)
def _decoder(schema: Schema | None) -> ValueDecoder:
    return compile_decoder(schema, DEFAULT_OPTIONS)

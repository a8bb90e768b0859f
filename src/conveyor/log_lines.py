"""One log record, one line: user-given values are logged with their control characters escaped.

A connector name or URL holding a newline would otherwise start a forged line of its own in the
worker's log. `EscapeControlCharacters` is installed on the worker's log handler, so every record's
arguments pass through `escape_control_characters` whichever module logs them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or f"\\u{ord(char):04x}"


def escape_control_characters(value: str) -> str:
    """`value` with each ISO control character (and line or paragraph separator) as its escape."""
    return _CONTROL.sub(_escaped, value)


def _escaped_argument(value: Any) -> Any:
    if isinstance(value, int | float):
        return value
    return escape_control_characters(str(value))


class EscapeControlCharacters(logging.Filter):
    """Escapes control characters in each record's arguments and context fields; the message template
    and a logged exception's trace are the program's own and keep their lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, Mapping):
            record.args = {key: _escaped_argument(value) for key, value in record.args.items()}
        elif record.args:
            record.args = tuple(_escaped_argument(value) for value in record.args)
        for context_field in ("connector", "task"):
            value = getattr(record, context_field, None)
            if isinstance(value, str):
                setattr(record, context_field, escape_control_characters(value))
        return True

"""The settings that change how JsonConverter writes and reads values."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class DecimalFormat(enum.Enum):
    """How Decimal values are written: base64 of the unscaled bytes (Kafka's default) or a JSON number."""

    BASE64 = "BASE64"
    NUMERIC = "NUMERIC"


@dataclass(frozen=True)
class JsonOptions:
    """``decimal.format`` and ``replace.null.with.default`` of Kafka's JsonConverter."""

    decimal_format: DecimalFormat = DecimalFormat.BASE64
    replace_null_with_default: bool = True

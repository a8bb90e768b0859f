"""Reading struct fields with or without their schema defaults (KIP-1040's ``replace.null.with.default``)."""

from __future__ import annotations

from typing import Any

from conveyor.data import Field, Struct


def field_value(struct: Struct, field: str | Field, replace_null_with_default: bool) -> Any:
    """The field's value; a null falls back to the field's default only when asked to."""
    return struct.get(field) if replace_null_with_default else struct.get_without_default(field)

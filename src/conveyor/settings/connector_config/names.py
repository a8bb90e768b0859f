"""What a connector name may be: the one check every way of creating a connector goes through.

Beyond Kafka's refusal of control characters, a name may not hold characters that make it look like
another name (bidirectional overrides and isolates, zero-width characters), and it is at most 249
characters long, Kafka's limit for a topic name, so that it fits a ``Location`` header, a URL and a
consumer group id.
"""

from __future__ import annotations

from typing import Any

from conveyor.api.config import ConfigError, NonEmptyStringWithoutControlChars

MAX_NAME_LENGTH = 249

SPOOFING_CHARACTERS = frozenset(
    chr(code)
    for code in (
        *range(0x202A, 0x202F),  # LRE, RLE, PDF, LRO, RLO
        *range(0x2066, 0x206A),  # LRI, RLI, FSI, PDI
        0x200E,  # left-to-right mark
        0x200F,  # right-to-left mark
        0x061C,  # Arabic letter mark
        0x200B,  # zero-width space
        0x200C,  # zero-width non-joiner
        0x200D,  # zero-width joiner
        0x2060,  # word joiner
        0xFEFF,  # zero-width no-break space (byte order mark)
    )
)


class ConnectorName(NonEmptyStringWithoutControlChars):
    """A connector name: non-empty, without control, bidirectional or zero-width characters, and short."""

    def ensure_valid(self, name: str, value: Any) -> None:
        super().ensure_valid(name, value)
        if value is None:
            return
        spoofing = sorted({f"U+{ord(char):04X}" for char in value if char in SPOOFING_CHARACTERS})
        if spoofing:
            shown = "".join(f"\\u{ord(c):04x}" if c in SPOOFING_CHARACTERS else c for c in value)
            raise ConfigError(
                name,
                shown,
                "String may not contain bidirectional or zero-width characters, which can make one "
                f"name look like another, but had: {', '.join(spoofing)}",
            )
        if len(value) > MAX_NAME_LENGTH:
            raise ConfigError(
                name,
                f"{value[:40]}...",
                f"A connector name may be at most {MAX_NAME_LENGTH} characters long, "
                f"but this one has {len(value)}",
            )

    def __str__(self) -> str:
        return (
            f"non-empty string of at most {MAX_NAME_LENGTH} characters, without ISO control, "
            "bidirectional or zero-width characters"
        )

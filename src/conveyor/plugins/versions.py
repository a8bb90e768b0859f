"""Plugin versions and the version requirements of ``*.plugin.version`` keys (KIP-891).

A requirement is written as Kafka writes it, in Maven's version range syntax: ``[1.0,2.0)``,
``(,2.0]``, ``[1.0,)``, ``[1.0]``, or several ranges joined by commas (``[1,2),[3,4)``). A plain version
(``1.0``) asks for exactly that version, and ``latest`` (or no value) for the highest installed one, as
Kafka's ``PluginUtils.connectorVersionRequirement`` reads it. Versions compare as Maven compares them:
numeric parts as numbers, a number above a qualifier, a release above its qualified pre-releases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering

from conveyor.errors import ConfigError

LATEST = "latest"


class InvalidVersionRequirement(ConfigError, ValueError):
    """A ``*.plugin.version`` value that is neither a version nor a version range."""


@total_ordering
@dataclass(frozen=True, eq=False)
class PluginVersion:
    """A version string, ordered as Maven orders versions."""

    text: str

    def _key(self) -> tuple[tuple[int, int, str], ...]:
        parts: list[tuple[int, int, str]] = []
        for part in re.split(r"[.\-_+]|(?<=\d)(?=\D)|(?<=\D)(?=\d)", self.text.strip().lower()):
            if not part:
                continue
            if part.isdigit():
                parts.append((2, int(part), ""))
                continue
            _drop_trailing_zeros(parts)
            parts.append((0, 0, part))
        _drop_trailing_zeros(parts)
        return tuple(parts)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, PluginVersion):
            return NotImplemented
        mine, theirs = self._key(), other._key()
        for left, right in zip(mine, theirs, strict=False):
            if left != right:
                return left < right
        # A release (1.0) is above its qualified forms (1.0-beta) and below its longer numbers (1.0.1).
        rest_mine, rest_theirs = mine[len(theirs) :], theirs[len(mine) :]
        if rest_mine:
            return rest_mine[0][0] == 0
        if rest_theirs:
            return rest_theirs[0][0] != 0
        return False

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PluginVersion) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.text


def _drop_trailing_zeros(parts: list[tuple[int, int, str]]) -> None:
    """``1.0`` is ``1`` and ``1.0-beta`` is ``1-beta``, as Maven normalizes them."""
    while parts and parts[-1] == (2, 0, ""):
        parts.pop()


@dataclass(frozen=True)
class _Restriction:
    lower: PluginVersion | None
    lower_inclusive: bool
    upper: PluginVersion | None
    upper_inclusive: bool

    def contains(self, version: PluginVersion) -> bool:
        if self.lower is not None and (
            version < self.lower or (version == self.lower and not self.lower_inclusive)
        ):
            return False
        return not (
            self.upper is not None
            and (version > self.upper or (version == self.upper and not self.upper_inclusive))
        )


@dataclass(frozen=True)
class VersionRequirement:
    """The versions a ``*.plugin.version`` value accepts; ``text`` is the value as written."""

    text: str
    restrictions: tuple[_Restriction, ...]

    def accepts(self, version: str) -> bool:
        return any(restriction.contains(PluginVersion(version)) for restriction in self.restrictions)

    def __str__(self) -> str:
        return self.text


_RANGE = re.compile(r"\s*([\[(])([^\[\]()]*)([\])])\s*(?:,|$)")


def version_requirement(value: str | None) -> VersionRequirement | None:
    """The requirement ``value`` writes; None for no value or ``latest`` (the highest version installed).

    Raises :class:`InvalidVersionRequirement` for a value that is no version or range.
    """
    if value is None or not value.strip() or value.strip() == LATEST:
        return None
    text = value.strip()
    if text[0] not in "[(":
        if any(char in text for char in "[](),"):
            raise InvalidVersionRequirement(f"{text} is neither a version nor a version range")
        exact = PluginVersion(text)
        return VersionRequirement(text, (_Restriction(exact, True, exact, True),))
    restrictions: list[_Restriction] = []
    position = 0
    while position < len(text):
        match = _RANGE.match(text, position)
        if match is None:
            raise InvalidVersionRequirement(f"{text} is not a valid version range")
        restrictions.append(_restriction(text, *match.groups()))
        position = match.end()
    return VersionRequirement(text, tuple(restrictions))


def _restriction(text: str, opening: str, bounds: str, closing: str) -> _Restriction:
    parts = [part.strip() for part in bounds.split(",")]
    if len(parts) == 1:
        if opening != "[" or closing != "]" or not parts[0]:
            raise InvalidVersionRequirement(f"{text}: a single version must be written [version]")
        exact = PluginVersion(parts[0])
        return _Restriction(exact, True, exact, True)
    if len(parts) != 2:
        raise InvalidVersionRequirement(f"{text}: a range has a lower and an upper bound")
    lower = PluginVersion(parts[0]) if parts[0] else None
    upper = PluginVersion(parts[1]) if parts[1] else None
    if lower is not None and upper is not None and upper < lower:
        raise InvalidVersionRequirement(f"{text}: the upper bound is below the lower bound")
    return _Restriction(lower, opening == "[", upper, closing == "]")


def highest(versions: list[str]) -> str:
    """The highest of ``versions`` (not empty)."""
    return max(versions, key=PluginVersion)

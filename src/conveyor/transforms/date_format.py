"""Java ``SimpleDateFormat`` patterns, as Kafka's TimestampConverter and TimestampRouter accept them.

Formatting and parsing always happen in UTC, as Kafka configures its formats. Parsing follows
``DateFormat.parse``: it reads from the start of the text and ignores whatever follows the pattern.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

_UTC = dt.UTC
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=_UTC)
_NUMERIC_LETTERS = frozenset("yYMdHkKhmsSDu")
_TEXT_LETTERS = frozenset("GEaMzZX")
_SUPPORTED_LETTERS = _NUMERIC_LETTERS | _TEXT_LETTERS
_MONTHS = [calendar.month_name[i] for i in range(1, 13)]
_DAYS = [calendar.day_name[i] for i in range(7)]


@dataclass(frozen=True)
class _Token:
    """One pattern letter run (``letter`` with its repeat ``count``) or a literal text run."""

    letter: str
    count: int
    text: str = ""

    @property
    def is_literal(self) -> bool:
        return self.letter == ""

    @property
    def is_numeric(self) -> bool:
        if self.letter == "M":
            return self.count <= 2
        return self.letter in _NUMERIC_LETTERS


def _tokenize(pattern: str) -> list[_Token]:
    tokens: list[_Token] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            end = i + 1
            text = []
            while True:
                if end >= len(pattern):
                    raise ValueError(f"Unterminated quote in date format pattern: {pattern}")
                if pattern[end] == "'":
                    if end + 1 < len(pattern) and pattern[end + 1] == "'":
                        text.append("'")
                        end += 2
                        continue
                    break
                text.append(pattern[end])
                end += 1
            tokens.append(_Token("", 0, "".join(text) if end > i + 1 else "'"))
            i = end + 1
        elif ch.isascii() and ch.isalpha():
            if ch not in _SUPPORTED_LETTERS:
                raise ValueError(f"Illegal pattern character '{ch}' in date format pattern: {pattern}")
            run = i
            while run < len(pattern) and pattern[run] == ch:
                run += 1
            tokens.append(_Token(ch, run - i))
            i = run
        else:
            tokens.append(_Token("", 0, ch))
            i += 1
    return tokens


def _format_token(token: _Token, moment: dt.datetime) -> str:
    letter, count = token.letter, token.count
    numbers: dict[str, Callable[[], int]] = {
        "d": lambda: moment.day,
        "H": lambda: moment.hour,
        "k": lambda: moment.hour or 24,
        "K": lambda: moment.hour % 12,
        "h": lambda: (moment.hour % 12) or 12,
        "m": lambda: moment.minute,
        "s": lambda: moment.second,
        "S": lambda: moment.microsecond // 1000,
        "D": lambda: moment.timetuple().tm_yday,
        "u": lambda: moment.isoweekday(),
    }
    if letter in ("y", "Y"):
        return f"{moment.year % 100:02d}" if count == 2 else f"{moment.year:0{count}d}"
    if letter == "M":
        if count >= 4:
            return _MONTHS[moment.month - 1]
        if count == 3:
            return _MONTHS[moment.month - 1][:3]
        return f"{moment.month:0{count}d}"
    if letter in numbers:
        return f"{numbers[letter]():0{count}d}"
    if letter == "E":
        name = _DAYS[moment.weekday()]
        return name if count >= 4 else name[:3]
    if letter == "a":
        return "AM" if moment.hour < 12 else "PM"
    if letter == "G":
        return "AD"
    if letter == "z":
        return "Coordinated Universal Time" if count >= 4 else "UTC"
    if letter == "Z":
        return "+0000"
    return "Z"


def _token_regex(token: _Token, abutting_numeric: bool) -> str:
    if token.is_literal:
        return re.escape(token.text)
    if token.is_numeric:
        digits = rf"\d{{{token.count}}}" if abutting_numeric else r"\d+"
        return f"(?P<{token.letter}>{'-?' if token.letter in 'yY' else ''}{digits})"
    letter = token.letter
    if letter == "M":
        names = "|".join(name for month in _MONTHS for name in (month, month[:3]))
        return f"(?P<M>{names})"
    if letter == "E":
        return "(?:" + "|".join(name for day in _DAYS for name in (day, day[:3])) + ")"
    if letter == "a":
        return "(?P<a>AM|PM|am|pm)"
    if letter == "G":
        return "(?:AD|BC)"
    return r"(?P<zone>Z|[+-]\d{2}(?::?\d{2})?|UTC|GMT|Coordinated Universal Time)"


def _zone_offset_minutes(zone: str | None) -> int:
    if zone is None or zone in ("Z", "UTC", "GMT", "Coordinated Universal Time"):
        return 0
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours = int(digits[:2])
    minutes = int(digits[2:4]) if len(digits) > 2 else 0
    return sign * (hours * 60 + minutes)


class JavaDateFormat:
    """Formats epoch milliseconds to text and parses text back, following a SimpleDateFormat pattern."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._tokens = _tokenize(pattern)
        parts = []
        for index, token in enumerate(self._tokens):
            following = self._tokens[index + 1] if index + 1 < len(self._tokens) else None
            abutting = token.is_numeric and following is not None and following.is_numeric
            parts.append(_token_regex(token, abutting))
        self._regex = self._compile_unique_groups(parts)

    @staticmethod
    def _compile_unique_groups(parts: list[str]) -> re.Pattern[str]:
        seen: set[str] = set()
        unique = []
        for part in parts:
            match = re.match(r"\(\?P<(\w+)>", part)
            if match and match.group(1) in seen:
                part = "(?:" + part[len(match.group(0)) :]
            elif match:
                seen.add(match.group(1))
            unique.append(part)
        return re.compile("".join(unique))

    def format(self, epoch_millis: int) -> str:
        """Render ``epoch_millis`` (UTC) with this pattern."""
        moment = _EPOCH + dt.timedelta(milliseconds=epoch_millis)
        return "".join(
            token.text if token.is_literal else _format_token(token, moment) for token in self._tokens
        )

    def parse(self, text: str) -> int:
        """Read a moment from the start of ``text``; return it as epoch milliseconds. Raises ValueError."""
        match = self._regex.match(text)
        if match is None:
            raise ValueError(f'Unparseable date: "{text}"')
        fields = match.groupdict()
        year = self._year(fields)
        month = self._month(fields.get("M"))
        hour = self._hour(fields)
        if fields.get("D") is not None and fields.get("d") is None and fields.get("M") is None:
            base = dt.datetime(year, 1, 1, tzinfo=_UTC) + dt.timedelta(days=int(fields["D"]) - 1)
            month, day = base.month, base.day
        else:
            day = int(fields["d"]) if fields.get("d") is not None else 1
        moment = dt.datetime(
            year,
            month,
            day,
            hour,
            int(fields.get("m") or 0),
            int(fields.get("s") or 0),
            tzinfo=_UTC,
        )
        millis = int(fields.get("S") or 0)
        offset = _zone_offset_minutes(fields.get("zone"))
        delta = moment - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1000 + millis - offset * 60_000

    def _year(self, fields: dict[str, str | None]) -> int:
        raw = fields.get("y") or fields.get("Y")
        if raw is None:
            return 1970
        year_token = next(t for t in self._tokens if t.letter in ("y", "Y"))
        if year_token.count == 2 and len(raw) == 2:
            pivot = dt.datetime.now(_UTC).year - 80
            year = (pivot // 100) * 100 + int(raw)
            return year + 100 if year < pivot else year
        return int(raw)

    @staticmethod
    def _month(raw: str | None) -> int:
        if raw is None:
            return 1
        if raw.isdigit():
            return int(raw)
        for number, name in enumerate(_MONTHS, start=1):
            if raw.lower() in (name.lower(), name[:3].lower()):
                return number
        raise ValueError(f"Unknown month name: {raw}")

    @staticmethod
    def _hour(fields: dict[str, str | None]) -> int:
        if fields.get("H") is not None:
            return int(fields["H"] or 0)
        if fields.get("k") is not None:
            return int(fields["k"] or 0) % 24
        twelve_hour = fields.get("h") or fields.get("K")
        if twelve_hour is None:
            return 0
        hour = int(twelve_hour) % 12
        return hour + 12 if (fields.get("a") or "").upper() == "PM" else hour

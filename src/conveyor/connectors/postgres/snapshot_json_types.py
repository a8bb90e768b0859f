"""SQL expressions that make PostgreSQL write, inside ``row_to_json``, the JsonConverter's exact JSON of a
column's Connect value for floats, dates and times, intervals, ``bytea``, bit strings and ``numeric`` as a
Decimal or a double: the numbers and strings :func:`conveyor.connectors.postgres.types.column_mapping`
gives, written as :mod:`conveyor.convert.json_encode` writes them.

A value the Connect value path refuses (an infinite date or timestamp, one outside
years 1 to 9999 under ``time.precision.mode=connect``, a NaN Decimal) stops
the ``COPY`` with an error carrying :data:`REFUSED` and the reason, which :func:`refused_reason` reads
back, so both paths fail the task on the same rows.
"""

from __future__ import annotations

import decimal
import re
from typing import Final

from psycopg2 import sql

from conveyor.connectors.postgres.types import DEFAULT_TIME_PRECISION, TimePrecisionMode

REFUSED: Final = "conveyor refuses:"
_REFUSED_ERROR: Final = re.compile(r'"' + re.escape(REFUSED) + r" (.*)\"")
_MICROS_PER_DAY_LESS_ONE: Final = 86_399_999_999

_JAVA_DOUBLE: Final = """CASE
  WHEN {x} = 'NaN'::float8 THEN '"NaN"'::json
  WHEN {x} = 'Infinity'::float8 THEN '"Infinity"'::json
  WHEN {x} = '-Infinity'::float8 THEN '"-Infinity"'::json
  WHEN {x} = 0 OR abs({x}) >= 1e-3::float8 AND abs({x}) < 1e7::float8 THEN
    (CASE WHEN {x} = trunc({x}) THEN ({x})::text || '.0' ELSE ({x})::text END)::json
  ELSE (SELECT CASE WHEN abs({x}) >= 4503599627370496::float8
    THEN (SELECT (CASE WHEN {x} < 0 THEN '-' ELSE '' END
      || left(d, 1) || '.' || coalesce(nullif(substr(d, 2), ''), '0') || 'E' || (length(i) - 1))::json
    FROM (SELECT i, rtrim(i, '0') AS d FROM (SELECT trunc(c)::text AS i
      FROM (SELECT (b & 4503599627370495 | 4503599627370496)::numeric
          * 2::numeric ^ ((b >> 52 & 2047) - 1075) AS v
        FROM (SELECT ('x' || encode(float8send({x}), 'hex'))::bit(64)::bigint AS b) AS conveyor_bits)
        AS conveyor_exact,
      generate_series(1, 17) AS k,
      LATERAL (SELECT round(v, k - length(trunc(v)::text)) AS r,
        10::numeric ^ (length(trunc(v)::text) - k) AS step) AS conveyor_rounded,
      LATERAL unnest(ARRAY[r, CASE WHEN r > v THEN r - step ELSE r + step END])
        WITH ORDINALITY AS conveyor_candidates(c, o)
      WHERE c < {max} AND c::float8 = abs({x}) ORDER BY k, o LIMIT 1) AS conveyor_shortest)
      AS conveyor_digits)
      ELSE (CASE WHEN strpos(t, 'e') > 0
      THEN split_part(t, 'e', 1) || CASE WHEN strpos(t, '.') > 0 THEN '' ELSE '.0' END
        || 'E' || split_part(t, 'e', 2)::int
      ELSE CASE WHEN left(t, 1) = '-' THEN '-' ELSE '' END
        || left(btrim(i || f, '0'), 1) || '.' || coalesce(nullif(substr(btrim(i || f, '0'), 2), ''), '0')
        || 'E' || CASE WHEN i <> '0' THEN length(i) - 1 ELSE length(ltrim(f, '0')) - length(f) - 1 END
      END)::json END
    FROM (SELECT t, split_part(ltrim(t, '-'), '.', 1) AS i, split_part(ltrim(t, '-'), '.', 2) AS f
          FROM (SELECT ({x})::text AS t) AS conveyor_text) AS conveyor_parts)
END"""
"""Java's ``Double.toString`` of a ``float8`` (as :func:`conveyor.convert.json_text.java_double`, from
Python's shortest digits): plain from 1e-3 up to 1e7 with at least one decimal, else ``d.dddEn``; NaN and
the infinities as strings. The digits are PostgreSQL's shortest text of the value (``extra_float_digits``
> 0) below 2**52; from there on, where a double's rounding interval can end on a short decimal that
Python takes and PostgreSQL does not, they are the shortest of the value's exact integer rounded to 1 to
17 digits (or the neighbour on the other side) that reads back as the same double."""

_DOUBLE_MAX_ROUNDED: Final = 2**1024 - 2**970
"""The smallest number a double rounds up to infinity."""
_DOUBLE_HALF_MIN: Final = format(decimal.Decimal((0, tuple(map(int, str(5**1075))), -1075)), "f")
"""Half the smallest subnormal double, 2**-1075, exactly: numbers at most this small round to zero."""

_TWOS_COMPLEMENT_STRIP: Final = "'^(?:00)*(?=[0-7])|^(?:ff)*(?=[89a-f])'"
_LIMB: Final = 2**48
_BYTE_BOUNDS: Final = (
    "ARRAY["
    + ", ".join(str(-(2 ** (8 * n - 1))) for n in range(7, 0, -1))
    + ", "
    + ", ".join(str(2 ** (8 * n - 1)) for n in range(1, 8))
    + "]::bigint[]"
)
"""Where a two's complement integer needs one byte more: bucket 7 of these needs one byte, bucket 6 and 8
two, and so on to eight."""


def java_double(value: sql.Composable) -> sql.Composable:
    """The JSON of a float64 field holding the ``float8`` ``value``."""
    template = _JAVA_DOUBLE.replace("{x}", "{value}").replace("{max}", str(_DOUBLE_MAX_ROUNDED) + "::numeric")
    return sql.SQL(template).format(value=value)


def numeric_as_double(value: sql.Composable) -> sql.Composable:
    """The JSON of a float64 field holding the ``numeric`` ``value`` rounded to the nearest double, as
    Python's ``float`` rounds it (beyond the doubles' range: an infinity or a zero, where PostgreSQL's cast
    would fail)."""
    double = java_double(sql.SQL("conveyor_double.d"))
    return sql.SQL(
        "(SELECT {double} FROM (SELECT CASE "
        "WHEN {x} = 'NaN'::numeric THEN 'NaN'::float8 "
        "WHEN {x} >= {max} THEN 'Infinity'::float8 WHEN {x} <= -{max} THEN '-Infinity'::float8 "
        "WHEN {x} < 0 AND {x} >= -{min} THEN '-0'::float8 WHEN {x} >= 0 AND {x} <= {min} THEN 0::float8 "
        "ELSE ({x})::float8 END AS d) AS conveyor_double)"
    ).format(
        double=double,
        x=value,
        max=sql.SQL(str(_DOUBLE_MAX_ROUNDED) + "::numeric"),
        min=sql.SQL(_DOUBLE_HALF_MIN + "::numeric"),
    )


def refuse(what: str, value: sql.Composable, reason: str, result_type: str) -> sql.Composable:
    """An expression of ``result_type`` that fails the query saying ``what <value's text> reason``."""
    return sql.SQL("({} || ({})::text || {})::int::text::{}").format(
        sql.Literal(f"{REFUSED} {what} '"), value, sql.Literal(f"' {reason}"), sql.SQL(result_type)
    )


def refused_reason(message: str) -> str | None:
    """The reason in a PostgreSQL error raised by :func:`refuse`, or None for any other error."""
    match = _REFUSED_ERROR.search(message)
    return None if match is None else match.group(1)


_INFINITE: Final = "is infinite: Conveyor does not write it"


def _refused_when(
    value: sql.Composable, what: str, result: sql.Composable, cases: list[tuple[sql.Composable, str]]
) -> sql.Composable:
    """``result`` (a ``bigint``), or a refusal with the reason of the first of ``cases`` whose condition
    holds, the same the Connect value path gives."""
    whens = sql.SQL(" ").join(
        sql.SQL("WHEN {} THEN {}").format(condition, refuse(what, value, reason, "bigint"))
        for condition, reason in cases
    )
    return sql.SQL("CASE {} ELSE {} END").format(whens, result)


def _within_years(value: sql.Composable, kind: str, result: sql.Composable) -> sql.Composable:
    """``result``, or a refusal for a ``value`` (a ``date`` or ``timestamp``) infinite or outside years
    1 to 9999, as the Connect value path reads them under ``time.precision.mode=connect`` (Python's dates
    and datetimes)."""
    outside = sql.SQL("{x} < '0001-01-01'::{kind} OR {x} >= '10000-01-01'::{kind}").format(
        x=value, kind=sql.SQL(kind)
    )
    reason = f"is outside what Conveyor reads as a Connect {kind.title()}: years 1 to 9999"
    return _refused_when(value, kind, result, [(_infinite(value), _INFINITE), (outside, reason)])


def _infinite(value: sql.Composable) -> sql.Composable:
    return sql.SQL("NOT isfinite({})").format(value)


_LAST_MICROS_TIMESTAMP: Final = "294247-01-10 04:00:54.775807"
"""The last ``timestamp`` whose microseconds since the epoch a Java long holds; from it on PostgreSQL's
``extract(epoch ...)`` goes through a double, and its distance from 2000-01-01 keeps the digits."""
_BEYOND_LONG: Final = "is beyond what a Connect int64 holds in microseconds since the epoch"


def _iso_timestamp(utc: sql.Composable, fraction: str) -> sql.Composable:
    """A UTC ``timestamp`` of any year as Java's ISO formats write it (Debezium's ``ZonedTimestamp``):
    the astronomical year (1 BC is 0000) with four digits at least, signed before 0000 and after 9999."""
    return sql.SQL(
        "(SELECT CASE WHEN y > 9999 THEN '+' || y::text WHEN y < 0 THEN '-' || lpad((-y)::text, 4, '0') "
        "ELSE lpad(y::text, 4, '0') END || to_char({u}, {rest}) "
        "FROM (SELECT CASE WHEN e < 0 THEN e + 1 ELSE e END AS y "
        "FROM (SELECT extract(year FROM {u})::bigint AS e) AS conveyor_year) AS conveyor_iso_year)"
    ).format(u=utc, rest=sql.Literal('-MM-DD"T"HH24:MI:SS' + fraction))


def _precision(modifier: int) -> int:
    return modifier if modifier >= 0 else DEFAULT_TIME_PRECISION


def temporal(name: str, modifier: int, mode: TimePrecisionMode, value: sql.Composable) -> sql.Composable:
    """The JSON number or string of a ``date``, ``time``, ``timestamp``, ``timestamptz``, ``timetz`` or
    ``interval`` with type modifier ``modifier``, under ``time.precision.mode`` ``mode``."""
    precision = _precision(modifier)
    if name == "date":
        days = sql.SQL("(({}) - DATE '1970-01-01')::bigint").format(value)
        if mode is TimePrecisionMode.CONNECT:
            return _within_years(value, "date", days)
        return _refused_when(value, "date", days, [(_infinite(value), _INFINITE)])
    if name == "time":
        micros = sql.SQL("(extract(epoch FROM {}) * 1000000)::bigint").format(value)
        if mode is TimePrecisionMode.CONNECT:
            return sql.SQL("CASE WHEN {m} > {last} THEN {last} ELSE {m} END / 1000").format(
                m=micros, last=sql.Literal(_MICROS_PER_DAY_LESS_ONE)
            )
        if mode is TimePrecisionMode.ADAPTIVE and precision <= 3:
            return sql.SQL("{} / 1000").format(micros)
        return micros
    if name == "timestamp":
        epoch = sql.SQL(
            "CASE WHEN {x} < {last}::timestamp THEN extract(epoch FROM {x}) "
            "ELSE extract(epoch FROM {x} - '2000-01-01'::timestamp) + 946684800 END"
        ).format(x=value, last=sql.Literal(_LAST_MICROS_TIMESTAMP))
        millis = sql.SQL("floor({} * 1000)::bigint").format(epoch)
        if mode is TimePrecisionMode.CONNECT:
            return _within_years(value, "timestamp", millis)
        if precision <= 3:
            return _refused_when(value, "timestamp", millis, [(_infinite(value), _INFINITE)])
        micros = sql.SQL("({} * 1000000)::bigint").format(epoch)
        beyond = sql.SQL("{} > {}::timestamp").format(value, sql.Literal(_LAST_MICROS_TIMESTAMP))
        return _refused_when(
            value, "timestamp", micros, [(_infinite(value), _INFINITE), (beyond, _BEYOND_LONG)]
        )
    fraction = f'.FF{precision}"Z"' if precision > 0 else '"Z"'
    if name == "timestamptz":
        utc = sql.SQL("(({}) AT TIME ZONE 'UTC')").format(value)
        text = sql.SQL(
            "CASE WHEN NOT isfinite({x}) THEN ({x})::text "
            "WHEN {x} >= '0001-01-01 00:00:00+00'::timestamptz "
            "AND {x} < '10000-01-01 00:00:00+00'::timestamptz "
            "THEN to_char({u}, {format}) ELSE {iso} END"
        ).format(
            x=value,
            u=utc,
            format=sql.Literal('YYYY-MM-DD"T"HH24:MI:SS' + fraction),
            iso=_iso_timestamp(utc, fraction),
        )
        return text
    if name == "timetz":
        return sql.SQL(
            "regexp_replace(to_char(((({}) AT TIME ZONE 'UTC')::time)::interval, 'HH24:MI:SS.US'), "
            "'\\.?0+$', '') || 'Z'"
        ).format(value)
    assert name == "interval"
    return sql.SQL(
        "round(((extract(year FROM {x}) * 12 + extract(month FROM {x}))::float8 * 30.4375::float8 "
        "+ extract(day FROM {x})::float8) * 86400000000::float8)::bigint "
        "+ (extract(hour FROM {x}) * 3600000000 + extract(minute FROM {x}) * 60000000 "
        "+ extract(microseconds FROM {x}))::bigint"
    ).format(x=value)


TEMPORAL_TYPES: Final = frozenset({"date", "time", "timestamp", "timestamptz", "timetz", "interval"})


def base64_bytes(value: sql.Composable) -> sql.Composable:
    """A ``bytea`` as the converter writes bytes: padded standard base64 on one line."""
    return sql.SQL("translate(encode({}, 'base64'), E'\\n', '')").format(value)


def bit_boolean(value: sql.Composable) -> sql.Composable:
    """A ``bit(1)`` as the Connect value path reads it, a boolean: true for the text ``1`` alone."""
    return sql.SQL("({})::text = '1'").format(value)


def bits_bytes(value: sql.Composable) -> sql.Composable:
    """A ``bit(n > 1)`` or ``bit varying`` as Debezium's ``Bits``: base64 of the bit string's integer as
    little-endian bytes, as many as its length needs (none for the empty string)."""
    hex_digits = sql.SQL(
        "(SELECT string_agg(lpad(to_hex(substr(conveyor_p, conveyor_n * 8 + 1, 8)::bit(8)::int), 2, '0'), "
        "'' ORDER BY conveyor_n DESC) "
        "FROM (SELECT lpad(({x})::text, (length({x}) + 7) / 8 * 8, '0') AS conveyor_p) AS conveyor_padded, "
        "generate_series(0, length(conveyor_p) / 8 - 1) AS conveyor_n)"
    ).format(x=value)
    encoded = base64_bytes(sql.SQL("decode({}, 'hex')").format(hex_digits))
    return sql.SQL("CASE WHEN length({}) = 0 THEN '' ELSE {} END").format(value, encoded)


def _unscaled_base64(digits: sql.Composable, at_most_18: bool = False) -> sql.Composable:
    """Base64 of Java's ``BigInteger.toByteArray`` (minimal big-endian two's complement) of the integer
    whose decimal text (sign, digits, leading zeros allowed) is ``digits``; ``at_most_18`` when it never
    has more than 18 digits."""
    # Up to 18 digits: the last bytes of the bigint, as many as its range needs (width_bucket finds it).
    small = sql.SQL(
        "encode(substr(int8send(({d})::bigint), 8 - abs(width_bucket(({d})::bigint, {bounds}) - 7)), "
        "'base64')"
    ).format(d=digits, bounds=sql.SQL(_BYTE_BOUNDS))
    if at_most_18:
        return small
    # Beyond: 48-bit limbs of the number, made non-negative modulo 2^(48 * limbs) (one limb more than its
    # digits need, so that the sign extension shows), their hex stripped of the redundant leading bytes.
    large = sql.SQL(
        "(SELECT regexp_replace(string_agg(lpad(to_hex(mod(div(v, {limb}::numeric ^ n), {limb})::bigint), "
        "12, '0'), '' ORDER BY n DESC), {strip}, '') "
        "FROM (SELECT CASE WHEN u < 0 THEN u + {limb}::numeric ^ k ELSE u END AS v, k "
        "FROM (SELECT u, (length(u::text) * 10 / 144 + 2)::int AS k "
        "FROM (SELECT ({digits})::numeric AS u) AS conveyor_u) AS conveyor_k) AS conveyor_v, "
        "generate_series(0, k - 1) AS n)"
    ).format(limb=sql.Literal(_LIMB), strip=sql.SQL(_TWOS_COMPLEMENT_STRIP), digits=digits)
    return sql.SQL("CASE WHEN length({d}) > 18 THEN {large} ELSE {small} END").format(
        d=digits, large=base64_bytes(sql.SQL("decode({}, 'hex')").format(large)), small=small
    )


def decimal_bytes(value: sql.Composable, precision: int) -> sql.Composable:
    """A ``numeric(p, s)`` (``precision`` p) as the converter writes a Connect Decimal of scale ``s``: base64
    of its unscaled value (the digits of its text, which carries exactly ``s`` decimals); NaN refused."""
    digits = sql.SQL("replace(({})::text, '.', '')").format(value)
    encoded = sql.SQL("to_json({})").format(_unscaled_base64(digits, at_most_18=precision <= 18))
    return _refuse_not_finite(value, encoded, "Decimal")


def variable_scale_decimal(value: sql.Composable) -> sql.Composable:
    """A ``numeric`` without precision as Debezium's ``VariableScaleDecimal`` struct: its scale and its
    unscaled value's bytes; NaN and the infinities refused."""
    digits = sql.SQL("replace(({})::text, '.', '')").format(value)
    struct = sql.SQL("""('{{"scale":' || scale({}) || ',"value":"' || {} || '"}}')::json""").format(
        value, _unscaled_base64(digits)
    )
    return _refuse_not_finite(value, struct, "VariableScaleDecimal")


def _refuse_not_finite(value: sql.Composable, result: sql.Composable, target: str) -> sql.Composable:
    reason = f"cannot be written as a {target}: set decimal.handling.mode to double or string"
    return sql.SQL(
        "CASE WHEN {x} = 'NaN'::numeric OR {x} >= 'Infinity'::numeric OR {x} <= '-Infinity'::numeric "
        "THEN {refused} ELSE {result} END"
    ).format(x=value, refused=refuse("numeric value", value, reason, "json"), result=result)

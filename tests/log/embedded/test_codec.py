"""The embedded backend's batch codec gives back exactly what it was given."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conveyor.log import Headers
from conveyor.log.embedded.codec import decode_batch, encode_batch

Batch = tuple[
    list[bytes | None], list[bytes | None] | None, list[int], list[Headers | None] | None, list[int] | None
]

optional_bytes = st.none() | st.binary(max_size=40)
header_lists = st.none() | st.lists(st.tuples(st.text(max_size=10), optional_bytes), max_size=3)


@st.composite
def batches(draw: st.DrawFn) -> Batch:
    count = draw(st.integers(min_value=0, max_value=12))
    values = draw(st.lists(optional_bytes, min_size=count, max_size=count))
    keys = draw(st.none() | st.lists(optional_bytes, min_size=count, max_size=count))
    timestamps = draw(
        st.lists(st.integers(min_value=0, max_value=2**62), min_size=count, max_size=count)
        | st.just([1_700_000_000_000] * count)
    )
    headers = draw(st.none() | st.lists(header_lists, min_size=count, max_size=count))
    deltas = draw(
        st.none() | st.lists(st.integers(0, 2**20), min_size=count, max_size=count, unique=True).map(sorted)
    )
    return values, keys, timestamps, headers, deltas


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(batches())
def test_decode_returns_what_encode_was_given(batch: Batch) -> None:
    values, keys, timestamps, headers, deltas = batch
    decoded = decode_batch(encode_batch(values, keys, timestamps, headers, deltas))
    assert decoded.values == values
    assert list(decoded.keys) == (keys if keys is not None else [None] * len(values))
    assert list(decoded.timestamps) == timestamps
    assert [list(h) for h in decoded.headers] == [h or [] for h in (headers or [None] * len(values))]
    assert (None if decoded.offset_deltas is None else list(decoded.offset_deltas)) == deltas


def test_batch_of_equal_timestamps_stores_one_timestamp() -> None:
    values = [b"x" * 100] * 1000
    uniform = encode_batch(values, None, [5] * 1000, None)
    varied = encode_batch(values, None, list(range(1000)), None)
    assert len(varied) - len(uniform) == 8 * 1000


def test_batch_of_null_keys_stores_no_key_column() -> None:
    values = [b"x" * 100] * 1000
    null_keys = encode_batch(values, [None] * 1000, [5] * 1000, None)
    assert null_keys == encode_batch(values, None, [5] * 1000, None)
    assert list(decode_batch(null_keys).keys) == [None] * 1000

"""Records per second of JsonConverter and of a three-SMT chain, beside ``json`` on the same payloads.

Run: ``.venv/bin/python bench/convert_bench.py [--records N]``. Every figure is the best of a few
repetitions, measured in the same run as its ``json`` baseline, so noisy shared machines compare fairly.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from conveyor.convert import JsonConverter
from conveyor.data import (
    BOOLEAN_SCHEMA,
    FLOAT64_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    SourceRecord,
    Struct,
)
from conveyor.transforms import BUILTIN_TRANSFORMS

ORDER_SCHEMA: Schema = (
    SchemaBuilder.struct()
    .name("shop.Order")
    .field("id", INT64_SCHEMA)
    .field("customer", STRING_SCHEMA)
    .field("email", STRING_SCHEMA)
    .field("amount", FLOAT64_SCHEMA)
    .field("quantity", INT32_SCHEMA)
    .field("paid", BOOLEAN_SCHEMA)
    .field("note", OPTIONAL_STRING_SCHEMA)
    .field("sku", STRING_SCHEMA)
    .build()
)

SMT_CHAIN = (
    ("InsertField$Value", {"static.field": "source", "static.value": "bench"}),
    ("ReplaceField$Value", {"exclude": "note"}),
    ("MaskField$Value", {"fields": "email"}),
)


def make_payloads(count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": 10_000_000 + i,
            "customer": f"customer-{i % 977}",
            "email": f"user{i}@example.com",
            "amount": round(i * 1.37 % 5000, 2),
            "quantity": i % 17,
            "paid": i % 3 == 0,
            "note": None if i % 4 else "gift wrap",
            "sku": f"SKU-{i % 1234:05d}",
        }
        for i in range(count)
    ]


def to_struct(payload: dict[str, Any]) -> Struct:
    struct = Struct(ORDER_SCHEMA)
    for name, value in payload.items():
        struct.put(name, value)
    return struct


def best_rate(count: int, run: Callable[[], object], repetitions: int = 3) -> float:
    """Records per second of the fastest of ``repetitions`` runs over ``count`` records."""
    best = float("inf")
    for _ in range(repetitions):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return count / best


def configured(**configs: str) -> JsonConverter:
    converter = JsonConverter()
    converter.configure(configs, is_key=False)
    return converter


def build_chain() -> list[Any]:
    chain = []
    for name, configs in SMT_CHAIN:
        transform = BUILTIN_TRANSFORMS[name]()
        transform.configure(configs)
        chain.append(transform)
    return chain


def apply_chain_per_record(chain: Sequence[Any], records: Sequence[SourceRecord]) -> list[SourceRecord]:
    out = []
    for record in records:
        current: SourceRecord | None = record
        for transform in chain:
            current = transform.apply(current)
            if current is None:
                break
        if current is not None:
            out.append(current)
    return out


def apply_chain_batched(chain: Sequence[Any], records: Sequence[SourceRecord]) -> list[SourceRecord]:
    current = list(records)
    for transform in chain:
        current = transform.apply_batch(current)
    return current


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=20_000)
    count = parser.parse_args().records

    payloads = make_payloads(count)
    structs = [to_struct(payload) for payload in payloads]
    with_schemas = configured()
    plain = configured(**{"schemas.enable": "false"})
    envelopes = with_schemas.from_connect_batch("orders", ORDER_SCHEMA, structs)
    plain_texts = [json.dumps(payload).encode() for payload in payloads]

    rows: list[tuple[str, float]] = []
    dumps_rate = best_rate(count, lambda: [json.dumps(payload) for payload in payloads])
    rows.append(("json.dumps of the payload dicts (baseline)", dumps_rate))
    rows.append(
        (
            "JsonConverter schemas.enable=true, single records",
            best_rate(
                count, lambda: [with_schemas.from_connect_data("orders", ORDER_SCHEMA, s) for s in structs]
            ),
        )
    )
    rows.append(
        (
            "JsonConverter schemas.enable=true, batch",
            best_rate(count, lambda: with_schemas.from_connect_batch("orders", ORDER_SCHEMA, structs)),
        )
    )
    rows.append(
        (
            "JsonConverter schemas.enable=false, batch",
            best_rate(count, lambda: plain.from_connect_batch("orders", ORDER_SCHEMA, structs)),
        )
    )
    loads_rate = best_rate(count, lambda: [json.loads(text) for text in plain_texts])
    rows.append(("json.loads of the payload texts (baseline)", loads_rate))
    rows.append(
        (
            "JsonConverter read, schemas.enable=true, single records",
            best_rate(count, lambda: [with_schemas.to_connect_data("orders", data) for data in envelopes]),
        )
    )
    rows.append(
        (
            "JsonConverter read, schemas.enable=true, batch",
            best_rate(count, lambda: with_schemas.to_connect_batch("orders", envelopes)),
        )
    )

    records = [
        SourceRecord(
            "orders",
            source_partition={"shard": 0},
            source_offset={"position": i},
            kafka_partition=0,
            value_schema=ORDER_SCHEMA,
            value=struct,
        )
        for i, struct in enumerate(structs)
    ]
    chain = build_chain()
    rows.append(
        ("three-SMT chain, single records", best_rate(count, lambda: apply_chain_per_record(chain, records)))
    )
    rows.append(
        ("three-SMT chain, apply_batch", best_rate(count, lambda: apply_chain_batched(chain, records)))
    )

    print(
        f"{count} records, schema {ORDER_SCHEMA.name} with {len(ORDER_SCHEMA.fields)} fields; "
        f"chain: {', '.join(name for name, _ in SMT_CHAIN)}"
    )
    width = max(len(label) for label, _ in rows)
    for label, rate in rows:
        baseline = loads_rate if "read" in label or "loads" in label else dumps_rate
        print(f"{label:<{width}}  {rate:>12,.0f} records/s  {rate / baseline:5.2f}x json")
    batch_ratio = dict(rows)["JsonConverter schemas.enable=true, batch"] / dumps_rate
    print(f"batch write with envelope / json.dumps = {batch_ratio:.2f} (target >= 0.5)")


if __name__ == "__main__":
    main()

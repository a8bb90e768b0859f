"""Milliseconds per internal request with its signature checked, beside the same request unchecked.

Run: ``.venv/bin/python bench/request_signing_bench.py``. One server in this process serves two copies
of a task-configs endpoint, one behind ``InternalRequestVerifier`` and one not; each figure is the best
of a few repetitions of many requests, the signed and unsigned ones measured in the same run, for a
small body (a few task configs) and a large one (about 1 MB).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
from fastapi import Depends, FastAPI, Request

from conveyor.herder.distributed.request_signature import signature_headers
from conveyor.herder.distributed.session_keys import SessionKeyGenerator
from conveyor.rest import RestServer
from conveyor.rest.errors import install_error_handlers
from conveyor.rest.internal_requests import InternalRequestVerifier

REPEATS = 5
REQUESTS = 200
JSON = {"Content-Type": "application/json"}
KEY = SessionKeyGenerator().generate(int(time.time() * 1000))


def task_configs_body(tasks: int, value_size: int) -> bytes:
    return json.dumps(
        [{"task.class": "Task", "value": "x" * value_size, "n": str(n)} for n in range(tasks)]
    ).encode()


async def raw_body(request: Request) -> bytes:
    """The body, read the way the verifier reads it, but unchecked: the baseline."""
    return await request.body()


def app() -> FastAPI:
    verifier = InternalRequestVerifier(lambda: KEY, ["HmacSHA256"])
    served = FastAPI()

    @served.post("/signed/{connector}/tasks", status_code=204)
    def signed(connector: str, body: bytes = Depends(verifier)) -> None:
        json.loads(body)

    @served.post("/unsigned/{connector}/tasks", status_code=204)
    def unsigned(connector: str, body: bytes = Depends(raw_body)) -> None:
        json.loads(body)

    install_error_handlers(served)
    return served


def best_ms_per_request(send: Callable[[], Any]) -> float:
    timings = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(REQUESTS):
            send()
        timings.append((time.perf_counter() - start) * 1000 / REQUESTS)
    return min(timings)


def main() -> None:
    with (
        RestServer(app(), listeners="http://127.0.0.1:0") as server,
        httpx.Client(base_url=server.url) as client,
    ):
        print(f"{'body':>12} {'unsigned ms':>12} {'signed ms':>10} {'overhead':>9}")
        for label, body in [
            ("3 tasks", task_configs_body(3, 100)),
            ("~1 MB", task_configs_body(100, 10_000)),
        ]:

            def send_signed(body: bytes = body) -> None:
                signed_headers = {**JSON, **signature_headers(KEY, body, "HmacSHA256")}
                client.post("/signed/c/tasks", content=body, headers=signed_headers).raise_for_status()

            def send_unsigned(body: bytes = body) -> None:
                client.post("/unsigned/c/tasks", content=body, headers=JSON).raise_for_status()

            send_signed()
            send_unsigned()
            unsigned_ms = best_ms_per_request(send_unsigned)
            signed_ms = best_ms_per_request(send_signed)
            print(f"{label:>12} {unsigned_ms:12.3f} {signed_ms:10.3f} {signed_ms - unsigned_ms:+9.3f}")


if __name__ == "__main__":
    main()

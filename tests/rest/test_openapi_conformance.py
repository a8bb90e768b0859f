"""The OpenAPI document tells the truth: schema-driven requests to a live worker get only the status
codes, content types and bodies it declares, and never a 5xx.

Schemathesis generates the requests from `GET /openapi.json`, derandomized (the same examples every
run) and bounded per operation, valid and invalid ones alike. `PUT /admin/loggers/{name}` is left out:
it would change this test process's own log levels.
"""

from __future__ import annotations

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.generation.case import Case
from schemathesis.schemas import APIOperation

EXAMPLES_PER_OPERATION = 15
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
LEFT_OUT = {("PUT", "/admin/loggers/{name}")}


def _fuzz(operation: APIOperation, mode: GenerationMode) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def answers_as_declared(case: Case) -> None:
        case.call_and_validate(checks=CHECKS)

    answers_as_declared()


@pytest.mark.timeout(900)
def test_every_answer_is_one_the_document_declares(client: httpx.Client) -> None:
    schema = schemathesis.openapi.from_url(f"{client.base_url}/openapi.json")
    failures: list[str] = []
    fuzzed = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if (operation.method.upper(), operation.path) in LEFT_OUT:
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _fuzz(operation, mode)
            except Unsatisfiable:
                continue  # nothing in this operation can be made invalid (no parameters, free strings)
            except Exception as failure:
                failures.append(f"{operation.label} ({mode.value}): {failure}")
        fuzzed += 1
    assert fuzzed >= 25
    assert failures == [], "\n\n".join(failures)

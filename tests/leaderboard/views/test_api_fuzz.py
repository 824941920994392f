"""Schemathesis against a live server: every /api/ operation of the OpenAPI document, positive and
negative inputs, with a token, bounded. No 500s, every error in the documented shape, every response
valid against the schema (status code, content type, body)."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from leaderboard.models import ApiToken, Status, Submission
from leaderboard.services.openapi import openapi_schema
from tests.helpers.api_shape import assert_api_error
from tests.helpers.datagen import dialbgm_predictions
from tests.helpers.site import upload

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = 12  # per operation, generation mode and parameter pinning: ~9 x 2 x 2 x 12 requests at most
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def _fuzz(operation: Any, mode: Any, pinned: dict[str, str], base_url: str, headers: dict[str, str],
          seen: Counter[str]) -> None:
    params = {k: v for k, v in pinned.items() if k in {p.name for p in operation.path_parameters}}
    strategy = operation.as_strategy(generation_mode=mode, path_parameters=params or None)

    @hypothesis_settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                         suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def run(case: Any) -> None:
        response = case.call(base_url=base_url, headers=headers, timeout=30)
        seen[f"{response.status_code // 100}xx"] += 1
        seen[str(response.status_code)] += 1
        checks = CHECKS + ([negative_data_rejection] if mode == schemathesis.GenerationMode.NEGATIVE else [])
        case.validate_response(response, checks=checks, headers=headers)
        if response.status_code >= 400:
            assert_api_error(response, response.status_code)

    try:
        run()
    except Unsatisfiable:  # nothing to negate (no parameters, no body): positive mode covers it
        assert mode == schemathesis.GenerationMode.NEGATIVE, operation.label


@pytest.mark.slow
def test_schemathesis_finds_no_server_error_and_no_undocumented_answer(live_server, alice, dialbgm_split,
                                                                       dialbgm_refs, record_property, settings):
    done = upload(alice, dialbgm_split, [dialbgm_predictions(dialbgm_refs, seed=1)], model_name="Fuzz target")
    submission = Submission.objects.get(uid=done.json()["id"])
    assert submission.status == Status.SCORED, submission.status_detail
    settings.LEADERBOARD = {**settings.LEADERBOARD, "DAILY_QUOTA": 10_000}
    _, token = ApiToken.issue(alice)
    schema = schemathesis.openapi.from_dict(openapi_schema())
    pinned = {"benchmark": "dialbgm", "split": "test", "id": str(submission.uid)}
    seen: Counter[str] = Counter()
    started = time.monotonic()
    operations = [r.ok() for r in schema.get_all_operations()]
    api = [op for op in operations if op.path.startswith("/api/")]
    assert len(api) >= 9
    for operation in api:
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
            for pin in ({}, pinned):
                before = time.monotonic()
                _fuzz(operation, mode, pin, live_server.url, {"Authorization": f"Token {token}"}, seen)
                print(f"{operation.label} {mode.value} pinned={bool(pin)}: {time.monotonic() - before:.1f} s")
    elapsed = time.monotonic() - started
    total = sum(v for k, v in seen.items() if k.endswith("xx"))
    summary = f"{total} requests in {elapsed:.0f} s over {len(api)} operations: {dict(sorted(seen.items()))}"
    print(summary)
    record_property("fuzz", summary)
    assert seen["5xx"] == 0
    # both the happy paths and the refusals were reached
    assert seen["2xx"] >= 30 and seen["4xx"] >= 100 and total >= 250, summary

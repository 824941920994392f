"""Site tests: PostgreSQL and Redis; tasks run eagerly in-process."""

from collections.abc import Callable
from typing import Any

import pytest

from leaderboard.models import Split, Submission
from tests.helpers.fixtures import *  # noqa: F403
from tests.helpers.site import upload_scored


@pytest.fixture
def public_mmau_entry(make_split: Callable[..., Split], alice: Any,
                      django_capture_on_commit_callbacks: Any) -> tuple[Split, Submission]:
    """An MMAU split with public labels and alice's perfect entry on it, its signatures holding the plain
    gold digest (for tests that hide the labels afterwards)."""
    from tests.leaderboard.test_mcq_site import mmau_like

    refs = mmau_like(12)
    split = make_split("mmau", "test", refs)
    entry = upload_scored(alice, split, [[{"id": r["id"], "prediction": r["answer"]} for r in refs]],
                          django_capture_on_commit_callbacks, model_name="Early")
    signatures = dict(entry.metric_values.values_list("key", "signature"))
    assert "gold:" in signatures["accuracy"] and not any("gold:hmac-" in s for s in signatures.values())
    return split, entry

"""Token-budgeted grouping of the BERTScore encoders and of the unit normalisation."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from scoring.metrics.bertscore.forward import token_groups  # noqa: E402
from scoring.metrics.bertscore.masked import unit_embeddings  # noqa: E402


def test_token_groups_stay_within_the_budget_and_give_a_longer_item_its_own_group() -> None:
    assert token_groups([3, 3, 3, 10, 2, 2], 6) == [(0, 2), (2, 3), (3, 4), (4, 6)]
    assert token_groups([7], 6) == [(0, 1)]
    assert token_groups([], 6) == []
    assert token_groups([1] * 5, 100) == [(0, 5)]


@pytest.mark.parametrize("group_tokens", [1, 5, 7, 4096])
def test_unit_embeddings_are_each_row_over_its_norm_whatever_the_grouping(group_tokens: int) -> None:
    generator = torch.Generator().manual_seed(3)
    lengths = [2, 9, 3, 3, 14, 1, 6]
    embeddings = {f"s{i}": torch.randn(n, 8, generator=generator) * (i + 1) for i, n in enumerate(lengths)}
    unit = unit_embeddings(embeddings, group_tokens)
    assert list(unit) == list(embeddings)
    for name, rows in embeddings.items():
        assert unit[name].shape == rows.shape
        torch.testing.assert_close(unit[name], rows / rows.norm(dim=-1, keepdim=True), rtol=0, atol=1e-7)
        torch.testing.assert_close(unit[name].norm(dim=-1), torch.ones(len(rows)), rtol=0, atol=1e-6)


def test_unit_embeddings_of_nothing_is_empty() -> None:
    assert unit_embeddings({}) == {}

"""DialBGM maintainers' side: Kendall's W with tie correction, Borda consensus, item filter."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.metrics.consensus import borda_consensus, keep_by_agreement, kendalls_w


def w_from_scratch(ranks: list[list[float]]) -> float:
    """W = 12 S / (m^2 (n^3 - n) - m * sum T), average ranks for ties, T = sum(t^3 - t) per rater."""
    m, n = len(ranks), len(ranks[0])
    averaged = []
    for row in ranks:
        order = sorted(range(n), key=lambda j: row[j])
        ranked = [0.0] * n
        i = 0
        while i < n:
            j = i
            while j + 1 < n and row[order[j + 1]] == row[order[i]]:
                j += 1
            for t in range(i, j + 1):
                ranked[order[t]] = (i + j) / 2 + 1  # average of positions i+1 .. j+1
            i = j + 1
        averaged.append(ranked)
    totals = [sum(r[j] for r in averaged) for j in range(n)]
    mean = sum(totals) / n
    s = sum((t - mean) ** 2 for t in totals)
    tie_sum = 0
    for row in averaged:
        for value in set(row):
            t = row.count(value)
            tie_sum += t**3 - t
    return 12 * s / (m**2 * (n**3 - n) - m * tie_sum)


def test_kendalls_w_hand_values() -> None:
    # totals 4, 6, 8, 12 (mean 7.5): S = 35; W = 12 * 35 / (9 * 60) = 7/9
    assert kendalls_w([[1, 2, 3, 4], [1, 3, 2, 4], [2, 1, 3, 4]]) == pytest.approx(7 / 9, abs=1e-15)
    # rater 2 ties two objects -> ranks 1, 2.5, 2.5, 4; totals 4, 5.5, 8.5, 12: S = 37.5;
    # sum T = 2^3 - 2 = 6; W = 12 * 37.5 / (9 * 60 - 3 * 6) = 450 / 522 = 25/29
    assert kendalls_w([[1, 2, 3, 4], [1, 2, 2, 4], [2, 1, 3, 4]]) == pytest.approx(25 / 29, abs=1e-15)
    # tied ranks may also be given as averages already
    assert kendalls_w([[1, 2, 3, 4], [1, 2.5, 2.5, 4], [2, 1, 3, 4]]) == pytest.approx(25 / 29, abs=1e-15)
    # perfect agreement -> 1; two raters in reverse order -> 0
    assert kendalls_w([[1, 2, 3, 4]] * 12) == pytest.approx(1.0, abs=1e-15)
    assert kendalls_w([[1, 2, 3, 4], [4, 3, 2, 1]]) == 0.0
    # every rater ties everything: undefined
    assert math.isnan(kendalls_w([[1, 1, 1, 1], [2, 2, 2, 2]]))


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 12).flatmap(
        lambda m: st.integers(2, 5).flatmap(
            lambda n: st.lists(st.lists(st.integers(1, n), min_size=n, max_size=n), min_size=m, max_size=m)
        )
    )
)
def test_kendalls_w_equals_formula_from_scratch(ranks) -> None:
    n = len(ranks[0])
    denominator_zero = all(len(set(row)) == 1 for row in ranks) or n < 2
    if denominator_zero:
        assert math.isnan(kendalls_w(ranks))
    else:
        assert kendalls_w(ranks) == pytest.approx(w_from_scratch(ranks), abs=1e-12)


def test_borda_points() -> None:
    # rank 1 -> 3 points ... rank 4 -> 0: a = 9, b = 5, c = 3, d = 1
    ranks = [[1, 2, 3, 4], [1, 3, 2, 4], [1, 2, 4, 3]]
    assert borda_consensus(["a", "b", "c", "d"], ranks) == ["a", "b", "c", "d"]
    assert borda_consensus(["d", "c", "b", "a"], [r[::-1] for r in ranks]) == ["a", "b", "c", "d"]


def test_borda_tie_break_i_more_rank1_votes() -> None:
    # z: ranks 1, 1, 4 -> 6 points, two rank-1 votes; b: 2, 2, 2 -> 6 points, none.
    # (ii) would prefer b (three rank-2 votes) and (iv) "b" < "z": only rule (i) puts z first.
    candidates = ["z", "b", "c", "d"]
    ranks = [[1, 2, 3, 4], [1, 2, 3, 4], [4, 2, 1, 3]]
    assert borda_consensus(candidates, ranks) == ["z", "b", "c", "d"]


def test_borda_tie_break_ii_more_rank2_votes() -> None:
    # zz: ranks 1, 2, 4 (5 points, one rank-1, one rank-2); y: 3, 1, 3 (5 points, one rank-1, none rank-2)
    # c: 2, 3, 1 -> 6 points; d: 4, 4, 2 -> 2 points. (iv) "y" < "zz" would put y first.
    candidates = ["zz", "y", "c", "d"]
    ranks = [[1, 3, 2, 4], [2, 1, 3, 4], [4, 3, 1, 2]]
    assert borda_consensus(candidates, ranks) == ["c", "zz", "y", "d"]


def test_borda_tie_break_iii_mean_rank_follows_points_for_complete_rankings() -> None:
    # With every annotator ranking every candidate, points = m * n - sum of ranks, so equal
    # points always mean equal mean ranks: rule (iii) can never decide on its own. It is
    # checked here to order consistently with the points (lower mean rank = more points).
    candidates = ["a", "b", "c", "d"]
    ranks = [[2, 1, 3, 4], [2, 3, 1, 4], [1, 2, 4, 3]]
    matrix = np.array(ranks, dtype=float)
    points = (4 - matrix).sum(axis=0)
    mean_rank = matrix.mean(axis=0)
    np.testing.assert_allclose(mean_rank, 4 - points / 3)
    assert borda_consensus(candidates, ranks) == ["a", "b", "c", "d"]


def test_borda_tied_annotator_ranks_fall_through_to_the_id() -> None:
    # An annotator may tie two candidates (rank 2 and 2); points and votes are still
    # derived from the same ranks, so the order falls through to the candidate id.
    candidates = ["y", "x", "c", "d"]
    ranks = [[2, 2, 1, 4], [2, 2, 1, 4]]
    assert borda_consensus(candidates, ranks) == ["c", "x", "y", "d"]


def test_borda_tie_break_iv_candidate_id() -> None:
    # b and a have identical rank multisets {1, 2}: points, votes and mean ranks all tie
    candidates = ["b", "a", "c", "d"]
    ranks = [[1, 2, 3, 4], [2, 1, 3, 4]]
    assert borda_consensus(candidates, ranks) == ["a", "b", "c", "d"]


def test_borda_rejects_a_wrong_shape() -> None:
    with pytest.raises(ValueError):
        borda_consensus(["a", "b"], [[1, 2, 3]])


def test_keep_by_agreement() -> None:
    # W = 0.50, 0.55, ..., 0.95: the 10% quantile is 0.545, so only 0.50 is in the bottom 10%
    w = [0.5 + 0.05 * i for i in range(10)]
    assert keep_by_agreement(w).tolist() == [False] + [True] * 9
    # threshold: below 0.25 always dropped, whatever the quantile; nan dropped
    w = [0.1, 0.2, 0.24, 0.25, 0.3, 0.9, 0.8, 0.7, 0.6, float("nan")]
    kept = keep_by_agreement(w, threshold=0.25, bottom_fraction=0.0)
    assert kept.tolist() == [False, False, False, True, True, True, True, True, True, False]
    assert keep_by_agreement([], threshold=0.25).tolist() == []


@pytest.mark.slow
def test_consensus_cli_writes_references(tmp_path, cli) -> None:
    annotations = tmp_path / "annotations.jsonl"
    items = [
        {"id": "i1", "candidates": ["z", "b", "c", "d"], "ranks": [[1, 2, 3, 4], [1, 2, 3, 4], [4, 2, 1, 3]],
         "dialogue": "A: hi"},
        {"id": "i2", "candidates": ["a", "b", "c", "d"], "ranks": [[1, 2, 3, 4], [4, 3, 2, 1]]},  # W = 0
        {"id": "i3", "candidates": ["a", "b", "c", "d"], "ranks": [[1, 2, 3, 4]] * 3},  # W = 1
    ]
    annotations.write_text("".join(json.dumps(i) + "\n" for i in items))
    out = tmp_path / "refs.jsonl"
    result = cli.run("consensus", "--annotations", annotations, "--out", out, "--drop-bottom", "0")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"kept": 2, "dropped": 1}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["i1", "i3"]
    assert rows[0]["gold_ranking"] == ["z", "b", "c", "d"]
    assert rows[0]["dialogue"] == "A: hi" and "ranks" not in rows[0]
    assert rows[1]["kendalls_w"] == pytest.approx(1.0)

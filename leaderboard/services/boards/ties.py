"""Ties: one verdict on a pair of entries, on the board and in compare.

Two entries are tied when compare's paired bootstrap on a column (:func:`~leaderboard.services.boards.compare.
compare_numbers`: the same items, seed 0, the site's replicates, each entry's per-run arrays from
``entry_vectors``) does not separate them at the 5% level, two-sided (:func:`ties_separated`): exactly when
compare marks its "better" as not significant. A board ranks an entry with its rank group's top entry when they
are tied on the sort column, so the board and compare never disagree about that pair.

A board reads each shown entry's aggregate and bootstrap replicates of the sort column (:func:`ties_resampled`),
cached per split version, entry and column; the entries the cache misses are resampled together in one pass
(the replicates are exact sums, so an entry's are the same bits whatever is resampled beside it, and a pair's
p-value is bit for bit compare's). Entries without stored per-run arrays, or a column today's scorer signs
otherwise (compare leaves such a column out), fall back to their 95% intervals. On a hidden-label split, for
everyone but maintainers, ties come from the released values only (equal values are tied), as compare's
answer does there: nothing derived from per-item data decides them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from leaderboard.models import Split, Submission
from leaderboard.services.boards.entry_vectors import entry_runs_many
from leaderboard.services.shared.cache import cached_many_for_split
from leaderboard.services.shared.scorers import site_scorer
from scoring.stats import paired_bootstrap_p_value

ALPHA = 0.05
SEED = 0  # compare's

# what decided a row's tie (or not) with its rank group's top entry
PAIRED = "paired"  # compare's paired bootstrap
INTERVALS = "intervals"  # no per-run arrays: the 95% intervals overlap
VALUES = "values"  # no per-run arrays and no intervals: equal values
RELEASED = "released"  # hidden-label split, not a maintainer: equal released values

_BOARD = ("Tied (≈): entries that compare's paired bootstrap over the same items does not separate from the top "
          "entry of their rank group at the 5% level (two-sided) share its rank")
_BOARD_FALLBACK = ("; entries without stored per-item arrays share it when their 95% intervals overlap (without "
                   "intervals, when the values are equal)")
_BOARD_RELEASED = ("Tied (≈): entries whose released value equals the top entry's of their rank group share its rank "
                   "(hidden-label split: no per-item test decides a tie)")
COMPARE_TIED = ("Tied (≈ on the leaderboard): compare's paired bootstrap over the same items does not separate "
                "the two at the 5% level (two-sided), marked “not significant”")
COMPARE_TIED_RELEASED = "Tied (≈ on the leaderboard): equal released values"


@dataclass(frozen=True)
class Resampled:
    """An entry's aggregate of one column as compare computes it, and the same under compare's replicates."""

    value: float
    replicates: np.ndarray


def ties_separated(p_value: float | None) -> bool:
    """Compare calls one of two entries better at the 5% level (no p-value: nothing is separated; equal
    aggregates give p = 1)."""
    return p_value is not None and p_value < ALPHA


def ties_p_value(a: Resampled, b: Resampled) -> float | None:
    """Compare's two-sided p-value of the pair (either order gives the same bits), None where it has none."""
    p_value = paired_bootstrap_p_value(a.value - b.value, a.replicates - b.replicates)
    return None if np.isnan(p_value) else p_value


def ties_resampled(split: Split, *, key: str, signature: str, column: str,
                   runs: Mapping[int, int]) -> dict[int, Resampled]:
    """Each entry's :class:`Resampled` of column ``key`` (scored under ``signature``; ``column``: the board's
    column id) by submission id (``runs``: submission id -> its number of runs), for the entries a paired test
    can be run on; cached under the split's token."""
    replicates = settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]
    names = {sid: f"ties:v1:{column}:{replicates}:{sid}" for sid in runs}
    found = cached_many_for_split(split.pk, names, lambda missing: _resampled(
        key, signature, {sid: runs[sid] for sid in missing}, replicates))
    return {sid: value for sid, value in found.items() if isinstance(value, Resampled)}


def ties_sentence(*, released: bool, fallback: bool) -> str:
    """What "tied" means on a board, in one sentence (``fallback``: some tie was decided by intervals)."""
    if released:
        return _BOARD_RELEASED
    return _BOARD + (_BOARD_FALLBACK if fallback else "")


def _resampled(key: str, signature: str, runs: Mapping[int, int], replicates: int) -> dict[int, Resampled | bool]:
    """The :class:`Resampled` of each entry that has per-run arrays, False for the others (cached too: a
    miss is None)."""
    out: dict[int, Resampled | bool] = dict.fromkeys(runs, False)
    stored = entry_runs_many(runs, [key])
    if not stored:
        return out
    scorer = site_scorer(Submission.objects.select_related("split__benchmark").get(pk=next(iter(stored))))
    if key not in scorer.columns or scorer.signature(key) != signature:
        return out
    n = len(scorer.references)
    sides = {str(sid): entry_runs for sid, entry_runs in stored.items()  # arrays of other references: no test
             if all(len(run[key].values) == n for run in entry_runs)}
    if not sides:
        return out
    samples = scorer.resampled(sides, [key], seed=SEED, n_bootstrap=replicates)
    ones = np.ones((1, n))
    for side, entry_runs in sides.items():
        sid = int(side)
        out[sid] = Resampled(float(scorer.aggregate(key, entry_runs, ones)[0]), samples[key, side])
    return out

"""Resampling statistics over items, expressed as item weights.

Every aggregate in the engine is a function of per-item data and a weight
per item, so a bootstrap replicate is just a row of multinomial counts.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

DEFAULT_BOOTSTRAP = 1000
_BLOCK = 100  # replicates per block keeps a (block, n) weight matrix small


def bootstrap_weights(n: int, replicates: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of bootstrap weight rows (counts of each item in a resample of size ``n``)."""
    rng = np.random.default_rng(seed)
    # below 2**31 items int32 draws are the int64 draws (numpy draws both with 32-bit Lemire
    # rejection from the same stream), in half the memory and ~30% less time
    dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    for start in range(0, replicates, _BLOCK):
        size = min(_BLOCK, replicates - start)
        draws = rng.integers(0, n, size=(size, n), dtype=dtype)
        weights = np.empty((size, n))  # every row is written below
        for row, sample in enumerate(draws):
            weights[row] = np.bincount(sample, minlength=n)
        yield weights


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval, or None when the statistic is undefined in any replicate."""
    if samples.size == 0 or np.isnan(samples).any():
        return None
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(samples, [tail, 100.0 - tail])
    return float(low), float(high)


def paired_bootstrap_p_value(observed: float, samples: np.ndarray) -> float:
    """Two-sided p-value of a paired difference: the bootstrap distribution shifted
    to mean 0 stands for the null hypothesis (no difference)."""
    if np.isnan(observed) or samples.size == 0 or np.isnan(samples).any():
        return float("nan")
    centred = samples - samples.mean()
    extreme = np.count_nonzero(np.abs(centred) >= abs(observed) - 1e-12)
    return float((extreme + 1) / (samples.size + 1))


def run_std(values: list[float]) -> float | None:
    """Sample standard deviation (ddof=1) across runs; None for a single run."""
    if len(values) < 2 or any(np.isnan(values)):
        return None
    return float(np.std(values, ddof=1))


def holm_adjusted(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values over the tests given (``None``: no test, left out of the count):
    the i-th smallest of m p-values times m - i + 1, at most 1, never below the one before it."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, index) in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p))
        adjusted[index] = running
    return adjusted

"""Bootstrap replicates of many statistics with one matrix product per weight block.

A statistic given as :class:`~scoring.metrics.base.Totals` needs only weighted item totals, so
the columns of every statistic (each metric, each run, both sides of a comparison) are stacked
into one matrix, identical columns once (the defined-item masks that metrics and sides share),
and each ``(block, n)`` block of replicate weights is multiplied by it once: one matrix product
instead of one matrix-vector product per statistic, each of which read the whole block again.

The totals are exact sums (:mod:`scoring.exact`), so a statistic's replicates are the same bit
for bit whatever is stacked beside it, whatever the number of BLAS threads, and whether the CLI
or the site computes them; and a replicate whose weights are all ones equals the plain score.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
from threadpoolctl import threadpool_limits

from scoring.exact import SliceStack, gather, slice_bits
from scoring.metrics.base import Totals
from scoring.stats import bootstrap_weights

K = TypeVar("K", bound=Hashable)
Statistic = Totals | Callable[[np.ndarray], np.ndarray]


def bootstrap_statistics(
    statistics: Mapping[K, Statistic], n: int, replicates: int, seed: int
) -> dict[K, np.ndarray]:
    """Each statistic over the same ``replicates`` bootstrap resamples of ``n`` items.

    A :class:`Totals` statistic shares the block's one matrix product; a plain callable
    (``weights -> values``) is called on each ``(block, n)`` weight block.
    """
    if n == 0:
        return {name: np.full(replicates, np.nan) for name in statistics}
    # weight rows of a bootstrap sum to n
    stack = SliceStack(n, slice_bits(n))
    slots = {name: stack.add(s.columns) for name, s in statistics.items() if isinstance(s, Totals)}
    matrix = stack.matrix()
    parts: dict[K, list[np.ndarray]] = {name: [] for name in statistics}
    # one BLAS thread: a block's product is small, and OpenBLAS's threads spin between blocks on
    # the cores that draw the next block (measured 2.2-3.0 s against 0.9-1.3 s on a busy 2-core box)
    with threadpool_limits(limits=1, user_api="blas"):
        for weights in _prefetched(bootstrap_weights(n, replicates, seed)):
            products = weights @ matrix
            for name, statistic in statistics.items():
                parts[name].append(statistic.finish(gather(products, slots[name]))
                                   if isinstance(statistic, Totals) else statistic(weights))
    return {name: np.concatenate(blocks) if blocks else np.empty(0) for name, blocks in parts.items()}


def _prefetched(blocks: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
    """``blocks`` in order, each drawn in a second thread while the caller works on the one before
    (one thread draws from the generator at a time, so the weights are the same)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(next, blocks, None)
        while (block := pending.result()) is not None:
            pending = pool.submit(next, blocks, None)
            yield block

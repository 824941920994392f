"""Bootstrap replicates of many statistics with one matrix product per weight block.

A statistic given as :class:`~scoring.metrics.base.Totals` needs only weighted item totals, so
the columns of every statistic (each metric, each run, both sides of a comparison) are stacked
into one matrix, identical columns once (the defined-item masks that metrics and sides share),
and each ``(block, n)`` block of replicate weights is multiplied by it once: one matrix product
instead of one matrix-vector product per statistic, each of which read the whole block again.

The totals are exact sums, so they do not depend on the order in which BLAS adds: each column
is split into slices on grids coarse enough that every partial sum of integer weights times a
slice is an integer multiple of the grid below 2**53 (see :func:`_slices`). A statistic's
replicates are then the same bit for bit whatever is stacked beside it, whatever the number of
BLAS threads, and whether the CLI or the site computes them; a total is the exact weighted sum
rounded (to well below the last bit of a double) once per slice.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import TypeVar

import numpy as np

from scoring.metrics.base import Totals
from scoring.stats import bootstrap_weights

K = TypeVar("K", bound=Hashable)
Statistic = Totals | Callable[[np.ndarray], np.ndarray]
_MAX_SLICES = 3  # 3 x (53 - log2 n) bits: 111 for the 36,519 Jamendo items, where a double holds 53


def bootstrap_statistics(
    statistics: Mapping[K, Statistic], n: int, replicates: int, seed: int
) -> dict[K, np.ndarray]:
    """Each statistic over the same ``replicates`` bootstrap resamples of ``n`` items.

    A :class:`Totals` statistic shares the block's one matrix product; a plain callable
    (``weights -> values``) is called on each ``(block, n)`` weight block.
    """
    if n == 0:
        return {name: np.full(replicates, np.nan) for name in statistics}
    stack = _Stack(n)
    slots = {name: stack.add(s.columns) for name, s in statistics.items() if isinstance(s, Totals)}
    matrix = stack.matrix()
    products: list[np.ndarray] = []
    called: dict[K, list[np.ndarray]] = {name: [] for name in statistics if name not in slots}
    for weights in bootstrap_weights(n, replicates, seed):
        products.append(weights @ matrix)
        for name in called:
            called[name].append(statistics[name](weights))  # type: ignore[operator]
    every = np.concatenate(products) if products else np.empty((0, matrix.shape[1]))
    result: dict[K, np.ndarray] = {}
    for name, statistic in statistics.items():
        if isinstance(statistic, Totals):
            result[name] = statistic.finish(_gather(every, slots[name]))
        else:
            result[name] = np.concatenate(called[name]) if called[name] else np.empty(0)
    return result


class _Stack:
    """The distinct slices of every added column, as the columns of one matrix."""

    def __init__(self, n: int) -> None:
        self.n = n
        # weight rows of a bootstrap sum to n: n * 2**bits must stay within 2**53
        self.bits = 53 - max(n - 1, 1).bit_length()
        self._columns: list[np.ndarray] = []
        self._position: dict[bytes, int] = {}

    def add(self, columns: np.ndarray) -> list[list[int]]:
        """For each column, the positions of its slices in :meth:`matrix`, largest slice first."""
        return [[self._place(part) for part in _slices(column, self.bits)] for column in columns.T]

    def _place(self, column: np.ndarray) -> int:
        key = column.tobytes()
        if key not in self._position:
            self._position[key] = len(self._columns)
            self._columns.append(column)
        return self._position[key]

    def matrix(self) -> np.ndarray:
        if not self._columns:
            return np.zeros((self.n, 0))
        return np.column_stack(self._columns)


def _slices(column: np.ndarray, bits: int) -> list[np.ndarray]:
    """``column`` as a sum of slices, the k-th a whole multiple of ``2**(e - k * bits)`` where
    ``2**e`` bounds ``|column|``; each slice's values are at most ``2**bits`` grid steps, so any
    sum of ``n`` of them under weights summing to ``n`` is exact. Whatever is left after
    ``_MAX_SLICES`` is below ``2**(e - 3 * bits)``, beyond a double's precision of the total."""
    column = np.ascontiguousarray(column, dtype=np.float64)
    peak = float(np.max(np.abs(column))) if column.size else 0.0
    if peak == 0.0:
        return []
    if not np.isfinite(peak):
        return [column]  # inf or NaN totals are inf or NaN in any order
    exponent = int(np.frexp(peak)[1])
    parts = []
    rest = column
    for k in range(1, _MAX_SLICES + 1):
        step = exponent - k * bits
        part = np.ldexp(np.rint(np.ldexp(rest, -step)), step)
        parts.append(part)
        rest = rest - part  # exact: the rounding error of a grid coarser than rest's own
        if not rest.any():
            break
    return parts


def _gather(products: np.ndarray, slots: list[list[int]]) -> np.ndarray:
    """Each column's total: its slices' exact totals added smallest first."""
    totals = np.zeros((products.shape[0], len(slots)))
    for j, positions in enumerate(slots):
        for position in reversed(positions):
            totals[:, j] += products[:, position]
    return totals

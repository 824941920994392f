"""Weighted sums of item values that are exact before one rounding, so they do not depend on the
order in which BLAS adds (which moves with the matrix shape and the number of BLAS threads).

A column is split into slices on power-of-two grids coarse enough that every partial sum of
integer weights times a slice is a whole number of grid steps below 2**53, which float64 holds
exactly: BLAS may add in any order, split the work over any threads, or use FMA, and each slice's
total is the same. A column's total is its slices' exact totals added smallest first.
"""

from __future__ import annotations

import numpy as np

MAX_SLICES = 3  # 3 x (53 - log2 n) bits: 111 for the 36,519 Jamendo items, where a double holds 53


def slice_bits(bound: float) -> int:
    """Grid steps per slice when weight rows sum to at most ``bound``: ``bound * 2**bits <= 2**53``."""
    return 53 - max(int(np.ceil(bound)) - 1, 1).bit_length()


def slices(column: np.ndarray, bits: int) -> list[np.ndarray]:
    """``column`` as a sum of slices, the k-th a whole multiple of ``2**(e - k * bits)`` where
    ``2**e`` bounds ``|column|``, so each value is at most ``2**bits`` steps. Whatever is left
    after ``MAX_SLICES`` is below ``2**(e - 3 * bits)``, beyond a double's precision of the total."""
    column = np.ascontiguousarray(column, dtype=np.float64)
    peak = float(np.max(np.abs(column))) if column.size else 0.0
    if peak == 0.0:
        return []
    if not np.isfinite(peak):
        return [column]  # inf or NaN totals are inf or NaN in any order
    exponent = int(np.frexp(peak)[1])
    parts = []
    rest = column
    for k in range(1, MAX_SLICES + 1):
        step = exponent - k * bits
        part = np.ldexp(np.rint(np.ldexp(rest, -step)), step)
        parts.append(part)
        rest = rest - part  # exact: the rounding error of a grid coarser than rest's own
        if not rest.any():
            break
    return parts


class SliceStack:
    """The distinct slices of every added column, as the columns of one matrix (shared masks once)."""

    def __init__(self, n: int, bits: int) -> None:
        self.n = n
        self.bits = bits
        self._columns: list[np.ndarray] = []
        self._position: dict[bytes, int] = {}

    def add(self, columns: np.ndarray) -> list[list[int]]:
        """For each column, the positions of its slices in :meth:`matrix`, largest slice first."""
        return [[self._place(part) for part in slices(column, self.bits)] for column in columns.T]

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


def gather(products: np.ndarray, slots: list[list[int]]) -> np.ndarray:
    """Each column's total from its slices' exact totals (``weights @ matrix``), smallest first."""
    totals = np.zeros((products.shape[0], len(slots)))
    for j, positions in enumerate(slots):
        for position in reversed(positions):
            totals[:, j] += products[:, position]
    return totals


def weighted_totals(weights: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``weights @ columns``, exact before rounding when the weights are non-negative integers
    (resample counts, or ones for the plain score); other weights get BLAS's sum."""
    if weights.size == 0 or (weights < 0).any() or (weights != np.rint(weights)).any():
        return weights @ columns
    stack = SliceStack(columns.shape[0], slice_bits(float(weights.sum(axis=1).max())))
    slots = stack.add(columns)
    matrix = stack.matrix()
    if weights.shape[0] == 1:
        # no BLAS call for one row: a threaded gemv waits on its threads (24 ms measured on a busy
        # machine against 0.1 ms), and the sum is exact in numpy's order too
        products = (matrix * weights[0][:, None]).sum(axis=0, keepdims=True)
    else:
        products = weights @ matrix
    return gather(products, slots)

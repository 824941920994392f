"""A split's public ``inputs.jsonl``: what researchers run their models on, never a label.

One function writes it for the site's download and for ``python -m scoring inputs``, so both give the
same bytes: each line is ``{"id", ...public fields}``, object keys sorted at every level (a database
may store the fields in any key order), lists in their order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


def inputs_lines(items: Iterable[tuple[str, Mapping[str, Any]]]) -> Iterator[str]:
    """``inputs.jsonl`` lines (with their newline) for ``(item id, public fields)`` in split order."""
    for item_id, public in items:
        yield json.dumps({"id": item_id, **_sorted(dict(public))}, ensure_ascii=False) + "\n"


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value

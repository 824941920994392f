"""Build DialBGM references from raw annotations (the maintainers' side)."""

from __future__ import annotations

import json
from pathlib import Path

from scoring.metrics.consensus import borda_consensus, keep_by_agreement, kendalls_w
from scoring.reading.jsonl import read_jsonl
from scoring.reading.problems import InvalidInput, ProblemLog


def build_consensus_references(
    annotations: str | Path, out: str | Path, *, min_w: float = 0.25, drop_bottom: float = 0.10
) -> tuple[int, int]:
    """Read ``{"id", "candidates", "ranks": [[rank per candidate] per annotator], ...}`` lines,
    write references with the Borda ``gold_ranking`` and ``kendalls_w`` for kept items.
    Returns (kept, dropped)."""
    log = ProblemLog(keep=100)
    items = []
    for line, obj in read_jsonl(annotations, log):
        candidates, ranks = obj.get("candidates"), obj.get("ranks")
        if not isinstance(candidates, list) or not isinstance(ranks, list) or not ranks:
            log.add(Path(annotations).name, line, "missing_field", "needs candidates and ranks", "ranks")
            continue
        if any(not isinstance(r, list) or len(r) != len(candidates) for r in ranks):
            log.add(Path(annotations).name, line, "wrong_type", "each annotator needs one rank per candidate", "ranks")
            continue
        items.append(obj)
    if log:
        raise InvalidInput(log)
    agreement = [kendalls_w(item["ranks"]) for item in items]
    keep = keep_by_agreement(agreement, threshold=min_w, bottom_fraction=drop_bottom)
    with open(out, "w", encoding="utf-8") as handle:
        for item, w, kept in zip(items, agreement, keep):
            if not kept:
                continue
            record = {k: v for k, v in item.items() if k != "ranks"}
            record["gold_ranking"] = borda_consensus(item["candidates"], item["ranks"])
            record["kendalls_w"] = w
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return int(keep.sum()), int(len(items) - keep.sum())

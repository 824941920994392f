"""A split's parsed references: what the scorer, the pipeline and hidden-label disclosure read."""

from __future__ import annotations

from functools import lru_cache

from leaderboard.models import Split
from leaderboard.services.shared.blobs import blob_path
from scoring import InvalidInput, ProblemLog, ReferenceSet, get_benchmark, read_references


def split_references(split: Split) -> ReferenceSet:
    """The split's parsed references (cached per process by content hash).

    Problems that point into the references (an item without a prediction) name the split's
    inputs download, the file submitters have, rather than a file on the server."""
    name = f"{split.benchmark.name}-{split.name}-inputs.jsonl"
    return _parsed_references(split.benchmark.name, split.references_sha256, name)


@lru_cache(maxsize=8)
def _parsed_references(benchmark: str, sha256: str, name: str) -> ReferenceSet:
    log = ProblemLog(keep=10)
    references = read_references(get_benchmark(benchmark), blob_path(sha256), log, name=name)
    if log:
        raise InvalidInput(log)
    return references

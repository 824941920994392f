from leaderboard.models.accounts import AccountSettings, ApiToken
from leaderboard.models.benchmarks import Benchmark, PublishedResult, ReferenceItem, Split
from leaderboard.models.entries import EntryChange
from leaderboard.models.heavy import HeavyChunk
from leaderboard.models.judging import JudgeReply
from leaderboard.models.limits import RateCounter
from leaderboard.models.submissions import (
    ACTIVE_STATUSES,
    EntryVector,
    ItemScore,
    MetricValue,
    Provenance,
    RunFile,
    Status,
    Submission,
)

__all__ = [
    "ACTIVE_STATUSES",
    "AccountSettings",
    "ApiToken",
    "Benchmark",
    "EntryChange",
    "EntryVector",
    "HeavyChunk",
    "ItemScore",
    "JudgeReply",
    "MetricValue",
    "Provenance",
    "PublishedResult",
    "RateCounter",
    "ReferenceItem",
    "RunFile",
    "Split",
    "Status",
    "Submission",
]

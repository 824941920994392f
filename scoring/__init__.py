"""Scoring for music-understanding benchmarks, exactly as their publishers score them.

A pure library (no Django). The public API:

* :func:`get_benchmark` / ``BENCHMARKS``: the declarative benchmark specs;
* :func:`score_files`, :func:`build_scorer`, :class:`Scorer`: scoring with
  per-item values, run statistics, bootstrap intervals and signatures;
* :func:`read_references` / :func:`read_predictions`: validation that reports
  every problem with file, line and field;
* :class:`Signature`: a column's signature (what fixes its numbers), formatted and parsed;
* ``python -m scoring``: the same as a command line.
"""

from scoring.api import ScoringOptions, build_scorer, score_files, score_runs
from scoring.engine import RunScores, Scorer, ScoreReport
from scoring.judge import family as _judge_family  # noqa: F401  (registers the judged families)
from scoring.judge import mapping as _judge_mapping  # noqa: F401
from scoring.reading.problems import InvalidInput, Problem, ProblemLog
from scoring.reading.validation import (
    ReferenceSet,
    load_predictions,
    load_references,
    read_predictions,
    read_references,
    validate_files,
)
from scoring.signature import Signature
from scoring.specs import BENCHMARKS, BenchmarkSpec, MetricSpec, get_benchmark
from scoring.versions import SCORING_VERSION

__version__ = SCORING_VERSION

__all__ = [
    "BENCHMARKS",
    "BenchmarkSpec",
    "InvalidInput",
    "MetricSpec",
    "Problem",
    "ProblemLog",
    "ReferenceSet",
    "RunScores",
    "ScoreReport",
    "Scorer",
    "ScoringOptions",
    "Signature",
    "build_scorer",
    "get_benchmark",
    "load_predictions",
    "load_references",
    "read_predictions",
    "read_references",
    "score_files",
    "score_runs",
    "validate_files",
]

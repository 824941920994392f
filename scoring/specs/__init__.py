"""Benchmark specs and their registry (the catalog registers the hosted benchmarks)."""

from scoring.specs import catalog as _catalog  # noqa: F401  (registers the hosted benchmarks)
from scoring.specs import cmi as _cmi  # noqa: F401  (registers the CMI-Bench tasks)
from scoring.specs import lp_musiccaps as _lp_musiccaps  # noqa: F401  (registers LP-MusicCaps's protocol)
from scoring.specs import mcq as _mcq  # noqa: F401  (registers the multiple-choice benchmarks)
from scoring.specs import mmar as _mmar  # noqa: F401  (registers MMAR and RUL-MuChoMusic)

# isort: split
# the families' benchmarks register after the catalog's: registration order is the listing and format-sniffing order
from scoring.metrics.songform import spec as _songform  # noqa: F401  (registers SongFormBench)
from scoring.specs.base import (
    BENCHMARKS,
    SUITES,
    BenchmarkSpec,
    MetricSpec,
    Profile,
    Setting,
    SplitSpec,
    Suite,
    get_benchmark,
    judged_column,
    publisher_formats,
    register_benchmark,
    registered,
    split_column,
    suite_members,
)

__all__ = [
    "BENCHMARKS",
    "SUITES",
    "BenchmarkSpec",
    "MetricSpec",
    "Profile",
    "Setting",
    "SplitSpec",
    "Suite",
    "get_benchmark",
    "judged_column",
    "publisher_formats",
    "register_benchmark",
    "registered",
    "split_column",
    "suite_members",
]

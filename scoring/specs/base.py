"""Declarative benchmark specs: what is measured, how, and how it is shown.

Adding a benchmark is adding a :class:`BenchmarkSpec` to the registry; the engine, the importers and the
site read everything they need from the spec (docs/adding-a-benchmark.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from scoring.publishers.formats import PublisherFormat, Release
from scoring.specs.audio import AUDIO_SOURCES, AudioSource, audio_source
from scoring.task_types import TASK_TYPES


@dataclass(frozen=True)
class MetricSpec:
    """One leaderboard column: a family's output with fixed parameters.

    ``scale`` converts the family's native value to the scale the publisher
    reports (100 for DeepResonance's tables). ``applies_to`` restricts the
    metric to items of one ``qa_type``, or of one metadata group (``task=music``,
    ``knowledge=*``: see ``scoring/task_types/multiple_choice.py``). A judged metric (family ``judge``)
    names only its judge profile: it becomes one column per configured judge.
    """

    key: str
    family: str
    output: str
    label: str
    params: Mapping[str, Any] = field(default_factory=dict)
    higher_is_better: bool = True
    scale: float = 1.0
    applies_to: str | None = None
    description: str = ""
    decimals: int = 4
    descriptive: bool = False  # a breakdown (e.g. error-type shares), never ranked on
    # the key of the column whose quantity this one measures under another protocol (an LLM-mapped accuracy:
    # the raw one's): the papers' values of that key are shown in this column too, as reference values
    quantity: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))


@dataclass(frozen=True)
class Profile:
    """A named set of metrics; a benchmark's official profile reproduces its publisher."""

    name: str
    description: str
    metrics: tuple[MetricSpec, ...]
    evaluator: str = ""  # the publisher's code (and commit) it reproduces, named in every column's signature

    def metric(self, key: str) -> MetricSpec:
        for spec in self.metrics:
            if spec.key == key:
                return spec
        raise KeyError(f"profile {self.name!r} has no metric {key!r}; valid: {', '.join(self.keys)}")

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(m.key for m in self.metrics)

    def metric_for(self, column: str) -> MetricSpec | None:
        """The metric behind a report column (``bleu``, or a judged ``judge_score:gpt``), if any."""
        base, _ = split_column(column)
        return next((m for m in self.metrics if m.key == base), None)


def judged_column(key: str, judge: str) -> str:
    """The column of a judged metric scored by one configured judge: ``<metric key>:<judge>``."""
    return f"{key}:{judge}"


def split_column(column: str) -> tuple[str, str]:
    """(metric key, judge name) of a column; the judge is ``""`` for a column no judge scores."""
    key, _, judge = column.partition(":")
    return key, judge


@dataclass(frozen=True)
class Setting:
    """A submission attribute a leaderboard can filter on (e.g. input: full dialogue / summary)."""

    key: str
    label: str
    choices: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SplitSpec:
    """A reference set of a benchmark; ``hidden_labels`` splits never show gold answers."""

    name: str
    title: str
    description: str = ""
    hidden_labels: bool = False


@dataclass(frozen=True)
class BenchmarkSpec:
    """Everything the engine and the site need to know about one benchmark."""

    name: str
    title: str
    task_type: str
    description: str
    profiles: tuple[Profile, ...]
    official_profile: str
    default_sort: str
    source: str = ""
    data_origin: str = ""
    license: str = ""
    settings: tuple[Setting, ...] = ()
    splits: tuple[SplitSpec, ...] = (SplitSpec("test", "Test"),)
    # the publisher's format: its prediction files are also accepted as uploads (read through its predictions reader)
    publisher: PublisherFormat | None = None
    releases: tuple[Release, ...] = ()  # the publishers' released reference files (name, format, where, shape)
    formats: tuple[PublisherFormat, ...] = ()  # other formats its files come in (a results file of another tool)
    audio_source: AudioSource | None = None  # where its audio lies; None: its row of scoring.specs.audio
    citation: str = ""  # what to cite, as the publishers ask
    sample_answer: str = ""  # a placeholder answer its readers accept, for starter kits (empty: the task type's)
    suite: str = ""  # the suite (SUITES) whose task this benchmark is: one board shows its tasks side by side
    # empty: per-item views show each item's reference answer (public labels); else why they never do (labels whose
    # licence forbids redistributing them: scores are published, the labels are not)
    labels_withheld: str = ""

    @property
    def short_title(self) -> str:
        """A column header's name: a suite's task by itself (``GTZAN genre``), else the title before its colon."""
        head, _, rest = self.title.partition(":")
        return rest.strip() if self.suite and rest.strip() else head

    @property
    def publisher_format(self) -> str:
        """The name of the publisher's format (``""``: uploads are the site's contract only)."""
        return self.publisher.name if self.publisher else ""

    @property
    def publisher_formats(self) -> tuple[PublisherFormat, ...]:
        """Every format its files come in: the publisher's, its releases', the others."""
        found = [f for f in (self.publisher, *(r.format for r in self.releases), *self.formats) if f is not None]
        return tuple(dict.fromkeys(found))

    @property
    def audio(self) -> AudioSource:
        """Where the benchmark's audio comes from and where its files lie (``scoring.specs.audio``)."""
        return self.audio_source or audio_source(self.name)

    def __post_init__(self) -> None:
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"{self.name}: unknown task type {self.task_type!r}")
        names = [p.name for p in self.profiles]
        if self.official_profile not in names:
            raise ValueError(f"{self.name}: official profile {self.official_profile!r} not in {names}")
        if self.default_sort not in self.profile().keys:
            raise ValueError(f"{self.name}: default_sort {self.default_sort!r} is not a metric")

    def profile(self, name: str | None = None) -> Profile:
        """The named profile, or the official one."""
        wanted = name or self.official_profile
        for profile in self.profiles:
            if profile.name == wanted:
                return profile
        valid = ", ".join(p.name for p in self.profiles)
        raise KeyError(f"benchmark {self.name!r} has no profile {wanted!r}; valid: {valid}")


BENCHMARKS: dict[str, BenchmarkSpec] = {}


@dataclass(frozen=True)
class Suite:
    """Benchmarks published together as one suite (CMI-Bench's tasks): one board with a column per task."""

    name: str
    title: str
    description: str
    source: str = ""


SUITES: dict[str, Suite] = {}


def register_suite(suite: Suite) -> Suite:
    SUITES[suite.name] = suite
    return suite


def suite_members(name: str) -> list[BenchmarkSpec]:
    """The suite's benchmarks, in the order they were registered."""
    return [spec for spec in BENCHMARKS.values() if spec.suite == name]


def register_benchmark(spec: BenchmarkSpec) -> BenchmarkSpec:
    if spec.name in BENCHMARKS:
        raise ValueError(f"benchmark {spec.name!r} is already registered")
    BENCHMARKS[spec.name] = spec
    if spec.audio_source is not None:
        AUDIO_SOURCES[spec.name] = spec.audio_source
    return spec


@contextmanager
def registered(spec: BenchmarkSpec) -> Iterator[BenchmarkSpec]:
    """``spec`` registered for the duration of a ``with`` block (a benchmark added at run time, then removed)."""
    register_benchmark(spec)
    try:
        yield spec
    finally:
        BENCHMARKS.pop(spec.name, None)
        if spec.audio_source is not None:
            AUDIO_SOURCES.pop(spec.name, None)


def publisher_formats(specs: Iterable[BenchmarkSpec] | None = None) -> tuple[PublisherFormat, ...]:
    """Every format the (registered) benchmarks name, once each; two formats under one name are refused."""
    found: dict[str, PublisherFormat] = {}
    for spec in BENCHMARKS.values() if specs is None else specs:
        for fmt in spec.publisher_formats:
            if found.setdefault(fmt.name, fmt) is not fmt:
                raise ValueError(f"{spec.name}: another publisher format is already named {fmt.name!r}")
    return tuple(found.values())


def get_benchmark(name: str) -> BenchmarkSpec:
    """The registered spec, or a ``KeyError`` listing the valid names."""
    try:
        return BENCHMARKS[name]
    except KeyError:
        raise KeyError(f"unknown benchmark {name!r}; valid: {', '.join(sorted(BENCHMARKS))}") from None

"""The scoring engine: one benchmark spec, one reference set, one or more runs.

:class:`Scorer` groups the profile's metrics by family (so ROUGE-1/2/L share a
tokenisation), scores predictions in chunks (bounded memory, real progress,
resumable: a chunk's per-item values can be stored and later read back), and
builds a :class:`ScoreReport` from per-item values alone. The site and the CLI
both go through :meth:`Scorer.report`, so they print the same numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

import numpy as np

from scoring.metrics import ItemScores, MetricFamily, ScoringContext, get_family
from scoring.metrics.base import UNPARSED
from scoring.resample import Statistic, bootstrap_statistics
from scoring.signature import Signature
from scoring.specs import BenchmarkSpec, MetricSpec, Profile, judged_column
from scoring.stats import DEFAULT_BOOTSTRAP, paired_bootstrap_p_value, percentile_interval, run_std
from scoring.task_types import Prediction, Reference
from scoring.versions import SCORING_VERSION

RunScores = dict[str, ItemScores]
"""Per-item scores of one run, keyed by metric key (and ``diag:<name>`` diagnostics)."""
UNPARSED_KEY = f"diag:{UNPARSED}"
"""The per-item key of the answers the publisher's parser could not map (:data:`scoring.metrics.base.UNPARSED`)."""

ProgressCallback = Callable[[int, int], None]
DEFAULT_CHUNK = 2000
JobGroup = Literal["light", "heavy"]
"""Jobs of model-heavy families (``MetricFamily.heavy``) or all the others; None means every job."""


def job_key(metric: MetricSpec) -> tuple[Any, ...]:
    """The job that computes ``metric``: metrics of one family with the same parameters and items share one."""
    return (metric.family, tuple(sorted(metric.params.items())), metric.applies_to)


def heavy_jobs(profile: Profile) -> frozenset[tuple[Any, ...]]:
    """The jobs of model-heavy families (``MetricFamily.heavy``: BERTScore) that ``profile`` computes."""
    return frozenset(job_key(m) for m in profile.metrics if get_family(m.family).heavy)


@dataclass
class _Job:
    family: MetricFamily
    applies_to: str | None
    outputs: set[str] = field(default_factory=set)
    prepared: bool = False
    tag: str = ""


@dataclass
class ScoreReport:
    """What ``python -m scoring score`` prints and the site stores."""

    benchmark: str
    profile: str
    n_items: int
    runs: int
    metrics: dict[str, float | None]
    std: dict[str, float | None]
    ci95: dict[str, tuple[float, float] | None]
    signatures: dict[str, str]
    per_run: dict[str, list[float | None]]
    n_scored: dict[str, int]
    not_computed: dict[str, str]
    diagnostics: dict[str, list[int | float]]
    bootstrap: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "profile": self.profile,
            "n_items": self.n_items,
            "runs": self.runs,
            "metrics": self.metrics,
            "std": self.std,
            "ci95": {k: list(v) if v is not None else None for k, v in self.ci95.items()},
            "signatures": self.signatures,
            "per_run": self.per_run,
            "n_scored": self.n_scored,
            "not_computed": self.not_computed,
            "diagnostics": self.diagnostics,
            "bootstrap": self.bootstrap,
        }


class Scorer:
    """Scores prediction runs of one benchmark against one reference set.

    ``context`` supplies run-time resources (the BERTScore model, judges);
    a metric whose resource is absent is listed in ``not_computed`` with the reason.
    """

    def __init__(
        self,
        spec: BenchmarkSpec,
        references: Sequence[Reference],
        *,
        profile: str | None = None,
        context: ScoringContext | None = None,
    ) -> None:
        self.spec = spec
        self.profile = spec.profile(profile)
        self.references = list(references)
        self.context = context or ScoringContext()
        self.columns: dict[str, tuple[MetricSpec, _Job]] = {}
        self.not_computed: dict[str, str] = {}
        self._jobs: dict[tuple[Any, ...], _Job] = {}
        for metric in self.profile.metrics:
            self._plan(metric)
        self._untag_unique_diagnostics()
        subsets = {job.applies_to for job in self._jobs.values() if job.applies_to is not None}
        self._masks = {s: np.array([r.in_subset(s) for r in self.references], dtype=bool) for s in subsets}

    def _plan(self, metric: MetricSpec) -> None:
        family_class = get_family(metric.family)
        if family_class.needs == "judges" and "judge" not in metric.params:
            self._plan_per_judge(metric)
            return
        key = job_key(metric)
        job = self._jobs.get(key)
        if job is None:
            if self.spec.task_type not in family_class.task_types:
                raise ValueError(f"{metric.family} does not apply to {self.spec.task_type} tasks")
            tag = f"{metric.params.get('profile')}@{metric.params['judge']}" if "judge" in metric.params else ""
            job = _Job(family_class(metric.params, self.context), metric.applies_to, tag=tag)
            reason = job.family.unavailable_reason()
            if reason:
                self.not_computed[metric.key] = reason
                return
            job.outputs.update(job.family.diagnostic_outputs)
            self._jobs[key] = job
        job.outputs.add(metric.output)
        self.columns[metric.key] = (metric, job)

    def _untag_unique_diagnostics(self) -> None:
        """Diagnostics keep plain keys (``diag:judge_cost_usd``) unless several jobs report them."""
        counts = Counter(o for job in self._jobs.values() for o in job.family.diagnostic_outputs)
        for job in self._jobs.values():
            if all(counts[o] == 1 for o in job.family.diagnostic_outputs):
                job.tag = ""

    def _plan_per_judge(self, metric: MetricSpec) -> None:
        """A judged metric becomes one column per configured judge serving its profile: ``key:judge``."""
        profile = metric.params.get("profile")
        serving = [name for name in sorted(self.context.judges)
                   if self.context.judge_serves.get(name) is None or profile in self.context.judge_serves[name]]
        if not serving:
            self.not_computed[metric.key] = f"not judged: no judge configured for the {profile} profile"
            return
        for name in serving:
            self._plan(replace(metric, key=judged_column(metric.key, name), label=f"{metric.label} [{name}]",
                               params={**metric.params, "judge": name}))

    @property
    def metric_keys(self) -> list[str]:
        return list(self.columns)

    def diagnostic_keys(self) -> list[str]:
        return sorted({_diag_key(o, job) for job in self._jobs.values() for o in job.family.diagnostic_outputs})

    def group_keys(self, group: JobGroup) -> list[str]:
        """The metric and diagnostic keys that :meth:`score_chunk` returns for ``group``."""
        return [key for job in self._group_jobs(group) for output in job.outputs for key in self._keys_for(job, output)]

    def group_needs_whole_run(self, group: JobGroup) -> bool:
        """True when a job of ``group`` must see its whole run first (score it as one chunk then)."""
        return any(job.family.needs_whole_run() for job in self._group_jobs(group))

    def _group_jobs(self, group: JobGroup | None) -> list[_Job]:
        return [job for job in self._jobs.values() if group is None or job.family.heavy == (group == "heavy")]

    # --- scoring ---------------------------------------------------------------

    def score_chunk(self, predictions: Sequence[Prediction], start: int, *, group: JobGroup | None = None) -> RunScores:
        """Per-item scores of ``predictions`` aligned with references ``start ..`` (only the jobs
        of ``group`` when given: a deployment may score heavy families on other workers)."""
        stop = start + len(predictions)
        references = self.references[start:stop]
        result: RunScores = {}
        for job in self._group_jobs(group):
            self._prepare(job)
            if job.applies_to is None:
                index = np.arange(len(references))
            else:
                index = np.flatnonzero(self._masks[job.applies_to][start:stop])
            positions = index.tolist()
            scored = job.family.score(
                [references[i] for i in positions], [predictions[i] for i in positions], job.outputs
            ) if positions else {}
            for output in job.outputs:
                full = _scatter(scored.get(output), index, len(references))
                for key in self._keys_for(job, output):
                    result[key] = full
        return result

    def begin_run(self, predictions: Sequence[Prediction], *, group: JobGroup | None = None) -> None:
        """Show a whole run to the families whose values depend on other items (the
        ``bertscore-batched`` variant); call before scoring its chunks with :meth:`score_chunk`."""
        if len(predictions) != len(self.references):
            raise ValueError(f"{len(predictions)} predictions for {len(self.references)} references")
        for job in self._group_jobs(group):
            if not job.family.needs_whole_run():
                continue
            self._prepare(job)
            positions = range(len(self.references)) if job.applies_to is None else \
                np.flatnonzero(self._masks[job.applies_to]).tolist()
            job.family.begin_run([self.references[i] for i in positions], [predictions[i] for i in positions])

    def score_run(
        self,
        predictions: Sequence[Prediction],
        *,
        chunk_size: int = DEFAULT_CHUNK,
        progress: ProgressCallback | None = None,
    ) -> RunScores:
        """Score one run in chunks; ``progress(done, total)`` after each chunk."""
        self.begin_run(predictions)
        parts = []
        for start, chunk in iter_chunks(predictions, chunk_size):
            parts.append(self.score_chunk(chunk, start))
            if progress:
                progress(start + len(chunk), len(predictions))
        return concat_run_scores(parts)

    def warm(self, *, group: JobGroup | None = None) -> int:
        """Let each family compute ahead what it keeps between runs against these references (BERTScore: the
        references' embeddings in its store), so that the first submission costs what the later ones do; returns
        how many things were computed. Scores are the same with or without it."""
        computed = 0
        for job in self._group_jobs(group):
            computed += job.family.warm(self._job_references(job))
        return computed

    def _job_references(self, job: _Job) -> list[Reference]:
        if job.applies_to is None:
            return self.references
        return [self.references[i] for i in np.flatnonzero(self._masks[job.applies_to]).tolist()]

    def _prepare(self, job: _Job) -> None:
        if not job.prepared:
            job.family.prepare(self._job_references(job))
            job.prepared = True

    def _keys_for(self, job: _Job, output: str) -> list[str]:
        keys = [k for k, (m, j) in self.columns.items() if j is job and m.output == output]
        if output in job.family.diagnostic_outputs:
            keys.append(_diag_key(output, job))
        return keys

    # --- aggregation -------------------------------------------------------------

    def aggregate(self, key: str, runs: Sequence[RunScores], weights: np.ndarray) -> np.ndarray:
        """Mean over runs of the metric's aggregate under each row of ``weights``, in report scale."""
        metric, job = self.columns[key]
        per_run = [job.family.aggregate(metric.output, run[key], weights) for run in runs]
        return np.mean(per_run, axis=0) * metric.scale

    def resampled(
        self, sides: Mapping[str, Sequence[RunScores]], keys: Sequence[str], *, seed: int, n_bootstrap: int
    ) -> dict[tuple[str, str], np.ndarray]:
        """:meth:`aggregate` of each key on each side's runs under the same bootstrap replicates,
        keyed ``(key, side)``: every statistic of every run shares each block's one matrix product."""
        statistics: dict[tuple[str, str, int], Statistic] = {}
        for side, runs in sides.items():
            for key in keys:
                metric, job = self.columns[key]
                for number, run in enumerate(runs):
                    totals = job.family.totals(metric.output, run[key])
                    statistics[key, side, number] = (
                        totals if totals is not None else partial(job.family.aggregate, metric.output, run[key]))
        samples = bootstrap_statistics(statistics, len(self.references), n_bootstrap, seed)
        return {
            (key, side): np.mean([samples[key, side, number] for number in range(len(runs))], axis=0)
            * self.columns[key][0].scale
            for side, runs in sides.items()
            for key in keys
        }

    def signature(self, key: str) -> str:
        metric, job = self.columns[key]
        self._prepare(job)  # a family's signature may depend on the references (corpus BLEU's nrefs)
        fields = {
            "metric": key,
            "profile": f"{self.spec.name}/{self.profile.name}",
            **({"evaluator": self.profile.evaluator} if self.profile.evaluator else {}),
            "scale": f"{metric.scale:g}",
            "items": _items_field(metric.applies_to),
            **job.family.signature_fields(metric.output),
            "rules": str(job.family.rules),
            "scoring": SCORING_VERSION,
        }
        return Signature.of(fields).format()

    def report(
        self, runs: Sequence[RunScores], *, seed: int = 0, n_bootstrap: int = DEFAULT_BOOTSTRAP,
        signatures: Mapping[str, str] | None = None,
    ) -> ScoreReport:
        """Values (mean over runs), run std, bootstrap 95% intervals and signatures.

        ``signatures`` gives the signature of keys whose values another process computed (a heavy
        job on a GPU worker, whose device and batching name the values); the rest are this scorer's."""
        given = signatures or {}
        if not runs:
            raise ValueError("at least one run is needed")
        n = len(self.references)
        ones = np.ones((1, n))
        metrics, std, ci95, per_run, n_scored = {}, {}, {}, {}, {}
        resampled = self.resampled({"": runs}, list(self.columns), seed=seed, n_bootstrap=n_bootstrap)
        for key in self.columns:
            values = [float(self.aggregate(key, [run], ones)[0]) for run in runs]
            per_run[key] = [_none_if_nan(v) for v in values]
            metrics[key] = _none_if_nan(float(np.mean(values)))
            std[key] = run_std(values)
            ci95[key] = percentile_interval(resampled[key, ""])
            n_scored[key] = int(np.count_nonzero(~np.isnan(runs[0][key].values)))
        diagnostics = {
            key.removeprefix("diag:"): [_total(run[key].values) for run in runs]
            for key in self.diagnostic_keys()
        }
        return ScoreReport(
            benchmark=self.spec.name,
            profile=self.profile.name,
            n_items=n,
            runs=len(runs),
            metrics=metrics,
            std=std,
            ci95=ci95,
            signatures={key: given[key] if key in given else self.signature(key) for key in self.columns},
            per_run=per_run,
            n_scored=n_scored,
            not_computed=dict(self.not_computed),
            diagnostics=diagnostics,
            bootstrap={"replicates": n_bootstrap, "seed": seed, "method": "percentile, items resampled"},
        )

    def compare(
        self,
        runs_a: Sequence[RunScores],
        runs_b: Sequence[RunScores],
        *,
        seed: int = 0,
        n_bootstrap: int = DEFAULT_BOOTSTRAP,
        keys: Sequence[str] | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Paired bootstrap test of A - B on the same items, for every metric (or only ``keys``).

        The resamples depend on the seed and the number of items only, so a subset of
        keys gets exactly the numbers it gets when every metric is compared.
        """
        n = len(self.references)
        ones = np.ones((1, n))
        columns = {key: self.columns[key] for key in (self.columns if keys is None else keys)}

        resampled = self.resampled({"a": runs_a, "b": runs_b}, list(columns), seed=seed, n_bootstrap=n_bootstrap)
        result = {}
        for key, (metric, _) in columns.items():
            a = float(self.aggregate(key, runs_a, ones)[0])
            b = float(self.aggregate(key, runs_b, ones)[0])
            samples = resampled[key, "a"] - resampled[key, "b"]
            result[key] = {
                "a": _none_if_nan(a),
                "b": _none_if_nan(b),
                "difference": _none_if_nan(a - b),
                "ci95": percentile_interval(samples),
                "p_value": _none_if_nan(paired_bootstrap_p_value(a - b, samples)),
                "better": _better(a - b, metric),
                "signature": self.signature(key),
            }
        return result

    # --- per-item output -----------------------------------------------------------

    def item_columns(self) -> dict[str, str]:
        """Each column's name in per-item rows: its key where the items' mean is the column's value, else the
        family's per-item name (``bleu_sentence`` beside corpus ``bleu``); the site's downloads use the same."""
        return {key: get_family(metric.family).item_column(key, metric.output)
                for key, (metric, _) in self.columns.items()}

    def item_rows(self, runs: Sequence[RunScores]) -> Iterator[dict[str, Any]]:
        """One row per (run, item): id, run number, qa_type, each metric in report scale (named by ``item_columns``)
        and, for a benchmark with an answer parser, ``unparsed`` (1: the publisher's parser mapped the answer to no
        single option or value)."""
        names = self.item_columns()
        for number, run in enumerate(runs, start=1):
            columns = {names[key]: run[key].values * metric.scale for key, (metric, _) in self.columns.items()}
            unparsed = run.get(UNPARSED_KEY)
            for i, ref in enumerate(self.references):
                row: dict[str, Any] = {"id": ref.id, "run": number}
                if ref.qa_type:
                    row["qa_type"] = ref.qa_type
                for key, values in columns.items():
                    row[key] = _none_if_nan(float(values[i]))
                if unparsed is not None:
                    row[UNPARSED] = None if np.isnan(unparsed.values[i]) else int(unparsed.values[i])
                yield row

    def parses_answers(self) -> bool:
        """Whether a family of this profile reports the ``unparsed`` diagnostic (the items' ``diag:unparsed``)."""
        return UNPARSED_KEY in self.diagnostic_keys()


def _items_field(applies_to: str | None) -> str:
    """The signature's item subset: ``all``, ``qa_type=<t>``, or a group such as ``task=music``."""
    if applies_to is None:
        return "all"
    return applies_to if "=" in applies_to else f"qa_type={applies_to}"


def _diag_key(output: str, job: _Job) -> str:
    return f"diag:{output}[{job.tag}]" if job.tag else f"diag:{output}"


def iter_chunks(items: Sequence[Any], size: int) -> Iterator[tuple[int, Sequence[Any]]]:
    for start in range(0, len(items), size):
        yield start, items[start : start + size]


def concat_run_scores(parts: Sequence[Mapping[str, ItemScores]]) -> RunScores:
    """Join chunk results (in item order) into one run."""
    if not parts:
        return {}
    return {key: ItemScores.concat([p[key] for p in parts]) for key in parts[0]}


def _scatter(scores: ItemScores | None, index: np.ndarray, n: int) -> ItemScores:
    values = np.full(n, np.nan)
    if scores is None:
        return ItemScores(values)
    values[index] = scores.values
    stats = None
    if scores.stats is not None:
        stats = np.zeros((n, scores.stats.shape[1]), dtype=scores.stats.dtype)
        stats[index] = scores.stats
    notes: list[dict[str, Any] | None] | None = None
    if scores.notes is not None:
        notes = [None] * n
        for position, note in zip(index.tolist(), scores.notes):
            notes[position] = note
    return ItemScores(values, stats, notes)


def _total(values: np.ndarray) -> int | float:
    """Sum of a diagnostic; counts stay integers, amounts such as a judge's cost in USD do not."""
    total = float(np.nansum(values))
    return int(total) if total.is_integer() else total


def _none_if_nan(value: float) -> float | None:
    return None if value is None or np.isnan(value) else float(value)


def _better(difference: float, metric: MetricSpec) -> str | None:
    if np.isnan(difference) or difference == 0:
        return None
    return "a" if (difference > 0) == metric.higher_is_better else "b"

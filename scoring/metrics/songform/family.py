"""SongFormBench song structure, as SongFormer's ``eval_infer_results.py`` scores it (``eval.sh``'s settings).

Reference and answer are read into MSA lists (:mod:`scoring.metrics.songform.answers`); ``pre-chorus`` becomes
``verse`` in both (``--prechorus2what verse``); continuous segments are not merged. Per song, as the
script does through ``msaf.eval.compute_results`` (msaf 0.1.80) and its own helpers:

* hit rates: ``mir_eval.segment.detection`` with ``trim=False`` (song start and end count) at 0.5, 1 and
  3 s: precision, recall and F;
* PWF and Sf: after ``mir_eval.util.adjust_intervals`` (reference from 0; answer clipped or padded to
  [0, the reference's end]), ``mir_eval.segment.pairwise`` and ``nce`` (0.1 s frames) on SongFormer's
  integer label ids (a label outside its vocabulary gets an id of its own);
* ACC (``cal_acc``): times rounded to milliseconds as ``int(round(t, 3) * 1000)``, the duration over the
  common span where the two label strings agree, divided by the span (where that span is empty the
  script divides by zero and skips the song; here ACC is 0);
* IoU (``cal_iou``): per label, intersection and union of the two sets of segments in seconds; the
  board's IoU is the ratio of their sums over songs (and labels), as the script's summary computes it.

Means over the songs of one subset (``params["subset"]``: ``HarmonixSet`` or ``CN``, the reference's
``context``); the script's summary reports each subset from its own run. An answer with no readable
section (the script would skip the song) scores 0 on every metric, its IoU union being the reference's
segments; it is counted in ``unparsed``.
"""

from __future__ import annotations

import bisect
import itertools
import warnings
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from scoring.metrics.base import UNPARSED, ItemScores, MetricFamily, Totals, mean_totals, register_family
from scoring.metrics.songform.answers import EVAL_CLASSES, LABEL_IDS, Msa, read_answer
from scoring.task_types import Prediction, Reference
from scoring.versions import library_version

PUBLISHER = "ASLP-lab/SongFormer eval_infer_results.py@139b2aa3 (msaf 0.1.80 compute_results)"
WINDOWS = {"hr05": 0.5, "hr1": 1.0, "hr3": 3.0}
HIT_OUTPUTS = tuple(f"{name}_{part}" for name in WINDOWS for part in ("p", "r", "f"))
MEAN_OUTPUTS = (*HIT_OUTPUTS, "pwp", "pwr", "pwf", "so", "su", "sf", "acc")
IOU_OUTPUTS = ("iou", *(f"iou_{label}" for label in EVAL_CLASSES))
OUTPUTS = (*MEAN_OUTPUTS, *IOU_OUTPUTS)
SUBSETS = ("HarmonixSet", "CN")


def prechorus_as_verse(msa: Msa) -> Msa:
    """``--prechorus2what verse``, on reference and answer alike."""
    return tuple((time, "verse" if label == "pre-chorus" else label) for time, label in msa)


def intervals_and_ids(msa: Msa, unknown: dict[str, int]) -> tuple[np.ndarray, list[int]]:
    """The script's ``to_inters_labels``: consecutive times as intervals, labels as SongFormer's ids."""
    times = [time for time, _ in msa]
    ids = [LABEL_IDS[label] if label in LABEL_IDS else unknown.setdefault(label, 1000 + len(unknown))
           for _, label in msa[:-1]]
    return np.column_stack([np.array(times[:-1]), np.array(times[1:])]), ids


def frame_accuracy(reference: Msa, estimate: Msa) -> float:
    """``cal_acc`` (post_digit=3); 0.0 where it would divide by zero."""
    ref_times = [int(round(time, 3) * 10**3) for time, _ in reference]
    est_times = [int(round(time, 3) * 10**3) for time, _ in estimate]
    start, end = max(ref_times[0], est_times[0]), min(ref_times[-1], est_times[-1])
    points = {start, end} | {t for t in ref_times + est_times if start <= t <= end}
    ordered = sorted(points)
    total = agree = 0
    for here, after in itertools.pairwise(ordered):
        ref_label = reference[bisect.bisect_right(ref_times, here) - 1][1]
        est_label = estimate[bisect.bisect_right(est_times, here) - 1][1]
        total += after - here
        if ref_label == est_label:
            agree += after - here
    return agree / total if total else 0.0


def label_overlaps(reference: Msa, estimate: Msa) -> dict[str, tuple[float, float]]:
    """``cal_iou``: per label occurring in either, (intersection, union) of its segments in seconds."""
    ref_segments = [(a[0], b[0], a[1]) for a, b in itertools.pairwise(reference)]
    est_segments = [(a[0], b[0], a[1]) for a, b in itertools.pairwise(estimate)]
    out: dict[str, tuple[float, float]] = {}
    for label in {s[2] for s in ref_segments} | {s[2] for s in est_segments}:
        ours = [(s, e) for s, e, lab in ref_segments if lab == label]
        theirs = [(s, e) for s, e, lab in est_segments if lab == label]
        inter = 0.0
        for s_ref, e_ref in ours:
            for s_est, e_est in theirs:
                if max(s_ref, s_est) < min(e_ref, e_est):
                    inter += min(e_ref, e_est) - max(s_ref, s_est)
        length = sum([e - s for s, e in ours]) + sum([e - s for s, e in theirs])
        out[label] = (inter, length - inter)
    return out


def song_scores(reference: Msa, estimate: Msa) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """Every per-song value of the script, and the per-label (intersection, union) for IoU."""
    import mir_eval

    reference, estimate = prechorus_as_verse(reference), prechorus_as_verse(estimate)
    unknown: dict[str, int] = {}
    ref_inter, ref_ids = intervals_and_ids(reference, unknown)
    est_inter, est_ids = intervals_and_ids(estimate, unknown)
    values: dict[str, float] = {}
    for name, window in WINDOWS.items():
        found = mir_eval.segment.detection(ref_inter, est_inter, window=window, trim=False)
        values.update(zip((f"{name}_p", f"{name}_r", f"{name}_f"), map(float, found)))
    ref_adj, ref_lab = mir_eval.util.adjust_intervals(ref_inter, list(ref_ids))
    est_adj, est_lab = mir_eval.util.adjust_intervals(est_inter, list(est_ids), t_min=0.0, t_max=ref_adj.max())
    # an answer starting exactly at the reference's end is clipped to a zero-length interval, which mir_eval
    # refuses (the script would skip the song); dropped, as adjust_intervals drops one starting after that end
    kept = est_adj[:, 1] > est_adj[:, 0]
    est_adj, est_lab = est_adj[kept], [label for label, keep in zip(est_lab, kept.tolist()) if keep]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values.update(zip(("pwp", "pwr", "pwf"), map(float, mir_eval.segment.pairwise(
            ref_adj, ref_lab, est_adj, est_lab))))
        values.update(zip(("so", "su", "sf"), map(float, mir_eval.segment.nce(ref_adj, ref_lab, est_adj, est_lab))))
    values["acc"] = frame_accuracy(reference, estimate)
    return values, label_overlaps(reference, estimate)


def unread_scores(reference: Msa) -> tuple[dict[str, float], dict[str, tuple[float, float]]]:
    """An unreadable answer: 0 everywhere; each label's union is the reference's own segments."""
    reference = prechorus_as_verse(reference)
    overlaps: dict[str, tuple[float, float]] = {}
    for (start, label), (end, _) in itertools.pairwise(reference):
        overlaps[label] = (0.0, overlaps.get(label, (0.0, 0.0))[1] + (end - start))
    return dict.fromkeys(MEAN_OUTPUTS, 0.0), overlaps


def _ratio(inter: float, union: float) -> float:
    return inter / union if union > 0 else float("nan")


@register_family
class SongForm(MetricFamily):
    """Per-song boundary, clustering, accuracy and IoU scores of SongFormBench, one subset per column."""

    name: ClassVar[str] = "songform"
    outputs: ClassVar[tuple[str, ...]] = OUTPUTS
    task_types: ClassVar[tuple[str, ...]] = ("generation",)
    diagnostic_outputs: ClassVar[tuple[str, ...]] = (UNPARSED,)
    # an answer without an 'end' line ends at the annotated end, which can leave it no section
    parse_reads_labels: ClassVar[bool] = True

    def score(
        self, references: Sequence[Reference], predictions: Sequence[Prediction], outputs: Collection[str]
    ) -> dict[str, ItemScores]:
        subset = self.params.get("subset")
        means = np.full((len(references), len(MEAN_OUTPUTS)), np.nan)
        overlaps = np.zeros((len(references), len(IOU_OUTPUTS), 2))
        unparsed = np.full(len(references), np.nan)
        for row, (reference, prediction) in enumerate(zip(references, predictions)):
            if subset is not None and reference.public.get("context") != subset:
                continue
            truth = read_answer(reference.answers[0]).msa
            estimate = read_answer(prediction.text, end_time=truth[-1][0]).msa
            unparsed[row] = float(not estimate)
            values, by_label = song_scores(truth, estimate) if estimate else unread_scores(truth)
            means[row] = [values[name] for name in MEAN_OUTPUTS]
            overlaps[row, 0] = [sum(v[0] for v in by_label.values()), sum(v[1] for v in by_label.values())]
            for column, label in enumerate(EVAL_CLASSES, start=1):
                overlaps[row, column] = by_label.get(label, (0.0, 0.0))
        scores = {name: ItemScores(means[:, column]) for column, name in enumerate(MEAN_OUTPUTS)}
        for column, name in enumerate(IOU_OUTPUTS):
            stats = overlaps[:, column]
            ratios = [_ratio(*pair) if not np.isnan(unparsed[row]) else np.nan for row, pair in enumerate(stats)]
            scores[name] = ItemScores(np.array(ratios, dtype=float), stats.copy())
        scores[UNPARSED] = ItemScores(unparsed)
        return scores

    def aggregate(self, output: str, scores: ItemScores, weights: np.ndarray) -> np.ndarray:
        totals = self.totals(output, scores)
        return totals.of(weights)

    def totals(self, output: str, scores: ItemScores) -> Totals:
        if output not in IOU_OUTPUTS:
            return mean_totals(scores.values)
        stats = np.zeros((len(scores.values), 2)) if scores.stats is None else scores.stats.astype(float)
        return Totals(stats, lambda totals: np.array([_ratio(inter, union) for inter, union in totals.tolist()]))

    @classmethod
    def item_mean_is_value(cls, output: str) -> bool:
        return output not in IOU_OUTPUTS

    @classmethod
    def parse_rule(cls, params: Mapping[str, Any]) -> str | None:
        return ("no section can be read from the answer (MSA TXT lines or a list of [start, end, label] segments); "
                "SongFormer's script would skip the song, here it scores 0")

    @classmethod
    def answer_warning(cls, text: str) -> str | None:
        notes = read_answer(text).notes
        if not notes:
            return None
        return ("SongFormer's script would skip this song (it reads only tidy MSA TXT); read here as: "
                + "; ".join(notes[:6]) + ("; ..." if len(notes) > 6 else ""))

    def signature_fields(self, output: str) -> dict[str, str]:
        fields = {"impl": PUBLISHER, "prechorus": "verse", "merge": "no", "subset": str(self.params.get("subset")),
                  "avg": "pooled intersections / unions" if output in IOU_OUTPUTS else "songs",
                  "mir_eval": library_version("mir_eval")}
        name = output.split("_")[0]
        if name in WINDOWS:
            fields["metric"] = f"detection(window={WINDOWS[name]:g}, trim=False)"
        elif output in ("pwp", "pwr", "pwf", "so", "su", "sf"):
            which = "pairwise" if output.startswith("pw") else "nce"
            fields["metric"] = f"{which}(frame_size=0.1) after adjust_intervals"
        return fields

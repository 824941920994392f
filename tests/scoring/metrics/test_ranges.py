"""Every column's declared range is the range its metric really produces.

Hidden-label rounding is sized by :func:`scoring.metrics.ranges.metric_range`; a range declared too
small (sacrebleu's 0-100 BLEU taken as 0-1) makes the released step a hundred times too fine. For
every benchmark, profile and column (BERTScore and judges apart, below), real scoring of perfect,
worst and messy predictions must stay inside the declared range and reach its ends where a perfect
(or, for Kendall tau-b, reversed) answer defines them.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scoring import BENCHMARKS, ScoringOptions, build_scorer
from scoring.api import score_runs
from scoring.judge.profiles import judge_profiles
from scoring.metrics import get_family
from scoring.metrics.cmi_tag_vocabularies import VOCABULARIES
from scoring.metrics.ranges import metric_range
from scoring.reading.validation import load_predictions, load_references
from scoring.specs.mcq import MMAU_DIFFICULTIES, MMAU_SUB_CATEGORIES, MUCHOMUSIC_KNOWLEDGE, MUCHOMUSIC_REASONING
from tests.helpers.lp_musiccaps import write_punkt_model

METEOR = ("nltk_meteor", "evaluate_meteor")
WORDS = "the track has a warm bass line and bright synth lead while other uses slow acoustic guitar".split()
N = 24


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(5, 14)))


def _references(task_type: str, benchmark: str) -> list[dict[str, Any]]:
    rng = random.Random(7)
    if task_type == "ranking":
        out = []
        for i in range(N):
            candidates = [f"c{i}_{k}" for k in range(4)]
            out.append({"id": f"d{i}", "dialogue": f"d {i}", "candidates": candidates,
                        "gold_ranking": rng.sample(candidates, 4)})
        return out
    if task_type == "comparative_qa":
        types = ("yes_no", "short_answer", "sentence")
        return [{"id": f"p{i // 3}::{types[i % 3]}", "pair_id": f"p{i // 3}", "audio1": f"rock_{i}",
                 "audio2": f"jazz_{i}", "qa_type": types[i % 3], "question": "which?",
                 "answer": {"yes_no": rng.choice(["Yes", "No"]), "short_answer": f"rock_{i}",
                            "sentence": _sentence(rng)}[types[i % 3]]} for i in range(N)]
    if benchmark.startswith("cmi-emo-"):  # released labels: z-scored ratings
        return [{"id": f"e{i}", "audio": f"{i}.wav", "question": "Rate.", "answer": f"{rng.gauss(0, 1):.3f}"}
                for i in range(N)]
    if benchmark.endswith("beat"):  # released labels: comma-separated beat times
        return [{"id": f"b{i}", "audio": f"{i}.wav", "question": "Beats?",
                 "answer": ",".join(f"{0.4 + 0.45 * k + rng.random() / 50:.2f}s" for k in range(20))}
                for i in range(N)]
    if benchmark == "cmi-gs-key":  # released labels: one of the 24 major and minor keys
        tonics = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
        return [{"id": f"k{i}", "audio": f"{i}.wav", "question": "Key?",
                 "answer": f"{tonics[(5 * i) % 12]} {('major', 'minor')[i % 2]}"} for i in range(N)]
    if benchmark == "cmi-nsynth-pitch":  # released labels: MIDI pitch numbers, here only ones the publisher's
        # rule can credit (no x9 and none from 90: their numbers hold another pitch's), so both columns reach 1
        pitches = [10 * tens + units for tens in range(2, 9) for units in range(1, 9)]
        return [{"id": f"n{i}", "audio": f"{i}.wav", "question": "Pitch?", "answer": str(pitches[(7 * i) % 56])}
                for i in range(N)]
    if benchmark == "cmi-guzheng-tech":  # released labels: (start, end, technique) tuples as a Python literal
        techniques = ("Vibrato", "Glissando", "Tremolo", "Plucks", "Upward_Portamento", "Downward_Portamento",
                      "Point_Note")
        return [{"id": f"z{i}", "audio": f"{i}.wav", "question": "Techniques?",
                 "answer": repr([(f"{k * 1.5:.4f}", f"{k * 1.5 + 1.2:.4f}", techniques[(i + k) % 7])
                                 for k in range(3)])} for i in range(N)]
    if task_type == "leave_one_out":
        options = ["rock", "folk", "jazz", "pop", "blues"]
        return [{"id": f"r{i}", "question": f"Q{i}", "answer": options[i % 5],
                 "prompts": [{"options": [o for o in options if o != options[(i + k + 1) % 5]]} for k in range(4)]}
                for i in range(N)]
    vocabulary = next((m.params["vocabulary"] for m in BENCHMARKS[benchmark].profile().metrics
                       if m.family == "tag_set_f1"), None)
    if vocabulary is not None:  # released labels: comma-joined tags of the task's vocabulary
        tags = VOCABULARIES[vocabulary]
        return [{"id": f"m{i}", "audio": f"{i}.wav", "question": "Tags?",
                 "answer": ", ".join(tags[(i * k) % len(tags)] for k in (1, 3, 7))} for i in range(N)]
    if task_type == "generation":
        return [{"id": f"g{i}", "audio": f"{i}.wav", "question": "Describe.", "answer": _sentence(rng)}
                for i in range(N)]
    if benchmark == "mmau":
        subcats = itertools.cycle(MMAU_SUB_CATEGORIES)
        return [{"id": f"q{i}", "question": f"Q{i}?", "options": [f"{w} {i}" for w in ("piano", "violin", "drums",
                                                                                     "voice")],
                 "answer": f"{('piano', 'violin', 'drums', 'voice')[i % 4]} {i}",
                 "metadata": {"task": ("music", "sound", "speech")[i % 3],
                              "difficulty": MMAU_DIFFICULTIES[i % 3], "sub-category": next(subcats)}}
                for i in range(3 * len(MMAU_SUB_CATEGORIES))]
    knowledge, reasoning = itertools.cycle(MUCHOMUSIC_KNOWLEDGE), itertools.cycle(MUCHOMUSIC_REASONING)
    return [{"id": f"t{i}::Q{i}", "question": f"Q{i}", "options": ["rock", "folk", "jazz", "pop"],
             "answer": ("rock", "folk", "jazz", "pop")[i % 4],
             "metadata": {"knowledge": [next(knowledge)], "reasoning": [next(reasoning)]}}
            for i in range(2 * max(len(MUCHOMUSIC_KNOWLEDGE), len(MUCHOMUSIC_REASONING)))]


def _predictions(refs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    rng = random.Random(kind)
    out = []
    for ref in refs:
        if "prompts" in ref:
            answers = {"perfect": [f"[[{'ABCD'[p['options'].index(ref['answer'])]}]]" for p in ref["prompts"]],
                       "worst": ["" for _ in ref["prompts"]]}.get(kind)
            out.append({"id": ref["id"], "responses": answers or [rng.choice(["[[A]]", "(B)", "", "pop", "no idea"])
                                                                  for _ in ref["prompts"]]})
            continue
        if ref["id"].startswith("e") and kind == "perfect":
            out.append({"id": ref["id"], "prediction": f"Estimated score: {ref['answer']}"})
            continue
        if "gold_ranking" in ref:
            order = {"perfect": ref["gold_ranking"], "worst": ref["gold_ranking"][::-1]}.get(kind)
            scores = ({c: 4.0 - order.index(c) for c in ref["candidates"]} if order else
                      {c: float(rng.choice([0, 1, 1])) for c in ref["candidates"]})  # messy: ties
            out.append({"id": ref["id"], "scores": scores})
            continue
        text = {"perfect": ref["answer"], "worst": ""}.get(kind)
        if text is None:
            text = rng.choice(["", "B", "yes it is", _sentence(rng), ref["answer"].upper(), "x" * 300,
                               *ref.get("options", [])])
        out.append({"id": ref["id"], "prediction": text})
    return out


def _write(rows: list[dict[str, Any]], path: Path) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


CASES = [(b.name, p.name) for b in BENCHMARKS.values() for p in b.profiles]


@pytest.mark.parametrize(("benchmark", "profile"), CASES)
def test_every_columns_values_lie_in_its_declared_range_and_reach_its_ends(benchmark: str, profile: str,
                                                                          tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCORING_PUNKT_DIR", str(write_punkt_model(tmp_path / "nltk_data")))  # word_tokenize's model
    spec = BENCHMARKS[benchmark]
    refs_rows = _references(spec.task_type, benchmark)
    references = load_references(spec, _write(refs_rows, tmp_path / "refs.jsonl"))
    options = ScoringOptions(profile=profile, bertscore=False, n_bootstrap=0)
    scorer = build_scorer(spec, references.references, options)
    metrics = {m.key: m for m in spec.profile(profile).metrics
               if get_family(m.family).needs not in ("bertscore", "judges")}  # BERTScore is off here, no judge
    assert metrics
    for kind in ("perfect", "worst", "messy"):
        run = load_predictions(spec, references, _write(_predictions(refs_rows, kind), tmp_path / f"{kind}.jsonl"))
        report, runs = score_runs(scorer, [run], options)
        for key, metric in metrics.items():
            low, high = metric_range(metric)
            items = runs[0][key].values * metric.scale
            items = items[~np.isnan(items)]
            assert ((items >= low - 1e-9) & (items <= high + 1e-9)).all(), (key, kind, items.min(), items.max())
            value = report.metrics[key]
            if value is None:
                continue
            assert low - 1e-9 <= value <= high + 1e-9, (key, kind, value, (low, high))
            # METEOR's fragmentation penalty keeps even a perfect answer just below 1
            if kind == "perfect" and metric.higher_is_better and math.isfinite(high) and metric.family not in METEOR:
                assert math.isclose(value, high, rel_tol=1e-9, abs_tol=1e-9), (key, value, high)
            if kind == "worst" and key == "kendall_tau_b":
                assert math.isclose(value, low, abs_tol=1e-9), (key, value, low)


def test_sacrebleu_declares_its_0_to_100_range() -> None:
    bleu = BENCHMARKS["jamendo-mt-qa"].profile().metric("bleu")
    assert bleu.scale == 1.0 and metric_range(bleu) == (0.0, 100.0)


def test_bertscore_columns_declare_the_cosine_range() -> None:
    for spec in BENCHMARKS.values():
        for profile in spec.profiles:
            for metric in profile.metrics:
                if metric.family == "bertscore":
                    assert metric_range(metric) == (-metric.scale, metric.scale), metric.key


@pytest.mark.parametrize("name", sorted(judge_profiles()))
def test_judge_outputs_stay_in_the_rubrics_declared_range(name: str) -> None:
    """Every reply at the corners of the rubric's fields (and each label) gives outputs in range, ends reached."""
    profile = judge_profiles()[name]
    fields = profile.output.fields
    seen: dict[str, list[float]] = {}
    labels = profile.output.labels or (None,)
    for corner in itertools.product(*[(f.minimum, (f.minimum + f.maximum) / 2, f.maximum) for f in fields]):
        for label in labels:
            values: dict[str, Any] = dict(zip((f.name for f in fields), corner))
            if label is not None and profile.output.label:
                values[profile.output.label] = label
            for output, number in profile.output_values(profile.evaluate(values)).items():
                seen.setdefault(output, []).append(number)
    for output in profile.outputs:
        low, high = profile.output_range(output)
        assert low <= min(seen[output]) and max(seen[output]) <= high, (output, (low, high))
        assert min(seen[output]) == low and max(seen[output]) == high, (output, seen[output], (low, high))


def test_judged_columns_of_every_spec_take_the_rubrics_range() -> None:
    jamendo = BENCHMARKS["jamendo-mt-qa"].profile()
    assert metric_range(jamendo.metric("judge_score")) == (0.0, 5.0)
    assert metric_range(jamendo.metric("judge_correctness")) == (1.0, 5.0)
    assert metric_range(jamendo.metric("error_comparative_collapse")) == (0.0, 1.0)


@pytest.mark.slow
def test_one_sentence_moves_corpus_bleu_by_more_than_a_mean_allows() -> None:
    """The README's measurement: corpus BLEU over 40 noisy sentences, one sentence replaced at a time."""
    import sacrebleu

    rng = random.Random(1)
    refs = [" ".join(rng.choices(WORDS, k=rng.randint(8, 16))) for _ in range(40)]

    def noisy(ref: str) -> str:
        return " ".join(rng.choice(WORDS) if rng.random() < 0.4 else w for w in ref.split())

    def bleu(preds: list[str]) -> float:
        return float(sacrebleu.corpus_bleu(preds, [refs], tokenize="13a", smooth_method="exp").score)

    moves = []
    for _ in range(3):
        preds = [noisy(r) if rng.random() < 0.8 else "" for r in refs]
        base = bleu(preds)
        assert 25 < base < 35
        for i in range(len(refs)):
            for replacement in ("", refs[i], " ".join([refs[i]] * 30), " ".join(WORDS * 20), "zz " * 400):
                moves.append(abs(bleu([*preds[:i], replacement, *preds[i + 1:]]) - base))
    step = 10.0  # 10^ceil(log10(4 x 100 / 40))
    assert 2 * 100 / 40 < max(moves) <= 2 * step  # beyond a mean's bound, within two released steps
    assert max(moves) == pytest.approx(15, abs=1.5)

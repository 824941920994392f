"""The benchmarks the site hosts, each scored as its publisher scores it.

See ``shared/design/benchmarks.md`` for where every choice below comes from.
"""

from __future__ import annotations

from dataclasses import replace

from scoring.publishers.formats import Release
from scoring.publishers.qa_importers import JAMENDO, M2UGEN_PREDICTIONS
from scoring.publishers.qa_importers import MUSICCAPS as MUSICCAPS_FORMAT
from scoring.publishers.qa_importers import MUSICQA as MUSICQA_FORMAT
from scoring.publishers.shapes import JAMENDO_SPLITS, csv_with, jamendo_split, json_array_of
from scoring.specs.base import (
    BenchmarkSpec,
    MetricSpec,
    Profile,
    Setting,
    SplitSpec,
    register_benchmark,
)

BATCHED_PROFILE = "bertscore-batched"
_BATCHED_WHY = ("BERTScore exactly as bert_score.score(cands, refs, batch_size=64) gives it over the whole "
                "file in file order, to reproduce a paper's number; an item's value then depends on its "
                "neighbours in the file, so this is never ranked with the official columns.")


def bertscore_batched(metrics: tuple[MetricSpec, ...]) -> tuple[MetricSpec, ...]:
    """The same metrics (judges left out), with BERTScore batched as bert-score batches it."""
    return tuple(
        replace(m, params={**m.params, "batching": "bert-score", "batch_size": 64},
                description=f"{m.description} {_BATCHED_WHY}".strip()) if m.family == "bertscore" else m
        for m in metrics if m.family != "judge"
    )


# --- DialBGM -----------------------------------------------------------------


def _ranking_metrics(gain: str) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec("hit_at_1", "ranking", "hit_at_1", "Hit@1", {"gain": gain},
                   description="Tie-aware: 1/k when the gold best is in a k-way top tie."),
        MetricSpec("mrr", "ranking", "mrr", "MRR", {"gain": gain},
                   description="Mean of 1/r over the positions the gold best's tie group spans."),
        MetricSpec("ndcg_at_4", "ranking", "ndcg", "nDCG@4", {"gain": gain, "cutoff": 4},
                   description=("Gain 2^rel-1 (relevance 3,2,1,0), as the paper's numbers imply."
                                if gain == "exponential" else "Linear gain 3,2,1,0, as the paper's formula shows.")),
        MetricSpec("kendall_tau_b", "ranking", "kendall_tau_b", "Kendall τb", {"gain": gain},
                   description="Tie-corrected tau-b against the gold ranks; an all-tied prediction counts 0."),
    )


DIALBGM = register_benchmark(BenchmarkSpec(
    name="dialbgm",
    title="DialBGM: dialogue-conditioned background-music ranking",
    task_type="ranking",
    description=(
        "1,200 dialogues, each with 4 candidate MusicCaps clips ranked 1..4 by the consensus of "
        "12 annotators. Models score or rank the candidates; metrics are averaged over dialogues."
    ),
    profiles=(
        Profile("official", "Tie-aware metrics, nDCG gain 2^rel-1 (reproduces the paper's tables).",
                _ranking_metrics("exponential")),
        Profile("linear-gain", "As official, but nDCG with the linear gain of the paper's formula.",
                _ranking_metrics("linear")),
    ),
    official_profile="official",
    default_sort="hit_at_1",
    source="DialBGM (arXiv, 2025): Tables 3-8, Appendix D",
    data_origin=("DailyDialog dialogues with MusicCaps clips; rankings from 12 annotators (Borda consensus). "
                 "The authors released no data or code: references are imported by a maintainer."),
    license="Dialogues: DailyDialog (CC BY-NC-SA 4.0); clips: MusicCaps (CC BY-SA 4.0).",
    settings=(
        Setting("input", "Dialogue input", (("full_dialogue", "Full dialogue"), ("summary", "One-line summary"))),
        Setting("modality", "Music input", (("audio", "Audio"), ("caption", "Caption"))),
        Setting("category", "Model category", (
            ("multimodal_llm", "Multimodal LLM"), ("audio_language_model", "Audio-language model"),
            ("retrieval_model", "Retrieval model"), ("text_llm", "Text-only LLM"))),
        Setting("prompting", "Prompting", (
            ("zero_shot", "Zero-shot"), ("cot", "Chain of thought"), ("no_cot", "No chain of thought"),
            ("few_shot", "Few-shot with guidelines"), ("joint_rerank", "Joint reranking of all four"))),
    ),
))

# --- Jamendo-MT-QA -----------------------------------------------------------

def _jamendo_judged_metrics() -> tuple[MetricSpec, ...]:
    """LLM-judge columns (one per configured judge): the released evaluator's three 1-5 criteria,
    the paper's single 0-5 score, and the error-type shares of answers judged below 3."""
    released = {"profile": "jamendo-released"}
    criteria = (
        MetricSpec(f"judge_{name}", "judge", name, label, released, applies_to="sentence", decimals=2,
                   description=f"{label} (1-5), the released evaluate.py judge prompt, averaged over judged items.")
        for name, label in (("correctness", "Correctness"), ("comparative_validity", "Comp. validity"),
                            ("reasoning_quality", "Reasoning"))
    )
    score = MetricSpec("judge_score", "judge", "score", "Judge 0-5", {"profile": "jamendo-paper"},
                       applies_to="sentence", decimals=2,
                       description="The paper's single 0-5 score (Appendix D.1, Table 7 rubric).")
    errors = (
        MetricSpec(f"error_{label}", "judge", label, title, {"profile": "jamendo-error-type"},
                   applies_to="sentence", decimals=3, higher_is_better=False, descriptive=True,
                   description=f"Share of sentence answers judged below 3 whose primary error is {title.lower()}.")
        for label, title in (("comparative_collapse", "Comparative collapse"),
                             ("attribute_hallucination", "Attribute hallucination"),
                             ("granularity_mismatch", "Granularity mismatch"))
    )
    return (*criteria, score, *errors)


_JAMENDO_OFFICIAL = (
    MetricSpec("yes_no_accuracy", "yes_no", "accuracy", "Yes/No acc.", applies_to="yes_no", decimals=3),
    MetricSpec("short_answer_accuracy", "short_answer", "accuracy", "Short acc.",
               applies_to="short_answer", decimals=3),
    MetricSpec("bleu", "sacrebleu", "bleu", "BLEU", {"tokenize": "13a", "smooth": "exp"},
               applies_to="sentence", decimals=2, description="sacrebleu corpus BLEU (0-100)."),
    MetricSpec("rouge1", "rouge", "rouge1_f1", "R-1", {"use_stemmer": True}, scale=100.0,
               applies_to="sentence", decimals=1),
    MetricSpec("rouge2", "rouge", "rouge2_f1", "R-2", {"use_stemmer": True}, scale=100.0,
               applies_to="sentence", decimals=1),
    MetricSpec("rougeL", "rouge", "rougeL_f1", "R-L", {"use_stemmer": True}, scale=100.0,
               applies_to="sentence", decimals=1),
    MetricSpec("bertscore_f1", "bertscore", "f1", "BERT-F1", applies_to="sentence", decimals=4),
    *_jamendo_judged_metrics(),
)


JAMENDO_MT_QA = register_benchmark(BenchmarkSpec(
    name="jamendo-mt-qa",
    title="Jamendo-MT-QA: multi-track comparative music QA",
    task_type="comparative_qa",
    description=(
        "12,173 track pairs x 3 questions (yes/no, short answer, sentence) = 36,519 items. "
        "Accuracy for yes/no and short answers; BLEU, ROUGE and BERTScore for sentences."
    ),
    profiles=(
        Profile("official", "The released evaluate.py: its yes/no and two-way-substring rules, "
                "sacrebleu corpus BLEU, ROUGE F x100 with stemming, BERTScore F1.", _JAMENDO_OFFICIAL),
        Profile(BATCHED_PROFILE, f"As official (without judges). {_BATCHED_WHY}",
                bertscore_batched(_JAMENDO_OFFICIAL)),
    ),
    official_profile="official",
    default_sort="yes_no_accuracy",
    source="Jamendo-MT-QA (2025): Tables 2-3, Appendix D; github.com/MAAP-LAB/Jamendo-MT-QA evaluate.py",
    data_origin="Creative Commons tracks from Jamendo; questions generated by GPT-5 mini and filtered.",
    license="Code MIT; audio Creative Commons via Jamendo, research use only.",
    settings=(Setting("type", "Model type", (("Cap", "Caption-based (Cap)"), ("Multi", "Multi-audio (Multi)"))),),
    splits=(
        SplitSpec("full", "Full set (12,173 pairs)", "All 36,519 items."),
        SplitSpec("subset-2010", "Subset (2,010 pairs)", "The pairs every model in the paper could process."),
    ),
    releases=(Release("multi_qa.json", JAMENDO, "huggingface.co/datasets/m-a-a-p/Jamendo-MT-QA (split train), as "
                      "saved by github.com/MAAP-LAB/Jamendo-MT-QA download_data.py", jamendo_split,
                      tuple(JAMENDO_SPLITS.values()), by_shape=True),),
))

# --- DeepResonance / Music4way family ------------------------------------------

_M2UGEN_CITATION = "M2UGen / MU-LLaMA Evaluation/Music_Understanding/evaluate.py"


def _musicqa_metrics(tokenize: str) -> tuple[MetricSpec, ...]:
    level = "character" if tokenize == "char" else "word"
    return (
        MetricSpec("bleu", "nltk_sentence_bleu", "bleu", "BLEU", {"tokenize": tokenize},
                   description=f"NLTK sentence BLEU, weights 0.25x4, {level} n-grams, averaged over items."),
        MetricSpec("bleu1", "nltk_sentence_bleu", "bleu1", "BLEU-1", {"tokenize": tokenize},
                   description=f"NLTK sentence BLEU, weights (1,0,0,0), {level} n-grams."),
        MetricSpec("bleu4", "nltk_sentence_bleu", "bleu4", "BLEU-4", {"tokenize": tokenize},
                   description=f"The evaluator's BLEU-4: weights (0,0,0,1), {level} 4-gram precision only."),
        MetricSpec("meteor", "nltk_meteor", "meteor", "METEOR",
                   description="NLTK meteor_score on wordpunct_tokenize tokens (WordNet 3.0 synonyms)."),
        MetricSpec("rougeL_recall", "rouge", "rougeL_recall", "ROUGE-L R", {"use_stemmer": True}),
        MetricSpec("bertscore_recall", "bertscore", "recall", "BERTScore R"),
    )


def _deepresonance_metrics(tokenize: str) -> tuple[MetricSpec, ...]:
    level = "character" if tokenize == "char" else "word"
    bleu = {"tokenize": tokenize}
    return (
        MetricSpec("bleu1", "nltk_sentence_bleu", "bleu1", "BLEU-1", bleu, scale=100.0, decimals=1,
                   description=f"NLTK sentence BLEU-1 on {level} n-grams, averaged over items, x100."),
        MetricSpec("bleu", "nltk_sentence_bleu", "bleu", "BLEU", bleu, scale=100.0, decimals=1,
                   description=f"NLTK sentence BLEU (0.25x4) on {level} n-grams, averaged, x100."),
        MetricSpec("rougeL_precision", "rouge", "rougeL_precision", "ROUGE-P", {"use_stemmer": True},
                   scale=100.0, decimals=1),
        MetricSpec("rougeL_recall", "rouge", "rougeL_recall", "ROUGE-R", {"use_stemmer": True},
                   scale=100.0, decimals=1),
        MetricSpec("rougeL_f1", "rouge", "rougeL_f1", "ROUGE-F1", {"use_stemmer": True}, scale=100.0, decimals=1),
        MetricSpec("bertscore_precision", "bertscore", "precision", "BERT-P", scale=100.0, decimals=1),
        MetricSpec("bertscore_recall", "bertscore", "recall", "BERT-R", scale=100.0, decimals=1),
        MetricSpec("bertscore_f1", "bertscore", "f1", "BERT-F1", scale=100.0, decimals=1),
    )


MUSICQA = register_benchmark(BenchmarkSpec(
    name="musicqa",
    title="MusicQA (MU-LLaMA evaluation split)",
    task_type="generation",
    description="5,040 questions over 560 clips; scored per item and averaged, on a 0-1 scale.",
    profiles=(
        Profile("m2ugen-evaluator", f"The {_M2UGEN_CITATION}: NLTK BLEU on raw strings (character n-grams), "
                "METEOR on wordpunct tokens, ROUGE-L recall, BERTScore recall.", _musicqa_metrics("char")),
        Profile("word-bleu", "As the evaluator, but BLEU over whitespace-separated words.",
                _musicqa_metrics("word")),
        Profile("deepresonance-table", "DeepResonance Table 11's columns on a 0-100 scale (character BLEU).",
                _deepresonance_metrics("char")),
        Profile(BATCHED_PROFILE, f"As the evaluator. {_BATCHED_WHY}", bertscore_batched(_musicqa_metrics("char"))),
    ),
    official_profile="m2ugen-evaluator",
    default_sort="bleu",  # the publishers' first column; BERTScore here is another model than the papers'
    source="MU-LLaMA (ICASSP 2024); M2UGen (2023); DeepResonance (2025) Table 11",
    data_origin="EvalMusicQA.json from github.com/shansongliu/MU-LLaMA (MTG-Jamendo and MusicCaps clips).",
    license="Repository GPL-3.0; the Hugging Face dataset card says MIT.",
    releases=(Release("EvalMusicQA.json", MUSICQA_FORMAT,
                      "github.com/shansongliu/MU-LLaMA MusicQA/MusicQA/EvalMusicQA.json @ d760f206 (2023-08-23)",
                      json_array_of("test", ("audio_name", "conversation"), "EvalMusicQA.json")),),
    formats=(M2UGEN_PREDICTIONS,),
))


def deepresonance_table_spec(name: str, title: str, description: str, source: str,
                             data_origin: str = "", license: str = "", releases: tuple[Release, ...] = ()
                             ) -> BenchmarkSpec:
    """A generation benchmark scored like DeepResonance's tables (0-100; character BLEU officially)."""
    return register_benchmark(BenchmarkSpec(
        name=name,
        title=title,
        task_type="generation",
        description=description,
        profiles=(
            Profile("deepresonance-table", "DeepResonance's table metrics, following the M2UGen evaluator "
                    "(character-level NLTK BLEU; whether the paper used characters is not public).",
                    _deepresonance_metrics("char")),
            Profile("word-bleu", "As the table profile, but BLEU over whitespace-separated words.",
                    _deepresonance_metrics("word")),
            Profile(BATCHED_PROFILE, f"As the table profile. {_BATCHED_WHY}",
                    bertscore_batched(_deepresonance_metrics("char"))),
        ),
        official_profile="deepresonance-table",
        default_sort="bleu1",  # Table 2's first column; BERTScore here is another model than the paper's
        source=source,
        data_origin=data_origin,
        license=license,
        releases=releases,
    ))


MUSICCAPS = deepresonance_table_spec(
    "musiccaps", "MusicCaps captioning",
    "Caption 10-second clips; the is_audioset_eval rows (2,858) are the test split.",
    "DeepResonance (2025) Tables 2 and 12",
    "Google MusicCaps (musiccaps-public.csv).", "CC BY-SA 4.0",
    (Release("musiccaps-public.csv", MUSICCAPS_FORMAT, "Google MusicCaps (kaggle.com/datasets/googleai/musiccaps); "
             "the copy in github.com/shansongliu/MU-LLaMA MusicQA/MusicCaps @ a5acbb1a; is_audioset_eval rows",
             csv_with("test", ("ytid", "start_s", "end_s", "caption", "is_audioset_eval"), "musiccaps-public.csv")),))
for _name, _title, _tables in (
    ("music4way-musiccaps", "Music4way-MusicCaps", "Tables 2 and 13"),
    ("music4way-mi2t", "Music4way-MI2T (music+image to text)", "Tables 3 and 14"),
    ("music4way-mv2t", "Music4way-MV2T (music+video to text)", "Tables 3 and 15"),
    ("music4way-any2t", "Music4way-Any2T", "Tables 3 and 16"),
):
    deepresonance_table_spec(_name, _title, "A DeepResonance multimodal music understanding test set.",
                             f"DeepResonance (2025) {_tables}", "Sony/DeepResonance_data_models (Hugging Face).")
for _name, _title, _table in (
    ("gtzan", "GTZAN (zero-shot)", "Table 17"),
    ("musicnet", "MusicNet (zero-shot)", "Table 18"),
    ("musicinstruct-long", "MusicInstruct-long (zero-shot)", "Table 19"),
    ("musicinstruct-short", "MusicInstruct-short (zero-shot)", "Table 20"),
    ("mtg-jamendo", "MTG-Jamendo (zero-shot)", "Table 21"),
):
    deepresonance_table_spec(_name, _title, "A zero-shot music understanding set from DeepResonance's appendix.",
                             f"DeepResonance (2025) {_table}")

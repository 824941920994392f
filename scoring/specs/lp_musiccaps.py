"""LP-MusicCaps's captioning protocol on MusicCaps: its own 2,839-clip test list and Hugging Face ``evaluate``'s
metrics, as seungheondoh/lp-music-caps ``lpmc/utils/metrics.py`` calls them (``../shared/data/musiccaps/
LP-MUSICCAPS.md``).

A benchmark of its own, not a profile of ``musiccaps``: its items are the 2,839 crawled ``is_audioset_eval`` clips
(the 2,858 of ``musiccaps`` less 19), and every metric is computed another way (corpus BLEU on 13a tokens, METEOR on
``word_tokenize`` tokens, ROUGE-L F without stemming, BERTScore F1), so none of its numbers may share a ranking with
the DeepResonance or CMI-Bench MusicCaps boards. One reference per clip: its MusicCaps caption.
"""

from __future__ import annotations

from scoring.publishers.formats import Release
from scoring.publishers.lp_musiccaps_importers import LP_MUSICCAPS as LP_MUSICCAPS_FORMAT
from scoring.publishers.shapes import csv_with
from scoring.specs.base import BenchmarkSpec, MetricSpec, Profile, SplitSpec, register_benchmark
from scoring.specs.catalog import BATCHED_PROFILE, bertscore_batched

NAME = "lp-musiccaps"
OFFICIAL = "lp-musiccaps"
ITEMS = 2839
EVALUATOR = "seungheondoh/lp-music-caps lpmc/utils/metrics.py@12fcb31d (evaluate 0.4.0)"
SOURCE = ("LP-MusicCaps (ISMIR 2023); github.com/seungheondoh/lp-music-caps lpmc/utils/metrics.py and "
          "lpmc/music_captioning/eval.py @ 12fcb31d; test list from lpmc/llm_captioning/exp/*/inference.json")
CITATION = ("SeungHeon Doh, Keunwoo Choi, Jongpil Lee, Juhan Nam. LP-MusicCaps: LLM-Based Pseudo Music Captioning. "
            "ISMIR 2023; arXiv 2307.16372.")
_BLEU = ("Hugging Face evaluate's bleu (tensorflow/nmt compute_bleu): corpus BLEU with max order {n} on "
         "Tokenizer13a tokens, case-sensitive, no smoothing (0 when an order has no match), brevity penalty "
         "against each clip's caption length; {what}.")


def lp_musiccaps_metrics() -> tuple[MetricSpec, ...]:
    """The columns of LP-MusicCaps's results.json, on its 0-1 scale."""
    what = {1: "unigram precision only", 2: "geometric mean of 1- and 2-gram precisions",
            3: "geometric mean of 1- to 3-gram precisions", 4: "geometric mean of 1- to 4-gram precisions"}
    bleu = tuple(MetricSpec(f"bleu{n}", "evaluate_bleu", f"bleu{n}", f"BLEU-{n}", decimals=4,
                            description=_BLEU.format(n=n, what=what[n])) for n in range(1, 5))
    return (
        *bleu,
        MetricSpec("meteor", "evaluate_meteor", "meteor", "METEOR", decimals=4, description=(
            "evaluate's meteor: NLTK single_meteor_score on word_tokenize tokens (Punkt sentences, then Treebank "
            "words), alpha 0.9, beta 3, gamma 0.5, WordNet 3.0 synonyms, averaged over clips.")),
        MetricSpec("rougeL_f1", "rouge", "rougeL_f1", "ROUGE-L", {"use_stemmer": False}, decimals=4, description=(
            "evaluate's rouge: rouge-score ROUGE-L F-measure, no stemming, averaged over clips (the plain mean; "
            "evaluate reports the median of 1,000 unseeded bootstrap means, which moves in the 4th decimal).")),
        MetricSpec("bertscore_f1", "bertscore", "f1", "BERTScore F1", decimals=4, description=(
            "BERTScore F1 averaged over clips, no idf, no rescaling; the publisher's is roberta-large layer 17 "
            "(evaluate's bertscore with lang='en'), the column's signature names the model computed here.")),
    )


LP_MUSICCAPS = register_benchmark(BenchmarkSpec(
    name=NAME,
    title="LP-MusicCaps protocol: MusicCaps captioning",
    task_type="generation",
    description=(f"Caption 10-second MusicCaps clips: the {ITEMS:,} clips LP-MusicCaps evaluates (its crawled "
                 "is_audioset_eval clips, in its order), one reference caption each; corpus BLEU-1..4, METEOR, "
                 "ROUGE-L and BERTScore as Hugging Face evaluate computes them, on a 0-1 scale."),
    profiles=(
        Profile(OFFICIAL, "LP-MusicCaps's metrics.py through Hugging Face evaluate 0.4.0: corpus BLEU-1..4 "
                "(13a tokens), METEOR (word_tokenize), ROUGE-L F (no stemming), BERTScore F1.",
                lp_musiccaps_metrics(), EVALUATOR),
        Profile(BATCHED_PROFILE, "As lp-musiccaps, with BERTScore batched as evaluate's bertscore batches it "
                "(bert_score, batch size 64, file order).", bertscore_batched(lp_musiccaps_metrics()), EVALUATOR),
    ),
    official_profile=OFFICIAL,
    default_sort="bleu1",  # results.json's first column
    source=f"{SOURCE}. {CITATION}",
    data_origin=("Google MusicCaps captions (musiccaps-public.csv) of the clips lp-musiccaps-test-subset.csv lists, "
                 "recovered from the LP-MusicCaps repository's inference files."),
    license="Captions CC BY-SA 4.0 (Google MusicCaps); LP-MusicCaps code and data CC BY-NC 4.0 per its README.",
    citation=CITATION,
    splits=(SplitSpec("test", f"Test ({ITEMS:,} clips)", "LP-MusicCaps's crawled is_audioset_eval clips; "
                      "labels public."),),
    releases=(Release("lp-musiccaps-test-subset.csv", LP_MUSICCAPS_FORMAT, "github.com/seungheondoh/lp-music-caps @ "
                      "12fcb31d: the 2,839 clips of lpmc/llm_captioning/exp/*/inference.json, captioned from "
                      "musiccaps-public.csv beside it",
                      csv_with("test", ("order", "ytid", "start_s", "end_s"), "lp-musiccaps-test-subset.csv")),),
))

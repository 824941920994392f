"""CMI-Bench (ISMIR 2025): instruction-following music models scored with the MIR field's own metrics.

Every task is one benchmark on the ``generation`` contract (reference ``answer`` = the released
``output``; prediction = the model's raw ``response``), read from the publisher's own files with
``--references-format cmi-bench`` / ``--predictions-format cmi-bench`` (``scoring/publishers/cmi_importers.py``:
item ids derived from ``audio_path``, ``audio_start``, ``audio_end``), and scored by a metric family
that reproduces nicolaus625/CMI-bench ``evaluate.py`` for that task.

**Adding a CMI task** scored by an existing family is one :class:`CmiTask` row in :data:`CMI_TASKS` (name,
title, released file, item count, protocol sentence, metrics, default sort): :func:`cmi_spec` makes it a
benchmark whose release is that file in the ``cmi-bench`` format, and the site, CLI, importers and the reference
import read the spec. A task with its own rules adds its metric family first (docs/adding-a-benchmark.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from scoring.publishers.cmi_importers import CMI_BENCH
from scoring.publishers.formats import Release
from scoring.publishers.shapes import json_lines_of
from scoring.specs.audio import CMI
from scoring.specs.base import BenchmarkSpec, MetricSpec, Profile, SplitSpec, Suite, register_benchmark, register_suite
from scoring.specs.catalog import BATCHED_PROFILE, bertscore_batched

SOURCE = ("CMI-Bench (ISMIR 2025); github.com/nicolaus625/CMI-bench evaluate.py @ 2cafca5d, Guzheng as "
          "released @ 4c15f410 (the reader of f44d952); test files @ 4c15f410")
LICENSE = "CC BY 4.0 (CMI-Bench); the audio datasets keep their own licences."
CITATION = ("Yinghao Ma, Siyou Li, Juntao Yu, Emmanouil Benetos, Akira Maezawa. CMI-Bench: A Comprehensive "
            "Benchmark for Evaluating Music Instruction Following. ISMIR 2025; arXiv 2506.12285.")
NO_EVAL = ("Responses are parsed with safe parsers only: where evaluate.py calls Python eval() on model "
           "output, a Python literal is read to the same value without executing it; an answer that only "
           "evaluating code would read (arithmetic, f-strings) counts as unparsed.")


@dataclass(frozen=True)
class CmiTask:
    """One released CMI-Bench task file, hosted as one benchmark."""

    name: str
    title: str
    file: str  # the released test file (data/<dataset>/ in the repository; ../shared/data/cmi-bench/)
    items: int
    protocol: str  # how the publisher scores it, in a sentence or two
    metrics: tuple[MetricSpec, ...]
    default_sort: str
    sample_answer: str = ""  # a placeholder its reader accepts (starter kits); empty: plain text
    commit: str = "2cafca5d"  # the evaluate.py whose rules score it (Guzheng: the reader released @ 4c15f410)
    origin: str = ""  # where the test file comes from, when it is not the repository's own file
    licence: str = LICENSE  # the benchmark's terms with those of the dataset its labels come from
    labels_withheld: str = ""  # why per-item views never show the labels (their licence); empty: shown
    release: str = ""  # where the test file is published; empty: the repository's file at 4c15f410
    audio_example: str = ""  # the audio_path of the test file's first item (``scoring.specs.audio.CMI``'s layout)


RELEASE = "github.com/nicolaus625/CMI-bench {} @ 4c15f410 (the test split, with its labels)"
RELEASED_KEYS = ("instruction", "output", "audio_path")  # the first record's keys in a released task file


def label_accuracy() -> tuple[MetricSpec, ...]:
    """Classification accuracy by evaluate.py's normalised-substring rule (0-1, as printed)."""
    return (MetricSpec("accuracy", "cmi_label", "accuracy", "Accuracy", decimals=4, description=(
        "Share of items whose normalised response contains the item's label and no other label of the "
        "test file (evaluate.py get_multiclass_acc)")),)


def emotion_r2() -> tuple[MetricSpec, ...]:
    """R² of z-scored extracted ratings against the released z-scored labels (evaluate.py cal_r2)."""
    return (MetricSpec("r2", "cmi_r2", "r2", "R²", decimals=4, description=(
        "One number per answer (evaluate.py extract_int), z-scored over the answers, non-answers "
        "mean-imputed; torchmetrics R2Score against the z-scored labels. Null where the answers have no "
        "spread (the publisher's script stops). Per item: the number read from the answer (empty when none).")),)


def lyrics_error_rates() -> tuple[MetricSpec, ...]:
    """Per-utterance WER and CER after the publisher's cleaning, mean over utterances, x100 as printed."""
    return (
        MetricSpec("wer", "cmi_wer", "wer", "WER", higher_is_better=False, scale=100.0, decimals=2, description=(
            "Word error rate (jiwer) per utterance, mean over utterances (%), after the prefix, punctuation "
            "and digit rules of evaluate.py compute_wer_cer.")),
        MetricSpec("cer", "cmi_wer", "cer", "CER", higher_is_better=False, scale=100.0, decimals=2, description=(
            "Character error rate (jiwer) per utterance, mean over utterances (%), same cleaning.")),
    )


SUITE = register_suite(Suite(
    "cmi-bench", "CMI-Bench",
    "Music information retrieval tasks posed as instructions to audio-text models (ISMIR 2025), each scored by "
    "its own rules: classification, regression, lyrics, beat and downbeat tracking, playing techniques, "
    "captioning. Each task is its own board with its own metric and scale.", f"{SOURCE}. {CITATION}"))


def cmi_benchmark(task: CmiTask) -> BenchmarkSpec:
    """Register one CMI-Bench task as a benchmark scored by its publisher's rules."""
    return register_benchmark(cmi_spec(task))


def cmi_spec(task: CmiTask) -> BenchmarkSpec:
    """One CMI-Bench task as a benchmark (not registered): its released file in the ``cmi-bench`` format."""
    return BenchmarkSpec(
        name=task.name, title=task.title, task_type="generation",
        description=f"{task.protocol} {NO_EVAL}",
        profiles=_profiles(task),
        official_profile="cmi-evaluate", default_sort=task.default_sort, source=f"{SOURCE}. {CITATION}",
        data_origin=(f"{task.file}: {task.origin} ({task.items:,} items, labels public)." if task.origin else
                     f"{task.file} as released in the CMI-Bench repository ({task.items:,} items, labels public)."),
        license=task.licence, publisher=CMI_BENCH, sample_answer=task.sample_answer, suite=SUITE.name,
        labels_withheld=task.labels_withheld, audio_source=replace(CMI, example=task.audio_example),
        splits=(SplitSpec("test", f"Test ({task.items:,} items)", "Public labels, as released."),),
        releases=(Release(task.file, CMI_BENCH, task.release or RELEASE.format(task.file),
                          json_lines_of("test", RELEASED_KEYS, task.file)),))


def _profiles(task: CmiTask) -> tuple[Profile, ...]:
    evaluator = f"nicolaus625/CMI-bench evaluate.py@{task.commit}"
    official = Profile("cmi-evaluate", f"nicolaus625/CMI-bench evaluate.py rules. {NO_EVAL}", task.metrics,
                       evaluator)
    if not any(m.family == "bertscore" for m in task.metrics):
        return (official,)
    return official, Profile(BATCHED_PROFILE, "As cmi-evaluate, with BERTScore batched as evaluate.py's "
                             "bert_score.score(candidates, references) batches it.", bertscore_batched(task.metrics),
                             evaluator)


def beat_tracking(what: str) -> tuple[MetricSpec, ...]:
    """mir_eval F-measure, CMLt and AMLt per track, untrimmed, mean over tracks (evaluate.py beat_tracking),
    x100 as printed."""
    read = (f"{what} times read by evaluate.py get_beat (comma-separated seconds or m:ss; an answer it cannot "
            "read scores 0), not trimmed")
    return (
        MetricSpec("f_measure", "cmi_beat", "f_measure", "F-measure", scale=100.0, decimals=2,
                   description=f"mir_eval.beat.f_measure (70 ms window) per track, mean over tracks (%); {read}."),
        MetricSpec("cmlt", "cmi_beat", "cmlt", "CMLt", scale=100.0, decimals=2,
                   description=f"mir_eval.beat.continuity CMLt per track, mean over tracks (%); {read}."),
        MetricSpec("amlt", "cmi_beat", "amlt", "AMLt", scale=100.0, decimals=2,
                   description=f"mir_eval.beat.continuity AMLt per track, mean over tracks (%); {read}."),
    )


def technique_f1() -> tuple[MetricSpec, ...]:
    """Frame-level micro and macro F1 of Guzheng techniques (evaluate.py calculate_frame_f1)."""
    return (
        MetricSpec("micro_f1", "cmi_guzheng", "micro_f1", "Micro F1", decimals=4, description=(
            "F1 of 10 ms frame x technique decisions pooled over all 7 techniques and clips (the first value "
            "calculate_frame_f1 returns; evaluate.py prints it as 'Marco F1').")),
        MetricSpec("macro_f1", "cmi_guzheng", "macro_f1", "Macro F1", decimals=4, description=(
            "Unweighted mean over the 7 techniques of each technique's frame F1 over all clips (0 for a "
            "technique never true or never predicted: no test clip's first event is Plucks, so at most 6/7; "
            "evaluate.py prints it as 'Micro F1').")),
    )


def captioning() -> tuple[MetricSpec, ...]:
    """evaluate.py music_captioning: per-item BLEU, BLEU-4, METEOR, ROUGE-L recall; BERTScore recall."""
    char = {"tokenize": "char"}
    return (
        MetricSpec("bleu", "nltk_sentence_bleu", "bleu", "BLEU", char, description=(
            "NLTK sentence_bleu([reference], response) on the raw strings, so over character n-grams; weights "
            "0.25 x 4, no smoothing; mean over items.")),
        MetricSpec("bleu4", "nltk_sentence_bleu", "bleu4", "BLEU-4", char, description=(
            "As BLEU with weights (0, 0, 0, 1): character 4-gram precision with the brevity penalty.")),
        MetricSpec("meteor", "nltk_meteor", "meteor", "METEOR", description=(
            "NLTK meteor_score on wordpunct_tokenize tokens (WordNet 3.0 synonyms), mean over items.")),
        MetricSpec("rougeL_recall", "rouge", "rougeL_recall", "ROUGE-L R", {"use_stemmer": True}, description=(
            "rouge-score ROUGE-L recall with the Porter stemmer, mean over items.")),
        MetricSpec("bertscore_recall", "bertscore", "recall", "BERTScore R", description=(
            "BERTScore recall (the configured model; the publisher's bert_score lang='en' is roberta-large, "
            "layer 17), mean over items.")),
    )


_BEAT = ("The model lists {what} timestamps; they are read by the publisher's comma-splitting parser (seconds "
         "or m:ss; an answer it cannot read scores 0) and scored per track with mir_eval's F-measure (70 ms), "
         "CMLt and AMLt without trimming the first 5 s, averaged over tracks (x100, as printed).")
_CAPTION = ("Free-text captions against one reference caption, scored per item and averaged: NLTK sentence BLEU "
            "on the raw strings (character n-grams, as evaluate.py calls it), METEOR on word tokens, ROUGE-L "
            "recall with stemming and BERTScore recall.")

def key_score() -> tuple[MetricSpec, ...]:
    """evaluate.py key_ensamble_score: mir_eval's weighted key score per clip, mean over clips (0-1, as returned)."""
    return (MetricSpec("weighted_score", "cmi_key", "weighted_score", "Weighted score", decimals=4, description=(
        "mir_eval.key.weighted_score of the key evaluate.py's get_pred reads from the answer (1 same key, 0.5 a "
        "fifth above in the same mode, 0.3 relative, 0.2 parallel, else 0; 0 when no key is read), mean over "
        "clips. Per item: the clip's score and the key read.")),)


_TAGS_ORIGIN = ("rebuilt item for item from the publisher's released result files and scripts at 4c15f410 (the "
                "repository's task file is in no stored snapshot), checked against every released result file; "
                "../shared/data/cmi-bench-tags/README.md says how")
_PITCH_ORIGIN = ("the publisher's earlier task file (7dd61d9a, same items, references and audio as the result files "
                 "at 4c15f410) with the current instruction; ../shared/data/cmi-bench-tags/README.md says how")
_KEY = ("Key of a 30 s GiantSteps clip (24 major and minor keys, flats only) from a free-text answer, read as "
        "evaluate.py's key_ensamble_score reads it: lower-cased, spaces and digits deleted, a text of at most 3 "
        "characters ending in 'm' completed to minor ('Bbm' is Bb minor) and one of at most 2 to major ('d', 'A'); "
        "only a sharp right after the first letter becomes the flat ('F#m' is Gb minor, 'C# major or A# minor' Db "
        "major, 'The song is in F# minor.' no key); then the first key, majors before minors, whose name is in the "
        "text: 'E minor / G major' is G major, 'The key is E minor.' E minor, 'Gb major' Gb major, while 'f sharp "
        "minor', 'D♭ major' and 'key: d' are no key and score 0. Each clip scores mir_eval's weighted key score (1 "
        "same key, 0.5 a fifth above, 0.3 relative, 0.2 parallel major/minor), averaged over clips. A response "
        "given as a list is read by its first element, with a warning (evaluate.py scores such a clip 0).")
_PITCH = ("MIDI pitch (9-119) of an NSynth note from a free-text answer, by the genre rule applied to the 106 numbers "
          "of the test file: correct when the normalised answer contains the note's number and no other of them. "
          "Numbers contain numbers ('9' is in '19', '10' in '100'), so 33 pitches (19, 29, ... 89, 90-108, 110, 113, "
          "115, 116, 118, 119; 948 of the 4,096 notes) can never be credited: answering exactly each note's number "
          "scores 0.7686, not 1, and the publisher's numbers carry that ceiling. Beside it, this site's exact-pitch "
          "column (its own protocol, never ranked with the publisher's numbers) credits a note when every pitch the "
          "answer names (MIDI numbers 0-127, note names with an octave, frequencies in Hz) is the note's.")

def pitch_metrics() -> tuple[MetricSpec, ...]:
    """evaluate.py get_multiclass_acc on the MIDI numbers (the publisher's accuracy, the default sort); and this
    site's exact-pitch accuracy (its own protocol, never the publisher's)."""
    site = MetricSpec("pitch_accuracy", "exact_pitch", "pitch_accuracy", "Exact pitch (site)", decimals=4, description=(
        "This site's exact-pitch protocol, not CMI-Bench's: share of notes whose answer names exactly the note's "
        "MIDI pitch, read as a MIDI number 0-127 standing alone, a note name with its octave (C4 = 60, A4 = 69; #, "
        "b, ♯, ♭, sharp, flat) or a frequency in Hz (nearest pitch), every reading in the answer agreeing; none, or "
        "two that disagree, scores 0. Every pitch can be credited (the publisher's rule caps the perfect answer at "
        "0.7686). Per item: the pitch read."))
    return (*label_accuracy(), site)


def tagging(vocabulary: str) -> tuple[MetricSpec, ...]:
    """evaluate.py multi_label_bert (embed="bert"): macro ROC-AUC and PR-AUC of BERTScore recall per tag; and this
    site's tag-set micro precision, recall and F1 (its own protocol, never the publisher's)."""
    tags = {"vocabulary": vocabulary}
    embedded = ("per tag, BERTScore recall of the lowercased answer against the tag (the configured model; the "
                "publisher's bert_score lang='en' is roberta-large layer 17, and with any other model this column "
                "is not the publisher's protocol), truth = the tag is a substring of the lowercased reference")
    site = ("This site's tag-set protocol, not CMI-Bench's: the answer split on , ; / and newlines, phrases equal to "
            "a vocabulary tag after lowercasing and deleting non-alphanumerics, against the exact reference tags")
    return (
        MetricSpec("bertscore_roc_auc", "cmi_tag_auc", "roc_auc", "ROC-AUC (BERTScore R)", tags, description=(
            f"scikit-learn macro ROC-AUC over the tag columns; {embedded}. Per item: the item's own tag ranking.")),
        MetricSpec("bertscore_pr_auc", "cmi_tag_auc", "pr_auc", "PR-AUC (BERTScore R)", tags, description=(
            f"scikit-learn macro average precision over the tag columns; {embedded}. Per item: the average "
            "precision of the item's own tags.")),
        MetricSpec("micro_f1", "tag_set_f1", "micro_f1", "Tag-set micro-F1 (site)", tags, description=(
            f"{site}; 2TP / (2TP + FP + FN) over all items and tags, clips without a reference tag kept. Per item: "
            "the item's F1 and the tags read.")),
        MetricSpec("micro_precision", "tag_set_f1", "micro_precision", "Tag-set micro-P (site)", tags,
                   description=f"{site}; TP / (TP + FP) over all items and tags."),
        MetricSpec("micro_recall", "tag_set_f1", "micro_recall", "Tag-set micro-R (site)", tags,
                   description=f"{site}; TP / (TP + FN) over all items and tags."),
    )


def _tagging_protocol(what: str) -> str:
    return (f"Multi-label tagging ({what}) from a free-text answer. The publisher's columns (evaluate.py "
            "multi_label_bert, embed='bert'): every vocabulary tag gets the BERTScore recall of the lowercased answer "
            "against it, and a tag counts as true when it is a substring of the lowercased reference, so 'male' is "
            "true for 'female vocal' and 'rock' for 'poprock'; then scikit-learn's macro ROC-AUC and PR-AUC over the "
            "tags. They use the configured BERTScore model: the publisher's is roberta-large layer 17, and any other "
            "model gives numbers of another protocol (the column's signature says which). evaluate.py also prints "
            "a gte-Qwen2-7B-instruct variant (embed='gte'): not computed here. The tag-set columns are this site's "
            "definition of the micro-F1 the Qwen3-Omni report describes (no published script): the answer's tags "
            "as a set (split on , ; / and newlines, matched to the vocabulary after lowercasing and deleting "
            "non-alphanumerics, other phrases ignored) against the exact reference tags; never ranked with the "
            "publisher's columns or with papers' micro-F1.")


_MTG_ORIGIN = ("rebuilt from the official split-0 test TSVs of MTG/mtg-jamendo-dataset @ 1b4fa8c3 with the "
               "publisher's own conversion rules (data/MTG/sft_*.py @ 4c15f410; the repository's task file is in no "
               "stored snapshot), checked item for item against every released CMI-Bench result file; "
               "../shared/data/cmi-bench-tags/README.md says how")
_MTT_ORIGIN = ("rebuilt from the publisher's released result files at 4c15f410 (model/results/qwen2/qwen2_MTT.jsonl; "
               "the task file is in no stored snapshot), in data/MTT/test.tsv order, 997 clips without a top-50 tag; "
               "../shared/data/cmi-bench-tags/README.md says how")
_MTG_LICENCE = ("CC BY 4.0 (CMI-Bench). The labels are MTG-Jamendo metadata, CC BY-NC-SA 4.0 (non-commercial, "
                "share-alike, attribution: MTG/mtg-jamendo-dataset): this site publishes scores, never the labels: "
                "the starter kit, the inputs download and every per-item view and download hold none. The audio "
                "keeps its per-track Creative Commons licences.")
_MTG_WITHHELD = ("MTG-Jamendo's labels are CC BY-NC-SA 4.0: this site publishes scores, never the labels, so "
                 "per-item views and downloads leave the reference tags out")
_MTT_LICENCE = ("CC BY 4.0 (CMI-Bench); MagnaTagATune's labels and audio keep the terms stated on the dataset's site.")
_TAGS_RELEASE = ("github.com/nicolaus625/CMI-bench {} test split @ 4c15f410, rebuilt item for item (the task file is "
                 "in no stored snapshot; ../shared/data/cmi-bench-tags/README.md), with its labels")
_MTG_TSVS = "(from MTG/mtg-jamendo-dataset split-0 TSVs)"
_TAGGING = (
    ("cmi-mtg-genre", "CMI-Bench: MTG-Jamendo genre", "CMI_MTG_genre_test.jsonl", 11479, "87 MTG-Jamendo genres",
     "MTG_genre", _MTG_ORIGIN, _MTG_LICENCE, f"MTG genre {_MTG_TSVS}", "data/MTG/audio-low/14/214.low.mp3"),
    ("cmi-mtg-instrument", "CMI-Bench: MTG-Jamendo instrument", "CMI_MTG_instrument_test.jsonl", 5115,
     "40 MTG-Jamendo instruments", "MTG_instrument", _MTG_ORIGIN, _MTG_LICENCE, f"MTG instrument {_MTG_TSVS}",
     "data/MTG/audio-low/87/4887.low.mp3"),
    ("cmi-mtg-mood", "CMI-Bench: MTG-Jamendo mood/theme", "CMI_MTG_emotion_test.jsonl", 4231,
     "56 MTG-Jamendo moods and themes", "MTG_emotion", _MTG_ORIGIN, _MTG_LICENCE, f"MTG mood/theme {_MTG_TSVS}",
     "data/MTG/audio-low/24/3524.low.mp3"),
    ("cmi-mtg-top50", "CMI-Bench: MTG-Jamendo top-50 tags", "CMI_MTG_top50tags_test.jsonl", 11356,
     "the 50 most frequent MTG-Jamendo tags", "MTG_top50tags", _MTG_ORIGIN, _MTG_LICENCE, f"MTG top-50 {_MTG_TSVS}",
     "data/MTG/audio-low/15/215.low.mp3"),
    ("cmi-mtt", "CMI-Bench: MagnaTagATune top-50 tags", "CMI_MTT_test.jsonl", 5329,
     "the 50 MagnaTagATune tags; 997 clips have none and are kept", "MTT", _MTT_ORIGIN, _MTT_LICENCE,
     "MTT (from the publisher's result files)",
     "data/MTT/mp3/f/american_bach_soloists-j_s__bach_solo_cantatas-01-bwv54__i_aria-30-59.mp3"),
)

CMI_TASKS: tuple[CmiTask, ...] = (
    CmiTask("cmi-gtzan", "CMI-Bench: GTZAN genre", "CMI_GTZAN_test.jsonl", 290,
            "Ten-genre classification of GTZAN clips from a free-text answer: correct when the normalised "
            "answer contains the clip's genre and no other genre.", label_accuracy(), "accuracy",
            audio_example="data/GTZAN/Data/genres_original/blues/blues.00012.wav"),
    CmiTask("cmi-vocalset-tech", "CMI-Bench: VocalSet singing technique", "CMI_VocalSet_tech_test.jsonl", 1140,
            "Ten singing techniques from a free-text answer, by the same rule as genre: 'trillo' and "
            "'lip_trill' contain 'trill', so the publisher's rule never credits them.", label_accuracy(),
            "accuracy",
            audio_example="data/VocalSet/audio/belt/f2_arpeggios_belt_a_00.wav"),
    CmiTask("cmi-nsynth-instrument", "CMI-Bench: NSynth instrument family", "CMI_Nsynth_instrument_test.jsonl",
            4096, "Eleven NSynth instrument families (ten in the test file) from a free-text answer, by the same "
            "rule as genre.", label_accuracy(), "accuracy",
            audio_example="data/NSynth/nsynth-test/audio/bass_synthetic_068-049-025.wav"),
    CmiTask("cmi-emo-arousal", "CMI-Bench: emotion regression (arousal)", "CMI_EMO_arousal_test.jsonl", 125,
            "A 1-9 arousal rating read from each answer, z-scored over the model's answers (non-answers get "
            "the mean) and compared with the z-scored emoMusic labels by R² (torchmetrics, float32).",
            emotion_r2(), "r2",
            audio_example="data/EMO/emomusic/wav/0003.wav"),
    CmiTask("cmi-emo-valence", "CMI-Bench: emotion regression (valence)", "CMI_EMO_valence_test.jsonl", 125,
            "As released (nicolaus625/CMI-bench@4c15f410), the valence test file is byte for byte the arousal "
            "one: its instruction asks for a 1-9 arousal rating and its labels are the arousal labels (the "
            "repository's own valence file carries the arousal instruction too), so for the same answers this "
            "column equals the arousal task's. Scored as "
            "released: the rating read from each answer, z-scored over the model's answers (non-answers get the "
            "mean) and compared with the file's z-scored labels by R² (torchmetrics, float32).",
            emotion_r2(), "r2",
            audio_example="data/EMO/emomusic/wav/0003.wav"),
    CmiTask("cmi-dsing", "CMI-Bench: DSing lyrics transcription", "CMI_DSing_test.jsonl", 482,
            "Sung-lyrics transcription: answer prefixes such as 'The lyrics are:' removed, punctuation "
            "(apostrophes kept) removed, digits spelled out (num2words), then jiwer WER and CER per utterance, "
            "averaged.", lyrics_error_rates(), "wer",
            audio_example=("data/DSing/sing_300x30x2/GB/GBVocals/"
                           "1022289417_2551042-1330592116_1533981558-GB-M-1330592229.m4a")),
    CmiTask("cmi-gtzan-beat", "CMI-Bench: GTZAN beat tracking", "CMI_gtzan_beat_test.jsonl", 290,
            _BEAT.format(what="beat"), beat_tracking("Beat"), "f_measure",
            audio_example="data/GTZAN/Data/genres_original/jazz/jazz.00099.wav"),
    CmiTask("cmi-ballroom-beat", "CMI-Bench: Ballroom beat tracking", "CMI_ballroom_beat_test.jsonl", 685,
            _BEAT.format(what="beat"), beat_tracking("Beat"), "f_measure",
            audio_example="data/ballroom/BallroomData/Rumba-American/Albums-AnaBelen_Veneo-13.wav"),
    CmiTask("cmi-gtzan-downbeat", "CMI-Bench: GTZAN downbeat tracking", "CMI_gtzan_downbeat_test.jsonl", 290,
            _BEAT.format(what="downbeat"), beat_tracking("Downbeat"), "f_measure",
            audio_example="data/GTZAN/Data/genres_original/jazz/jazz.00099.wav"),
    CmiTask("cmi-ballroom-downbeat", "CMI-Bench: Ballroom downbeat tracking", "CMI_ballroom_downbeat_test.jsonl",
            685, _BEAT.format(what="downbeat"), beat_tracking("Downbeat"), "f_measure",
            audio_example="data/ballroom/BallroomData/Rumba-American/Albums-AnaBelen_Veneo-13.wav"),
    CmiTask("cmi-guzheng-tech", "CMI-Bench: Guzheng playing techniques", "CMI_Guzheng_Tech_test.jsonl", 94,
            "The model lists (start, end, technique) events of a 10 s clip as a Python literal (read without "
            "eval()), which become 10 ms frames of 7 techniques. As the released evaluate.py (@ 4c15f410) reads "
            "answers and references alike, only the text up to the first ')' counts, so only the first event of "
            "a list; in a list of tuples a start time must be a quoted number beginning with a digit ('0.5', not "
            "0.5 or ' 0.5'); an end at 10.0 s keeps its frames; an answer with no such event is 'No Tech', and "
            "one on which evaluate.py's reading raises predicts no technique here. Scored by frame F1 pooled "
            "over techniques and clips (micro) and the mean of per-technique F1 (macro).", technique_f1(), "micro_f1",
            "[('0.0000', '1.0000', 'Vibrato')]", commit="4c15f410",
            audio_example="data/Guzheng/Guzheng_Tech99/data/audio/test/74.flac"),
    CmiTask("cmi-sdd", "CMI-Bench: Song Describer captioning", "CMI_SDD_test.jsonl", 1106, _CAPTION,
            captioning(), "bleu",
            audio_example="data/SDD/audio/audio/34/1004034.2min.mp3"),
    CmiTask("cmi-musiccaps", "CMI-Bench: MusicCaps captioning", "CMI_MusicCaps_test.jsonl", 2813, _CAPTION,
            captioning(), "bleu",
            audio_example="data/MusicCaps/audio/sIA-IuTI7AY.wav"),
    CmiTask("cmi-gs-key", "CMI-Bench: GiantSteps key", "CMI_GS_key_test.jsonl", 2406, _KEY, key_score(),
            "weighted_score", "C major", commit="4c15f410", origin=_TAGS_ORIGIN,
            release="github.com/nicolaus625/CMI-bench GS-key test split @ 4c15f410, rebuilt from the publisher's "
                    "result files (the task file is in no stored snapshot), with its labels",
            audio_example="data/GS-key/giantsteps_clips/wav/0010089-0.wav"),
    CmiTask("cmi-nsynth-pitch", "CMI-Bench: NSynth pitch", "CMI_Nsynth_pitch_test.jsonl", 4096, _PITCH,
            pitch_metrics(), "accuracy", "60", commit="4c15f410", origin=_PITCH_ORIGIN,
            release="github.com/nicolaus625/CMI-bench data/NSynth/CMI_Nsynth_pitch.jsonl @ 7dd61d9a with the "
                    "instruction of 4c15f410 (the test split, with its labels)",
            audio_example="data/NSynth/nsynth-test/audio/bass_synthetic_068-049-025.wav"),
    *(CmiTask(name, title, file, items, _tagging_protocol(what), tagging(vocabulary), "bertscore_roc_auc",
              "rock, pop, electronic", commit="4c15f410", origin=origin, licence=licence,
              labels_withheld=_MTG_WITHHELD if licence == _MTG_LICENCE else "",
              release=_TAGS_RELEASE.format(source), audio_example=audio)
      for name, title, file, items, what, vocabulary, origin, licence, source, audio in _TAGGING),
)

BENCHMARKS: dict[str, BenchmarkSpec] = {task.name: cmi_benchmark(task) for task in CMI_TASKS}

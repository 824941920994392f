"""SongFormBench (SongFormer, arXiv 2510.02797): music structure analysis of 300 songs, scored as
ASLP-lab/SongFormer ``eval_infer_results.py`` scores it with ``eval.sh``'s settings.

One split (``test``, 300 songs, labels public) whose columns are per subset, as the publisher reports
them: HarmonixSet (200 English songs) and CN (100 Chinese songs), each a separate mean over its own songs
(the subset is the reference's ``context``). References are the generation contract: ``answer`` = the song's
MSA TXT; predictions are an answer text per song, MSA TXT or a list of segments
(:mod:`scoring.metrics.songform.answers`).
"""

from __future__ import annotations

from scoring.metrics.songform.answers import EVAL_CLASSES
from scoring.metrics.songform.reader import FORMAT
from scoring.publishers.formats import Release
from scoring.publishers.shapes import json_lines_of
from scoring.specs.audio import AudioSource
from scoring.specs.base import BenchmarkSpec, MetricSpec, Profile, SplitSpec, register_benchmark

SOURCE = ("SongFormBench (SongFormer; arXiv 2510.02797); github.com/ASLP-lab/SongFormer "
          "src/SongFormer/evaluation/eval_infer_results.py and eval.sh @ 139b2aa3, msaf 0.1.80, mir_eval 0.8.2")
CITATION = ("Chunbo Hao, Ruibin Yuan, Jixun Yao, et al. SongFormer: Scaling Music Structure Analysis with "
            "Heterogeneous Supervision. arXiv 2510.02797 (2025).")
LICENSE = "CC BY 4.0 (ASLP-lab/SongFormer); HarmonixSet-derived boundaries also MIT (urinieto/harmonixset)."
ORIGIN = (
    "A reconstruction, not the Hugging Face files: the 300 songs of ASLP-lab/SongFormBench as converted by CMI-Bench's "
    "sft_songformer.py (nicolaus625/CMI-bench, development commit 35235cb0, data/songformer/CMI_SongFormBench.jsonl: "
    "(start, end, label) at 4 decimals, zero-length segments dropped), turned back into SongFormer's MSA TXT. Checked: "
    "the same 200 + 100 ids as an independent run of the official script, every segment joined to the next, all "
    "labels in the 8-class set, 1,829 of 2,031 internal HarmonixSet boundaries equal to HarmonixSet's own. Times "
    "are to 4 decimals; 20 songs end 0.01-0.33 s after their audio's duration. Labels public.")
DEVIATIONS = (
    "Deviations from the script, on purpose: it silently skips a song without a prediction file and any song whose "
    "file it cannot read (unsorted or repeated times, an unknown label, no final 'end' line, a time above 30,000 s), "
    "which inflates its means; here every song must be answered, any answer is read (MSA TXT lines, start-end-label "
    "lines, or a list of [start, end, label] segments; seconds or m:ss), repaired as documented (sorted, the last of "
    "equal times kept, negative times 0, no end line: the annotated end, labels matched case-insensitively, others "
    "kept as matching nothing) with a warning naming its line, and an answer with no readable section scores 0 "
    "(counted as unparsed). Where cal_acc would divide by zero (no common span), ACC is 0.")
METRICS = {
    "hr05_f": ("HR.5F", "Boundary hit rate F at ±0.5 s (mir_eval.segment.detection, trim=False: the song's start "
               "and end count), mean over songs."),
    "hr3_f": ("HR3F", "Boundary hit rate F at ±3 s (trim=False), mean over songs."),
    "hr1_f": ("HR1F", "Boundary hit rate F at ±1 s (trim=False), mean over songs."),
    "pwf": ("PWF", "Pairwise frame clustering F (mir_eval.segment.pairwise, 0.1 s frames, after adjust_intervals), "
            "mean over songs."),
    "sf": ("Sf", "Normalised conditional entropy F (mir_eval.segment.nce, 0.1 s frames), mean over songs."),
    "iou": ("IoU", "Per-label intersection over union in seconds, pooled: all intersections over all unions of "
            "the subset's songs and labels."),
}
BREAKDOWNS = {
    **{f"{w}_{part}": (f"HR{label}{part.upper()}",
                       f"Boundary hit rate {name} at ±{sec} s (trim=False), mean over songs.")
       for w, label, sec in (("hr05", ".5", "0.5"), ("hr1", "1", "1"), ("hr3", "3", "3"))
       for part, name in (("p", "precision"), ("r", "recall"))},
    "pwp": ("PWP", "Pairwise frame clustering precision, mean over songs."),
    "pwr": ("PWR", "Pairwise frame clustering recall, mean over songs."),
    "so": ("So", "Normalised conditional entropy, over-segmentation score, mean over songs."),
    "su": ("Su", "Normalised conditional entropy, under-segmentation score, mean over songs."),
    **{f"iou_{label}": (f"IoU {label}", f"Intersection over union of '{label}' segments pooled over the subset's "
                        "songs (pre-chorus counted as verse).") for label in EVAL_CLASSES},
}
SUBSET_KEYS = {"HarmonixSet": "hx", "CN": "cn"}


def subset_metrics(subset: str) -> tuple[MetricSpec, ...]:
    """The columns of one subset: ACC first (the papers' tables' first column), then the rest."""
    prefix, params = SUBSET_KEYS[subset], {"subset": subset}
    acc = MetricSpec(f"{prefix}_acc", "songform", "acc", f"{subset} ACC", params, description=(
        f"{subset}: duration-weighted label accuracy over the span both cover (cal_acc, times to the millisecond), "
        "mean over songs."))
    main = tuple(MetricSpec(f"{prefix}_{key}", "songform", key, f"{subset} {label}", params,
                            description=f"{subset}: {text}") for key, (label, text) in METRICS.items())
    extra = tuple(MetricSpec(f"{prefix}_{key}", "songform", key, f"{subset} {label}", params, descriptive=True,
                             description=f"{subset}: {text}") for key, (label, text) in BREAKDOWNS.items())
    return (acc, *main, *extra)


PROFILE = Profile(
    "songformer-eval", "SongFormer eval_infer_results.py with eval.sh's settings (--prechorus2what verse, no "
    f"merging of continuous segments), one mean per subset. {DEVIATIONS}",
    (*subset_metrics("HarmonixSet"), *subset_metrics("CN")),
    "ASLP-lab/SongFormer eval_infer_results.py@139b2aa3")

SAMPLE_ANSWER = "0.000 intro\n12.500 verse\n45.000 chorus\n200.000 end"

BENCHMARK = register_benchmark(BenchmarkSpec(
    name="songformbench", title="SongFormBench: song structure", task_type="generation",
    description=(
        "Music structure analysis: for each song, its sections as 'start label' lines with a final 'end' line "
        "(SongFormer's MSA TXT) or a list of [start, end, label] segments, labels intro, verse, pre-chorus, chorus, "
        "bridge, inst, outro, silence. Scored per song as SongFormer's evaluation script scores it (pre-chorus "
        "counted as verse): boundary hit rates at 0.5, 1 and 3 s, pairwise and entropy clustering F, "
        "duration-weighted accuracy and per-label IoU, averaged over the songs of each subset (HarmonixSet, CN), "
        f"which are reported separately. {DEVIATIONS}"),
    profiles=(PROFILE,), official_profile="songformer-eval", default_sort="hx_acc",
    source=f"{SOURCE}. {CITATION}", data_origin=ORIGIN, license=LICENSE, citation=CITATION,
    sample_answer=SAMPLE_ANSWER, publisher=FORMAT,
    releases=(Release("songformbench_segments.jsonl", FORMAT, "ASLP-lab/SongFormBench (all 300 songs), "
                      "reconstructed from github.com/nicolaus625/CMI-bench data/songformer/CMI_SongFormBench.jsonl @ "
                      "35235cb0 into SongFormer's annotation format",
                      json_lines_of("test", ("id", "subset", "segments"), "songformbench_segments.jsonl")),),
    audio_source=AudioSource(
        name="SongFormBench (Hugging Face ASLP-lab/SongFormBench)",
        url="https://huggingface.co/datasets/ASLP-lab/SongFormBench",
        how=("The Hugging Face dataset ASLP-lab/SongFormBench publishes the benchmark. HarmonixSet items name their "
             "YouTube address in the audio field (fetch with yt-dlp; a few carry a note such as 'needs to be 2.4% "
             "sped-up'); the CN subset has no public audio link."),
        licence="CC BY 4.0 (ASLP-lab/SongFormer LICENSE); HarmonixSet annotations MIT.",
        layout="{value}.wav", fields=("id",),
        notes="Files named by item id: this site's convention. The question gives the duration the annotation uses.",
        example="BHX_0798_lovelikethis.wav",
    ),
    splits=(SplitSpec("test", "Test (300 songs: HarmonixSet 200, CN 100)",
                      "Public labels (CC BY 4.0); columns per subset, as the publisher reports them."),)))

"""MMAR and RUL-MuChoMusic: multiple choice scored by their publishers' released code.

MMAR uses MMAU's ``string_match`` (one more :func:`~scoring.specs.mcq.mcq_benchmark`);
RUL-MuChoMusic asks each MuChoMusic question four times, one distractor left out each time, and
scores the majority vote of the four extracted answers (``scoring/metrics/leave_one_out.py``).
Every column is a percentage (0-100).
"""

from __future__ import annotations

from scoring.publishers.formats import Release
from scoring.publishers.mmar_importers import MMAR as MMAR_FORMAT
from scoring.publishers.rul_importers import RUL_MUCHOMUSIC as RUL_FORMAT
from scoring.publishers.shapes import json_array_of, json_lines_of, json_object_of
from scoring.specs.base import BenchmarkSpec, MetricSpec, Profile, SplitSpec, register_benchmark
from scoring.specs.mcq import accuracy, breakdown, mcq_benchmark, slug

MMAR_MODALITIES = ("sound", "music", "speech", "mix-sound-music", "mix-sound-speech", "mix-music-speech",
                   "mix-sound-music-speech")
MMAR_KEYS = ("id", "question", "choices", "answer", "modality")  # the first record's keys in a released file
MMAR_LAYERS = ("Signal", "Perception", "Semantic", "Cultural")
MMAR_SUB_CATEGORIES = (  # MMAR-meta.jsonl @ 3bce090a, alphabetical
    "Acoustic Quality Analysis", "Aesthetic Evaluation", "Anomaly Detection", "Audio Difference Analysis",
    "Content Analysis", "Correlation Analysis", "Counting and Statistics", "Culture of Speaker",
    "Emotion and Intention", "Environmental Perception and Reasoning", "Imagination", "Music Theory",
    "Professional Knowledge and Reasoning", "Spatial Analysis", "Speaker Analysis", "Temporal Analysis",
)

MMAR = mcq_benchmark(
    name="mmar",
    title="MMAR: deep reasoning in speech, audio, music and their mix (multiple choice)",
    description=("1,000 multiple-choice items from real-world videos over sound, music, speech and their four "
                 "mixes, in four layers (signal, perception, semantic, cultural). Scored with the released "
                 "string_match (MMAU's); every item must be answered: the released script skips rows without a "
                 "prediction, which inflates its accuracy, and this site refuses such files."),
    profile=Profile("mmar-string-match", (
        "Raw string_match of the released code/evaluation.py: token sets; a bare letter is never credited; a "
        "word of a wrong choice in the answer makes it wrong."), (
        accuracy("mmar", "accuracy", "Total acc.", description="Micro accuracy (%) over every item ('Total')."),
        *(accuracy("mmar", f"{slug(m)}_accuracy", m.replace("mix-", "mix ").replace("-", "+").capitalize(),
                   f"modality={m}", description=f"Accuracy (%) over the {m} items.") for m in MMAR_MODALITIES),
        *(accuracy("mmar", f"{layer.lower()}_layer_accuracy", f"{layer} layer", f"category={layer} Layer",
                   description=f"Accuracy (%) over the {layer} Layer items.") for layer in MMAR_LAYERS),
        *breakdown("mmar", "sub-category", MMAR_SUB_CATEGORIES, "subcat"),
    )),
    source=("MMAR (NeurIPS 2025 Datasets and Benchmarks, arXiv 2505.13032); github.com/ddlBoJack/MMAR "
            "code/evaluation.py @ 3bce090a"),
    data_origin=("MMAR-meta.jsonl from github.com/ddlBoJack/MMAR @ 3bce090a (item id = the released id); the gold "
                 "file's content hash is part of every signature."),
    license="CC BY-NC 4.0 (dataset card); audio from the source videos.",
    publisher=MMAR_FORMAT,
    releases=(
        Release("MMAR-meta.jsonl", MMAR_FORMAT, "github.com/ddlBoJack/MMAR MMAR-meta.jsonl @ 3bce090a",
                json_lines_of("test", MMAR_KEYS, "MMAR-meta.jsonl")),
        Release("MMAR-meta.json", MMAR_FORMAT, "github.com/ddlBoJack/MMAR MMAR-meta.json (the name its README gives; "
                "a JSON array)", json_array_of("test", MMAR_KEYS, "MMAR-meta.json")),
    ),
    citation=("Ziyang Ma, Yinghao Ma, Yanqiao Zhu, Chen Yang, Yi-Wen Chao, Ruiyang Xu, et al. MMAR: A Challenging "
              "Benchmark for Deep Reasoning in Speech, Audio, Music, and Their Mix. NeurIPS 2025 Datasets and "
              "Benchmarks (arXiv:2505.13032)."),
    splits=(SplitSpec("test", "Test (1,000 items)", "Public gold answers."),),
)


def _rul_accuracy(key: str, output: str, label: str, description: str, *, per_item: bool = False) -> MetricSpec:
    return MetricSpec(key, "leave_one_out", output, label, {"per_item": True} if per_item else {}, scale=100.0,
                      decimals=2, description=description)


RUL_MUCHOMUSIC = register_benchmark(BenchmarkSpec(
    name="rul-muchomusic",
    title="RUL-MuChoMusic: are you really listening? (leave-one-out multiple choice)",
    task_type="leave_one_out",
    description=("1,187 MuChoMusic questions with four new distractors each. Every question is asked four times, "
                 "one distractor left out each time (correct answer and three distractors in a seeded order "
                 "published in the inputs download); the answer extracted from each response votes, and the most "
                 "frequent answer is the item's."),
    profiles=(Profile("rul-leave-one-out", (
        "The released extract_answer on each response ([[X]], then 'answer is/chose/select/guess X', then "
        "'option X'/'(X)', then the option text), majority vote as Counter.most_common(1)."), (
        _rul_accuracy("accuracy", "correct", "Accuracy", "Items whose majority-vote answer is correct / all items "
                      "(%); no extracted answer = wrong.", per_item=True),
        _rul_accuracy("pass_accuracy", "pass_correct", "Pass acc.", "Correct prompts / all prompts (%), each "
                      "of the four leave-one-out prompts on its own."),
        _rul_accuracy("answered_rate", "answered", "Answered", "Items with an extracted answer / all items (%)."),
    )),),
    official_profile="rul-leave-one-out",
    default_sort="accuracy",
    source=("Zang et al., 'Are you really listening? Boosting perceptual awareness in music-QA benchmarks' "
            "(ISMIR 2025); github.com/yongyizang/AreYouReallyListening ExampleAudioEval/qwen_2_audio.py @ d3971de1"),
    data_origin=("RUL-MuchoMusic.json from github.com/yongyizang/AreYouReallyListening @ d3971de1 (item id = the "
                 "released question id); questions from MuChoMusic."),
    license="MIT (repository); questions derive from MuChoMusic (CC BY-SA 4.0).",
    citation=("Yongyi Zang, Sean O'Brien, Taylor Berg-Kirkpatrick, Julian McAuley, Zachary Novack. Are you really "
              "listening? Boosting perceptual awareness in music-QA benchmarks. ISMIR 2025 (arXiv:2504.00369); and "
              "Benno Weck et al. MuChoMusic: Evaluating Music Understanding in Multimodal Audio-Language Models. "
              "ISMIR 2024 (arXiv:2408.01337)."),
    splits=(SplitSpec("test", "Test (1,187 questions)", "Public gold answers."),),
    releases=(Release("RUL-MuchoMusic.json", RUL_FORMAT,
                      "github.com/yongyizang/AreYouReallyListening RUL-MuchoMusic.json @ d3971de1",
                      json_object_of("test", ("question", "correct_answer", "distractors"), "RUL-MuchoMusic.json")),),
))

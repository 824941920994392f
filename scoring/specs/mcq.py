"""Multiple-choice music QA benchmarks (MMAU, MuChoMusic), scored by their publishers' released matchers.

See ``shared/design/mcq-benchmarks.md``. Every column is a percentage (0-100). Breakdowns by
difficulty, sub-category or dimension are descriptive columns: shown on the entry, never ranked on.
The next benchmark of this kind (MMAR uses MMAU's matcher) is one more :func:`mcq_benchmark` call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scoring.publishers.formats import PublisherFormat, Release
from scoring.publishers.mcq_importers import MMAU as MMAU_FORMAT
from scoring.publishers.mcq_importers import MUCHOMUSIC as MUCHOMUSIC_FORMAT
from scoring.publishers.shapes import csv_with, json_array_of
from scoring.specs.base import BenchmarkSpec, MetricSpec, Profile, SplitSpec, register_benchmark

MMAU_KEYS = ("id", "question", "choices", "answer", "task")  # the first record's keys in a released file
MMAU_TASKS = ("music", "sound", "speech")
MMAU_DIFFICULTIES = ("easy", "medium", "hard")
MMAU_SUB_CATEGORIES = (  # test-mini @ f0a4a97d, in the order of the task they belong to
    "Emotional Tone Interpretation", "Harmony and Chord Progressions", "Instrumentation", "Lyrical Reasoning",
    "Melodic Structure Interpretation", "Musical Genre Reasoning", "Musical Texture Interpretation",
    "Rhythm and Tempo Understanding", "Socio-cultural Interpretation", "Temporal Reasoning",
    "Acoustic Scene Reasoning", "Acoustic Source Inference", "Ambient Sound Interpretation",
    "Eco-Acoustic Knowledge", "Event-Based Sound Reasoning", "Sound-Based Event Recognition",
    "Temporal Event Reasoning",
    "Conversational Fact Retrieval", "Counting", "Dissonant Emotion Interpretation", "Emotion Flip Detection",
    "Emotion State summarisation", "Event-Based Knowledge Retrieval", "Key highlight Extraction",
    "Multi Speaker Role Mapping", "Phonemic Stress Pattern Analysis", "Phonological Sequence Decoding",
)
MUCHOMUSIC_KNOWLEDGE = ("melody", "harmony", "metre and rhythm", "instrumentation", "sound texture",
                        "performance", "structure")
MUCHOMUSIC_REASONING = ("mood and expression", "temporal relations between elements", "lyrics",
                        "genre and style", "historical and cultural context", "functional context")


def slug(text: str) -> str:
    """A column key fragment: ``"Socio-cultural Interpretation"`` -> ``socio_cultural_interpretation``."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def accuracy(matcher: str, key: str, label: str, applies_to: str | None = None, *,
             descriptive: bool = False, description: str = "") -> MetricSpec:
    """Percentage of items (of a subset) the matcher counts correct; the overall one keeps per-item choices."""
    params = {"matcher": matcher, **({"per_item": True} if applies_to is None else {})}
    return MetricSpec(key, "mcq", "correct", label, params, scale=100.0, applies_to=applies_to, decimals=2,
                      descriptive=descriptive, description=description)


def mapped_accuracy(matcher: str, key: str, label: str, applies_to: str | None = None, *,
                    description: str = "") -> MetricSpec:
    """Percentage of items correct once an LLM judge has mapped each answer onto an option (``mcq_mapped``):
    one column per configured judge, not computed where none is."""
    params = {"matcher": matcher, "profile": "mmau-answer-mapping",
              **({"per_item": True} if applies_to is None else {})}
    return MetricSpec(key, "mcq_mapped", "correct", f"{label} (LLM-mapped)", params, scale=100.0,
                      applies_to=applies_to, decimals=2, description=description,
                      quantity=key.removeprefix("mapped_"))


def breakdown(matcher: str, field: str, values: Iterable[str], prefix: str) -> tuple[MetricSpec, ...]:
    """One descriptive accuracy column per value of a metadata field."""
    return tuple(accuracy(matcher, f"{prefix}_{slug(v)}", v, f"{field}={v}", descriptive=True,
                          description=f"Accuracy (%) over items whose {field} is {v!r}.") for v in values)


def mcq_benchmark(*, name: str, title: str, description: str, profile: Profile, source: str,
                  data_origin: str, license: str, splits: tuple[SplitSpec, ...],
                  publisher: PublisherFormat | None = None, releases: tuple[Release, ...] = (),
                  default_sort: str = "accuracy", citation: str = "") -> BenchmarkSpec:
    """Register a multiple-choice benchmark whose official profile is a publisher's matcher."""
    return register_benchmark(BenchmarkSpec(
        name=name, title=title, task_type="multiple_choice", description=description, profiles=(profile,),
        official_profile=profile.name, default_sort=default_sort, source=source, data_origin=data_origin,
        license=license, splits=splits, publisher=publisher, releases=releases, citation=citation))


_MMAU_RAW = ("Raw string_match of the released evaluation.py (no GPT-4o parsing): a bare letter is never "
             "credited; filler words that occur in a wrong choice make an answer wrong.")

_MMAU_MAPPED = ("Accuracy (%) over {items} after a configured LLM judge maps each answer onto one option (this "
                "site's prompt, judge profile mmau-answer-mapping; the judge never sees the gold), then the released "
                "string_match; an answer mapped to none, or not mapped, is scored as written. The official board's "
                "GPT-4o mapping is unreleased, so its numbers are another protocol. Not computed without a judge.")

MMAU = mcq_benchmark(
    name="mmau",
    title="MMAU: massive multi-task audio understanding (multiple choice)",
    description=("Multiple-choice audio QA over music, sound and speech (test-mini: 1,000 items, 334 music). "
                 "Scored with the released string_match; every item must be answered, and a missing or empty "
                 "answer counts as wrong (the released script skips missing items)."),
    profile=Profile("mmau-string-match", _MMAU_RAW, (
        accuracy("mmau", "accuracy", "Total acc.", description="Micro accuracy (%) over every item ('Total')."),
        *(accuracy("mmau", f"{task}_accuracy", f"{task.capitalize()} acc.", f"task={task}",
                   description=f"Accuracy (%) over the {task} items.") for task in MMAU_TASKS),
        *breakdown("mmau", "difficulty", MMAU_DIFFICULTIES, "difficulty"),
        *breakdown("mmau", "sub-category", MMAU_SUB_CATEGORIES, "subcat"),
        mapped_accuracy("mmau", "mapped_accuracy", "Total acc.", description=_MMAU_MAPPED.format(items="every item")),
        *(mapped_accuracy("mmau", f"mapped_{task}_accuracy", f"{task.capitalize()} acc.", f"task={task}",
                          description=_MMAU_MAPPED.format(items=f"the {task} items")) for task in MMAU_TASKS),
    )),
    source="MMAU (ICLR 2025, arXiv 2410.19168); github.com/Sakshi113/MMAU evaluation.py @ 74682927",
    data_origin=("mmau-test-mini.json from github.com/Sakshi113/MMAU (MMAU-v05.15.25, last changed f0a4a97d, "
                 "2025-08-09); the gold file's content hash is part of every signature."),
    license="Apache-2.0 (repository); audio from the source datasets' licences.",
    publisher=MMAU_FORMAT,
    releases=(
        Release("mmau-test-mini.json", MMAU_FORMAT, "github.com/Sakshi113/MMAU mmau-test-mini.json @ f0a4a97d "
                "(MMAU-v05.15.25)", json_array_of("test-mini", MMAU_KEYS, "mmau-test-mini.json"), ("test-mini",)),
        Release("mmau-test.json", MMAU_FORMAT, "github.com/Sakshi113/MMAU mmau-test.json, with the answers the "
                "authors withhold", json_array_of("test", MMAU_KEYS, "mmau-test.json with answers"),
                labels_public=False),
    ),
    default_sort="music_accuracy",  # a music leaderboard; every published row has the Music column
    splits=(
        SplitSpec("test-mini", "test-mini (1,000 items)", "Public gold answers."),
        SplitSpec("test", "test (9,000 items)", "Answers withheld by the authors; scored here only when a "
                  "maintainer holds them.", hidden_labels=True),
    ),
)

MUCHOMUSIC = mcq_benchmark(
    name="muchomusic",
    title="MuChoMusic: multiple-choice music understanding",
    description=("1,187 questions on 644 tracks (Song Describer, MusicCaps), 4 options each, shown in one seeded "
                 "order this site publishes (inputs download); files with other options or orders are rejected."),
    profile=Profile("muchomusic-extract", (
        "The released extract_responses: the last 'The correct answer is:' cut, exactly one distinct capital "
        "A-D anywhere (characters, not words), else the first option text (shown order) inside the output."), (
        accuracy("muchomusic", "accuracy", "Accuracy", description="Correct / all items (%); unanswered = wrong."),
        MetricSpec("instruction_following_rate", "mcq", "answered", "IFR", {"matcher": "muchomusic"},
                   scale=100.0, decimals=2, description="Answered items / all items (%): 1 - unanswered rate."),
        accuracy("muchomusic", "knowledge_accuracy", "Knowledge acc.", "knowledge=*",
                 description="Accuracy (%) over items with at least one knowledge dimension."),
        accuracy("muchomusic", "reasoning_accuracy", "Reasoning acc.", "reasoning=*",
                 description="Accuracy (%) over items with at least one reasoning dimension."),
        *breakdown("muchomusic", "knowledge", MUCHOMUSIC_KNOWLEDGE, "knowledge"),
        *breakdown("muchomusic", "reasoning", MUCHOMUSIC_REASONING, "reasoning"),
    )),
    source="MuChoMusic (ISMIR 2024, arXiv 2408.01337); github.com/mulab-mir/muchomusic @ d3c9a423",
    data_origin="muchomusic.csv (Zenodo 10.5281/zenodo.12709974; HF mulab-mir/muchomusic).",
    license="CC BY-SA 4.0 (questions); audio from Song Describer and MusicCaps.",
    publisher=MUCHOMUSIC_FORMAT,
    releases=(Release("muchomusic.csv", MUCHOMUSIC_FORMAT, "Zenodo 10.5281/zenodo.12709974 (MuChoMusic)",
                      csv_with("test", ("question", "correct_answer", "distractor_1_answer", "dataset_identifier"),
                               "muchomusic.csv")),),
    splits=(SplitSpec("test", "Test (1,187 questions)", "Public gold answers."),),
)

"""CMI-Bench (ISMIR 2025): instruction-following music models scored with the MIR field's own metrics.

Every task is one benchmark on the ``generation`` contract (reference ``answer`` = the released
``output``; prediction = the model's raw ``response``), read from the publisher's own files with
``--references-format cmi-bench`` / ``--predictions-format cmi-bench`` (``scoring/cmi_importers.py``:
item ids derived from ``audio_path``, ``audio_start``, ``audio_end``), and scored by a metric family
that reproduces nicolaus625/CMI-bench ``evaluate.py`` for that task.

**Adding a CMI task**: write its metric family (a module of its own under ``scoring/metrics/``,
registered in ``scoring/metrics/__init__.py``), add a function here returning its
:class:`MetricSpec` columns (like :func:`label_accuracy`), and add one :class:`CmiTask` row to
:data:`CMI_TASKS` (name, title, released file, item count, protocol sentence, metrics, default
sort). :func:`cmi_benchmark` registers each row; nothing else needs to change (the site, CLI and
importers read the spec).
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.specs.base import BenchmarkSpec, MetricSpec, Profile, SplitSpec, register_benchmark

SOURCE = ("CMI-Bench (ISMIR 2025); github.com/nicolaus625/CMI-bench evaluate.py @ 2cafca5d "
          "(test files @ 4c15f410)")
LICENSE = "CC BY 4.0 (CMI-Bench); the audio datasets keep their own licences."
CITATION = ("Yinghao Ma, Siyou Li, Juntao Yu, Emmanouil Benetos, Akira Maezawa. CMI-Bench: A Comprehensive "
            "Benchmark for Evaluating Music Instruction Following. ISMIR 2025; arXiv 2506.12285.")
NO_EVAL = ("Responses are parsed with safe parsers only: where evaluate.py calls Python eval() on model "
           "output, the same values are read without executing it.")


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


def label_accuracy() -> tuple[MetricSpec, ...]:
    """Classification accuracy by evaluate.py's normalised-substring rule (0-1, as printed)."""
    return (MetricSpec("accuracy", "cmi_label", "accuracy", "Accuracy", decimals=4, description=(
        "Share of items whose normalised response contains the item's label and no other label of the "
        "test file (evaluate.py get_multiclass_acc)")),)


def cmi_benchmark(task: CmiTask) -> BenchmarkSpec:
    """Register one CMI-Bench task as a benchmark scored by its publisher's rules."""
    return register_benchmark(BenchmarkSpec(
        name=task.name, title=task.title, task_type="generation",
        description=f"{task.protocol} {NO_EVAL}",
        profiles=(Profile("cmi-evaluate", f"nicolaus625/CMI-bench evaluate.py rules. {NO_EVAL}", task.metrics),),
        official_profile="cmi-evaluate", default_sort=task.default_sort, source=f"{SOURCE}. {CITATION}",
        data_origin=f"{task.file} as released in the CMI-Bench repository ({task.items:,} items, labels public).",
        license=LICENSE, publisher_format="cmi-bench",
        splits=(SplitSpec("test", f"Test ({task.items:,} items)", "Public labels, as released."),)))


CMI_TASKS: tuple[CmiTask, ...] = (
    CmiTask("cmi-gtzan", "CMI-Bench: GTZAN genre", "CMI_GTZAN_test.jsonl", 290,
            "Ten-genre classification of GTZAN clips from a free-text answer: correct when the normalised "
            "answer contains the clip's genre and no other genre.", label_accuracy(), "accuracy"),
    CmiTask("cmi-vocalset-tech", "CMI-Bench: VocalSet singing technique", "CMI_VocalSet_tech_test.jsonl", 1140,
            "Ten singing techniques from a free-text answer, by the same rule as genre: 'trillo' and "
            "'lip_trill' contain 'trill', so the publisher's rule never credits them.", label_accuracy(),
            "accuracy"),
    CmiTask("cmi-nsynth-instrument", "CMI-Bench: NSynth instrument family", "CMI_Nsynth_instrument_test.jsonl",
            4096, "Eleven NSynth instrument families (ten in the test file) from a free-text answer, by the same "
            "rule as genre.", label_accuracy(), "accuracy"),
)

BENCHMARKS: dict[str, BenchmarkSpec] = {task.name: cmi_benchmark(task) for task in CMI_TASKS}

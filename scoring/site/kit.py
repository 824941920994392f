"""A split's starter kit: a sample prediction file built from its public inputs only.

Every item gets a placeholder answer of the right shape for the benchmark's task type, so the
file passes the split's validation and scores at chance, never like a result: a choice among the
shown options (a multiple-choice option, a leave-one-out letter, yes or no, a ranking's order) is
drawn at random per item, seeded by the item id (the same file every time), so no fixed pick rides
on how a benchmark's answers happen to fall (always option 1 scores 39.8% on MMAU test-mini, above
its random baseline). :func:`sample_note` says so beside the file. Only ``(id, public fields)`` go
in (the ``inputs.jsonl`` contents), never a label: the sample of a hidden-label split is the same
kind of file as any other's.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import resources
from typing import Any

PLACEHOLDER = "placeholder answer"
SAMPLE_SEED = "kit-sample-v1"
LETTERS = "ABCDEFGHIJ"

Sample = Callable[[str, Mapping[str, Any]], dict[str, Any]]


def draw(item_id: str) -> random.Random:
    """The placeholder's random choices for one item, seeded by its id."""
    return random.Random(int.from_bytes(hashlib.sha256(f"{SAMPLE_SEED}:{item_id}".encode()).digest()[:8], "big"))


def _ranking(item_id: str, public: Mapping[str, Any]) -> dict[str, Any]:
    candidates = list(public.get("candidates", ()))
    draw(item_id).shuffle(candidates)
    return {"id": item_id, "ranking": candidates}


def _text(item_id: str, public: Mapping[str, Any], answer: str = "") -> dict[str, Any]:
    return {"id": item_id, "prediction": answer or PLACEHOLDER}


def _comparative(item_id: str, public: Mapping[str, Any]) -> dict[str, Any]:
    if public.get("qa_type") == "yes_no":
        return {"id": item_id, "prediction": draw(item_id).choice(("yes", "no"))}
    return {"id": item_id, "prediction": PLACEHOLDER}


def _multiple_choice(item_id: str, public: Mapping[str, Any]) -> dict[str, Any]:
    shown = [o for o in public.get("options", ()) if isinstance(o, str) and o.strip()]
    return {"id": item_id, "prediction": draw(item_id).choice(shown) if shown else PLACEHOLDER}


def _leave_one_out(item_id: str, public: Mapping[str, Any]) -> dict[str, Any]:
    """A random letter among each prompt's options, in the leave-one-out extractor's explicit form ``[[B]]``."""
    rng = draw(item_id)
    responses = []
    for prompt in public.get("prompts", ()):
        options = prompt.get("options") if isinstance(prompt, Mapping) else None
        count = min(len(options), len(LETTERS)) if isinstance(options, list) and options else 4
        responses.append(f"[[{rng.choice(LETTERS[:count])}]]")
    return {"id": item_id, "responses": responses}


FORMATS: dict[str, str] = {
    "ranking": ('{"id": ..., "ranking": [every candidate id, best first]} or {"id": ..., "scores": {candidate id: '
                'number, higher is better}}'),
    "generation": '{"id": ..., "prediction": "the model\'s text"}',
    "comparative_qa": ('{"id": ..., "prediction": "the model\'s answer"} (yes/no items: an answer starting with '
                       'yes or no)'),
    "multiple_choice": ('{"id": ..., "prediction": "the model\'s raw answer"}; an "options" field, when given, must '
                        'equal the item\'s options in the published order'),
    "leave_one_out": ('{"id": ..., "responses": ["the model\'s raw response to each prompt", ...]}, one per prompt, in '
                      'the order of the item\'s prompts'),
}

SAMPLES: dict[str, Sample] = {
    "ranking": _ranking,
    "generation": _text,
    "comparative_qa": _comparative,
    "multiple_choice": _multiple_choice,
    "leave_one_out": _leave_one_out,
}


NOTES: dict[str, str] = {
    "ranking": "each item's candidates in a random order (seeded by the item id): chance level",
    "generation": f'every item answered "{PLACEHOLDER}" (or the benchmark\'s own placeholder text): near zero',
    "comparative_qa": f'yes or no at random on yes/no items (seeded by the item id), "{PLACEHOLDER}" elsewhere',
    "multiple_choice": "one of each item's options at random (seeded by the item id): chance level, not a result",
    "leave_one_out": "a random letter for each prompt (seeded by the item id): chance level, not a result",
}


def sample_note(task_type: str) -> str:
    """One sentence: what the sample file answers, so that its score is never read as a result."""
    return f"Placeholder answers: {NOTES.get(task_type, 'a placeholder for every item')}."


def prediction_format(task_type: str) -> str:
    """One sentence: the shape of a prediction line for ``task_type``."""
    return FORMATS.get(task_type, '{"id": ..., "prediction": "..."}')


def sample_prediction(task_type: str, item_id: str, public: Mapping[str, Any], answer: str = "") -> dict[str, Any]:
    """One placeholder prediction record for an item of ``task_type``, from its public fields.

    ``answer``: a benchmark's own placeholder text (``BenchmarkSpec.sample_answer``) for text predictions."""
    if answer and task_type == "generation":
        return _text(item_id, public, answer)
    try:
        make = SAMPLES[task_type]
    except KeyError:
        raise KeyError(f"no sample predictions for task type {task_type!r}; "
                       "add one to scoring.site.kit.SAMPLES") from None
    return make(item_id, public)


def sample_lines(task_type: str, items: Iterable[tuple[str, Mapping[str, Any]]], answer: str = "") -> Iterator[str]:
    """JSONL lines (with their newline) of a sample prediction file for ``(item id, public fields)``."""
    for item_id, public in items:
        yield json.dumps(sample_prediction(task_type, item_id, public, answer), ensure_ascii=False) + "\n"


def submit_command(benchmark: str, split: str, site: str, settings: Iterable[str] = ()) -> str:
    """The CLI line that checks and uploads a prediction file to one split of ``site``."""
    parts = [f"python -m scoring submit --site {site} --benchmark {benchmark} --split {split}",
             "--predictions predictions.jsonl --model-name MyModel",
             *(f"--setting {key}=VALUE" for key in settings)]
    return " \\\n    ".join(parts)



EXAMPLES_PACKAGE = "scoring.kit_examples"
TEXT_SHAPES = "text_shapes"  # the example for benchmarks whose text answers are parsed in a set shape
SHAPED_FORMATS = ("cmi-bench", "songformbench")  # their publishers' formats


def example_module(task_type: str, publisher_format: str = "") -> str:
    """The module of the "run a model" example for a benchmark (``python -m`` runs it): its task type's, or the
    text-shapes example for CMI-Bench and SongFormBench."""
    if task_type not in SAMPLES:
        raise KeyError(f"no run-a-model example for task type {task_type!r}; add scoring/kit_examples/{task_type}.py")
    shaped = task_type == "generation" and publisher_format in SHAPED_FORMATS
    return f"{EXAMPLES_PACKAGE}.{TEXT_SHAPES if shaped else task_type}"


def example_script(module: str) -> str:
    """The source text of an example module (:func:`example_module`), as shipped in the package."""
    package, _, name = module.rpartition(".")
    return (resources.files(package) / f"{name}.py").read_text(encoding="utf-8")


def example_command(module: str, benchmark: str) -> str:
    """The command line that runs an example on a split's ``inputs.jsonl`` with the audio under ``ROOT``."""
    return f"python -m {module} --benchmark {benchmark} --inputs inputs.jsonl --audio-root ROOT --out predictions.jsonl"

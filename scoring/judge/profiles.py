"""Judge profiles: a rubric as data, loaded from a TOML file.

A profile names its source (the rubric it implements), the items it applies
to, a system prompt, a user template with ``{placeholders}``, the reply's
output spec (numeric fields with ranges, or a label with allowed labels) and
how reply values become outputs (numeric fields as they are, weighted sums
with caps, one indicator per label). The built-in profiles live in
``scoring/judge/templates/``; a maintainer adds one by dropping a TOML file
there, by listing its path in ``SCORING_JUDGE_PROFILES`` (``os.pathsep``-separated
files or folders), or with :func:`register_profile_file`.

Predictions are data, not instructions: the template must enclose
``{prediction}`` in ``<prediction>...</prediction>``, and any tag that looks
like one of the template's delimiters is neutralised in every inserted value.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import threading
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring.judge.parsing import FieldSpec, OutputSpec, Value

TEMPLATES_DIR = Path(__file__).parent / "templates"
PROFILE_PATH_ENV = "SCORING_JUDGE_PROFILES"
PLACEHOLDERS = frozenset({
    "question", "gold", "prediction", "audio1", "audio2", "pair_id", "qa_type",
    "dialogue", "candidate", "caption", "options",
})
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_TAG = re.compile(r"</?([A-Za-z_][\w-]*)>")
_PREDICTION_SLOT = re.compile(r"<prediction>\s*\{prediction\}\s*</prediction>")


@dataclass(frozen=True)
class Prompt:
    """A rendered request: the system prompt and the user message."""

    system: str
    user: str


@dataclass(frozen=True)
class Cap:
    """Cap a derived output at ``cap`` when ``field`` is below ``below`` or at least ``at_least``."""

    field: str
    cap: float
    below: float | None = None
    at_least: float | None = None

    def applies(self, values: Mapping[str, Value]) -> bool:
        value = float(values[self.field])
        return (self.below is not None and value < self.below) or (
            self.at_least is not None and value >= self.at_least
        )


@dataclass(frozen=True)
class Derived:
    """An output computed from reply fields: a weighted sum, then caps, clamp and rounding."""

    name: str
    weights: tuple[tuple[str, float], ...]
    caps: tuple[Cap, ...] = ()
    clamp: tuple[float, float] | None = None
    digits: int | None = None

    def compute(self, values: Mapping[str, Value]) -> float:
        total = sum(weight * float(values[name]) for name, weight in self.weights)
        for cap in self.caps:
            if cap.applies(values):
                total = min(total, cap.cap)
        if self.clamp is not None:
            total = min(max(total, self.clamp[0]), self.clamp[1])
        # Round half up on the decimal value so 4.25 -> 4.3 as a person computing the rubric would.
        return total if self.digits is None else math.floor(total * 10**self.digits + 0.5 + 1e-9) / 10**self.digits


@dataclass(frozen=True)
class Gate:
    """Judge only items whose ``field`` under ``score_profile`` is below ``below``
    (Jamendo-MT-QA's error analysis: sentence items with judge score < 3)."""

    score_profile: str
    field: str
    below: float


@dataclass(frozen=True)
class JudgeProfile:
    """One rubric: prompts, what the reply must contain, and the outputs it yields."""

    name: str
    description: str
    source: str
    task_type: str
    qa_type: str | None
    system: str
    user: str
    output: OutputSpec
    derived: tuple[Derived, ...] = ()
    gate: Gate | None = None
    primary: str | None = None
    origin: str = ""

    @property
    def outputs(self) -> tuple[str, ...]:
        """Metric outputs: numeric fields, derived values, then one indicator per label."""
        return (*(f.name for f in self.output.fields), *(d.name for d in self.derived), *self.output.labels)

    def output_range(self, name: str) -> tuple[float, float]:
        """Least and greatest value of output ``name``: a field's declared range, a derived value's
        weighted sum of those (then caps and clamp), 0-1 for a label indicator."""
        fields = {f.name: (f.minimum, f.maximum) for f in self.output.fields}
        if name in fields:
            return fields[name]
        for derived in self.derived:
            if derived.name == name:
                ends = [(weight * fields[f][0], weight * fields[f][1]) for f, weight in derived.weights]
                low = sum(min(pair) for pair in ends)
                high = sum(max(pair) for pair in ends)
                if derived.caps:
                    low = min(low, *(cap.cap for cap in derived.caps))
                if derived.clamp is not None:
                    low, high = max(low, derived.clamp[0]), min(high, derived.clamp[1])
                return (low, high)
        return (0.0, 1.0)

    @property
    def template_hash(self) -> str:
        """12 hex digits of sha256 over the system prompt and the user template."""
        return hashlib.sha256(f"{self.system}\n\x00\n{self.user}".encode()).hexdigest()[:12]

    @property
    def rules_hash(self) -> str:
        """8 hex digits over the output spec, derived outputs and gate: how replies become numbers."""
        rules = {"output": self.output.as_json(), "derived": [repr(d) for d in self.derived], "gate": repr(self.gate)}
        return hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()[:8]

    def applies_to(self, qa_type: str | None) -> bool:
        return self.qa_type is None or qa_type == self.qa_type

    def render(self, values: Mapping[str, str]) -> Prompt:
        """Fill the template; a placeholder without a value becomes empty text."""
        neutralise = _neutraliser(self.user)

        def fill(match: re.Match[str]) -> str:
            return neutralise(str(values.get(match.group(1), "")))

        return Prompt(self.system, _PLACEHOLDER.sub(fill, self.user))

    def evaluate(self, values: Mapping[str, Value]) -> dict[str, Value]:
        """Reply values plus the derived outputs."""
        return {**values, **{d.name: d.compute(values) for d in self.derived}}

    def output_values(self, values: Mapping[str, Value]) -> dict[str, float]:
        """Numeric outputs of one judged item: fields, derived values, label indicators (1.0/0.0)."""
        numbers = {name: float(values[name]) for name in self.outputs if name not in self.output.labels}
        label = values.get(self.output.label) if self.output.label else None
        return {**numbers, **{name: float(label == name) for name in self.output.labels}}

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name, "description": self.description, "source": self.source,
            "task_type": self.task_type, "qa_type": self.qa_type, "outputs": list(self.outputs),
            "template_hash": self.template_hash, "origin": self.origin,
        }


@functools.lru_cache(maxsize=64)
def _neutraliser(template: str) -> Callable[[str], str]:
    names = sorted(set(_TAG.findall(template)))
    if not names:
        return str
    pattern = re.compile(rf"(?i)<\s*/?\s*(?:{'|'.join(map(re.escape, names))})\b[^<>]{{0,100}}>?")

    def neutralise(text: str) -> str:
        return pattern.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)

    return neutralise


# --- loading -------------------------------------------------------------------------


def load_profile(path: str | Path) -> JudgeProfile:
    """Read and check one profile TOML file; a problem raises ``ValueError`` naming the file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return profile_from_mapping(data, origin=str(path))
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def profile_from_mapping(data: Mapping[str, Any], *, origin: str = "") -> JudgeProfile:
    """Build a profile from its TOML tables (see the files in ``scoring/judge/templates/``)."""
    applies = data.get("applies_to", {})
    prompt = data["prompt"]
    output = data["output"]
    profile = JudgeProfile(
        name=str(data["name"]),
        description=str(data.get("description", "")),
        source=str(data["source"]),
        task_type=str(applies["task_type"]),
        qa_type=applies.get("qa_type"),
        system=str(prompt["system"]).strip() + "\n",
        user=str(prompt["user"]).strip() + "\n",
        output=_output_spec(output),
        derived=tuple(_derived(name, table) for name, table in output.get("derived", {}).items()),
        gate=Gate(**data["gate"]) if "gate" in data else None,
        primary=output.get("primary"),
        origin=origin,
    )
    _check(profile)
    return profile


def _output_spec(table: Mapping[str, Any]) -> OutputSpec:
    fields = tuple(
        FieldSpec(str(f["name"]), float(f.get("min", 0.0)), float(f.get("max", 1.0)), str(f.get("kind", "number")))
        for f in table.get("fields", ())
    )
    label = table.get("label")
    return OutputSpec(
        fields=fields,
        label=label["name"] if label else None,
        labels=tuple(label["labels"]) if label else (),
        rationale=table.get("rationale"),
    )


def _derived(name: str, table: Mapping[str, Any]) -> Derived:
    clamp = table.get("clamp")
    return Derived(
        name=name,
        weights=tuple((k, float(v)) for k, v in table["weights"].items()),
        caps=tuple(Cap(**cap) for cap in table.get("caps", ())),
        clamp=(float(clamp[0]), float(clamp[1])) if clamp else None,
        digits=table.get("round"),
    )


def _check(profile: JudgeProfile) -> None:
    unknown = sorted(set(_PLACEHOLDER.findall(profile.user)) - PLACEHOLDERS)
    if unknown:
        raise ValueError(f"unknown placeholder(s) {', '.join(unknown)}; valid: {', '.join(sorted(PLACEHOLDERS))}")
    slots = profile.user.count("{prediction}")
    if slots and (slots > 1 or not _PREDICTION_SLOT.search(profile.user)):
        raise ValueError("{prediction} must appear once, enclosed as <prediction>{prediction}</prediction>")
    if not profile.output.required:
        raise ValueError("the output spec names no fields and no label")
    kinds = {f.kind for f in profile.output.fields} - {"number", "bool"}
    if kinds:
        raise ValueError(f"unknown field kind(s) {', '.join(sorted(kinds))}; valid: number, bool")
    fields = {f.name for f in profile.output.fields}
    for derived in profile.derived:
        unknown = sorted(({n for n, _ in derived.weights} | {c.field for c in derived.caps}) - fields)
        if unknown:
            raise ValueError(f"derived output {derived.name!r} uses unknown field(s) {', '.join(unknown)}")
    if profile.primary is not None and profile.primary not in profile.outputs:
        raise ValueError(f"primary output {profile.primary!r} is not an output")


# --- the registry -----------------------------------------------------------------------

_REGISTRY: dict[str, JudgeProfile] = {}
_LOADED = False
_LOCK = threading.Lock()


def judge_profiles() -> dict[str, JudgeProfile]:
    """Every registered profile by name: the built-in ones, then ``SCORING_JUDGE_PROFILES``."""
    global _LOADED
    with _LOCK:
        if not _LOADED:
            for path in [*sorted(TEMPLATES_DIR.glob("*.toml")), *_env_profile_files()]:
                _add(load_profile(path), replace=False)
            _LOADED = True
    return dict(_REGISTRY)


def get_profile(name: str) -> JudgeProfile:
    """The named profile, or a ``KeyError`` listing the valid names."""
    profiles = judge_profiles()
    try:
        return profiles[name]
    except KeyError:
        raise KeyError(f"unknown judge profile {name!r}; valid: {', '.join(sorted(profiles))}") from None


def register_profile(profile: JudgeProfile, *, replace: bool = False) -> JudgeProfile:
    """Add a profile; re-registering a different profile under a taken name needs ``replace=True``."""
    judge_profiles()
    with _LOCK:
        _add(profile, replace=replace)
    return profile


def register_profile_file(path: str | Path, *, replace: bool = False) -> JudgeProfile:
    """Load a profile TOML file and register it."""
    return register_profile(load_profile(path), replace=replace)


def _add(profile: JudgeProfile, *, replace: bool) -> None:
    existing = _REGISTRY.get(profile.name)
    if existing is not None and existing != profile and not replace:
        raise ValueError(f"judge profile {profile.name!r} is already registered (from {existing.origin})")
    _REGISTRY[profile.name] = profile


def _env_profile_files() -> list[Path]:
    files: list[Path] = []
    for entry in filter(None, os.environ.get(PROFILE_PATH_ENV, "").split(os.pathsep)):
        path = Path(entry)
        files.extend(sorted(path.glob("*.toml")) if path.is_dir() else [path])
    return files

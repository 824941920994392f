"""Words for codes: setting values as the form shows them, metric scales, BERTScore models."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from django.conf import settings

from scoring import BenchmarkSpec, MetricSpec
from scoring.metrics.bertscore import BertScoreConfig, BertScoreUnavailable
from scoring.signature import Signature

# Published tables name their scales in a few ways; one spelling for headers.
_PUBLISHED_SCALES = {"percent": "%", "0-100": "0–100", "0-1": "0–1", "0-5": "0–5", "1-5": "1–5", "-1-1": "−1 to 1"}
_JUDGE_SCALES = {"jamendo-released": "1–5", "jamendo-paper": "0–5", "jamendo-error-type": "share 0–1"}


def settings_labelled(spec: BenchmarkSpec, settings: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(key, setting label, value label)`` in the spec's order; unknown keys and values last, as stored."""
    out = []
    for setting in spec.settings:
        if setting.key in settings:
            value = str(settings[setting.key])
            out.append((setting.key, setting.label, dict(setting.choices).get(value, value)))
    known = {s.key for s in spec.settings}
    out += [(k, k, str(v)) for k, v in settings.items() if k not in known]
    return out


def metric_unit(metric: MetricSpec) -> str:
    """The range a column's numbers live in, as shown beside its header."""
    if metric.family == "judge":
        return _JUDGE_SCALES.get(str(metric.params.get("profile", "")), "judge scale")
    if metric.family == "sacrebleu":
        return "0–100"
    if metric.output == "kendall_tau_b":
        return "−1 to 1"
    return "0–100" if metric.scale == 100 else "0–1"


def published_unit(scale: str) -> str:
    return _PUBLISHED_SCALES.get(scale.strip(), scale.strip())


def signature_model(signature: str) -> str:
    """The BERTScore model a signature names, without its folder (``""`` when none)."""
    fields = Signature.parse(signature).as_dict()
    if fields.get("impl") != "bert-score" or not fields.get("model"):
        return ""
    return fields["model"].rstrip("/").rsplit("/", 1)[-1]


@lru_cache(maxsize=1)
def configured_bertscore() -> tuple[str, str] | None:
    """The BERTScore model and layer this deployment computes (what a column without entries would hold), or
    None where it computes none."""
    if not settings.LEADERBOARD["BERTSCORE"]:
        return None
    try:
        config = BertScoreConfig.from_env()
    except BertScoreUnavailable:
        return None
    return config.model_name, str(config.num_layers)

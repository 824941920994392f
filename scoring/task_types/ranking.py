"""Ranking tasks (DialBGM): rank a fixed set of candidates; gold is a strict order."""

from __future__ import annotations

from typing import Any, ClassVar

from scoring.reading.jsonl import json_type
from scoring.task_types.base import Fields, Prediction, Reference

PUBLIC_FIELDS = ("dialogue", "summary", "context", "candidate_captions", "setting")


class RankingTask:
    name: ClassVar[str] = "ranking"

    def parse_reference(self, fields: Fields) -> Reference | None:
        item_id = fields.identifier()
        candidates = fields.string_list("candidates")
        gold = fields.string_list("gold_ranking")
        if candidates is not None:
            _check_candidates(fields, candidates)
        if candidates is not None and gold is not None:
            _check_permutation(fields, "gold_ranking", gold, candidates)
        if not fields.ok or item_id is None or candidates is None or gold is None:
            return None
        public = {"candidates": list(candidates)}
        public.update({k: fields.obj[k] for k in PUBLIC_FIELDS if k in fields.obj})
        return Reference(id=item_id, line=fields.line, public=public, gold_ranking=gold)

    def parse_prediction(self, fields: Fields, reference: Reference | None) -> Prediction | None:
        item_id = fields.identifier()
        has_scores, has_ranking = "scores" in fields.obj, "ranking" in fields.obj
        if has_scores == has_ranking:
            fields.problem(
                "missing_field" if not has_scores else "invalid_value",
                'give exactly one of "scores" (candidate -> number) or "ranking" (candidates best to worst)',
                "scores",
            )
            return None
        candidates = reference.candidates if reference is not None else None
        if has_scores:
            scores = _read_scores(fields, candidates)
        else:
            scores = _read_ranking(fields, candidates)
        if not fields.ok or item_id is None or scores is None:
            return None
        return Prediction(id=item_id, line=fields.line, scores=scores)

    def prediction_json(self, prediction: Prediction, reference: Reference) -> dict[str, Any]:
        return {"id": prediction.id, "scores": dict(zip(reference.candidates, prediction.scores))}


def _check_candidates(fields: Fields, candidates: tuple[str, ...]) -> None:
    if len(candidates) < 2:
        fields.problem("invalid_value", "candidates must list at least two ids", "candidates")
    elif len(set(candidates)) != len(candidates):
        fields.problem("invalid_value", "candidates contains a repeated id", "candidates")


def _check_permutation(
    fields: Fields, name: str, order: tuple[str, ...], candidates: tuple[str, ...]
) -> bool:
    missing = [c for c in candidates if c not in order]
    unknown = [c for c in order if c not in candidates]
    repeated = sorted({c for c in order if order.count(c) > 1})
    parts = []
    if missing:
        parts.append(f"missing {_ids(missing)}")
    if unknown:
        parts.append(f"not a candidate: {_ids(unknown)}")
    if repeated:
        parts.append(f"repeated {_ids(repeated)}")
    if parts:
        fields.problem(
            "not_permutation", f"{name} is not a permutation of the candidates: " + "; ".join(parts), name
        )
        return False
    return True


def _read_scores(fields: Fields, candidates: tuple[str, ...] | None) -> tuple[float, ...] | None:
    raw = fields.obj["scores"]
    if not isinstance(raw, dict):
        fields.problem("wrong_type", f"scores must be an object (candidate -> number), got {json_type(raw)}", "scores")
        return None
    values = {key: fields.number(value, f"scores.{key}") for key, value in raw.items()}
    if candidates is None:
        return None
    missing = [c for c in candidates if c not in raw]
    unknown = [k for k in raw if k not in candidates]
    if missing or unknown:
        detail = "; ".join(
            part for part in (
                f"missing {_ids(missing)}" if missing else "",
                f"not a candidate: {_ids(unknown)}" if unknown else "",
            ) if part
        )
        fields.problem("not_permutation", f"scores must cover exactly the candidates: {detail}", "scores")
        return None
    if any(values[c] is None for c in candidates):
        return None
    return tuple(float(values[c]) for c in candidates)  # type: ignore[arg-type]


def _read_ranking(fields: Fields, candidates: tuple[str, ...] | None) -> tuple[float, ...] | None:
    order = fields.string_list("ranking")
    if order is None or candidates is None:
        return None
    if not _check_permutation(fields, "ranking", order, candidates):
        return None
    position = {cand: i for i, cand in enumerate(order)}
    return tuple(float(len(order) - position[c]) for c in candidates)


def _ids(ids: list[str], limit: int = 5) -> str:
    shown = ", ".join(f'"{i}"' for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")

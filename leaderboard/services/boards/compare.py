"""Two entries of one split side by side: the engine's paired bootstrap test on the stored items.

The numbers are ``Scorer.compare`` on the per-item values the pipeline stored, with the seed and
replicates the site scores with, so they equal ``python -m scoring compare`` on the same two files.
Only columns whose signature is the same for both entries (and for today's scorer) are compared. A column's
verdict (``separated``: one entry is better at the 5% level) is the one the board's ties use
(:mod:`leaderboard.services.boards.ties`); beside each p-value, its Holm adjustment over the page's tests.

On a hidden-label split a non-maintainer's comparison is computed from the two entries' released
values only (:func:`leaderboard.services.policy.disclosure.disclosure_released`: rounding and the Ladder),
never from per-item values: the difference of released values and its direction; no interval,
p-value, win/tie counts, Kendall tau or items; nothing for a column the Ladder withholds. Anything
derived from unrounded values would reveal what rounding hides (one item's outcome).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Q

from leaderboard.models import ItemScore, ReferenceItem, Status, Submission
from leaderboard.services.boards.entry_vectors import entry_runs_read, entry_vectors_read
from leaderboard.services.boards.heatmaps import pairwise_tau_b
from leaderboard.services.boards.items import item_label_text, stored_prediction
from leaderboard.services.boards.ties import ALPHA, COMPARE_TIED, COMPARE_TIED_RELEASED, SEED, ties_separated
from leaderboard.services.policy.access import can_view_item_details, can_view_submission, is_maintainer
from leaderboard.services.policy.disclosure import NOT_ABOVE_BEST, disclosure_hidden, disclosure_released
from leaderboard.services.policy.rate_limits import limit_refused, rate_take, retry_text
from leaderboard.services.policy.refusals import Refused
from leaderboard.services.shared.cache import cached_for_split
from leaderboard.services.shared.entry_runs import CANDIDATE_SCORES, item_means
from leaderboard.services.shared.scorers import site_scorer
from scoring import Scorer
from scoring.stats import holm_adjusted

TOP_ITEMS = 20
MAX_CHOICES = 100  # a board's rows at most
PAIR_LINKS_UP_TO = 6  # entries; beyond that the choice form alone (15 links at most)
RELEASED_ONLY = ("hidden-label split: compared on the released (rounded, Ladder) values only; intervals, "
                 "p-values, item counts, model agreement and items are for maintainers")


def compare_entries(*, a: Submission, b: Submission, user: Any, params: Mapping[str, str]) -> dict[str, Any]:
    """The comparison of ``a`` and ``b`` as ``user`` may see it (``metric`` picks the item list's metric)."""
    _check(a, b, user)
    if disclosure_hidden(split=a.split, user=user):
        return _released_comparison(a, b)
    split = a.split
    spec = split.spec
    # v2: per-item values of the largest differences only (v1 cached every item)
    numbers = cached_for_split(split.pk, f"compare:v2:{a.uid}:{b.uid}", lambda: compare_numbers(a, b))
    metrics = _verdicts([dict(row) for row in numbers["metrics"]])
    result: dict[str, Any] = {
        **_header(a, b), "n_items": numbers["n_items"],
        "test": "paired bootstrap, items resampled (the engine's, as `python -m scoring compare`)",
        "bootstrap": {"replicates": numbers["replicates"], "seed": SEED},
        "tied": COMPARE_TIED,
        "multiple_comparisons": _multiple_comparisons(metrics),
        "metrics": metrics,
        "not_compared": numbers["not_compared"],
        "kendall_tau_b": numbers["tau"],
        "per_item_visible": True,
        "items": None,
    }
    keys = [m["key"] for m in numbers["metrics"]]
    chosen = params.get("metric") if params.get("metric") in keys else (
        spec.default_sort if spec.default_sort in keys else (keys[0] if keys else None))
    result["items_metric"] = chosen
    if chosen is not None:
        result["items"] = compare_items(a, b, chosen, numbers, details=can_view_item_details(user, split))
    return result


def _verdicts(metrics: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with its verdict (``separated``: the board's tie rule) and its p-value Holm-adjusted over the
    rows' tests (``p_holm``)."""
    for row, adjusted in zip(metrics, holm_adjusted([m["p_value"] for m in metrics]), strict=True):
        row.update(separated=ties_separated(row["p_value"]), p_holm=adjusted)
    return metrics


def _multiple_comparisons(metrics: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How many tests the page shows and how many differences chance alone makes at the 5% level."""
    tests = sum(m["p_value"] is not None for m in metrics)
    if tests < 2:
        return None
    expected = round(tests * ALPHA, 2)
    return {"tests": tests, "expected_by_chance": expected,
            "note": f"{tests} tests on this page: at the 5% level about {expected:g} differences are expected by "
                    "chance even where none is real; a Holm-adjusted p-value is shown beside each"}


def compare_choices(*, ids: Sequence[str], user: Any) -> dict[str, Any]:
    """More than two entries were picked: the ones ``user`` may see, for choosing a pair.

    ``entries``: each visible entry (id, model name, organisation, settings, split, whether scored);
    ``unknown``: how many ids name no entry this viewer may see (never which); ``pairs``: every pair of
    scored entries of one split while there are few; ``a``, ``b``: the first such pair (empty if none);
    ``more``: ids past :data:`MAX_CHOICES`.
    """
    distinct = list(dict.fromkeys(ids))
    read = distinct[:MAX_CHOICES]
    uids = list(dict.fromkeys(u for u in map(_uuid_or_none, read) if u is not None))
    found = {s.uid: s for s in Submission.objects.select_related("split__benchmark").filter(uid__in=uids)}
    entries = []
    for uid in uids:
        entry = found.get(uid)
        if entry is not None and can_view_submission(user, entry):
            entries.append({"id": str(entry.uid), "model_name": entry.model_name,
                            "organisation": entry.organisation, "settings": entry.settings,
                            "benchmark": entry.split.benchmark.name, "split": entry.split.name,
                            "board": str(entry.split), "split_id": entry.split_id,
                            "scored": entry.status == Status.SCORED})
    unknown = len(read) - len(entries)
    scored = [e for e in entries if e["scored"]]
    pairs = [(x, y) for x, y in combinations(scored, 2) if x["split_id"] == y["split_id"]]
    first = (pairs[0][0]["id"], pairs[0][1]["id"]) if pairs else ("", "")
    return {"entries": entries, "unknown": unknown, "more": max(0, len(distinct) - MAX_CHOICES),
            "pairs": pairs if len(scored) <= PAIR_LINKS_UP_TO else [], "can_compare": bool(pairs),
            "a": first[0], "b": first[1]}


def _uuid_or_none(raw: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(raw)
    except ValueError:
        return None


def compare_rate_check(*, user: Any, ip: str) -> None:
    """Count one comparison for ``user`` (anonymous: ``ip``); refuse (429) past the hourly limit.

    A cold comparison runs a paired bootstrap over every item (about half a second of CPU).
    """
    if is_maintainer(user):
        return
    limit = settings.LIMITS["COMPARES_PER_HOUR"]
    subject = f"user:{user.pk}" if getattr(user, "is_authenticated", False) else f"ip:{ip}"
    hit = rate_take("compare", subject, window=3600)
    if hit.count > limit:
        raise limit_refused("rate_limited", f"at most {limit} comparisons per hour (clock hours, UTC); "
                            f"try again {retry_text(hit.resets_at)}", hit.resets_at)


def _header(a: Submission, b: Submission) -> dict[str, Any]:
    return {"benchmark": a.split.spec.name, "split": a.split.name, "a": _entry(a), "b": _entry(b)}


def _released_comparison(a: Submission, b: Submission) -> dict[str, Any]:
    """A hidden-label split's comparison for non-maintainers: released values only, nothing per item.

    Reads no per-item value and runs no bootstrap, so it is cheap and caches nothing of its own.
    """
    split = a.split
    released = disclosure_released(split=split)
    profile = split.spec.profile(a.profile or None)
    stored_a, stored_b = _current_signatures(a), _current_signatures(b)
    metrics, not_compared = [], {}
    listed = [m.key for m in profile.metrics]
    stored = {*stored_a, *stored_b}
    for key in [k for k in listed if k in stored] + sorted(stored - set(listed)):  # spec order, then judged columns
        metric = profile.metric_for(key)
        if metric is None:
            continue
        if key not in stored_a or key not in stored_b:
            not_compared[key] = "not scored for both entries"
            continue
        if stored_a[key] != stored_b[key]:
            not_compared[key] = "different signatures (scored with different settings or versions)"
            continue
        value_a = released.get((a.pk, key, stored_a[key]))
        value_b = released.get((b.pk, key, stored_b[key]))
        row: dict[str, Any] = {
            "key": key, "label": metric.label, "higher_is_better": metric.higher_is_better,
            "decimals": metric.decimals, "a": None, "b": None, "difference": None, "ci95": None,
            "p_value": None, "p_holm": None, "better": None, "separated": False, "signature": stored_a[key],
        }
        if value_a is None or value_b is None:
            row["withheld"] = NOT_ABOVE_BEST
        else:
            difference = round(value_a - value_b, 12)
            better = _better(difference, metric.higher_is_better)
            row.update(a=value_a, b=value_b, difference=difference, better=better, separated=better is not None)
        metrics.append(row)
    return {
        **_header(a, b), "n_items": int(split.n_items or 0),
        "test": "difference of released values (hidden-label split)",
        "bootstrap": None, "tied": COMPARE_TIED_RELEASED, "multiple_comparisons": None,
        "metrics": metrics, "not_compared": not_compared, "kendall_tau_b": None,
        "per_item_visible": False, "items": None, "withheld": RELEASED_ONLY,
    }


def _better(difference: float, higher_is_better: bool) -> str | None:
    if difference == 0:
        return None
    return "a" if (difference > 0) == higher_is_better else "b"


def _check(a: Submission, b: Submission, user: Any) -> None:
    for name, entry in (("a", a), ("b", b)):
        if not can_view_submission(user, entry):
            raise Refused("not_found", "no such submission", name, 404)
        if entry.status != Status.SCORED:
            raise Refused("not_scored", f"entry {name} is {entry.status}, not scored yet", name, 409)
    if a.split_id != b.split_id:
        raise Refused("different_splits", f"entries of different splits ({a.split} and {b.split}) "
                      "are scored on different items and cannot be compared", "b")
    if a.pk == b.pk:
        raise Refused("same_entry", "pick two different entries", "b")


def _entry(entry: Submission) -> dict[str, Any]:
    return {"id": str(entry.uid), "model_name": entry.model_name, "organisation": entry.organisation,
            "settings": entry.settings, "runs": entry.runs.count(),
            "created_at": entry.created_at.isoformat()}


def compare_numbers(a: Submission, b: Submission) -> dict[str, Any]:
    """Everything a comparison computes from per-item values (``compare_entries`` caches it per split
    version): the compared columns' paired bootstrap rows (``metrics``), the columns left out and why
    (``not_compared``), ``n_items``, ``replicates``, the ranking ``tau``, the ``largest`` differences'
    item indices per column and those items' mean scores (``item_scores``). Access is the caller's."""
    scorer = site_scorer(a)
    stored_a = _current_signatures(a)
    stored_b = _current_signatures(b)
    keys, not_compared = [], {}
    for key in scorer.metric_keys:
        if key not in stored_a or key not in stored_b:
            not_compared[key] = "not scored for both entries"
        elif stored_a[key] != stored_b[key]:
            not_compared[key] = "different signatures (scored with different settings or versions)"
        elif scorer.signature(key) != stored_a[key]:
            not_compared[key] = "scored under an earlier signature; re-score both to compare"
        else:
            keys.append(key)
    n = len(scorer.references)
    runs_a = entry_runs_read(a, keys, n)
    runs_b = entry_runs_read(b, keys, n)
    replicates = settings.LEADERBOARD["BOOTSTRAP_REPLICATES"]
    tested = scorer.compare(runs_a, runs_b, seed=SEED, n_bootstrap=replicates, keys=keys)
    metrics = []
    per_item: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    largest: dict[str, list[int]] = {}
    for key in keys:
        metric, _ = scorer.columns[key]
        va, vb = item_means(runs_a, key) * metric.scale, item_means(runs_b, key) * metric.scale
        per_item[key] = (va, vb)
        largest[key] = _largest(va, vb)
        both = ~np.isnan(va) & ~np.isnan(vb)
        ahead = (va - vb) if metric.higher_is_better else (vb - va)
        row = tested[key]
        metrics.append({
            "key": key, "label": metric.label, "higher_is_better": metric.higher_is_better,
            "decimals": metric.decimals, "a": row["a"], "b": row["b"], "difference": row["difference"],
            "ci95": list(row["ci95"]) if row["ci95"] else None, "p_value": row["p_value"],
            "better": row["better"], "signature": row["signature"], "n_items": int(both.sum()),
            "a_better": int((ahead[both] > 0).sum()), "b_better": int((ahead[both] < 0).sum()),
            "ties": int((ahead[both] == 0).sum()),
        })
    shown = sorted({index for order in largest.values() for index in order})
    item_scores = {index: {key: (_number(va[index]), _number(vb[index])) for key, (va, vb) in per_item.items()}
                   for index in shown}
    return {"metrics": metrics, "not_compared": not_compared, "n_items": n, "replicates": replicates,
            "tau": _tau(a, b, scorer), "largest": largest, "item_scores": item_scores}


def _current_signatures(entry: Submission) -> dict[str, str]:
    return dict(entry.metric_values.filter(current=True).values_list("key", "signature"))


def _largest(va: np.ndarray, vb: np.ndarray) -> list[int]:
    """Indices of the ``TOP_ITEMS`` largest non-zero gaps, largest first, ties in item order."""
    gap = np.abs(va - vb)
    candidates = np.flatnonzero(gap > 0)  # NaN compares False
    if len(candidates) > TOP_ITEMS:  # only the candidates tied with or above the TOP_ITEMS-th are sorted
        cutoff = np.partition(gap[candidates], len(candidates) - TOP_ITEMS)[len(candidates) - TOP_ITEMS]
        candidates = candidates[gap[candidates] >= cutoff]
    return candidates[np.argsort(-gap[candidates], kind="stable")][:TOP_ITEMS].tolist()


def _number(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _tau(a: Submission, b: Submission, scorer: Scorer) -> dict[str, Any] | None:
    """Ranking splits: mean per-item Kendall tau-b between the two models' candidate scores (run 1)."""
    if a.split.spec.task_type != "ranking":
        return None
    vectors = entry_vectors_read([a.pk, b.pk], CANDIDATE_SCORES)
    if a.pk not in vectors or b.pk not in vectors:
        return None
    mean, counts = pairwise_tau_b(np.stack([vectors[a.pk], vectors[b.pk]]))
    value = mean[0, 1]
    return {"mean": None if np.isnan(value) else float(value), "items": int(counts[0, 1])}


def compare_items(a: Submission, b: Submission, key: str, numbers: Mapping[str, Any], *,
                  details: bool) -> list[dict[str, Any]]:
    """The items where the two entries differ most on ``key`` (``numbers``: :func:`compare_numbers`'),
    both predictions side by side; ``details``: with each item's reference (the viewer may see labels)."""
    order = numbers["largest"][key]
    scores = numbers["item_scores"]
    # one condition per entry: with submission_id IN (a, b) PostgreSQL matched the index on
    # (submission, run) only and filtered all 73,038 rows of both entries (36 ms against 0.1 ms)
    wanted = Q(submission_id=a.pk, run=1, index__in=order) | Q(submission_id=b.pk, run=1, index__in=order)
    predictions = {(row.submission_id, row.index): row for row in ItemScore.objects.filter(wanted).order_by()
                   .only("submission_id", "index", "prediction")}
    references = {r.index: r for r in ReferenceItem.objects.filter(split=a.split, index__in=order)}
    items = []
    for index in order:
        ref = references.get(index)
        item: dict[str, Any] = {
            "index": index, "id": ref.item_id if ref else "", "qa_type": ref.qa_type if ref else "",
            "inputs": ref.public if ref else {},
            "a": {"prediction": _prediction(predictions.get((a.pk, index))),
                  "scores": {k: v[0] for k, v in scores[index].items()}},
            "b": {"prediction": _prediction(predictions.get((b.pk, index))),
                  "scores": {k: v[1] for k, v in scores[index].items()}},
            "difference": scores[index][key][0] - scores[index][key][1],
        }
        if details and not a.split.spec.labels_withheld:  # a licence that forbids redistributing the labels
            item["reference"] = item_label_text(ref)
        items.append(item)
    return items


def _prediction(row: ItemScore | None) -> Any:
    if row is None:
        return None
    return stored_prediction(row.prediction)

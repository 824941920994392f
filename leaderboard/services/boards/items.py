"""Per-item breakdowns: the explorer's pages and the CSV/JSONL exports, from stored rows.

On a hidden-label split only maintainers get gold labels, per-item scores and
judge notes; the entry's owner gets item ids, public inputs and predictions, and each answer's parse
status where it follows from the answer and the public inputs alone; anyone else nothing per item
(another entry's predictions are close to the labels when it scores well).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from django.core.paginator import Paginator

from leaderboard.models import ItemScore, ReferenceItem, Submission
from leaderboard.services.boards.explore import (
    ACCURACY_OUTPUTS,
    explore_groups,
    explore_metrics,
    explore_query,
    parse_status_visible,
    whole_number,
)
from leaderboard.services.boards.parsing import parsing_rule, submission_parsing
from leaderboard.services.policy.access import can_view_item_details, can_view_predictions
from leaderboard.services.policy.refusals import Refused
from scoring.engine import UNPARSED_KEY
from scoring.metrics import METRIC_FAMILIES

PAGE_SIZE = 50
PREDICTIONS_WITHHELD = ("hidden-label split: an entry's per-item predictions are for its owner and maintainers "
                        "only")


def metric_scales(submission: Submission) -> dict[str, float]:
    """Report-scale factor per stored column (judged columns included)."""
    profile = submission.split.spec.profile(submission.profile or None)
    scales = {m.key: m.scale for m in profile.metrics}
    for column in (submission.report or {}).get("metrics", {}):
        metric = profile.metric_for(column)
        if metric is not None:
            scales[column] = metric.scale
    return scales


class ItemPageRefused(Refused):
    """An explorer request that cannot be answered; ``page`` is the explorer around it, without items
    (the entry page shows the message inside its explorer form)."""

    def __init__(self, refusal: Refused, page: dict[str, Any]) -> None:
        super().__init__(refusal.code, refusal.message, refusal.field, refusal.status, refusal.details)
        self.page = page


def item_page(submission: Submission, user: Any, params: Mapping[str, str]) -> dict[str, Any]:
    """One page of the per-item explorer (filters and sorts: :mod:`leaderboard.services.boards.explore`).

    A request that cannot be answered raises :class:`ItemPageRefused` (the explorer without items).
    """
    if not can_view_predictions(user, submission):
        raise ItemPageRefused(Refused("withheld", PREDICTIONS_WITHHELD, status=403),
                              {"submission": str(submission.uid), "withheld": PREDICTIONS_WITHHELD, "items": []})
    details = can_view_item_details(user, submission.split)
    scales = metric_scales(submission)
    metrics = explore_metrics(submission)
    parsed = parse_status_visible(submission, details=details) and submission_parsing(submission) is not None
    page: dict[str, Any] = {
        "submission": str(submission.uid),
        "runs": list(submission.runs.values_list("number", flat=True)),
        "details_visible": details,
        "withheld": None if details else "hidden-label split: gold labels and per-item scores are for maintainers",
        "metrics": [{"key": k, "label": m.label, "decimals": m.decimals, "accuracy": m.output in ACCURACY_OUTPUTS}
                    for k, m in metrics.items()] if details else [],
        "has_accuracy": details and any(m.output in ACCURACY_OUTPUTS for m in metrics.values()),
        "qa_types": sorted(set(ReferenceItem.objects.filter(split=submission.split).exclude(qa_type="")
                               .values_list("qa_type", flat=True))),
        "groups": explore_groups(submission),
        "parse_filter": parsed,  # each item's ``unparsed``: the publisher's parser mapped its answer, or not
        "run": 1, "page": 1, "pages": 0, "total": 0, "filters": {}, "items": [],
    }
    try:
        query = explore_query(submission, params, details=details)
        page.update(run=query.run, filters=query.filters)
        paginator = Paginator(query.rows, PAGE_SIZE)
        number = whole_number(params.get("page"), 1, "page")
        page.update(total=paginator.count, pages=paginator.num_pages if paginator.count else 0)
        if number > 1 and number > paginator.num_pages:
            raise Refused("no_such_page", f"page {number} is past the last page ({paginator.num_pages}) "
                          f"of {paginator.count} matching items", "page", 404)
        rows = list(paginator.page(number).object_list) if paginator.count else []
    except Refused as exc:
        raise ItemPageRefused(exc, page) from None
    references = _references(submission, [r.index for r in rows])
    page["page"] = number
    labels = not submission.split.spec.labels_withheld
    page["labels_withheld"] = submission.split.spec.labels_withheld
    page["items"] = [_item(row, references.get(row.index), scales, details, parsed, labels) for row in rows]
    page["has_notes"] = any(item.get("notes") for item in page["items"])  # no column that is always empty
    return page


def export_rows(submission: Submission, user: Any) -> Iterator[dict[str, Any]]:
    """Every (run, item) row, for downloads, scores under :func:`export_score_names`; ``qa_type`` only where
    the split's items have one. Callers refuse hidden-label splits to non-maintainers."""
    scales = metric_scales(submission)
    details = can_view_item_details(user, submission.split)
    names = export_score_names(submission)
    typed = _has_qa_types(submission)
    parsed = _exports_parse_status(submission)
    items = ReferenceItem.objects.filter(split=submission.split).order_by("index")
    by_index = {i.index: i for i in items.only("index", "item_id", "qa_type", "public", "labels")}
    labels = not submission.split.spec.labels_withheld
    for row in submission.item_scores.order_by("run", "index").iterator(chunk_size=2000):
        item = _item(row, by_index.get(row.index), scales, details, parsed, labels)
        if not typed:
            del item["qa_type"]
        if parsed:  # 1: the publisher's parser could not map the answer; empty: not counted when it was scored
            item["unparsed"] = None if item["unparsed"] is None else int(item["unparsed"])
        if "scores" in item:
            item["scores"] = {names.get(k, k): v for k, v in item["scores"].items()}
        yield {"run": row.run, **item}


def export_columns(submission: Submission) -> list[str]:
    names = export_score_names(submission)
    keys = [names[k] for k in metric_scales(submission) if k in (submission.report or {}).get("metrics", {})]
    reference = [] if submission.split.spec.labels_withheld else ["reference"]
    return ["run", "index", "id", *(["qa_type"] if _has_qa_types(submission) else []), "prediction", *reference,
            *keys, *(["unparsed"] if _exports_parse_status(submission) else [])]


def _exports_parse_status(submission: Submission) -> bool:
    """Downloads carry ``unparsed`` for a benchmark whose publisher parses answers (downloads of a hidden-label
    split are for maintainers only)."""
    return parsing_rule(submission.split.spec, submission.profile or None) is not None


def export_score_names(submission: Submission) -> dict[str, str]:
    """Each report column's name in per-item downloads: the column's key where the items' mean is the
    entry's value, else the family's per-item name (``bleu_sentence`` beside corpus ``bleu``)."""
    profile = submission.split.spec.profile(submission.profile or None)
    names = {}
    for column in metric_scales(submission):
        metric = profile.metric_for(column)
        family = METRIC_FAMILIES.get(metric.family) if metric is not None else None
        names[column] = family.item_column(column, metric.output) if family and metric else column
    return names


def _has_qa_types(submission: Submission) -> bool:
    return ReferenceItem.objects.filter(split=submission.split).exclude(qa_type="").exists()


def _item(row: ItemScore, ref: ReferenceItem | None, scales: dict[str, float], details: bool,
          parsed: bool, labels: bool = True) -> dict[str, Any]:
    item: dict[str, Any] = {
        "index": row.index,
        "id": row.item_id,
        "qa_type": ref.qa_type if ref else "",
        "inputs": ref.public if ref else {},
        "prediction": stored_prediction(row.prediction),
    }
    if parsed:
        unparsed = row.values.get(UNPARSED_KEY)
        item["unparsed"] = None if unparsed is None else bool(unparsed)
    if details:
        if labels:  # not where the benchmark withholds its labels (``labels_withheld``: their licence)
            item["reference"] = item_label_text(ref)
        item["scores"] = {k: (None if v is None else v * scales[k]) for k, v in row.values.items() if k in scales}
        item["notes"] = row.notes
    return item


def stored_prediction(prediction: Mapping[str, Any]) -> Any:
    """A stored per-item prediction for showing: the text, the candidate scores, or the responses."""
    for key in ("prediction", "scores", "responses"):
        if key in prediction:
            return prediction[key]
    return None


def item_label_text(ref: ReferenceItem | None) -> Any:
    if ref is None:
        return None
    if "gold_ranking" in ref.labels:
        return ref.labels["gold_ranking"]
    answers = ref.labels.get("answers", [])
    return answers[0] if len(answers) == 1 else answers


def _references(submission: Submission, indices: list[int]) -> dict[int, ReferenceItem]:
    return {r.index: r for r in ReferenceItem.objects.filter(split=submission.split, index__in=indices)}



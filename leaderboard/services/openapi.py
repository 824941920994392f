"""The OpenAPI 3 description of the JSON API and the downloads, kept in one place.

One :class:`Operation` per (method, route) in :data:`OPERATIONS`; ``openapi_schema()`` turns them
into the document served at ``/api/v1/openapi.json`` and rendered at ``/docs/api/``.
``tests/leaderboard/views/test_openapi.py`` fails when a route under ``/api/`` is missing here or in the
API table in docs/api.md, so adding a route means adding one ``Operation`` (and one row there).
Shapes list the keys clients rely on; objects stay open (``additionalProperties``) so that
adding a key is not a breaking change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from leaderboard.services.policy.submission_fields import FIELD_RULES, FieldRule
from scoring import BENCHMARKS
from scoring.task_types import TASK_TYPES
from scoring.versions import SCORING_VERSION

JSON = "application/json"
Schema = dict[str, Any]


# --- small schema builders ------------------------------------------------------------------
def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def object_of(required: dict[str, Schema], optional: dict[str, Schema] | None = None, **extra: Any) -> Schema:
    """An object with ``required`` properties (and ``optional`` ones)."""
    return {"type": "object", "required": list(required), "properties": {**required, **(optional or {})}, **extra}


def array_of(items: Schema) -> Schema:
    """An array of ``items``."""
    return {"type": "array", "items": items}


def typed(kind: str, *, null: bool = False, **extra: Any) -> Schema:
    """A value of JSON type ``kind`` (``string``, ``integer``, ``number``, ``boolean``); ``null`` too if asked."""
    return {"type": kind, **({"nullable": True} if null else {}), **extra}


def or_empty(schema: Schema) -> Schema:
    """A query value that may also be sent empty, as the explorer's form sends an unused field: empty is absent."""
    return {"anyOf": [schema, {"type": "string", "enum": [""]}]}


def nullable(schema: Schema) -> Schema:
    """A ``$ref`` or object that may also be ``null`` (OpenAPI 3.0 has no ``type: [.., "null"]``)."""
    return {"allOf": [schema], "nullable": True} if "$ref" in schema else {**schema, "nullable": True}


ANY_OBJECT: Schema = {"type": "object"}
NUMBER_OR_NULL = typed("number", null=True)
PROVENANCE = typed("string", enum=["submitted", "released"],
                   description="submitted: uploaded by its owner; released: a release's outputs, re-scored here")
PARSING: Schema = nullable({
    "type": "object", "properties": {"unparsed": typed("integer"), "answers": typed("integer"),
                                     "parsed": typed("number"), "per_run": array_of(typed("integer")),
                                     "withheld": typed("string")},
    "description": ("Answers the publisher's own parser could not map to one option or value, over all runs' "
                    "answers (`parsed`: the share it mapped, 0-1; `per_run`: the count per run), not a ranked number; "
                    "`withheld` on a hidden-label split (maintainers only); null for a benchmark without a parser or "
                    "an entry scored before parse counts were kept")})

SCHEMAS: dict[str, Schema] = {
    "Error": object_of({"error": object_of(
        {"code": typed("string", description="stable machine-readable code, e.g. unknown_benchmark, closed"),
         "message": typed("string", description="what went wrong and how to fix it"),
         "field": typed("string", null=True, description="the request field at fault, if any")},
        {"retry_after": typed("integer", description="a limit's 429: seconds until it lifts (also the "
                                                     "`Retry-After` header)"),
         "retry_at": typed("string", description="a limit's 429: when it lifts, UTC (ISO 8601)")},
    )}, description="Every error answer of the API has this shape (4xx and 5xx alike).",
                       example={"error": {"code": "unknown_split", "message": "dialbgm has no split 'dev'; valid: test",
                                          "field": "split"}}),
    "Metric": object_of({"key": typed("string"), "label": typed("string"), "higher_is_better": typed("boolean"),
                         "scale": typed("number")},
                        {"decimals": typed("integer"), "applies_to": typed("string", null=True),
                         "description": typed("string")}),
    "Split": object_of({"benchmark": typed("string"), "split": typed("string"), "hidden_labels": typed("boolean"),
                        "n_items": typed("integer"), "accepting_submissions": typed("boolean")},
                       {"title": typed("string"), "description": typed("string"), "demo_data": typed("boolean"),
                        "leaderboard_url": typed("string")}),
    "Benchmark": object_of(
        {"name": typed("string", enum=sorted(BENCHMARKS)), "title": typed("string"),
         "task_type": typed("string", enum=sorted(TASK_TYPES)),
         "official_profile": typed("string"), "metrics": array_of(ref("Metric")), "splits": array_of(ref("Split"))},
        {"description": typed("string"), "source": typed("string"), "data_origin": typed("string"),
         "license": typed("string"),
         "profiles": array_of(object_of({"name": typed("string"), "metrics": array_of(typed("string"))},
                                        {"description": typed("string")})),
         "default_sort": typed("string"),
         "settings": array_of(object_of({"key": typed("string"), "choices": array_of(typed("string"))},
                                        {"label": typed("string")}))}),
    "BenchmarkList": object_of({"benchmarks": array_of(ref("Benchmark"))}),
    "MetricValue": object_of({"value": NUMBER_OR_NULL},
                             {"std": NUMBER_OR_NULL, "ci95": nullable(array_of(NUMBER_OR_NULL)),
                              "per_run": nullable(array_of(NUMBER_OR_NULL)), "n_scored": typed("integer", null=True),
                              "signature": typed("string")}),
    "Column": object_of({"id": typed("string"), "key": typed("string"), "label": typed("string"),
                         "signature": typed("string"),
                         "higher_is_better": typed("boolean")}),
    "Entry": object_of({"id": typed("string", format="uuid"), "model_name": typed("string"),
                        "metrics": {"type": "object", "additionalProperties": ANY_OBJECT}},
                       {"url": typed("string"), "organisation": typed("string"), "settings": ANY_OBJECT,
                        "private": typed("boolean"), "runs": typed("integer"), "created_at": typed("string"),
                        "provenance": PROVENANCE, "source": nullable(ref("Source")), "parsing": PARSING}),
    "Source": object_of(
        {"publisher": typed("string"), "repository": typed("string"), "commit": typed("string"),
         "path": typed("string"), "url": typed("string"), "licence": typed("string"), "sha256": typed("string"),
         "items_answered": typed("integer"), "items_total": typed("integer"), "answered": typed("string")},
        {"warning_counts": ANY_OBJECT, "warning_summary": array_of(typed("string")), "warnings": array_of(ANY_OBJECT)},
        description="A released entry's source: the release's file (at `url`, SHA-256 of the file as released), its "
                    "licence, and how many items it answers (the others scored as empty answers)."),
    "Leaderboard": object_of(
        {"benchmark": typed("string"), "split": typed("string"), "hidden_labels": typed("boolean"),
         "columns": array_of(ref("Column")),
         "rows": array_of(object_of({"rank": typed("integer", null=True), "statistically_tied": typed("boolean"),
                                     "complete": typed("boolean"), "entry": ref("Entry")},
                                    {"source": typed("string", enum=["site"]), "entries": array_of(ref("Entry")),
                                     "entry_count": typed("integer"), "mine": typed("boolean"),
                                     "missing": array_of(typed("string")),
                                     "tie_rule": typed("string", null=True,
                                                       description="what decided the row's tie, or not, with its "
                                                                   "rank group's top entry (see `ranking`): "
                                                                   "paired, intervals, values or released; null "
                                                                   "where it was compared with none"),
                                     "tie_p_value": typed("number", null=True,
                                                          description="compare's paired-bootstrap p-value of that "
                                                                      "pair, where the paired test decided")})),
         "published": array_of(ANY_OBJECT)},
        {"profile": typed("string"), "sort": nullable(ANY_OBJECT),
         "entry_policy": typed("string", enum=["best", "latest"]),
         "filters": ANY_OBJECT, "demo_data": typed("boolean"), "ranking": typed("string"),
         "rank_scope": typed("string", enum=["whole leaderboard", "filtered view"]),
         "papers": typed("string", enum=["shown", "hidden"]),
         "counts": object_of({"entries": typed("integer"), "published": typed("integer")}),
         "published_rows": array_of(ref("PublishedRow")),
         "order": {**array_of(array_of({})), "description": "every row, entries and published rows, in the order "
                   "shown: [\"site\", entry id] or [\"paper\", paper, table, printed position]"}}),
    "PublishedRow": object_of(
        {"source": typed("string", enum=["paper"]), "rank": typed("integer", null=True),
         "model_name": typed("string"), "paper": typed("string"), "table": typed("string"),
         "metrics": {"type": "object", "additionalProperties": object_of(
             {"key": typed("string"), "value": typed("number"), "printed": typed("number"),
              "printed_unit": typed("string")},
             {"note": typed("string")}), "description": "by column id: the value on the column's scale"}},
        {"statistically_tied": typed("boolean"), "settings": ANY_OBJECT, "notes": typed("string"),
         "note": typed("string"),
         "left_out": {"type": "object", "additionalProperties": typed("string"),
                      "description": "by column id: why the printed value is not shown (another scale)"}},
        description="A row of a paper's table, ranked with the entries: reported in the paper, not re-scored "
                    "here; no interval, tie, signature or per-item data."),
    "ModelBoard": object_of({"benchmark": typed("string"), "split": typed("string"), "title": typed("string"),
                             "url": typed("string"),
                             "hidden_labels": typed("boolean"), "demo_data": typed("boolean"), "rows": typed("integer"),
                             "main_column": object_of({"id": typed("string"), "label": typed("string"),
                                                       "decimals": typed("integer"),
                                                       "higher_is_better": typed("boolean")},
                                                       {"unit": typed("string")})},
                            description="A split's board and its main column (the benchmark's default sort)."),
    "ModelCell": object_of({"key": typed("string"), "label": typed("string"), "value": NUMBER_OR_NULL},
                           {"decimals": typed("integer"), "std": NUMBER_OR_NULL,
                            "ci95": nullable(array_of(NUMBER_OR_NULL)),
                            "withheld": typed("string", description="hidden-label split: why no value is shown")}),
    "ModelResult": object_of(
        {"benchmark": typed("string"), "split": typed("string"), "board": ref("ModelBoard"),
         "model_name": typed("string"),
         "rank": typed("integer", null=True), "statistically_tied": typed("boolean"), "entry": typed("string",
                                                                                                     format="uuid"),
         "main": nullable(ref("ModelCell")),
         "metrics": {"type": "object", "additionalProperties": ref("ModelCell"),
                     "description": "every column of the board the entry has, by column id"}},
        {"organisation": typed("string"), "settings": ANY_OBJECT, "entry_url": typed("string"),
         "entry_count": typed("integer"),
         "demo": typed("boolean"), "verified": typed("boolean"), "private": typed("boolean"), "mine": typed("boolean")},
        description="A model's row on one board, with the board's own values for this caller."),
    "Model": object_of({"slug": typed("string"), "name": typed("string"), "results": array_of(ref("ModelResult"))},
                       {"names": array_of(typed("string")), "organisations": array_of(typed("string")),
                        "url": typed("string"),
                        "demo": typed("boolean")}),
    "ModelList": object_of({"query": typed("string"), "boards": array_of(ref("ModelBoard")),
                            "models": array_of(ref("Model"))}),
    "Heatmaps": object_of({"models": array_of(typed("string")), "entries": array_of(typed("string"))},
                          {"model_agreement": ANY_OBJECT, "metric_agreement": ANY_OBJECT, "error_types": ANY_OBJECT},
                          description="Agreement matrices in leaderboard order; cells are null where undefined."),
    "Problem": object_of({"file": typed("string"), "line": typed("integer",
                                                                 description="1-based; 0 = the file as a whole"),
                          "kind": typed("string"), "message": typed("string")},
                         {"field": typed("string", null=True), "severity": typed("string", enum=["error", "warning"]),
                          "count": typed("integer", description="how many alike problems this entry stands for"),
                          "lines": array_of(typed("integer")), "unit": typed("string", enum=["line", "item"]),
                          "where": typed("string", description='e.g. "lines 3, 4, 7 and 997 more"'),
                          "varied": typed("boolean", description="the alike messages differ in their values; "
                                                                 "message is the first one")}),
    "Submission": object_of(
        {"id": typed("string", format="uuid"), "benchmark": typed("string"), "split": typed("string"),
         "model_name": typed("string"),
         "status": typed("string", enum=["uploaded", "validating", "queued", "scoring", "aggregating", "scored",
                                         "invalid", "failed"]),
         "progress": object_of({"done": typed("integer"), "total": typed("integer")}, {"percent": typed("number")}),
         "metrics": {"type": "object", "additionalProperties": ref("MetricValue")}},
        {"url": typed("string"), "organisation": typed("string"), "settings": ANY_OBJECT,
         "status_detail": typed("string"),
         "stage": typed("string", description="validating, queued, light_metrics, bertscore or aggregating while "
                        "active; the status once ended"),
         "stage_detail": typed("string", description='What the stage is doing, e.g. "BERTScore chunk 3 of 12".'),
         "eta_seconds": typed("integer", null=True,
                              description="Seconds left at this submission's measured items per second, counting "
                              "down between progress points; null until two progress points exist."),
         "queue": nullable(object_of(
             {"lane": typed("string", enum=["validation", "scoring", "heavy"]), "position": typed("integer"),
              "ahead": object_of({"submissions": typed("integer"), "items": typed("integer")}),
              "wait_seconds": typed("integer", null=True), "text": typed("string")},
             description="Where a waiting submission stands: its lane, the submissions and items ahead of it there "
                         "and the wait at the last scored submissions' throughput (null: not measured yet); null "
                         "while a worker holds it or once it ended.")),
         "private": typed("boolean"), "profile": typed("string"),
         "provenance": PROVENANCE, "source": nullable(ref("Source")), "parsing": PARSING,
         "runs": array_of(object_of({"number": typed("integer"), "file": typed("string"), "sha256": typed("string",
                                                                                                          null=True),
                                     "size": typed("integer", null=True)})),
         "created_at": typed("string"), "finished_at": typed("string", null=True), "not_computed": ANY_OBJECT,
         "diagnostics": ANY_OBJECT, "n_items": typed("integer"), "bootstrap": ANY_OBJECT,
         "problems": nullable(array_of(ref("Problem"))), "problem_counts": nullable(ANY_OBJECT)}),
    "ValidationResult": object_of({"valid": typed("boolean"), "problem_count": typed("integer"),
                                   "problem_counts": {"type": "object", "additionalProperties": typed("integer")},
                                   "problems": array_of(ref("Problem"))},
                                  example={"valid": False, "problem_count": 1, "problem_counts": {"unknown_id": 1},
                                           "problems": [{"file": "run1.jsonl", "line": 3, "kind": "unknown_id",
                                                         "field": "id", "message": 'id "x" is not an item of test'}]}),
    "ItemsPage": object_of({"submission": typed("string"), "run": typed("integer"), "page": typed("integer"),
                            "pages": typed("integer"),
                            "total": typed("integer"), "details_visible": typed("boolean"),
                            "items": array_of(ANY_OBJECT)},
                           {"runs": array_of(typed("integer")), "withheld": typed("string", null=True)}),
}

def field_schema(rule: FieldRule) -> Schema:
    """A submission field's schema from its rule (type, ``maxLength``)."""
    if rule.kind == "boolean":
        return typed("boolean")
    extra: dict[str, Any] = {"maxLength": rule.max_length} if rule.max_length is not None else {}
    if rule.description:
        extra["description"] = rule.description
    return typed("string", **extra)


REQUIRED_FIELDS = {name: field_schema(rule) for name, rule in FIELD_RULES.items() if rule.required}
SUBMISSION_FIELDS = {name: field_schema(rule) for name, rule in FIELD_RULES.items() if not rule.required}
SETTING_FIELDS = typed("string", description="each of the benchmark's settings by key (e.g. type=Multi); "
                                             "choices in GET /api/v1/benchmarks/{benchmark}; any other key is "
                                             "refused (400 unknown_field)")


def upload_body(predictions: Schema, **extra: Any) -> Schema:
    """The submission's fields plus ``predictions`` (files or JSONL text); settings by their keys."""
    return object_of({**REQUIRED_FIELDS, "predictions": predictions}, SUBMISSION_FIELDS,
                     additionalProperties=SETTING_FIELDS, **extra)


MULTIPART_UPLOAD = upload_body(array_of(typed("string", format="binary")),
                               description="one `predictions` file part per run (JSONL)")
JSONL_TEXTS: Schema = {"oneOf": [typed("string"), array_of(typed("string"))],
                       "description": "JSONL text, or one JSONL text per run"}
JSON_UPLOAD = upload_body(JSONL_TEXTS,
                          example={"model_name": "MyModel", "type": "Multi",
                                   "predictions": '{"id": "q1", "prediction": "yes"}\n'})


SUBMIT_BODY = {"multipart/form-data": MULTIPART_UPLOAD, JSON: JSON_UPLOAD}
VALIDATE_BODY = {"multipart/form-data": object_of({"predictions": array_of(typed("string", format="binary"))}),
                 JSON: object_of({"predictions": JSONL_TEXTS},
                                 example={"predictions": '{"id": "q1", "prediction": "yes"}\n'})}


@dataclass(frozen=True)
class Param:
    name: str
    where: str = "path"
    schema: Schema = field(default_factory=lambda: typed("string"))
    description: str = ""
    example: Any = None

    def as_openapi(self) -> Schema:
        out = {"name": self.name, "in": self.where, "required": self.where == "path", "schema": self.schema,
               "description": self.description}
        if self.example is not None:
            out["example"] = self.example
        return out


BENCHMARK = Param("benchmark", schema=typed("string", enum=sorted(BENCHMARKS)), example="dialbgm")
SPLIT = Param("split", schema=typed("string", pattern=r"^[-a-zA-Z0-9_]+$"), example="test")
SUBMISSION_ID = Param("id", schema=typed("string", format="uuid"), description="a submission's id")
def _setting_params() -> list[Param]:
    """One filter per benchmark setting key (``type``, ``input``, ...), with every benchmark's choices."""
    choices: dict[str, dict[str, list[str]]] = {}
    for spec in BENCHMARKS.values():
        for setting in spec.settings:
            choices.setdefault(setting.key, {})[spec.name] = [c for c, _ in setting.choices]
    return [Param(key, "query", typed("string"),  # choices differ by benchmark; another benchmark's key is no filter
                  "setting filter (" + "; ".join(f"{b}: {', '.join(cs)}" for b, cs in sorted(by.items()))
                  + "); a value that is not a choice is refused (400)")
            for key, by in sorted(choices.items())]


BOARD_QUERY = [
    Param("sort", "query", description="a column id from `columns` (`key@hash`, as the page's headers link) or "
          "a metric key (default: the benchmark's default)"),
    Param("dir", "query", typed("string", enum=["reverse", ""]), "reverse: the sorted order shown worst first"),
    Param("papers", "query", typed("string", enum=["hide", ""]),
          "hide: leave the papers' published rows out of the ranking (default: ranked with the entries)"),
    Param("entry", "query", typed("string", enum=["best", "latest", ""]),
          "one row per model: its best or latest entry (empty: best)"),
    Param("q", "query", description="model name or organisation contains this text (case-insensitive)"),
    Param("open", "query", typed("string", enum=["yes", "no", ""]), "open or closed weights only"),
    Param("params_min", "query", description="at least this many parameters (`350M`, `7B`); unsized rows left out"),
    Param("params_max", "query", description="at most this many parameters (`70B`); unsized rows left out"),
    Param("provenance", "query", typed("string", enum=["submitted", "released", ""]),
          "submitted: entries their owners uploaded; released: publishers' released outputs re-scored here "
          "(the papers' published rows are neither: both leave them out)"),
    Param("col", "query", array_of(typed("string")), "a column id or key to show (repeat; default: every column). "
          "The page always shows the sort column"),
    *_setting_params(),
]


@dataclass(frozen=True)
class Operation:
    """One method on one route. ``path`` uses OpenAPI ``{name}`` parameters."""

    method: str
    path: str
    summary: str
    ok: Schema | str  # the success body: a schema, or a media type for files
    params: tuple[Param, ...] = ()
    description: str = ""
    errors: tuple[int, ...] = (404,)
    token: bool = False
    body: dict[str, Schema] | None = None  # media type -> request body schema
    status: int = 200
    tags: tuple[str, ...] = ("read",)

    def as_openapi(self) -> Schema:
        op: Schema = {"operationId": _operation_id(self.method, self.path), "summary": self.summary,
                      "description": self.description, "tags": list(self.tags),
                      "parameters": [p.as_openapi() for p in self.params],
                      "responses": {str(self.status): _success(self.ok),
                                    **{str(s): _error(s, html=s == 404 and not self.path.startswith("/api/"))
                                       for s in self.errors}}}
        if self.token:
            op["security"] = [{"token": []}]
        elif self.body:
            op["security"] = [{"token": []}, {}]
        if self.body:
            op["requestBody"] = {"required": True,
                                 "content": {media: {"schema": schema} for media, schema in self.body.items()}}
        return op


_ERROR_TEXT = {400: "invalid request (field named in `error.field`)", 401: "missing or invalid API token",
               403: "not allowed (e.g. per-item scores of a hidden-label split)", 404: "no such benchmark, "
               "split, submission or route", 405: "method not allowed", 409: "not in a state that allows this",
               413: "a file or the body is over the size limit", 429: "a quota or rate limit is exhausted",
               500: "server error (logged)"}


def _success(ok: Schema | str) -> Schema:
    if isinstance(ok, str):
        return {"description": f"the file ({ok})", "content": {ok: {"schema": typed("string")}}}
    return {"description": "OK", "content": {JSON: {"schema": ok}}}


def _error(status: int, *, html: bool = False) -> Schema:
    if html:  # downloads are links people follow in a browser: their 404 is the site's page
        return {"description": "no such benchmark, split or submission (an HTML page)",
                "content": {"text/html": {"schema": typed("string")}}}
    return {"description": _ERROR_TEXT.get(status, "error"), "content": {JSON: {"schema": ref("Error")}}}


def _operation_id(method: str, path: str) -> str:
    words = [w.strip("{}").replace(".", "_").replace("-", "_") for w in path.split("/") if w and w not in ("api", "v1")]
    return "_".join([method.lower(), *words])


SPLIT_PARAMS = (BENCHMARK, SPLIT)
UPLOAD_ERRORS = (400, 401, 404, 405, 413, 429)

OPERATIONS: list[Operation] = [
    Operation("GET", "/api/v1/openapi.json", "This document", ANY_OBJECT, errors=()),
    Operation("GET", "/api/v1/benchmarks", "Every benchmark: task type, profiles, metrics, settings, splits",
              ref("BenchmarkList"), errors=()),
    Operation("GET", "/api/v1/benchmarks/{benchmark}", "One benchmark", ref("Benchmark"), (BENCHMARK,)),
    Operation("GET", "/api/v1/benchmarks/{benchmark}/{split}/leaderboard",
              "Rows, ranks, statistical ties, columns with signatures, the papers' published results",
              ref("Leaderboard"), (*SPLIT_PARAMS, *BOARD_QUERY),
              "Any benchmark setting key (e.g. `type=Multi`) filters the rows; a filter or search only hides "
              "rows, each keeps its rank on the whole board. The papers' results (`published_rows`, "
              "`source: paper`) are ranked with the entries (`rows`, `source: site`) on each column's scale; "
              "`papers=hide` leaves them out. An unknown column, entry policy or setting value is refused (400) "
              "rather than ignored.", (400, 404)),
    Operation("GET", "/api/v1/benchmarks/{benchmark}/{split}/heatmap",
              "Inter-model agreement, metric agreement, judge error types", ref("Heatmaps"),
              (*SPLIT_PARAMS, *BOARD_QUERY,
               Param("metric", "query", description="the metric of the score agreement map (default: the sort "
                     "column's)")),
              "The same rows as the leaderboard with the same parameters (filters, sort, entry policy), in its "
              "order. An unknown column, entry policy or setting value is refused (400).",
              errors=(400, 404)),
    Operation("POST", "/api/v1/benchmarks/{benchmark}/{split}/submissions", "Submit predictions (one file per run)",
              ref("Submission"), SPLIT_PARAMS, "Needs an API token. Validation and scoring follow on a worker: "
              "poll GET /api/v1/submissions/{id}. Invalid and failed entries use no quota.",
              UPLOAD_ERRORS, token=True, body=SUBMIT_BODY, status=201, tags=("submit",)),
    Operation("POST", "/api/v1/benchmarks/{benchmark}/{split}/validate", "Dry run: every problem, nothing stored",
              ref("ValidationResult"), SPLIT_PARAMS, "Stores nothing and uses no quota; checks what a "
              "submission checks.", (400, 401, 403, 404, 405, 413), body=VALIDATE_BODY, tags=("submit",)),
    Operation("GET", "/api/v1/models", "Models across benchmarks: each matching model's results per benchmark and "
              "split", ref("ModelList"),
              (Param("q", "query", typed("string", maxLength=200),
                     "text in the model's name or organisation, any case (empty: every model)", "qwen"),),
              "One model per name (case, spacing and punctuation folded); per board and split its rows (one per "
              "configuration) with rank and every column, each value exactly as that board shows it to the "
              "caller: hidden-label splits give released values only (rounded; `withheld` where an account's "
              "entry is not above its best); private entries only to their owner and maintainers.", (400,)),
    Operation("GET", "/api/v1/suites/{suite}", "A suite's tasks side by side: per model each task's value and rank",
              ANY_OBJECT, (Param("suite", "path", typed("string"), "the suite's name", "cmi-bench"),),
              "Each cell is the task board's main column (its default sort) and the rank that board gives the model, "
              "as that board shows them to the caller (hidden-label rules included). Values are never averaged "
              "across tasks; `rank` orders the mean task rank over the models ranked on every task that has a "
              "ranked row (`ranked_tasks`); other models have none. Unknown suite: 404.", (404,)),
    Operation("GET", "/api/v1/submissions/{id}", "Status, progress, problems, metrics with std, ci95, signatures",
              ref("Submission"), (SUBMISSION_ID,), "Private and hidden entries answer 404 to anyone but their "
              "owner and maintainers."),
    Operation("GET", "/api/v1/submissions/{id}/items", "One page of per-item rows, filtered and sorted",
              ref("ItemsPage"),
              (SUBMISSION_ID, Param("page", "query", typed("integer", minimum=1)),
               Param("run", "query", typed("integer", minimum=1)),
               Param("q", "query", description="text in the id, inputs or prediction"),
               Param("qa_type", "query", description="item type (yes_no, short_answer, sentence)"),
               Param("setting", "query", description="a setting value the item belongs to"),
               Param("correct", "query", or_empty(typed("string", enum=["yes", "no"])),
                     description="accuracy metrics only"),
               Param("parsed", "query", or_empty(typed("string", enum=["yes", "no"])),
                     description="the publisher's parser mapped the answer (yes) or not (no)"),
               Param("metric", "query", description="a per-item metric for min/max"),
               Param("min", "query", or_empty(typed("number"))), Param("max", "query", or_empty(typed("number"))),
               Param("sort", "query", description="[-]<per-item metric>")),
              "A run or page that does not exist is refused (404), not clamped; score filters and sorts are for "
              "maintainers on hidden-label splits (403), and the items themselves for the entry's owner and "
              "maintainers (403).", (400, 403, 404)),
    Operation("GET", "/api/v1/compare", "Two entries of one split: paired bootstrap difference per column",
              ANY_OBJECT,
              (Param("a", "query", typed("string", format="uuid"), description="submission id"),
               Param("b", "query", typed("string", format="uuid"), description="submission id"),
               Param("metric", "query", description="one column key (default: every shared column)")),
              "Per column with the same signature: both values, A − B, the paired-bootstrap 95% interval and "
              "p-value (as `python -m scoring compare`), whether it separates the two at the 5% level (`separated`: "
              "the leaderboard's tie rule, `tied`), the p-value Holm-adjusted over the columns' tests, items each "
              "wins or ties, and for ranking splits the mean per-item Kendall tau-b. Hidden-label splits, for "
              "non-maintainers: the difference of the released "
              "(rounded, Ladder) values and its direction only. At most `COMPARES_PER_HOUR` per account or IP (429).",
              (400, 403, 404, 409, 429)),
    Operation("GET", "/b/{benchmark}/{split}/leaderboard.csv", "The leaderboard as CSV", "text/csv",
              (*SPLIT_PARAMS, *BOARD_QUERY), tags=("files",)),
    Operation("GET", "/b/{benchmark}/{split}/leaderboard.json", "The leaderboard as a JSON file", ref("Leaderboard"),
              (*SPLIT_PARAMS, *BOARD_QUERY), tags=("files",)),
    Operation("GET", "/b/{benchmark}/{split}/inputs.jsonl",
              "The split's items without labels (ids, questions, candidates, audio names)",
              "application/x-ndjson", SPLIT_PARAMS, tags=("files",)),
    Operation("GET", "/b/{benchmark}/{split}/sample-predictions.jsonl",
              "A prediction file that validates: every item answered with a placeholder, from the inputs only",
              "application/x-ndjson", SPLIT_PARAMS, "409 `not_open` before references are imported.",
              errors=(404, 409), tags=("files",)),
    Operation("GET", "/s/{id}/items.csv", "Every per-item row as CSV", "text/csv", (SUBMISSION_ID,),
              errors=(403, 404, 409), tags=("files",)),
    Operation("GET", "/s/{id}/items.jsonl", "Every per-item row as JSONL", "application/x-ndjson", (SUBMISSION_ID,),
              "403 on hidden-label splits (per-item scores reveal labels), 409 until scored.",
              errors=(403, 404, 409), tags=("files",)),
]

DESCRIPTION = """\
Read benchmarks, leaderboards and entries; submit predictions and follow them until scored.

**Authentication.** Writes need an API token (create one on *API tokens* after signing up),
sent as `Authorization: Token <key>`. Reads need none; a token (or a session) shows the
caller's own private entries too.

**Errors.** Every error answer, whatever its status, is `{"error": {"code", "message", "field"}}`.
A limit's 429 adds `retry_after` (seconds) and `retry_at` (UTC) and carries a `Retry-After` header.

**From a script.** `python -m scoring submit --site URL --benchmark B --split S --predictions run.jsonl
--model-name M` checks the files locally, submits (no dry run spent), waits and prints the report
`python -m scoring score` prints; the token comes from `MUSIC_SCORING_TOKEN` or
`~/.config/music-scoring/config.toml`.
"""


def openapi_schema(server_url: str = "/") -> Schema:
    """The whole OpenAPI 3.0 document (a fresh dict: callers may change it)."""
    paths: dict[str, Schema] = {}
    for op in OPERATIONS:
        paths.setdefault(op.path, {})[op.method.lower()] = op.as_openapi()
    return {
        "openapi": "3.0.3",
        "info": {"title": "Music-understanding leaderboards API", "version": f"v1 (scoring {SCORING_VERSION})",
                 "description": DESCRIPTION},
        "servers": [{"url": server_url}],
        "tags": [{"name": "read", "description": "no token needed"},
                 {"name": "submit", "description": "uploads; a token for submissions"},
                 {"name": "files", "description": "downloads"}],
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"token": {"type": "apiKey", "in": "header", "name": "Authorization",
                                          "description": "`Token <key>` (or `Bearer <key>`)"}},
        },
    }

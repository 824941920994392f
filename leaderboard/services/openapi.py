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

from scoring import BENCHMARKS
from scoring.tasks import TASK_TYPES
from scoring.versions import SCORING_VERSION

JSON = "application/json"
Schema = dict[str, Any]


# --- small schema builders ------------------------------------------------------------------
def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None, **extra: Any) -> Schema:
    return {"type": "object", "required": list(required), "properties": {**required, **(optional or {})}, **extra}


def arr(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def t(kind: str, *, null: bool = False, **extra: Any) -> Schema:
    return {"type": kind, **({"nullable": True} if null else {}), **extra}


def nullable(schema: Schema) -> Schema:
    """A ``$ref`` or object that may also be ``null`` (OpenAPI 3.0 has no ``type: [.., "null"]``)."""
    return {"allOf": [schema], "nullable": True} if "$ref" in schema else {**schema, "nullable": True}


ANY_OBJECT: Schema = {"type": "object"}
NUMBER_OR_NULL = t("number", null=True)

SCHEMAS: dict[str, Schema] = {
    "Error": obj({"error": obj(
        {"code": t("string", description="stable machine-readable code, e.g. unknown_benchmark, closed"),
         "message": t("string", description="what went wrong and how to fix it"),
         "field": t("string", null=True, description="the request field at fault, if any")},
    )}, description="Every error answer of the API has this shape (4xx and 5xx alike).",
        example={"error": {"code": "unknown_split", "message": "dialbgm has no split 'dev'; valid: test",
                           "field": "split"}}),
    "Metric": obj({"key": t("string"), "label": t("string"), "higher_is_better": t("boolean"),
                   "scale": t("number")},
                  {"decimals": t("integer"), "applies_to": t("string", null=True), "description": t("string")}),
    "Split": obj({"benchmark": t("string"), "split": t("string"), "hidden_labels": t("boolean"),
                  "n_items": t("integer"), "accepting_submissions": t("boolean")},
                 {"title": t("string"), "description": t("string"), "demo_data": t("boolean"),
                  "leaderboard_url": t("string")}),
    "Benchmark": obj(
        {"name": t("string", enum=sorted(BENCHMARKS)), "title": t("string"),
         "task_type": t("string", enum=sorted(TASK_TYPES)),
         "official_profile": t("string"), "metrics": arr(ref("Metric")), "splits": arr(ref("Split"))},
        {"description": t("string"), "source": t("string"), "data_origin": t("string"), "license": t("string"),
         "profiles": arr(obj({"name": t("string"), "metrics": arr(t("string"))}, {"description": t("string")})),
         "default_sort": t("string"),
         "settings": arr(obj({"key": t("string"), "choices": arr(t("string"))}, {"label": t("string")}))}),
    "BenchmarkList": obj({"benchmarks": arr(ref("Benchmark"))}),
    "MetricValue": obj({"value": NUMBER_OR_NULL},
                       {"std": NUMBER_OR_NULL, "ci95": nullable(arr(NUMBER_OR_NULL)),
                        "per_run": nullable(arr(NUMBER_OR_NULL)), "n_scored": t("integer", null=True),
                        "signature": t("string")}),
    "Column": obj({"id": t("string"), "key": t("string"), "label": t("string"), "signature": t("string"),
                   "higher_is_better": t("boolean")}),
    "Entry": obj({"id": t("string", format="uuid"), "model_name": t("string"),
                  "metrics": {"type": "object", "additionalProperties": ANY_OBJECT}},
                 {"url": t("string"), "organisation": t("string"), "settings": ANY_OBJECT,
                  "private": t("boolean"), "runs": t("integer"), "created_at": t("string")}),
    "Leaderboard": obj(
        {"benchmark": t("string"), "split": t("string"), "hidden_labels": t("boolean"),
         "columns": arr(ref("Column")),
         "rows": arr(obj({"rank": t("integer", null=True), "statistically_tied": t("boolean"),
                          "complete": t("boolean"), "entry": ref("Entry")},
                         {"entries": arr(ref("Entry")), "entry_count": t("integer"), "mine": t("boolean"),
                          "missing": arr(t("string"))})),
         "published": arr(ANY_OBJECT)},
        {"profile": t("string"), "sort": nullable(ANY_OBJECT), "entry_policy": t("string", enum=["best", "latest"]),
         "filters": ANY_OBJECT, "demo_data": t("boolean"), "ranking": t("string")}),
    "ModelBoard": obj({"benchmark": t("string"), "split": t("string"), "title": t("string"), "url": t("string"),
                       "hidden_labels": t("boolean"), "demo_data": t("boolean"), "rows": t("integer"),
                       "main_column": obj({"id": t("string"), "label": t("string"), "decimals": t("integer"),
                                           "higher_is_better": t("boolean")}, {"unit": t("string")})},
                      description="A split's board and its main column (the benchmark's default sort)."),
    "ModelCell": obj({"key": t("string"), "label": t("string"), "value": NUMBER_OR_NULL},
                     {"decimals": t("integer"), "std": NUMBER_OR_NULL, "ci95": nullable(arr(NUMBER_OR_NULL)),
                      "withheld": t("string", description="hidden-label split: why no value is shown")}),
    "ModelResult": obj(
        {"benchmark": t("string"), "split": t("string"), "board": ref("ModelBoard"), "model_name": t("string"),
         "rank": t("integer", null=True), "statistically_tied": t("boolean"), "entry": t("string", format="uuid"),
         "main": nullable(ref("ModelCell")),
         "metrics": {"type": "object", "additionalProperties": ref("ModelCell"),
                     "description": "every column of the board the entry has, by column id"}},
        {"organisation": t("string"), "settings": ANY_OBJECT, "entry_url": t("string"), "entry_count": t("integer"),
         "demo": t("boolean"), "verified": t("boolean"), "private": t("boolean"), "mine": t("boolean")},
        description="A model's row on one board, with the board's own values for this caller."),
    "Model": obj({"slug": t("string"), "name": t("string"), "results": arr(ref("ModelResult"))},
                 {"names": arr(t("string")), "organisations": arr(t("string")), "url": t("string"),
                  "demo": t("boolean")}),
    "ModelList": obj({"query": t("string"), "boards": arr(ref("ModelBoard")), "models": arr(ref("Model"))}),
    "Heatmaps": obj({"models": arr(t("string")), "entries": arr(t("string"))},
                    {"model_agreement": ANY_OBJECT, "metric_agreement": ANY_OBJECT, "error_types": ANY_OBJECT},
                    description="Agreement matrices in leaderboard order; cells are null where undefined."),
    "Problem": obj({"file": t("string"), "line": t("integer", description="1-based; 0 = the file as a whole"),
                    "kind": t("string"), "message": t("string")}, {"field": t("string", null=True)}),
    "Submission": obj(
        {"id": t("string", format="uuid"), "benchmark": t("string"), "split": t("string"),
         "model_name": t("string"),
         "status": t("string", enum=["uploaded", "validating", "queued", "scoring", "aggregating", "scored",
                                     "invalid", "failed"]),
         "progress": obj({"done": t("integer"), "total": t("integer")}, {"percent": t("number")}),
         "metrics": {"type": "object", "additionalProperties": ref("MetricValue")}},
        {"url": t("string"), "organisation": t("string"), "settings": ANY_OBJECT, "status_detail": t("string"),
         "stage": t("string", description="validating, queued, light_metrics, bertscore or aggregating while "
                                          "active; the status once ended"),
         "stage_detail": t("string", description='What the stage is doing, e.g. "BERTScore chunk 3 of 12".'),
         "eta_seconds": t("integer", null=True,
                          description="Seconds left at this submission's measured items per second; "
                                      "null until two progress points exist."),
         "private": t("boolean"), "profile": t("string"),
         "runs": arr(obj({"number": t("integer"), "file": t("string"), "sha256": t("string", null=True),
                             "size": t("integer", null=True)})),
         "created_at": t("string"), "finished_at": t("string", null=True), "not_computed": ANY_OBJECT,
         "diagnostics": ANY_OBJECT, "n_items": t("integer"), "bootstrap": ANY_OBJECT,
         "problems": nullable(arr(ref("Problem"))), "problem_counts": nullable(ANY_OBJECT)}),
    "ValidationResult": obj({"valid": t("boolean"), "problem_count": t("integer"),
                             "problem_counts": {"type": "object", "additionalProperties": t("integer")},
                             "problems": arr(ref("Problem"))},
                            example={"valid": False, "problem_count": 1, "problem_counts": {"unknown_id": 1},
                                     "problems": [{"file": "run1.jsonl", "line": 3, "kind": "unknown_id",
                                                   "field": "id", "message": 'id "x" is not an item of test'}]}),
    "ItemsPage": obj({"submission": t("string"), "run": t("integer"), "page": t("integer"), "pages": t("integer"),
                      "total": t("integer"), "details_visible": t("boolean"), "items": arr(ANY_OBJECT)},
                     {"runs": arr(t("integer")), "withheld": t("string", null=True)}),
}

SUBMISSION_FIELDS: dict[str, Schema] = {
    "organisation": t("string"), "paper_url": t("string"), "code_url": t("string"),
    "parameters": t("string", description="e.g. 7B"), "open_weights": t("boolean"),
    "description": t("string"), "private": t("boolean"),
}
SETTING_FIELDS = t("string", description="each of the benchmark's settings by key (e.g. type=Multi); "
                                         "choices in GET /api/v1/benchmarks/{benchmark}; any other key is "
                                         "refused (400 unknown_field)")


def upload_body(predictions: Schema, **extra: Any) -> Schema:
    """The submission's fields plus ``predictions`` (files or JSONL text); settings by their keys."""
    return obj({"model_name": t("string", maxLength=200, description="how the model appears on the leaderboard"),
                "predictions": predictions}, SUBMISSION_FIELDS, additionalProperties=SETTING_FIELDS, **extra)


MULTIPART_UPLOAD = upload_body(arr(t("string", format="binary")),
                               description="one `predictions` file part per run (JSONL)")
JSONL_TEXTS: Schema = {"oneOf": [t("string"), arr(t("string"))], "description": "JSONL text, or one JSONL text per run"}
JSON_UPLOAD = upload_body(JSONL_TEXTS,
                          example={"model_name": "MyModel", "type": "Multi",
                                   "predictions": '{"id": "q1", "prediction": "yes"}\n'})


SUBMIT_BODY = {"multipart/form-data": MULTIPART_UPLOAD, JSON: JSON_UPLOAD}
VALIDATE_BODY = {"multipart/form-data": obj({"predictions": arr(t("string", format="binary"))}),
                 JSON: obj({"predictions": JSONL_TEXTS},
                           example={"predictions": '{"id": "q1", "prediction": "yes"}\n'})}


@dataclass(frozen=True)
class Param:
    name: str
    where: str = "path"
    schema: Schema = field(default_factory=lambda: t("string"))
    description: str = ""
    example: Any = None

    def as_openapi(self) -> Schema:
        out = {"name": self.name, "in": self.where, "required": self.where == "path", "schema": self.schema,
               "description": self.description}
        if self.example is not None:
            out["example"] = self.example
        return out


BENCHMARK = Param("benchmark", schema=t("string", enum=sorted(BENCHMARKS)), example="dialbgm")
SPLIT = Param("split", schema=t("string", pattern=r"^[-a-zA-Z0-9_]+$"), example="test")
SUBMISSION_ID = Param("id", schema=t("string", format="uuid"), description="a submission's id")
def _setting_params() -> list[Param]:
    """One filter per benchmark setting key (``type``, ``input``, ...), with every benchmark's choices."""
    choices: dict[str, dict[str, list[str]]] = {}
    for spec in BENCHMARKS.values():
        for setting in spec.settings:
            choices.setdefault(setting.key, {})[spec.name] = [c for c, _ in setting.choices]
    return [Param(key, "query", t("string"),  # choices differ by benchmark; another benchmark's key is no filter
                  "setting filter (" + "; ".join(f"{b}: {', '.join(cs)}" for b, cs in sorted(by.items()))
                  + "); a value that is not a choice is refused (400)")
            for key, by in sorted(choices.items())]


BOARD_QUERY = [
    Param("sort", "query", description="a column id from `columns` (`key@hash`, as the page's headers link) or "
          "a metric key (default: the benchmark's default)"),
    Param("dir", "query", t("string", enum=["reverse", ""]), "reverse: the sorted order shown worst first"),
    Param("entry", "query", t("string", enum=["best", "latest", ""]),
          "one row per model: its best or latest entry (empty: best)"),
    Param("q", "query", description="model name or organisation contains this text (case-insensitive)"),
    Param("open", "query", t("string", enum=["yes", "no", ""]), "open or closed weights only"),
    Param("params_min", "query", description="at least this many parameters (`350M`, `7B`); unsized rows left out"),
    Param("params_max", "query", description="at most this many parameters (`70B`); unsized rows left out"),
    Param("col", "query", arr(t("string")), "a column id or key to show (repeat; default: every column). "
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
        return {"description": f"the file ({ok})", "content": {ok: {"schema": t("string")}}}
    return {"description": "OK", "content": {JSON: {"schema": ok}}}


def _error(status: int, *, html: bool = False) -> Schema:
    if html:  # downloads are links people follow in a browser: their 404 is the site's page
        return {"description": "no such benchmark, split or submission (an HTML page)",
                "content": {"text/html": {"schema": t("string")}}}
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
              "Rows, ranks, statistical ties, columns with signatures, the papers' published tables",
              ref("Leaderboard"), (*SPLIT_PARAMS, *BOARD_QUERY),
              "Any benchmark setting key (e.g. `type=Multi`) filters the rows. An unknown column, entry "
              "policy or setting value is refused (400) rather than ignored.", (400, 404)),
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
              (Param("q", "query", t("string", maxLength=200),
                     "text in the model's name or organisation, any case (empty: every model)", "qwen"),),
              "One model per name (case, spacing and punctuation folded); per board and split its rows (one per "
              "configuration) with rank and every column, each value exactly as that board shows it to the "
              "caller: hidden-label splits give released values only (rounded; `withheld` where an account's "
              "entry is not above its best); private entries only to their owner and maintainers.", (400,)),
    Operation("GET", "/api/v1/submissions/{id}", "Status, progress, problems, metrics with std, ci95, signatures",
              ref("Submission"), (SUBMISSION_ID,), "Private and hidden entries answer 404 to anyone but their "
              "owner and maintainers."),
    Operation("GET", "/api/v1/submissions/{id}/items", "One page of per-item rows, filtered and sorted",
              ref("ItemsPage"),
              (SUBMISSION_ID, Param("page", "query", t("integer", minimum=1)),
               Param("run", "query", t("integer", minimum=1)),
               Param("q", "query", description="text in the id, inputs or prediction"),
               Param("qa_type", "query", description="item type (yes_no, short_answer, sentence)"),
               Param("setting", "query", description="a setting value the item belongs to"),
               Param("correct", "query", t("string", enum=["yes", "no"]), description="accuracy metrics only"),
               Param("metric", "query", description="a per-item metric for min/max"),
               Param("min", "query", t("number")), Param("max", "query", t("number")),
               Param("sort", "query", description="[-]<per-item metric>")),
              "A run or page that does not exist is refused (404), not clamped; score filters and sorts are for "
              "maintainers on hidden-label splits (403), and the items themselves for the entry's owner and "
              "maintainers (403).", (400, 403, 404)),
    Operation("GET", "/api/v1/compare", "Two entries of one split: paired bootstrap difference per column",
              ANY_OBJECT,
              (Param("a", "query", t("string", format="uuid"), description="submission id"),
               Param("b", "query", t("string", format="uuid"), description="submission id"),
               Param("metric", "query", description="one column key (default: every shared column)")),
              "Per column with the same signature: both values, A − B, the paired-bootstrap 95% interval and "
              "p-value (as `python -m scoring compare`), items each wins or ties, and for ranking splits the mean "
              "per-item Kendall tau-b. Hidden-label splits, for non-maintainers: the difference of the released "
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

**From a script.** `python -m scoring submit --site URL --benchmark B --split S --predictions run.jsonl
--model-name M` checks the files locally, dry-runs them here, submits, waits and prints the report
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

"""The leaderboard site from a script: submit, follow, read leaderboards, download per-item rows.

:class:`SiteClient` speaks the site's JSON API (``/api/v1/openapi.json`` describes it) with httpx.
The API token comes from ``MUSIC_SCORING_TOKEN`` or the config file
(``$XDG_CONFIG_HOME/music-scoring/config.toml``, default ``~/.config/music-scoring/config.toml``)::

    site = "https://leaderboard.example.org"   # default for --site
    token = "..."                               # for that site
    [sites."http://127.0.0.1:8000"]
    token = "..."                               # per-site tokens

:func:`precheck_predictions` validates files on this machine before anything is sent, with the
same checks the site runs, against the split's public inputs (ids and candidates, never labels).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from scoring.reading.jsonl import read_jsonl
from scoring.reading.problems import ProblemLog
from scoring.reading.validation import ReferenceSet, read_predictions
from scoring.specs import BenchmarkSpec
from scoring.task_types import TASK_TYPES, Fields, Reference

TOKEN_ENV = "MUSIC_SCORING_TOKEN"
SITE_ENV = "MUSIC_SCORING_SITE"
FINAL_STATUSES = ("scored", "invalid", "failed")
REPORT_KEYS = ("benchmark", "profile", "n_items", "runs", "metrics", "std", "ci95", "signatures", "per_run",
               "n_scored", "not_computed", "diagnostics", "bootstrap")
CLI_REPORT_KEYS = ("warnings", "missing_as_empty")  # what `score` prints after the engine's report


class ClientError(Exception):
    """The site could not be reached or answered with an error (``code`` from its error shape)."""

    def __init__(self, message: str, *, status: int | None = None, code: str = "", field: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.field = status, code, field


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/music-scoring/config.toml`` (``~/.config`` when the variable is unset)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "music-scoring" / "config.toml"


def _config(environ: Mapping[str, str]) -> dict[str, Any]:
    path = config_path(environ)
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ClientError(f"{path}: not valid TOML: {exc}") from None


def resolve_site(site: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``--site``, else ``MUSIC_SCORING_SITE``, else ``site`` in the config file."""
    env = os.environ if environ is None else environ
    found = site or env.get(SITE_ENV) or _config(env).get("site")
    if not found:
        raise ClientError(f"give --site URL (or set {SITE_ENV}, or site = \"...\" in {config_path(env)})")
    return str(found).rstrip("/")


def resolve_token(site: str, environ: Mapping[str, str] | None = None) -> str | None:
    """``MUSIC_SCORING_TOKEN``, else the config file's token for ``site``, else its top-level token."""
    env = os.environ if environ is None else environ
    if env.get(TOKEN_ENV):
        return env[TOKEN_ENV].strip()
    config = _config(env)
    per_site = config.get("sites", {}).get(site.rstrip("/"), {})
    token = per_site.get("token") or config.get("token")
    return str(token).strip() if token else None


@dataclass
class SiteClient:
    """A thin client of the site's API; every error answer becomes a :class:`ClientError`."""

    site: str
    token: str | None = None
    timeout: float = 120.0
    transport: httpx.BaseTransport | None = None

    def __post_init__(self) -> None:
        headers = {"Authorization": f"Token {self.token}"} if self.token else {}
        self.http = httpx.Client(base_url=self.site, headers=headers, timeout=self.timeout,
                                 transport=self.transport, follow_redirects=True)

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach {self.site}: {exc}") from None
        if response.status_code >= 400:
            raise _error(response)
        return response

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._request(method, path, **kwargs)
        try:
            return response.json()
        except ValueError:
            raise ClientError(f"{path}: the site answered {response.status_code} without JSON") from None

    def benchmark(self, benchmark: str) -> dict[str, Any]:
        return dict(self.json("GET", f"/api/v1/benchmarks/{benchmark}"))

    def inputs(self, benchmark: str, split: str) -> str | None:
        """The split's public inputs (JSONL), or ``None`` when the site has none to give."""
        try:
            return self._request("GET", f"/b/{benchmark}/{split}/inputs.jsonl").text
        except ClientError as exc:
            if exc.status is not None and exc.status < 500:
                return None
            raise

    def validate(self, benchmark: str, split: str, files: Sequence[Path]) -> dict[str, Any]:
        with _FileParts(files) as parts:
            return dict(self.json("POST", f"/api/v1/benchmarks/{benchmark}/{split}/validate", files=parts))

    def submit(self, benchmark: str, split: str, files: Sequence[Path], fields: Mapping[str, str]) -> dict[str, Any]:
        if not self.token:
            raise ClientError(f"submitting needs an API token: set {TOKEN_ENV} or token = \"...\" in {config_path()}")
        with _FileParts(files) as parts:
            return dict(self.json("POST", f"/api/v1/benchmarks/{benchmark}/{split}/submissions",
                                  data=dict(fields), files=parts))

    def submission(self, uid: str) -> dict[str, Any]:
        return dict(self.json("GET", f"/api/v1/submissions/{uid}"))

    def leaderboard(self, benchmark: str, split: str, params: Mapping[str, str]) -> dict[str, Any]:
        return dict(self.json("GET", f"/api/v1/benchmarks/{benchmark}/{split}/leaderboard", params=dict(params)))

    def leaderboard_csv(self, benchmark: str, split: str, params: Mapping[str, str]) -> str:
        return self._request("GET", f"/b/{benchmark}/{split}/leaderboard.csv", params=dict(params)).text

    def items(self, uid: str, fmt: str = "jsonl") -> Iterator[bytes]:
        """Every per-item row of a scored submission, streamed (``jsonl`` or ``csv``)."""
        try:
            with self.http.stream("GET", f"/s/{uid}/items.{fmt}") as response:
                if response.status_code >= 400:
                    response.read()
                    raise _error(response)
                yield from response.iter_bytes()
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach {self.site}: {exc}") from None


class _FileParts:
    """Multipart ``predictions`` parts, one per run, files closed afterwards."""

    def __init__(self, files: Sequence[Path]) -> None:
        self.paths = list(files)
        self.handles: list[Any] = []

    def __enter__(self) -> list[tuple[str, tuple[str, Any, str]]]:
        self.handles = [open(path, "rb") for path in self.paths]  # noqa: SIM115 (closed in __exit__)
        return [("predictions", (p.name, h, "application/x-ndjson")) for p, h in zip(self.paths, self.handles)]

    def __exit__(self, *exc: object) -> None:
        for handle in self.handles:
            handle.close()


def _error(response: httpx.Response) -> ClientError:
    try:
        error = response.json()["error"]
        return ClientError(f"{error['code']}: {error['message']}", status=response.status_code,
                           code=error["code"], field=error.get("field"))
    except (ValueError, KeyError, TypeError):
        return ClientError(f"HTTP {response.status_code} from {response.request.url}", status=response.status_code)


def precheck_predictions(spec: BenchmarkSpec, files: Sequence[Path], inputs_jsonl: str | None,
                         *, split: str = "split", keep: int = 200) -> ProblemLog:
    """Problems of prediction files found without uploading them.

    With the split's public inputs (``inputs.jsonl``: ids and candidates) this runs the site's own
    checks (:func:`~scoring.reading.validation.read_predictions`: fields, duplicate, unknown and missing ids,
    candidates). Without them: JSONL shape, fields and duplicate ids.
    """
    log = ProblemLog(keep=keep)
    items = _public_items(inputs_jsonl, split) if inputs_jsonl else None
    for path in files:
        if items is not None:
            read_predictions(spec, items, path, log, name=path.name)
        else:
            _check_without_items(spec, path, log)
    return log


def _public_items(inputs_jsonl: str, split: str) -> ReferenceSet | None:
    references = []
    for line, text in enumerate(inputs_jsonl.splitlines(), start=1):
        if text.strip():
            obj = json.loads(text)
            if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                references.append(Reference(id=obj.pop("id"), line=line, public=obj))
    return ReferenceSet(f"{split} (inputs.jsonl)", references) if references else None


def _check_without_items(spec: BenchmarkSpec, path: Path, log: ProblemLog) -> None:
    task = TASK_TYPES[spec.task_type]
    seen: dict[str, int] = {}
    any_line = False
    for line, obj in read_jsonl(path, log, name=path.name):
        any_line = True
        prediction = task.parse_prediction(Fields(obj, log, path.name, line), None)
        if prediction is None:
            continue
        if prediction.id in seen:
            log.add(path.name, line, "duplicate_id", f'id "{prediction.id[:80]}" already on line {seen[prediction.id]}',
                    "id")
        seen.setdefault(prediction.id, line)
    if not any_line and not log:
        log.add(path.name, 0, "empty_file", "the file has no predictions")


def report_from_submission(submission: Mapping[str, Any]) -> dict[str, Any]:
    """The site's submission as the JSON report ``python -m scoring score`` prints (same keys)."""
    metrics = submission.get("metrics", {})
    report = {
        "benchmark": submission["benchmark"],
        "profile": submission.get("profile", ""),
        "n_items": submission.get("n_items"),
        "runs": len(submission.get("runs", [])),
        "metrics": {k: v["value"] for k, v in metrics.items()},
        "std": {k: v.get("std") for k, v in metrics.items()},
        "ci95": {k: v.get("ci95") for k, v in metrics.items()},
        "signatures": {k: v.get("signature") for k, v in metrics.items()},
        "per_run": {k: v.get("per_run") for k, v in metrics.items()},
        "n_scored": {k: v.get("n_scored") for k, v in metrics.items()},
        "not_computed": submission.get("not_computed", {}),
        "diagnostics": submission.get("diagnostics", {}),
        "bootstrap": submission.get("bootstrap", {}),
        "warnings": _warnings(submission),
        "missing_as_empty": 0,  # the site never scores a missing item as empty: a missing item is an error
    }
    return {**report, "submission": {"id": submission["id"], "url": submission.get("url"),
                                     "split": submission.get("split"), "status": submission["status"]}}


def _warnings(submission: Mapping[str, Any]) -> dict[str, Any]:
    """The site's ``warning_counts``/``warning_summary``/``warnings`` in the shape ``score`` prints."""
    counts = dict(submission.get("warning_counts") or {})
    return {"total": sum(counts.values()), "counts": counts, "summary": submission.get("warning_summary", []),
            "first": submission.get("warnings") or []}


def problem_lines(problems: Sequence[Mapping[str, Any]]) -> list[str]:
    """``FILE:LINE: field: message`` for problems in the API's shape (as ``validate`` prints them)."""
    lines = []
    for p in problems:
        where = f" {p['field']}:" if p.get("field") else ""
        if int(p.get("count") or 1) > 1:  # alike problems, one entry: "lines 3, 4, 7 and 997 more"
            example = f"e.g. {p.get('unit', 'line')} {p['line']}: " if p.get("varied") else ""
            lines.append(f"{p['file']}: {p.get('where') or p['line']}:{where} {example}{p['message']}")
        else:
            lines.append(f"{p['file']}:{p['line']}:{where} {p['message']}")
    return lines

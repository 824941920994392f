"""The OpenAPI document, its page, and three lists that must agree: the URLconf's routes under /api/,
the schema's operations (leaderboard/services/openapi.py) and the API table of docs/api.md."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.exceptions import Resolver404

from leaderboard.services.openapi import OPERATIONS, openapi_schema

pytestmark = pytest.mark.django_db
API_DOC = Path(__file__).resolve().parents[3] / "docs" / "api.md"
SCHEMA_FILE = "leaderboard/services/openapi.py"
SAMPLES = {"benchmark": "dialbgm", "b": "dialbgm", "split": "test", "uid": str(uuid.UUID(int=1)),
           "id": str(uuid.UUID(int=1))}


@dataclass(frozen=True)
class Route:
    path: str  # OpenAPI style: /api/v1/benchmarks/{benchmark}
    name: str

    @property
    def key(self) -> str:
        return shape(self.path)


def shape(path: str) -> str:
    """A path with its parameter names erased: /x/{a}, /x/<b> and /x/<slug:c> compare equal."""
    return re.sub(r"\{[^}]*\}|<[^>]*>", "{}", path)


def sample(path: str) -> str:
    return re.sub(r"\{(\w+)\}|<(?:\w+:)?(\w+)>", lambda m: SAMPLES.get(m[1] or m[2], "x"), path)


def _expand_regex(regex: str) -> list[str]:
    """``^b/(?P<b>[-\\w]+)/leaderboard\\.(?P<fmt>csv|json)$`` -> ['b/{b}/leaderboard.csv', '.../leaderboard.json']."""
    regex = regex.lstrip("^").rstrip("$")
    match = re.search(r"\(\?P<(\w+)>([\w|]+)\)", regex)  # a group of literal alternatives: one route each
    if match:
        return [p for alt in match[2].split("|")
                for p in _expand_regex(regex[:match.start()] + alt + regex[match.end():])]
    return [re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", regex).replace("\\.", ".")]


def url_routes(patterns: list | None = None, prefix: str = "") -> list[Route]:
    routes: list[Route] = []
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        text = str(entry.pattern)
        if isinstance(entry, URLResolver):
            routes += url_routes(entry.url_patterns, prefix + text.lstrip("^"))
        elif isinstance(entry, URLPattern):
            paths = _expand_regex(text) if text.startswith("^") else [re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", text)]
            routes += [Route("/" + prefix + p, entry.name or "") for p in paths]
    return routes


def api_routes() -> list[Route]:
    return [r for r in url_routes() if r.path.startswith("/api/")]


def allowed_methods(client: Client, route: Route) -> set[str]:
    """Every API view is wrapped in require_GET/require_http_methods, which answer TRACE with 405 + Allow."""
    response = client.generic("TRACE", sample(route.path))
    assert response.status_code == 405, f"{route.path}: wrap the view in require_GET or require_http_methods"
    return {m.strip() for m in response["Allow"].split(",")} - {"HEAD", "OPTIONS"}


def readme_routes() -> list[tuple[str, str]]:
    """(METHOD, path) for every route in the API table of docs/api.md."""
    section = API_DOC.read_text().split("# JSON API", 1)[1].split("\n## ", 1)[0]
    found: list[tuple[str, str]] = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first_cell = line.split(" | ", 1)[0]
        for token in re.findall(r"`([^`]+)`", first_cell):
            if token.startswith(".") and found:  # `GET /b/x/leaderboard.csv` / `.json`
                method, previous = found[-1]
                found.append((method, previous.rsplit(".", 1)[0] + token))
                continue
            method, _, path = token.partition(" ")
            found.append((method, path.split("?", 1)[0].split(" ", 1)[0]))
    return found


def schema_operations() -> set[tuple[str, str]]:
    return {(method.upper(), shape(path)) for path, item in openapi_schema()["paths"].items() for method in item}


def _resolves(path: str) -> bool:
    try:
        resolve(sample(path))
    except Resolver404:
        return False
    return True


def test_every_api_route_is_in_the_schema_and_the_readme(db):
    client, in_schema, in_readme = Client(), schema_operations(), {(m, shape(p)) for m, p in readme_routes()}
    missing: list[str] = []
    for route in api_routes():
        for method in sorted(allowed_methods(client, route)):
            if (method, route.key) not in in_schema:
                missing.append(
                    f"{method} {route.path} (URL name {route.name!r}) is not in the OpenAPI schema: add "
                    f'Operation("{method}", "{route.path}", "<what it does>", ref("<ResponseShape>"), (<Param>, ...)) '
                    f"to OPERATIONS in {SCHEMA_FILE} (and the response shape to SCHEMAS if it is new)")
            if (method, route.key) not in in_readme:
                missing.append(f"{method} {route.path} is not in docs/api.md: add the row "
                               f"| `{method} {route.path}` | <what it does> | to the table under '## JSON API'")
    assert not missing, "\n".join(missing)


def test_schema_and_readme_list_only_routes_that_exist(db):
    client = Client()
    routes = {r.key: r for r in url_routes()}
    wrong: list[str] = []
    for method, path in sorted(schema_operations()):
        if path not in routes:
            wrong.append(f"the OpenAPI schema ({SCHEMA_FILE}) lists {method} {path}, which no URL pattern matches")
        elif path.startswith("/api/") and method not in allowed_methods(client, routes[path]):
            wrong.append(f"the OpenAPI schema lists {method} {path}, but the view does not allow {method}")
    for method, path in readme_routes():
        if not _resolves(path):
            wrong.append(f"docs/api.md's API table lists {method} {path}, which no URL pattern matches")
        elif path.startswith("/api/") and (method, shape(path)) not in schema_operations():
            wrong.append(f"docs/api.md's API table lists {method} {path}, which the OpenAPI schema does not")
    assert not wrong, "\n".join(wrong)


def test_route_walk_sees_every_kind_of_pattern():
    """The consistency tests above are only as good as this walk: path(), re_path() alternatives, include()."""
    paths = {r.path for r in url_routes()}
    assert {"/api/v1/benchmarks/{benchmark}", "/api/v1/submissions/{uid}/items",
            "/b/{benchmark}/{split}/leaderboard.csv", "/b/{benchmark}/{split}/leaderboard.json",
            "/s/{uid}/items.jsonl"} <= paths
    assert any(p.startswith("/admin/") for p in paths)  # include()d patterns
    assert len(api_routes()) >= 9
    assert ("GET", "/b/<b>/<split>/leaderboard.json") in readme_routes()


def test_openapi_json_is_served_and_describes_auth_errors_and_examples(db):
    response = Client().get("/api/v1/openapi.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    doc = response.json()
    assert doc["openapi"].startswith("3.0") and doc == openapi_schema()
    assert doc["components"]["securitySchemes"]["token"] == {
        "type": "apiKey", "in": "header", "name": "Authorization",
        "description": "`Token <key>` (or `Bearer <key>`)"}
    submit = doc["paths"]["/api/v1/benchmarks/{benchmark}/{split}/submissions"]["post"]
    assert submit["security"] == [{"token": []}]
    assert set(submit["requestBody"]["content"]) == {"multipart/form-data", "application/json"}
    error = {"$ref": "#/components/schemas/Error"}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, answer in op["responses"].items():
                if int(status) >= 400 and (path.startswith("/api/") or status != "404"):
                    assert answer["content"]["application/json"]["schema"] == error, (method, path, status)
    assert doc["components"]["schemas"]["Error"]["example"]["error"]["field"] == "split"
    ids = [op["operationId"] for item in doc["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids)) == len(OPERATIONS)


def test_docs_page_is_linked_from_the_footer_and_lists_every_operation(db):
    home = Client().get("/").content.decode()
    assert 'href="/docs/api/"' in home and 'href="/api/v1/openapi.json"' in home
    page = Client().get("/docs/api/")
    assert page.status_code == 200
    html = page.content.decode()
    for op in OPERATIONS:
        assert f"<code>{op.method} {op.path}</code>" in html, op.path
    assert "<script" not in html.split("</footer>")[0].split("<main", 1)[1]  # strict CSP: no inline scripts
    assert "Authorization: Token &lt;key&gt;" in html

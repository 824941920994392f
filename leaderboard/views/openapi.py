"""The API's OpenAPI document (``/api/v1/openapi.json``) and its server-rendered page (``/docs/api/``)."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from leaderboard.services.openapi import openapi_schema


@require_GET
def openapi_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse(openapi_schema())


@require_GET
def api_docs(request: HttpRequest) -> HttpResponse:
    schema = openapi_schema()
    operations = [_operation(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]
    shapes = schema["components"]["schemas"]
    components = [{"name": name, "json": json.dumps(s, indent=2)} for name, s in shapes.items()]
    return render(request, "api_docs.html", {"info": schema["info"], "operations": operations,
                                             "components": components, "tags": schema["tags"]})


def _operation(path: str, method: str, op: dict[str, Any]) -> dict[str, Any]:
    body = op.get("requestBody", {}).get("content", {})
    return {
        "anchor": op["operationId"], "method": method.upper(), "path": path, "summary": op["summary"],
        "description": op["description"], "tag": op["tags"][0],
        "token": "required" if op.get("security") == [{"token": []}] else ("optional" if op.get("security") else ""),
        "parameters": [{**p, "type": _type(p["schema"])} for p in op["parameters"]],
        "body": [{"media": media, "json": json.dumps(content["schema"], indent=2)} for media, content in body.items()],
        "responses": [{"status": status, "description": r["description"],
                       "media": ", ".join(r.get("content", {})),
                       "schema": _type(_first_schema(r))}
                      for status, r in op["responses"].items()],
    }


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if "enum" in schema:
        return " | ".join(str(v) for v in schema["enum"])
    kind = schema.get("type", "object")
    return f"{kind} ({schema['format']})" if "format" in schema else kind


def _first_schema(response: dict[str, Any]) -> dict[str, Any]:
    content: dict[str, Any] = response.get("content") or {}
    first: dict[str, Any] = next(iter(content.values()), {})
    return dict(first.get("schema") or {})

"""The JSON API's reference page, made from the app's own OpenAPI schema (no web framework).

FastAPI's Swagger and ReDoc pages load scripts from a CDN, which the reference never does; this
page is plain HTML from the same schema `/openapi.json` serves, so it cannot drift from it.
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


def api_reference(schema: JSON) -> JSON:
    """`{title, description, endpoints: [{method, path, description, parameters}]}`."""
    endpoints: list[JSON] = []
    for path, methods in schema.get("paths", {}).items():
        for method, operation in methods.items():
            endpoints.append({
                "method": method.upper(),
                "path": path,
                "description": (operation.get("description") or "").strip(),
                "parameters": [_parameter(p) for p in operation.get("parameters", [])],
            })
    info = schema.get("info", {})
    return {"title": info.get("title", ""), "description": info.get("description", ""),
            "version": info.get("version", ""), "endpoints": endpoints}


def _parameter(parameter: JSON) -> JSON:
    spec = parameter.get("schema", {})
    limits = [f"{word} {spec[key]}" for key, word in (
        ("minimum", "≥"), ("maximum", "≤"), ("minLength", "길이 ≥"), ("maxLength", "길이 ≤"))
        if key in spec]
    return {"name": parameter.get("name", ""), "where": parameter.get("in", ""),
            "required": bool(parameter.get("required")), "type": spec.get("type", ""),
            "default": spec.get("default"), "limits": ", ".join(limits)}

"""The JSON API's reference page, made from the app's own OpenAPI schema (no web framework).

FastAPI's Swagger and ReDoc pages load scripts from a CDN, which the reference never does; this
page is plain HTML from the same schema `/openapi.json` serves, so it cannot drift from it.
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


def api_reference(schema: JSON) -> JSON:
    """`{title, description, openapi, endpoints: [{method, path, description, parameters,
    answer}], schemas: [{name, description, fields}]}`: every operation with its parameters and
    the type of its answer, then every answer type's fields (those the answers refer to)."""
    endpoints: list[JSON] = []
    components: JSON = schema.get("components", {}).get("schemas", {})
    used: dict[str, None] = {}
    for path, methods in schema.get("paths", {}).items():
        for method, operation in methods.items():
            responses = operation.get("responses", {})
            answer, error = (responses.get(status, {}).get("content", {})
                             .get("application/json", {}).get("schema", {})
                             for status in ("200", "4XX"))
            _collect([answer, error], components, used)
            endpoints.append({
                "method": method.upper(),
                "path": path,
                "description": (operation.get("description") or "").strip(),
                "parameters": [_parameter(p) for p in operation.get("parameters", [])],
                "answer": _type(answer),
                "error": _type(error) if error else "",
            })
    info = schema.get("info", {})
    return {"title": info.get("title", ""), "description": info.get("description", ""),
            "openapi": schema.get("openapi", ""), "endpoints": endpoints,
            "schemas": [_fields(name, components[name]) for name in sorted(used)]}


def _name(ref: str) -> str:
    return ref.rpartition("/")[2]


def _type(spec: JSON) -> str:
    """A schema as a short type: `list[SearchHit]`, `string | null`, `dict[string, integer]`."""
    if "$ref" in spec:
        return _name(spec["$ref"])
    if "anyOf" in spec:
        return " | ".join(_type(s) for s in spec["anyOf"])
    kind = spec.get("type", "any")
    if kind == "array":
        return f"list[{_type(spec.get('items', {}))}]"
    if kind == "object" and isinstance(spec.get("additionalProperties"), dict):
        return f"dict[string, {_type(spec['additionalProperties'])}]"
    return str(kind)


def _collect(spec: object, components: JSON, used: dict[str, None]) -> None:
    """Every component `spec` refers to, directly or through others (in first-seen order)."""
    if isinstance(spec, dict):
        ref = spec.get("$ref")
        if isinstance(ref, str) and _name(ref) not in used and _name(ref) in components:
            used[_name(ref)] = None
            _collect(components[_name(ref)], components, used)
        for value in spec.values():
            _collect(value, components, used)
    elif isinstance(spec, list):
        for value in spec:
            _collect(value, components, used)


def _fields(name: str, spec: JSON) -> JSON:
    required = set(spec.get("required", []))
    return {"name": name, "description": (spec.get("description") or "").strip(),
            "fields": [{"name": field, "type": _type(value), "required": field in required}
                       for field, value in spec.get("properties", {}).items()]}


def _parameter(parameter: JSON) -> JSON:
    spec = parameter.get("schema", {})
    limits = [f"{word} {spec[key]}" for key, word in (
        ("minimum", "≥"), ("maximum", "≤"), ("minLength", "길이 ≥"), ("maxLength", "길이 ≤"))
        if key in spec]
    return {"name": parameter.get("name", ""), "where": parameter.get("in", ""),
            "required": bool(parameter.get("required")), "type": spec.get("type", ""),
            "default": spec.get("default"), "limits": ", ".join(limits)}

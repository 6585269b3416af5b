"""Read the data manifest (`sources.json`): which files make up the reference, how to parse them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.corpus.models import Game, SourceSpec
from app.errors import DataError

MANIFEST = "sources.json"
_GAMES: tuple[Game, ...] = ("ahlcg", "eh")
_REQUIRED = ("id", "game", "title", "parser", "file")


def load_manifest(data_dir: Path) -> tuple[SourceSpec, ...]:
    """The sources declared in `data_dir/sources.json`, validated, in the declared order."""
    path = data_dir / MANIFEST
    try:
        doc: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(MANIFEST, "", f"no manifest in {data_dir}") from None
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise DataError(MANIFEST, "", problem) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise DataError(MANIFEST, where, f"invalid JSON: {exc.msg}") from None
    items = doc.get("sources") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise DataError(MANIFEST, "", '"sources" must be a non-empty list')
    specs: list[SourceSpec] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        where = f"sources[{i}]"
        if not isinstance(item, dict):
            raise DataError(MANIFEST, where, "must be an object")
        for key in _REQUIRED:
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise DataError(MANIFEST, where, f'missing or empty string field "{key}"')
        if item["game"] not in _GAMES:
            raise DataError(MANIFEST, where, f'"game" must be one of {", ".join(_GAMES)}')
        if item["id"] in seen:
            raise DataError(MANIFEST, where, f'duplicate source id "{item["id"]}"')
        seen.add(item["id"])
        options = item.get("options", {})
        if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
            raise DataError(MANIFEST, where, '"options" must map names to strings')
        specs.append(
            SourceSpec(
                id=item["id"], game=item["game"], title=item["title"], parser=item["parser"],
                file=item["file"], id_prefix=str(item.get("id_prefix", "")), options=options,
            )
        )
    return tuple(specs)

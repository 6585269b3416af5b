"""Read a game's names file: its collections and the name tables its parsers use.

A names file (declared by the manifest's `games[].names`) looks like

    {"collections": [{"code": "dwl", "name": "던위치의 유산", "name_en": "The Dunwich Legacy",
                      "position": 2, "official": true}, …],
     "scenarios": {"blood_on_the_altar": "제단 위의 피", …},
     "encounter_sets": {…}}

Every other top-level object of strings is a name table of its own ("scenarios" above); a
parser asks for a name by kind and code, so a new kind of name is a data change too.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.corpus.manifest import GameDecl, objects
from app.corpus.models import Collection, GameSpec
from app.errors import DataError


def load_game(data_dir: Path, decl: GameDecl) -> GameSpec:
    """The game `decl` declares, with the vocabulary of its names file (if it has one)."""
    if not decl.names_file:
        return GameSpec(decl.id, decl.name, decl.name_en, decl.glossary_chapter)
    file = decl.names_file
    try:
        doc: Any = json.loads((data_dir / file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(file, "", f'file not found (the names of game "{decl.id}")') from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(file, "", f"not valid UTF-8 JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise DataError(file, "", "must be a JSON object")
    tables: dict[str, MappingProxyType[str, str]] = {}
    for kind, table in doc.items():
        if kind in ("about", "collections"):
            continue
        if not isinstance(table, dict) or not all(
                isinstance(v, str) and v.strip() for v in table.values()):
            raise DataError(file, f'"{kind}"', "a name table must map codes to names")
        tables[kind] = MappingProxyType(dict(table))
    return GameSpec(decl.id, decl.name, decl.name_en, decl.glossary_chapter,
                    _collections(file, doc.get("collections", [])), MappingProxyType(tables),
                    file)


def _collections(file: str, items: object) -> tuple[Collection, ...]:
    found: list[Collection] = []
    for where, item in objects(file, "collections", items, non_empty=False):
        code, name = item.get("code"), item.get("name")
        if not isinstance(code, str) or not code.strip() or not code.isprintable():
            raise DataError(file, where, '"code" must be a non-empty string')
        where = f'{where} (code "{code}")'
        # The owned cookie joins codes with "." and marks exclusions with "-".
        if "." in code or code.startswith("-") or ";" in code or " " in code:
            raise DataError(file, where, '"code" must not hold ".", ";" or spaces, or start '
                                         'with "-"')
        if any(c.code == code for c in found):
            raise DataError(file, where, "duplicate code")
        if not isinstance(name, str) or not name.strip():
            raise DataError(file, where, 'missing "name"')
        position = item.get("position", len(found))
        if not isinstance(position, int | float) or isinstance(position, bool):
            raise DataError(file, where, '"position" must be a number')
        found.append(Collection(code, name, str(item.get("name_en", "")), int(position),
                                item.get("official", True) is not False))
    return tuple(sorted(found, key=lambda c: c.position))

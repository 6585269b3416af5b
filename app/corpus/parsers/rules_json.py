"""Parser for the AHLCG rules reference in the ArkhamCards `rules.json` format.

The file is a JSON array of nodes `{id, title, text?, rules?, table?, cycle?}` nested through
`rules`. Ids are kept as they are (they are the English anchors players already share). Every
problem is reported with the node's path in the file (`[146].rules[0]`) and its id when known.
"""

from __future__ import annotations

import re
from typing import Any

from app.corpus.models import Colour, GameSpec, RawEntry, RawTableRow, SourceSpec, TableCell
from app.corpus.parsers._json import load_json
from app.errors import DataError

#: Deeper than this is not a rules reference but a broken (or hostile) file; it also keeps
#: the recursion far from Python's limit.
MAX_DEPTH = 16
#: The longest entry in the real data is under 2,000 characters; a megabyte of markup would
#: take markdown-it tens of seconds. Far beyond any rule, far below trouble.
MAX_TEXT = 100_000
# ArkhamCards ids may hold spaces ("Tarot Slot"), and links to them are written bare,
# `[label](#Myriad_Cards_in_Standalone Mode)`, which CommonMark would not take for a link.
# Angle brackets make such a destination valid Markdown.
_SPACED_TARGET = re.compile(r"\]\((#[^()<>\n]*? [^()<>\n]*)\)")
_COLOURS: dict[str, Colour] = {"green": "green", "red": "red", "grey": "grey", "gray": "grey"}
#: The node fields this parser reads; any other is reported once by `check`.
_FIELDS = frozenset({"id", "title", "text", "rules", "table", "cycle"})


def parse(text: str, spec: SourceSpec, game: GameSpec | None = None) -> list[RawEntry]:
    """All nodes of the tree, depth-first in file order (a parent before its children)."""
    doc = load_json(text, spec)
    if not isinstance(doc, list):
        raise DataError(spec.file, "", f"top level must be a JSON array, not {_kind(doc)}")
    entries: list[RawEntry] = []
    if doc:
        _walk(doc, "", None, 1, spec, entries)
    return entries


def _walk(
    nodes: list[Any], prefix: str, parent: str | None, depth: int, spec: SourceSpec,
    out: list[RawEntry],
) -> None:
    # `depth` is the level of `nodes` (1 = the top level); only called with nodes to read.
    if depth > MAX_DEPTH:
        raise DataError(spec.file, prefix, f"rules nested deeper than {MAX_DEPTH} levels")
    for i, node in enumerate(nodes):
        where = f"{prefix}[{i}]"
        if not isinstance(node, dict):
            raise DataError(spec.file, where, f"a rule must be an object, not {_kind(node)}")
        entry_id = node.get("id")
        if not isinstance(entry_id, str) or not entry_id.strip():
            problem = 'missing "id"' if entry_id is None else '"id" must be a non-empty string'
            raise DataError(spec.file, where, problem)
        where = f'{where} (id "{entry_id}")'
        title = _string(node, "title", where, spec, required=True)
        body = _string(node, "text", where, spec, required=False)
        children = node.get("rules", [])
        if not isinstance(children, list):
            raise DataError(spec.file, where, f'"rules" must be an array, not {_kind(children)}')
        unused = sorted(str(k) for k in node if k not in _FIELDS)
        lost = {k: _rules_in(node[k]) for k in unused}
        out.append(
            RawEntry(
                id=entry_id,
                title=title,
                parent=parent,
                body=_SPACED_TARGET.sub(r"](<\1>)", body),
                collections=_collections(node, where, spec),
                table=_table(node, where, spec),
                location=where,
                unused=tuple(k for k in unused if not lost[k]),
                # Rules under a key this parser does not read would be lost: that is an
                # error, for the maintainer to fix in the file (a misspelt "rules").
                errors=tuple(f'field "{k}" holds {n} rule{"s" if n != 1 else ""} that '
                             f'would be lost (only "rules" is read): rename it "rules"'
                             for k, n in lost.items() if n),
            )
        )
        if children:
            _walk(children, f"{prefix}[{i}].rules", entry_id, depth + 1, spec, out)


def _rules_in(value: object, depth: int = 0) -> int:
    """How many rule-shaped nodes (objects with an "id" and a "title") `value` holds, its
    nested "rules" included: 0 for anything that is not a list of them."""
    if not isinstance(value, list) or depth > MAX_DEPTH:
        return 0
    nodes = [v for v in value if isinstance(v, dict) and "id" in v and "title" in v]
    return len(nodes) + sum(_rules_in(v.get("rules"), depth + 1) for v in nodes)


def _string(node: dict[str, Any], key: str, where: str, spec: SourceSpec, *, required: bool) -> str:
    value = node.get(key)
    if value is None:
        if required:
            raise DataError(spec.file, where, f'missing "{key}"')
        return ""
    if not isinstance(value, str):
        raise DataError(spec.file, where, f'"{key}" must be a string, not {_kind(value)}')
    if len(value) > MAX_TEXT:
        raise DataError(spec.file, where,
                        f'"{key}" is {len(value):,} characters long (at most {MAX_TEXT:,})')
    return value


def _collections(node: dict[str, Any], where: str, spec: SourceSpec) -> tuple[str, ...]:
    value = node.get("cycle", [])
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise DataError(spec.file, where, '"cycle" must be an array of strings')
    return tuple(value)


def _table(node: dict[str, Any], where: str,
           spec: SourceSpec) -> tuple[RawTableRow, ...] | None:
    value = node.get("table")
    if value is None:
        return None
    if not isinstance(value, list):
        raise DataError(spec.file, where, f'"table" must be an array, not {_kind(value)}')
    rows: list[RawTableRow] = []
    for r, row in enumerate(value):
        cells = row.get("row") if isinstance(row, dict) else None
        if not isinstance(cells, list):
            raise DataError(spec.file, f"{where}.table[{r}]", 'a table row must be {"row": [...]}')
        parsed: list[TableCell] = []
        for c, cell in enumerate(cells):
            cell_where = f"{where}.table[{r}].row[{c}]"
            if not isinstance(cell, dict) or not isinstance(cell.get("text"), str):
                raise DataError(spec.file, cell_where, 'a cell must be {"text": "...", "color"?}')
            colour = cell.get("color", "")
            if colour and colour not in _COLOURS:
                raise DataError(spec.file, cell_where, f'unknown colour "{colour}"')
            parsed.append(TableCell(text=cell["text"], colour=_COLOURS.get(colour, "")))
        rows.append(RawTableRow(cells=tuple(parsed)))
    return tuple(rows)


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(value), "a value")

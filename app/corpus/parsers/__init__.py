"""Parsers: one module per data format, looked up by the manifest's `parser` name.

Each module has `parse(text, spec, game) -> list[RawEntry]` (`game` carries the names file's
tables, e.g. scenario names), returning the source's entries in
reading order (a parent before its children) and raising `DataError` for input it cannot
make sense of. Adding a format is one module and one line in `_MODULES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from app.corpus.models import GameSpec, RawEntry, SourceSpec
from app.errors import DataError

Parser = Callable[[str, SourceSpec, GameSpec], list[RawEntry]]

_MODULES = {
    "rules-json": "app.corpus.parsers.rules_json",
    "learn-to-play": "app.corpus.parsers.learn_to_play",
    "eh-pdf": "app.corpus.parsers.eh_pdf",
    "arkham-errata": "app.corpus.parsers.arkham_errata",
}


def get_parser(kind: str) -> Parser | None:
    """The parser registered under `kind`, or None."""
    module = _MODULES.get(kind)
    if module is None:
        return None
    parse: Parser = importlib.import_module(module).parse
    return parse


def parse_bytes(data: bytes, spec: SourceSpec, game: GameSpec) -> list[RawEntry]:
    """The entries of a file's bytes, by `spec`'s parser; `DataError` naming `spec.file` for
    an unknown parser, text that is not UTF-8 or content the parser refuses."""
    parser = get_parser(spec.parser)
    if parser is None:
        raise DataError("sources.json", f'source "{spec.id}"', f'unknown parser "{spec.parser}"')
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(spec.file, f"byte {exc.start}", f"not UTF-8 text ({exc.reason})") from None
    return parser(text, spec, game)

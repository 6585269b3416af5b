"""Parsers: one function per data format, looked up by the manifest's `parser` name.

A parser takes the file's text and its `SourceSpec` and returns the source's entries in
reading order. It raises `DataError` for input it cannot make sense of.
"""

from __future__ import annotations

from collections.abc import Callable

from app.corpus.models import RawEntry, SourceSpec

Parser = Callable[[str, SourceSpec], list[RawEntry]]


def get_parser(kind: str) -> Parser | None:
    """The parser registered under `kind`, or None."""
    # Imported here so that adding a parser is one line in this table and one module.
    from app.corpus.parsers import eh_pdf, learn_to_play, rules_json

    table: dict[str, Parser] = {
        "rules-json": rules_json.parse,
        "learn-to-play": learn_to_play.parse,
        "eh-pdf": eh_pdf.parse,
    }
    return table.get(kind)

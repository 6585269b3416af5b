"""Helpers for parsers that emit the project's markup dialect (see `RawEntry.body`)."""

from __future__ import annotations

import re

# Characters that would start Markdown syntax we do not want to trigger from prose.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
_LIST_START = re.compile(r"^(\s*)([-+*]|\d+[.)])(\s)")


def escape_md(text: str) -> str:
    """Escape prose so Markdown and raw HTML syntax in it render literally.

    A line that merely looks like a list item (`1. foo`) is escaped too; parsers that mean
    a list write the marker themselves after escaping the item text.
    """
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _LIST_START.sub(lambda m: f"{m[1]}{m[2][:-1]}\\{m[2][-1]}{m[3]}", text)


def title_link(label: str, title: str) -> str:
    """A link to the entry whose title is `title`, resolved by the corpus builder.

    Unresolvable titles are reported by `python -m app check` and render as plain text.
    """
    return f"[{escape_md(label)}](<title:{title.replace('>', '')}>)"

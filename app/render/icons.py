"""Game icons: the tokens of the rules text (`[reaction]`, `[frost]`) drawn as inline SVG.

Which tokens are icons, their labels per language and their drawings are data
(`icons.json`, declared by the manifest), so a newer data file that uses a new icon needs a
data change, not a code change. Drawings are original shapes on a `0 0 24 24` canvas that use
only `currentColor` (they follow dark mode and coloured table rows). Because they are pasted
into every page, a drawing is checked when loaded: only plain shape elements and presentation
attributes, no ids, styles, scripts, links or event handlers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any
from xml.etree import ElementTree

from app.errors import DataError

__all__ = ["Icon", "IconSet", "load_icons"]

_SHAPES = {"path", "circle", "rect", "ellipse", "polygon", "polyline", "line", "g"}
_ATTRIBUTES = {
    "d", "cx", "cy", "r", "rx", "ry", "x", "y", "x1", "y1", "x2", "y2", "width", "height",
    "points", "transform", "fill", "fill-rule", "stroke", "stroke-width", "stroke-linecap",
    "stroke-linejoin", "opacity",
}
# Colours may only follow the text: anything else would vanish in dark mode.
_PAINTS = {"currentColor", "none"}
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz_")


@dataclass(frozen=True)
class Icon:
    """One game icon: its token, its label per language (`{"ko": "반응 격발"}`), its shapes."""

    token: str
    labels: Mapping[str, str]
    body: str

    def label(self, lang: str) -> str:
        """The label in `lang`, else the English one (the game's own), else the Korean one
        (the reference's); `python -m app check` names the icons that fall back."""
        return (self.labels.get(lang) or self.labels.get("en") or self.labels.get("ko")
                or next(iter(self.labels.values())))


@dataclass(frozen=True)
class IconSet:
    """The icons a data folder declares, keyed by token, and the bracketed words that are
    text (`[period]` in "Limit once per [period]")."""

    icons: Mapping[str, Icon]
    words: frozenset[str] = frozenset()

    def __contains__(self, token: object) -> bool:
        return token in self.icons

    def label(self, token: str, lang: str = "ko") -> str:
        """The icon's label; a token the file lacks reads as its own name."""
        icon = self.icons.get(token)
        return icon.label(lang) if icon is not None else token.replace("_", " ")

    def missing_html(self, token: str) -> str:
        """What a token the icon file lacks shows: its name, marked as an icon without a
        drawing (never the raw `[token]`)."""
        name = escape(token.replace("_", " "), quote=True)
        return (f'<span class="icon-missing" title="아이콘: {name}">'
                f'<span class="visually-hidden">아이콘 </span>{name}</span>')

    def html(self, token: str, lang: str = "ko") -> str | None:
        """A `<span role="img">` with the label, wrapping a 1em inline SVG; None if unknown."""
        icon = self.icons.get(token)
        if icon is None:
            return None
        label = escape(icon.label(lang), quote=True)
        return (
            f'<span class="icon icon-{icon.token}" role="img" aria-label="{label}" '
            f'title="{label}"><svg viewBox="0 0 24 24" width="1em" height="1em" '
            f'aria-hidden="true" focusable="false">{icon.body}</svg></span>'
        )


def load_icons(data_dir: Path, file: str) -> IconSet:
    """The icons declared in `data_dir/file`, or `DataError` naming the icon and the problem."""
    try:
        doc: Any = json.loads((data_dir / file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(file, "", "file not found") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(file, "", f"not valid UTF-8 JSON ({exc})") from None
    items = doc.get("icons") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise DataError(file, "", '"icons" must be a list')
    words = doc.get("words", [])
    if not isinstance(words, list) or not all(isinstance(w, str) and w and set(w) <= _TOKEN_CHARS
                                              for w in words):
        raise DataError(file, "words", 'must be a list of bracketed words that are text, '
                                       'lowercase letters and "_" (e.g. "period")')
    icons: dict[str, Icon] = {}
    for i, item in enumerate(items):
        where = f"icons[{i}]"
        if not isinstance(item, dict):
            raise DataError(file, where, "an icon must be an object")
        token, labels, body = item.get("token"), item.get("label"), item.get("svg")
        if not isinstance(token, str) or not token or not set(token) <= _TOKEN_CHARS:
            raise DataError(file, where, '"token" must be lowercase letters and "_"')
        where = f'{where} (token "{token}")'
        if token in icons:
            raise DataError(file, where, "duplicate token")
        if (not isinstance(labels, dict) or not labels
                or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                           for k, v in labels.items())):
            raise DataError(file, where, '"label" must map languages to names, e.g. {"ko": "…"}')
        if not isinstance(body, str):
            raise DataError(file, where, '"svg" must be a string of SVG shapes')
        problem = _svg_problem(body)
        if problem:
            raise DataError(file, where, f'"svg": {problem}')
        icons[token] = Icon(token=token, labels=MappingProxyType(dict(labels)), body=body)
    clash = sorted(set(words) & set(icons))
    if clash:
        raise DataError(file, "words", f'"{clash[0]}" is an icon and a word at once')
    return IconSet(MappingProxyType(icons), frozenset(words))


def _svg_problem(body: str) -> str:
    """Why `body` is not a safe drawing, or "" when it is."""
    try:
        root = ElementTree.fromstring(f"<svg>{body}</svg>")
    except ElementTree.ParseError as exc:
        return f"not well-formed ({exc})"
    for element in root.iter():
        if element is root:
            continue
        if element.tag not in _SHAPES:
            return f"<{element.tag}> is not a plain shape ({', '.join(sorted(_SHAPES))})"
        for name, value in element.attrib.items():
            if name not in _ATTRIBUTES:
                return f'attribute "{name}" on <{element.tag}> is not allowed'
            if name in ("fill", "stroke") and value not in _PAINTS:
                return f'{name}="{value}": drawings use currentColor or none'
        if (element.text or "").strip() or (element.tail or "").strip():
            return "text inside the drawing"
    return ""

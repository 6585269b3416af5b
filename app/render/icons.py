"""Game icons: the tokens of the rules text (`[reaction]`, `[frost]`) drawn as inline SVG.

Which tokens are icons, their labels per language and their drawings are data
(`icons.json`, declared by the manifest), so a newer data file that uses a new icon needs a
data change, not a code change. Drawings are original shapes on a `0 0 24 24` canvas that use
only `currentColor` (they follow dark mode and coloured table rows). Because they are pasted
into every page, a drawing is never trusted as text: it is parsed as the browser will parse it
(html5lib, the WHATWG HTML parser, inside an `<svg>`), checked against an allow-list of plain
shape elements and presentation attributes, and re-serialised from that tree, so no byte of the
file reaches a page unparsed. Comments, processing instructions, CDATA, `<foreignObject>`,
scripts, event handlers, styles, ids and any URL-bearing attribute are refused when loaded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any
from xml.etree import ElementTree

import html5lib

from app.errors import DataError, read_data_json

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
#: Path data, numbers, lengths and transforms (`rotate(45 12 12)`): nothing that can name a URL
#: (`url(`, `:`) or an entity.
_VALUE = re.compile(r"[A-Za-z0-9.,+\- ()%\t\n]*")
_SVG_NS = "{http://www.w3.org/2000/svg}"
#: What the HTML parser keeps of markup that is not an element: each is refused by name (the
#: browser would turn `<?…>` and `<!…>` into comments, and a comment can end where XML says it
#: does not).
_NOT_SHAPES = (("<!--", "a comment"), ("<?", "a processing instruction"),
               ("<![CDATA[", "a CDATA section"), ("<!", "a markup declaration"))


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
    doc: Any = read_data_json(data_dir, file)
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
        drawing, problem = _rebuilt(body)
        if problem:
            raise DataError(file, where, f'"svg": {problem}')
        icons[token] = Icon(token=token, labels=MappingProxyType(dict(labels)), body=drawing)
    clash = sorted(set(words) & set(icons))
    if clash:
        raise DataError(file, "words", f'"{clash[0]}" is an icon and a word at once')
    return IconSet(MappingProxyType(icons), frozenset(words))


def _rebuilt(body: str) -> tuple[str, str]:
    """(the drawing re-serialised from the tree the browser will build, "") when `body` is a
    safe drawing, else ("", why not)."""
    for marker, what in _NOT_SHAPES:
        if marker in body:
            return "", f"{what} ({marker}…) is not allowed in a drawing"
    try:
        # Well-formed XML too: a typo in a hand-written drawing is caught, not repaired.
        as_xml = ElementTree.fromstring(f"<svg>{body}</svg>")
    except ElementTree.ParseError as exc:
        return "", f"not well-formed ({exc})"
    fragment = html5lib.parseFragment(f"<svg>{body}</svg>", namespaceHTMLElements=False)
    children = list(fragment)
    if (len(children) != 1 or children[0].tag != _SVG_NS + "svg" or (fragment.text or "").strip()
            or (children[0].tail or "").strip()):
        outside = next((c.tag for c in children[1:] if isinstance(c.tag, str)), "text")
        return "", (f"<{outside}> ends the drawing: a browser reads it, and what follows, as "
                    "HTML outside the <svg>")
    root = children[0]
    for element in root.iter():
        if element is root:
            continue
        problem = _element_problem(element)
        if problem:
            return "", problem
    drawing = "".join(_serialised(child) for child in root)
    if drawing != "".join(_serialised(child, "") for child in as_xml):
        return "", "the drawing reads differently as HTML than as XML"
    return drawing, ""


def _element_problem(element: ElementTree.Element) -> str:
    if not isinstance(element.tag, str):  # a comment the parser made of other markup
        return "markup that is not a shape (a comment or a processing instruction)"
    name = element.tag.removeprefix(_SVG_NS)
    if not element.tag.startswith(_SVG_NS) or name not in _SHAPES:
        return f"<{name}> is not a plain shape ({', '.join(sorted(_SHAPES))})"
    for attribute, value in element.attrib.items():
        if attribute not in _ATTRIBUTES:
            if attribute.lower().startswith("on"):
                return f'event attribute "{attribute}" on <{name}> is not allowed'
            return f'attribute "{attribute}" on <{name}> is not allowed'
        if attribute in ("fill", "stroke") and value not in _PAINTS:
            return f'{attribute}="{value}": drawings use currentColor or none'
        if not _VALUE.fullmatch(value):
            return f'{attribute}="{value}" on <{name}>: only numbers, path data and transforms'
    if (element.text or "").strip() or (element.tail or "").strip():
        return "text inside the drawing"
    return ""


def _serialised(element: ElementTree.Element, namespace: str = _SVG_NS) -> str:
    """An allowed element as markup: its name, its allowed attributes (escaped) and children."""
    name = element.tag.removeprefix(namespace) if isinstance(element.tag, str) else ""
    attributes = "".join(f' {key}="{escape(value, quote=True)}"'
                         for key, value in element.attrib.items())
    inner = "".join(_serialised(child, namespace) for child in element)
    return f"<{name}{attributes}>{inner}</{name}>" if inner else f"<{name}{attributes}/>"

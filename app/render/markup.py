"""Render the project's markup dialect to safe HTML and to plain text with markdown-it-py.

The dialect (see `RawEntry.body`) is CommonMark paragraphs and lists plus:
- four raw tags, `<b> <i> <br> <center>`, passed through (balanced) while every other `<…>` is
  escaped: markdown-it runs with `html=False` and a small inline rule emits only these;
- icon tokens `[reaction]` → an inline SVG with its label in the entry's language, for the tokens
  the data's icon set declares (`app.render.icons`); a bracketed word the icon file lists as
  text (`[period]`) or a link's label stays text, a near-miss of a token is text with a
  warning, and any other token is an icon the file lacks: its name, marked, with a warning;
- trait tokens `[[연구]]` → bold italic;
- links `[label](#Id)`, `[label](/card/01234)`, `[label](<title:제목>)`, resolved by a callback
  so that this module knows nothing about the corpus or URLs.
Problems (broken links, near-misses of icon tokens) are collected, never raised: the page
still renders.
"""

from __future__ import annotations

import difflib
import html
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from app.render.icons import IconSet


@dataclass(frozen=True)
class LinkTarget:
    """Where a link in the data points: an entry of the corpus or an external URL.

    An empty `href` renders the label alone (links inside titles, which are links already).
    """

    href: str
    entry_id: str | None = None


#: Given a raw href from the data (`#Id`, `/card/01234`, `title:제목`), where it points, or None.
Resolver = Callable[[str], LinkTarget | None]


@dataclass
class Rendered:
    """The result of rendering one body of markup."""

    html: str
    text: str
    links: list[str] = field(default_factory=list)
    #: Step number → anchor id, for paragraphs that start with a bold step number.
    anchors: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: What the page would show wrong: markup that renders raw, a token that looks like an
    #: icon but is not one. The data does not load until they are fixed.
    errors: list[str] = field(default_factory=list)


# `<b>`, `</i>`, `<br>`, `<br/>`, `<center>` (any case, optional inner spaces). Nothing else.
_ALLOWED_TAG = re.compile(r"<\s*(/?)\s*(b|i|br|center)\s*/?\s*>", re.IGNORECASE)
# A bracketed lowercase word: an icon token when the icon set has it; text otherwise.
_ICON = re.compile(r"\[([^\W\d_A-Z][^\W\dA-Z]*)\]")
_TRAIT = re.compile(r"\[\[([^\[\]\n]{1,40})\]\]")
# Private-use code points stand in for icon and trait tokens while markdown-it parses.
_ICON_OPEN, _ICON_CLOSE, _TRAIT_OPEN, _TRAIT_CLOSE = "\ue000", "\ue001", "\ue002", "\ue003"
# A step number at the start of a bold paragraph: `1.1`, `2.2.1`, or `3단계`.
_STEP = re.compile(r"^\s*(\d+(?:\.\d+)+|\d+단계|\d+(?=\.\s))")
# `<center>` is a block element, invalid inside <p>; it becomes a centred span.
_OPEN_HTML = {"b": "<b>", "i": "<i>", "center": '<span class="center">'}
_CLOSE_HTML = {"b": "</b>", "i": "</i>", "center": "</span>"}


def _allowed_tag_rule(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "<":
        return False
    match = _ALLOWED_TAG.match(state.src, state.pos)
    if match is None:
        return False
    if not silent:
        closing, name = match[1] == "/", match[2].lower()
        token = state.push("allowed_tag", "", 0)
        token.meta = {"name": name, "closing": closing}
    state.pos = match.end()
    return True


def _unaccented(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word)
                   if unicodedata.category(c) != "Mn")


def _protect_tokens(body: str, icons: IconSet, problems: list[str], errors: list[str]) -> str:
    """Swap icon and trait tokens for private-use markers before Markdown parsing.

    markdown-it refuses a link whose label contains another bracketed token
    (`[“조사자당( [per_investigator] )”](#Per_investigator)`), and would read `[intellect](3)`
    (a test of intellect at difficulty 3) as a link. Markers keep both intact.
    """

    def icon(match: re.Match[str]) -> str:
        if match[1] in icons:
            return f"{_ICON_OPEN}{match[1]}{_ICON_CLOSE}"
        # A word the icon file lists as text ("Limit X per [period]"), or a link's label
        # (`[uses](#Uses)`), stays as it is.
        if match[1] in icons.words or body.startswith("(", match.end()):
            return match[0]
        # A near-miss of an icon's token (a typo, or the token translated: `[réaction]`)
        # would show as text where the icon belongs: an error, naming the token to write.
        plain = _unaccented(match[1])
        near = ([plain] if plain in icons else
                difflib.get_close_matches(plain, icons.icons, n=1, cutoff=0.8))
        if near:
            errors.append(f"[{match[1]}] is not an icon and would show as text: write "
                          f"[{near[0]}]")
            return match[0]
        if not match[1].isascii():
            return match[0]  # a bracketed word of another script is text
        # Any other token is an icon the file lacks (newer data): shown by name, reported.
        problems.append(f"[{match[1]}] is not in the icon file: shown as its name, marked as "
                        'an icon; add it (a label and a drawing), or list it under "words" '
                        "if it is text")
        return f"{_ICON_OPEN}{match[1]}{_ICON_CLOSE}"

    body = _TRAIT.sub(lambda m: f"{_TRAIT_OPEN}{m[1]}{_TRAIT_CLOSE}", body)
    return _ICON.sub(icon, body)


def _marker_rule(state: StateInline, silent: bool) -> bool:
    opener = state.src[state.pos]
    if opener not in (_ICON_OPEN, _TRAIT_OPEN):
        return False
    closer = _ICON_CLOSE if opener == _ICON_OPEN else _TRAIT_CLOSE
    end = state.src.find(closer, state.pos + 1)
    if end < 0:
        return False
    if not silent:
        state.push("icon" if opener == _ICON_OPEN else "trait", "", 0).content = state.src[
            state.pos + 1 : end
        ]
    state.pos = end + 1
    return True


def _balance_tags(state: StateCore) -> None:
    """Close what the data left open and drop closers without an opener, per inline run.

    One `<i>` in rules.json is never closed; without this, the rest of the page would be italic.
    """
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        stack: list[str] = []
        kept: list[Token] = []
        for child in block.children:
            if child.type == "allowed_tag" and child.meta["name"] != "br":
                name = child.meta["name"]
                if not child.meta["closing"]:
                    stack.append(name)
                elif name in stack:
                    while stack:  # close intermediate tags so the nesting stays valid
                        top = stack.pop()
                        kept.append(_tag_token(top, closing=True))
                        if top == name:
                            break
                    continue
                else:
                    continue
            kept.append(child)
        while stack:
            kept.append(_tag_token(stack.pop(), closing=True))
        block.children = kept


def _tag_token(name: str, *, closing: bool) -> Token:
    token = Token("allowed_tag", "", 0)
    token.meta = {"name": name, "closing": closing}
    return token


def _anchor_steps(state: StateCore) -> None:
    """Give paragraphs that begin with a bold step number (`<b>1.1 …`) an anchor id.

    The timing tables link their rows to these anchors (phase step 1.1 → Mythos_Phase#step-1-1).
    """
    anchors: dict[str, str] = state.env.setdefault("anchors", {})
    tokens = state.tokens
    for i, token in enumerate(tokens[:-1]):
        inline = tokens[i + 1]
        if token.type != "paragraph_open" or inline.type != "inline" or not inline.children:
            continue
        children = inline.children
        markers: list[tuple[int, Token]] = []
        # A step starts the paragraph, or a line of it: some files write one step per line
        # (`<b>1.1 …</b>\n…\n<b>1.2 …</b>`) where others leave a blank line between them.
        for at in range(len(children) - 1):
            opener = children[at]
            if opener.type != "allowed_tag" or opener.meta["name"] != "b" or (
                    opener.meta["closing"]):
                continue
            if at and not _is_break(children[at - 1]):
                continue
            match = _STEP.match(children[at + 1].content)
            if match is None or match[1] in anchors:
                continue
            number = match[1]
            anchor = "step-" + re.sub(r"\D+", "-", number).strip("-")
            anchors[number] = anchor
            if at == 0:
                token.attrSet("id", anchor)
            else:
                marker = Token("step_anchor", "", 0)
                marker.meta = {"id": anchor}
                markers.append((at, marker))
        for at, marker in reversed(markers):
            children.insert(at, marker)


def _is_break(token: Token) -> bool:
    return token.type in ("softbreak", "hardbreak") or (
        token.type == "allowed_tag" and token.meta["name"] == "br")


#: What may stand between the links of a paragraph that is only a list of links: a short label
#: before the first (`관련된 주제:`), commas and middle dots.
_LIST_LABEL = re.compile(r"\s*(?:[^,:.!?]{1,24}:)?\s*")
_LIST_SEPARATOR = re.compile(r"\s*[,·]?\s*")


def _mark_link_lists(state: StateCore) -> None:
    """Give a paragraph that is only a list of links (`관련된 주제: 길, 칸`) the class `links`:
    its links are tap targets of their own, not words in a sentence (the stylesheet sizes
    them)."""
    tokens = state.tokens
    for i, token in enumerate(tokens[:-1]):
        inline = tokens[i + 1]
        if token.type != "paragraph_open" or inline.type != "inline" or not inline.children:
            continue
        depth, links, plain = 0, 0, True
        for child in inline.children:
            if child.type == "link_open":
                depth += 1
                links += 1
            elif child.type == "link_close":
                depth -= 1
            elif depth == 0:
                pattern = _LIST_LABEL if links == 0 else _LIST_SEPARATOR
                if child.type not in ("text", "softbreak") or not pattern.fullmatch(
                        child.content):
                    plain = False
                    break
        if plain and links:
            token.attrSet("class", "links")


class _Renderer(RendererHTML):
    """HTML for the custom tokens; link hrefs come from the resolver in `env`."""

    def allowed_tag(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        meta = tokens[idx].meta
        if meta["name"] == "br":
            return "<br>\n"
        table = _CLOSE_HTML if meta["closing"] else _OPEN_HTML
        return table[meta["name"]]

    def icon(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        icons: IconSet = env["icons"]
        found = icons.html(tokens[idx].content, env["lang"])
        return found or icons.missing_html(tokens[idx].content)

    def step_anchor(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: EnvType) -> str:
        return f'<span class="step" id="{html.escape(tokens[idx].meta["id"])}"></span>'

    def trait(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return f'<b class="trait"><i>{html.escape(tokens[idx].content)}</i></b>'

    def link_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        target = _resolve(token, env)
        if target is None or not target.href:
            return ""
        attrs = f'href="{html.escape(target.href)}"'
        if target.entry_id is None:
            attrs += ' class="external" rel="external noopener"'
        return f"<a {attrs}>"

    def link_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # The matching link_open decided; find it by walking back to the nearest opener.
        depth = 0
        for j in range(idx - 1, -1, -1):
            if tokens[j].type == "link_close":
                depth += 1
            elif tokens[j].type == "link_open":
                if depth == 0:
                    return "</a>" if tokens[j].meta.get("resolved") == "link" else ""
                depth -= 1
        return ""


def _resolve(token: Token, env: EnvType) -> LinkTarget | None:
    raw = unquote(str(token.attrGet("href") or ""))
    resolver: Resolver = env["resolver"]
    target = resolver(raw)
    # A target with an empty href means "show the label only" (links inside a title).
    token.meta["resolved"] = "link" if target is not None and target.href else ""
    if target is None:
        env.setdefault("problems", []).append(f"broken link ({raw})")
    elif target.entry_id is not None and target.href:
        env.setdefault("links", []).append(target.entry_id)
    return target


def _make_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False})
    # Only paragraphs, lists, emphasis and links are part of the dialect. Indented code would
    # swallow indented lines; headings, rules, quotes and reference definitions would turn
    # stray characters in the rules text into structure; images would load other hosts.
    md.disable(
        [
            "code", "fence", "heading", "lheading", "hr", "blockquote", "reference",
            "html_block", "html_inline", "image", "autolink",
        ]
    )
    md.inline.ruler.before("text", "marker", _marker_rule)
    md.inline.add_terminator_char(_ICON_OPEN)
    md.inline.add_terminator_char(_TRAIT_OPEN)
    md.inline.ruler.before("link", "allowed_tag", _allowed_tag_rule)
    md.core.ruler.push("balance_tags", _balance_tags)
    md.core.ruler.push("anchor_steps", _anchor_steps)
    md.core.ruler.push("mark_link_lists", _mark_link_lists)
    md.renderer = _Renderer(md)
    return md


_MD = _make_parser()


def render(body: str, resolver: Resolver, icons: IconSet, lang: str = "ko") -> Rendered:
    """Render `body` to HTML and plain text, resolving links through `resolver`.

    Icons are drawn from `icons`, labelled in `lang` (the language of the entry's source).
    """
    return _render(body, resolver, icons, lang, inline=False)


def render_inline(text: str, resolver: Resolver, icons: IconSet, lang: str = "ko") -> Rendered:
    """Render a single line (a title or a table cell) without a wrapping paragraph."""
    return _render(text, resolver, icons, lang, inline=True)


# A list item line (`- `, `1. `) at the start of a line, and a plain line (no indent).
_LIST_LINE = re.compile(r"(?:[-*+]|\d{1,3}[.)])\s")
_PLAIN_LINE = re.compile(r"\S")


def _end_lists(body: str) -> str:
    """A blank line between a list item and a plain line right after it.

    In the data, every list item is one line, and a line that does not start a list item is a
    paragraph of its own ("추가 참조: …" after the last bullet, an intro before the next
    list). CommonMark would read it as a lazy continuation of the item above; a blank line
    makes it the paragraph it is. Indented lines stay continuations.
    """
    lines = body.split("\n")
    out: list[str] = []
    for before, line in zip(["", *lines], lines, strict=False):
        if (_LIST_LINE.match(before) and _PLAIN_LINE.match(line)
                and not _LIST_LINE.match(line)):
            out.append("")
        out.append(line)
    return "\n".join(out)


def _render(source: str, resolver: Resolver, icons: IconSet, lang: str, *,
            inline: bool) -> Rendered:
    problems: list[str] = []
    errors: list[str] = []
    env: EnvType = {"resolver": resolver, "problems": problems, "icons": icons, "lang": lang}
    protected = _protect_tokens(source if inline else _end_lists(source), icons, problems,
                                errors)
    tokens = _MD.parseInline(protected, env) if inline else _MD.parse(protected, env)
    # Rendering resolves links, so collect links and problems only afterwards.
    html_out = _MD.renderer.render(tokens, _MD.options, env)
    return Rendered(
        html=html_out.strip() if inline else html_out,
        text=_plain_text(tokens, icons, lang).strip(),
        links=list(dict.fromkeys(env.get("links", []))),
        anchors=dict(env.get("anchors", {})),
        problems=list(dict.fromkeys(env.get("problems", []))),
        errors=list(dict.fromkeys([*errors, *raw_markup(tokens)])),
    )


#: Markup that markdown-it left as text: a link it could not read (`[label]](/card/05048)`,
#: `[label] (#Id)`) or emphasis it could not close (`**` across a paragraph break).
_RAW_LINK = re.compile(r"\[[^\]\n]*\]{1,2}\s*\]?\((?:#|/card/|<title:)[^)\n]*\)?|\]\((?:#|/card/)")
_RAW_EMPHASIS = re.compile(r"\*\*|__")


def raw_markup(tokens: Sequence[Token]) -> list[str]:
    """One line per piece of markup the page would show as it is written (`check` errors)."""
    found: dict[str, str] = {}
    for token in _text_tokens(tokens):
        for pattern, what, hint in _RAW:
            match = pattern.search(token.content)
            if match is not None and what not in found:
                shown = token.content[max(0, match.start() - 20): match.end() + 20].strip()
                found[what] = f"{what} markup would show as written: “{shown}” ({hint})"
    return list(found.values())


_RAW = ((_RAW_LINK, "link", "a link is [label](#Id) or [label](/card/01234)"),
        (_RAW_EMPHASIS, "bold", "open and close it in the same paragraph"))


def _text_tokens(tokens: Sequence[Token]) -> Iterator[Token]:
    for token in tokens:
        if token.children:
            yield from _text_tokens(token.children)
        elif token.type == "text":
            yield token


def _plain_text(tokens: Sequence[Token], icons: IconSet, lang: str) -> str:
    """Text a person would read: icons as their labels, links as their labels, no markup."""
    parts: list[str] = []
    for token in tokens:
        if token.type == "inline" and token.children is not None:
            parts.append(_plain_text(token.children, icons, lang))
        elif token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type == "icon":
            parts.append(icons.label(token.content, lang))
        elif token.type == "trait":
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak") or (
            token.type == "allowed_tag" and token.meta["name"] == "br"
        ):
            parts.append("\n")
        elif token.type == "list_item_open":
            parts.append(f"{token.info}{token.markup} " if token.info else "- ")
        elif token.type in ("paragraph_close", "bullet_list_close", "ordered_list_close"):
            parts.append("\n\n" if token.level == 0 else "\n")
        elif token.type == "list_item_close" and parts and not parts[-1].endswith("\n"):
            parts.append("\n")
    text = "".join(parts)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()

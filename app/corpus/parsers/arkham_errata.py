"""Parser for the ArkhamCards FAQ and errata file (`errata/<lang>/errata.json`).

The file is `{"faq": [...], "cards": [...]}`:
- `faq`: one object per scenario, `{scenario_code, campaign_code?, questions: [{question,
  answer}]}`. Each question becomes an entry (title = the question, body = the answer) under
  an entry for its scenario, under one FAQ chapter.
- `cards`: one object per encounter set, `{encounter_code, cards: [{code: [card codes],
  text}]}`; an encounter set may appear more than once (one object per revision). Each set
  becomes one entry listing its cards' errata, under one errata chapter.

Slugs (`blood_on_the_altar`) get readable titles from the game's names file (`scenarios`,
`encounter_sets`); a slug without a name is shown title-cased and reported by `check`. The
chapter titles come from the source's options (`faq_title`, `errata_title`), so a file in
another language needs no code change. Ids are paths (`faq/wilds/2`), served as such.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from app.corpus.models import GameSpec, RawEntry, SourceSpec
from app.corpus.parsers._json import load_json
from app.errors import DataError

_MAX_TEXT = 100_000
_FAQ, _ERRATA = "faq", "errata"
_CARD = re.compile(r"\d{5}[a-z]?")


def parse(text: str, spec: SourceSpec, game: GameSpec | None = None) -> list[RawEntry]:
    """The FAQ chapter with its scenarios and questions, then the errata chapter."""
    doc = load_json(text, spec)
    if not isinstance(doc, dict):
        raise DataError(spec.file, "", 'top level must be an object {"faq": [...], "cards": [...]}')
    out: list[RawEntry] = []
    _faq(doc.get("faq", []), spec, game, out)
    _errata(doc.get("cards", []), spec, game, out)
    unused = sorted(str(k) for k in doc if k not in ("faq", "cards"))
    if unused and out:
        out[0] = dataclasses.replace(out[0], unused=tuple(unused))
    return out


def _faq(items: object, spec: SourceSpec, game: GameSpec | None, out: list[RawEntry]) -> None:
    groups = _list(items, "faq", spec)
    if not groups:
        return
    title = spec.options.get("faq_title", "FAQ")
    out.append(RawEntry(_FAQ, title, None, "", location="faq"))
    for i, group in enumerate(groups):
        where = f"faq[{i}]"
        slug = _slug(group, "scenario_code", where, spec)
        name, note = _name(game, "scenarios", slug)
        scenario_id = f"{_FAQ}/{slug}"
        if any(e.id == scenario_id for e in out):
            raise DataError(spec.file, where, f'scenario "{slug}" appears twice')
        out.append(RawEntry(scenario_id, name, _FAQ, "", location=where, notes=note))
        questions = _list(group.get("questions"), f"{where}.questions", spec)
        for n, item in enumerate(questions, start=1):
            q_where = f"{where}.questions[{n - 1}]"
            if not isinstance(item, dict):
                raise DataError(spec.file, q_where, "a question must be an object")
            question = _text(item, "question", q_where, spec)
            answer = _text(item, "answer", q_where, spec)
            out.append(RawEntry(f"{scenario_id}/{n}", question, scenario_id, answer,
                                location=q_where))


def _errata(items: object, spec: SourceSpec, game: GameSpec | None,
            out: list[RawEntry]) -> None:
    groups = _list(items, "cards", spec)
    if not groups:
        return
    out.append(RawEntry(_ERRATA, spec.options.get("errata_title", "Errata"), None, "",
                        location="cards"))
    lines: dict[str, list[str]] = {}
    first: dict[str, int] = {}
    for i, group in enumerate(groups):
        where = f"cards[{i}]"
        slug = _slug(group, "encounter_code", where, spec)
        first.setdefault(slug, i)
        for c, card in enumerate(_list(group.get("cards"), f"{where}.cards", spec)):
            c_where = f"{where}.cards[{c}]"
            codes = card.get("code") if isinstance(card, dict) else None
            if not isinstance(codes, list) or not codes or not all(
                    isinstance(x, str) and x.replace("_", "").isalnum() for x in codes):
                raise DataError(spec.file, c_where, '"code" must be a list of card codes')
            text = _text(card, "text", c_where, spec)
            # Official cards link to their card page; fan-made ones (zdm_00190) have none.
            links = ", ".join(f"[{code}](/card/{code})" if _CARD.fullmatch(code) else code
                              for code in codes)
            # One list item per card: the codes link to the cards, the text is the erratum.
            lines.setdefault(slug, []).append(f"- {links}: " + " ".join(text.split("\n")))
    for slug, items_ in lines.items():
        name, note = _name(game, "encounter_sets", slug)
        out.append(RawEntry(f"{_ERRATA}/{slug}", name, _ERRATA, "\n".join(items_),
                            location=f"cards[{first[slug]}]", notes=note))


def _list(value: object, where: str, spec: SourceSpec) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise DataError(spec.file, where, "must be a list")
    return value


def _slug(group: object, key: str, where: str, spec: SourceSpec) -> str:
    slug = group.get(key) if isinstance(group, dict) else None
    if not isinstance(slug, str) or not slug or not slug.replace("_", "").isalnum():
        raise DataError(spec.file, where, f'"{key}" must be a slug like "the_last_king"')
    return slug


def _text(item: dict[str, Any], key: str, where: str, spec: SourceSpec) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DataError(spec.file, where, f'missing "{key}"')
    if len(value) > _MAX_TEXT:
        raise DataError(spec.file, where, f'"{key}" is longer than {_MAX_TEXT:,} characters')
    return value


def _name(game: GameSpec | None, kind: str, slug: str) -> tuple[str, tuple[str, ...]]:
    """The slug's name from the names file, else the slug title-cased with a note."""
    name = game.name_of(kind, slug) if game is not None else None
    if name:
        return name, ()
    fallback = slug.replace("_", " ").strip().capitalize()
    where = game.names_file if game is not None and game.names_file else "the names file"
    return fallback, (f'no name for {kind} "{slug}" in {where}: shown as "{fallback}"',)

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

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.corpus.manifest import GameDecl, objects
from app.corpus.models import Collection, GameSpec
from app.corpus.normalize import compact
from app.errors import DataError, read_data_json

#: Bounds for one synonyms line: far above any real term's variants.
_MAX_VARIANTS = 64
_MAX_LINE = 4_000


def load_game(data_dir: Path, decl: GameDecl) -> GameSpec:
    """The game `decl` declares, with its names, synonyms and answers files (if it has them)."""
    game = _with_names(data_dir, decl)
    if decl.answers_file:
        game = dataclasses.replace(game, answers=load_answers(data_dir, decl.answers_file),
                                   answers_file=decl.answers_file)
    if not decl.synonyms_file:
        return game
    synonyms, related = load_synonyms(data_dir, decl.synonyms_file)
    return dataclasses.replace(game, synonyms=synonyms, related=related,
                               synonyms_file=decl.synonyms_file)


#: Bounds for an answers file: far above what a rule is asked.
_MAX_QUESTIONS = 32


def _read_lines_file(data_dir: Path, file: str, kind: str) -> str:
    """The text of a declared line-based data file, or `DataError` naming the problem."""
    try:
        return (data_dir / file).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError(file, "", f"file not found ({kind})") from None
    except UnicodeDecodeError as exc:
        raise DataError(file, f"byte {exc.start}", "not UTF-8 text") from None


def load_answers(data_dir: Path, file: str) -> Mapping[str, tuple[str, ...]]:
    """The questions each entry answers: `entry id: question | question` lines, `#` comments.

    The questions are what players ask at the table, in their words, when the rule's text says
    it otherwise; they are searched with the entry's text and never shown. An id the data
    does not have is a warning of `check` (`build.answers_warnings`)."""
    text = _read_lines_file(data_dir, file, "an answers file")
    answers: dict[str, tuple[str, ...]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        entry_id, sep, rest = line.partition(":")
        questions = [" ".join(q.split()) for q in rest.split("|") if q.strip()]
        if not sep or not entry_id.strip() or not questions:
            raise DataError(file, f"line {number}", 'expected "entry id: question | question"')
        if len(questions) > _MAX_QUESTIONS or len(line) > _MAX_LINE:
            raise DataError(file, f"line {number}", "too long a line for an answers entry")
        key = entry_id.strip()
        answers[key] = (*answers.get(key, ()), *questions)
    return MappingProxyType(answers)


def load_synonyms(data_dir: Path, file: str) -> tuple[Mapping[str, tuple[str, ...]],
                                                      Mapping[str, tuple[str, ...]]]:
    """The synonyms and the related words of a synonyms file, each {compact variant:
    (official, …)}.

    `official = variant, variant` lines are synonyms (the variant is replaced by the term, and
    the page says so); `official ~ word, word` lines are related words (the term is searched
    beside the word, silently). `#` starts a comment line. A variant listed under two official
    terms means both (the search looks for either); a variant that differs from its term only
    in spacing adds nothing (search ignores spacing) and is skipped.
    """
    text = _read_lines_file(data_dir, file, "a synonyms file")
    synonyms: dict[str, tuple[str, ...]] = {}
    related: dict[str, tuple[str, ...]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        # The first of "=" and "~" says which kind of line it is.
        at = min((i for i in (line.find("="), line.find("~")) if i >= 0), default=-1)
        sep = line[at] if at >= 0 else ""
        official, rest = (line[:at], line[at + 1:]) if sep else (line, "")
        official = " ".join(official.split())
        variants = [v.strip() for v in rest.split(",") if v.strip()]
        if not sep or not official or not variants:
            raise DataError(file, f"line {number}",
                            'expected "official term = variant, …" or "official term ~ word, …"')
        table = synonyms if sep == "=" else related
        if len(variants) > _MAX_VARIANTS or len(line) > _MAX_LINE:
            raise DataError(file, f"line {number}", "too long a line for a synonyms entry")
        for variant in variants:
            key = dictionary_stem(compact(variant)) if sep == "~" else compact(variant)
            if key == compact(official):
                continue  # a spacing variant: search ignores spacing anyway
            if official not in table.get(key, ()):
                table[key] = (*table.get(key, ()), official)
    return MappingProxyType(synonyms), MappingProxyType(related)


def dictionary_stem(term: str) -> str:
    """A Korean verb as a dictionary writes it (넣다), less its -다: the stem that a query
    (넣을, 넣어도 → 넣) and a rule's text (넣습니다) meet. Any other term as it is."""
    if len(term) >= 2 and term.endswith("다") and not term.isascii():
        return term[:-1]
    return term


def _with_names(data_dir: Path, decl: GameDecl) -> GameSpec:
    if not decl.names_file:
        return GameSpec(decl.id, decl.name, decl.name_en, decl.glossary_chapter,
                        short_name=decl.short_name, quick=decl.quick)
    file = decl.names_file
    doc: Any = read_data_json(data_dir, file,
                              missing=f'file not found (the names of game "{decl.id}")')
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
                    file, short_name=decl.short_name, quick=decl.quick)


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

"""Which entries a name typed or pasted by a player points to: one lookup for links and /go/.

Links reach the app in forms no id has: a linkifier turns spaces into `+` (`/rules/틈새+공격`),
people type ids in lower case or with dashes (`attack-of-opportunity`), a phone sends
decomposed Hangul, and players write the words they use rather than the rules' (`서지` for
급증). `named` reads the text from the most exact reading to the loosest and stops at the first
that names any entry:

1. the id itself (also in NFC, the form every id is stored in);
2. the id with case, `-`, `_`, `+` and spaces ignored (`ATTACK_OF_OPPORTUNITY`, `Tarot+Slot`);
3. a title or an entry's English name, spacing and case ignored (`틈새+공격`, `Attack of
   Opportunity`);
4. a players' word that a game's synonyms file lists for an official term (`서지`, `AoO`,
   `클루`): the entries titled with that term. This is the table search replaces the same words
   with (`merged_terms`: without a game filter, the first declared game's meaning).

Each reading gives every entry it names, at most one per game and title (the same title in two
books of one game means the first book's, the reference; a translation means its original), so
a caller redirects when there is one and asks the player to choose when there are several.
"""

from __future__ import annotations

import re
import threading
import unicodedata
import weakref
from collections.abc import Iterable, Mapping

from app.corpus.models import Corpus, Entry
from app.corpus.normalize import compact

__all__ = ["fold_id", "merged_terms", "named", "official_terms"]

#: Characters an id is written with interchangeably in links people type.
_ID_JOINERS = re.compile(r"[\s_+\-]+")


def fold_id(text: str) -> str:
    """An id as people may type it, reduced to one form: NFC, case-folded, and every run of
    spaces, `_`, `-` and `+` one `_`."""
    return _ID_JOINERS.sub("_", unicodedata.normalize("NFC", text).casefold()).strip("_")


def merged_terms(tables: Mapping[str, Mapping[str, tuple[str, ...]]],
                 ) -> dict[str | None, Mapping[str, tuple[str, ...]]]:
    """The synonyms tables per game, and under None all of them merged. Without a game, a word
    two games' files both list means what the first declared game says (서지 → 급증, not also
    괴물 급증); search uses the same tables (`app.search.rewrite`)."""
    merged: dict[str, tuple[str, ...]] = {}
    for table in tables.values():
        for key, terms in table.items():
            merged.setdefault(key, terms)
    out: dict[str | None, Mapping[str, tuple[str, ...]]] = dict(tables.items())
    out[None] = merged
    return out


def official_terms(corpus: Corpus, text: str) -> tuple[str, tuple[str, ...]] | None:
    """(game, official terms) for a players' word the synonyms files list, by the merged
    table's rule (the first declared game that lists it), or None."""
    key = compact(text)
    for game in corpus.games:
        terms = game.synonyms.get(key)
        if terms:
            return game.id, terms
    return None


def named(corpus: Corpus, text: str) -> tuple[str, ...]:
    """The ids of the entries `text` names (see the module's docstring), in reading order;
    empty when it names none."""
    if text in corpus.entries:
        return (text,)
    normal = unicodedata.normalize("NFC", text)
    if normal in corpus.entries:
        return (normal,)
    tables = _tables(corpus)
    found = tables.folded.get(fold_id(text), ())
    if found:
        return found
    words = compact(normal.replace("+", " "))
    if not words:
        return ()
    entries = corpus.entries
    found = _one_per_title(corpus, (entries[i] for i in tables.names.get(words, ())))
    if found:
        return found
    terms = official_terms(corpus, words)
    if terms is None:
        return ()
    game, officials = terms
    return _one_per_title(corpus, [entries[i] for term in officials
                                   for i in tables.names.get(compact(term), ())
                                   if entries[i].game == game])


class _Tables:
    """The folded ids and the compact names of one corpus, made once."""

    def __init__(self, corpus: Corpus) -> None:
        folded: dict[str, list[str]] = {}
        names: dict[str, list[str]] = {}
        for entry in corpus:
            folded.setdefault(fold_id(entry.id), []).append(entry.id)
            names.setdefault(compact(entry.title), []).append(entry.id)
            english = corpus.english_name(entry)
            if english:
                names.setdefault(compact(english), []).append(entry.id)
        self.folded = {key: tuple(ids) for key, ids in folded.items()}
        #: compact title or English name → entry ids
        self.names = {key: tuple(dict.fromkeys(ids)) for key, ids in names.items()}


#: id(corpus) → (a weak reference to it, its tables): made on first use, dropped with the
#: corpus (a reload replaces it), so a server holds one or two at a time.
_MADE: dict[int, tuple[weakref.ref[Corpus], _Tables]] = {}
_LOCK = threading.Lock()


def _tables(corpus: Corpus) -> _Tables:
    key = id(corpus)
    held = _MADE.get(key)
    if held is not None and held[0]() is corpus:
        return held[1]
    with _LOCK:
        held = _MADE.get(key)
        if held is not None and held[0]() is corpus:
            return held[1]
        tables = _Tables(corpus)
        _MADE[key] = (weakref.ref(corpus, lambda _: _MADE.pop(key, None)), tables)
        return tables


def _one_per_title(corpus: Corpus, entries: Iterable[Entry]) -> tuple[str, ...]:
    """`entries` with each translation replaced by its original, then one per game and title:
    a real entry before a "see X" pointer, then the first in reading order."""
    chosen: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        original = _original(corpus, entry)
        key = (original.game, compact(original.title))
        best = chosen.get(key)
        if best is None or (original.placeholder, original.order) < (best.placeholder,
                                                                      best.order):
            chosen[key] = original
    return tuple(e.id for e in sorted(chosen.values(), key=lambda e: e.order))


def _original(corpus: Corpus, entry: Entry) -> Entry:
    source = corpus.source(entry.source)
    original = source.spec.translation_of if source is not None else None
    if original is None:
        return entry
    origin = corpus.source(original)
    paired = entry.translations.get(origin.spec.lang) if origin is not None else None
    return corpus.entries.get(paired, entry) if paired else entry

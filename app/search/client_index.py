"""The search index the browser downloads: the server's postings and title tables as JSON.

`static/engine.js` answers searches from it offline (and on a static export) the way
`SearchIndex` does on the server, so everything in it comes from the server's own analysis:
the tokens are `index.entry_fields` of `documents.documents` (the same documents, translations
folded into their originals), the title forms are `analysis.title_parts`, the particle and
ending lists, function words and patterns are `analysis.client_tables()`, every number and
list the two engines share is the search contract (`contract.shipped()`, whole), and the
synonyms are the games' files. Nothing is written twice: the engine reads these instead of
carrying its own.

Two files, because the body's postings are larger than the text they come from:

* **`index(corpus, urls)`** (`/search-index.json`; its size is in docs/figures.md): documents
  (id, title, game, URL, where it sits), title tables, the postings of the title
  and English-name fields, synonyms, rules and the contract. Postings are `term →
  "d[.tf],d[.tf],…"`: document numbers as base-36 deltas, the term frequency only when above
  1. This is all that search-as-you-type needs.
* **`texts(corpus)`** (`/search-texts.json`): each document's text. The engine
  derives the body fields' postings from it with the same rules (`body_w`: every variant of
  every word; `body_bg`: bigrams), and cuts snippets and the re-rank's coordination and
  proximity from it. Shipped as postings instead, the body fields alone were 308 KB gzip
  (measured: body_w 114 KB, body_bg 194 KB), nearly twice the text; `tests/test_client_parity.py`
  checks that the engine's derived postings are exactly `index.entry_fields`'s.

Both carry `version` (the data's content hash) and `analysis` (`index.ANALYSIS_VERSION`, a
hash of the contract, the tables and the code that makes them): the engine refuses an index
of another analysis than the page that loads it names, and a texts file of another version
than its index.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from whoosh.util.numeric import byte_to_length, length_to_byte

from app.corpus.hangul import CHOSEONG, JONGSEONG, JUNGSEONG
from app.corpus.models import Corpus, Entry
from app.corpus.normalize import SPACES
from app.search import analysis, contract, rank
from app.search.documents import Document, documents, english_surfaces
from app.search.index import (
    ANALYSIS_VERSION,
    FIELDS,
    TRANSLATION_FIELDS,
    entry_fields,
    field_counts,
    title_tokens,
)
from app.search.loanwords import loanword_vocabulary
from app.search.rewrite import game_name_keys, related_tables
from app.search.snippet import LIST_MARK
from app.search.titles import positions
from app.urls import Urls

__all__ = ["DERIVED", "LENGTH_STEPS", "SHIPPED", "decode_postings", "encode_postings",
           "index", "language_index", "language_texts", "languages", "stored_length", "texts"]

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
#: Postings numbers are written in this base (the engine reads it from `rules`).
_RADIX = len(_DIGITS)
#: Fields shipped as postings; the body fields are derived from the texts by the engine.
SHIPPED = ("title_w", "title_bg", "alias")
#: Fields the engine derives from `texts`.
DERIVED = tuple(f for f in FIELDS if f not in SHIPPED and f not in TRANSLATION_FIELDS)


def _base36(number: int) -> str:
    if number == 0:
        return "0"
    out: list[str] = []
    while number:
        number, digit = divmod(number, _RADIX)
        out.append(_DIGITS[digit])
    return "".join(reversed(out))


def encode_postings(postings: dict[int, int]) -> str:
    """`{docnum: tf}` as `"delta[.tf],…"`: base-36 gaps between ascending document numbers
    (the first counted from -1, so every gap is at least 1), `.tf` only when tf > 1."""
    out: list[str] = []
    previous = -1
    for docnum in sorted(postings):
        tf = postings[docnum]
        out.append(_base36(docnum - previous) + (f".{_base36(tf)}" if tf > 1 else ""))
        previous = docnum
    return ",".join(out)


def decode_postings(encoded: str) -> dict[int, int]:
    """The inverse of `encode_postings` (the engine does the same in JavaScript)."""
    found: dict[int, int] = {}
    docnum = -1
    for item in filter(None, encoded.split(",")):
        gap, _, tf = item.partition(".")
        docnum += int(gap, _RADIX)
        found[docnum] = int(tf, _RADIX) if tf else 1
    return found


def stored_length(length: int) -> int:
    """A field length as the server's BM25 sees it: Whoosh keeps each length in one byte
    (`length_to_byte`), so long fields are approximated (291 tokens read as 290)."""
    return int(byte_to_length(length_to_byte(length)))


#: What each of the 256 stored length bytes stands for, ascending: the engine rounds a length
#: it counts up to the first step it reaches, as `length_to_byte` does.
LENGTH_STEPS = [int(byte_to_length(b)) for b in range(256)]


def _where(corpus: Corpus, doc: Document) -> str:
    """Where an entry sits: its parent's title, or its source's for a top-level entry (the
    engine shows `game short name · where`, as `offline.titles` does); a step's entry's
    title for a step."""
    entry = doc.entry
    if doc.anchor:
        return entry.title
    source = corpus.source(entry.source)
    return (corpus.entries[entry.parent].title if entry.parent
            else (source.spec.title if source else ""))


def index(corpus: Corpus, urls: Urls) -> dict[str, Any]:
    """The client index of `corpus` (see the module's docstring), JSON-ready."""
    docs = documents(corpus)
    # What titles, names and game names are made of: whole entries, not their steps.
    wholes = tuple(d for d in docs if not d.anchor)
    names = game_name_keys(corpus, wholes)
    number = {doc.id: n for n, doc in enumerate(docs)}
    games = [g.id for g in corpus.games]
    postings: dict[str, dict[str, Counter[int]]] = {f: {} for f in SHIPPED}
    # The translation fields' lengths are the server's, over every language: the engine gets
    # their postings one language at a time (`language_index`, `language_texts`).
    lengths: dict[str, list[int]] = {f: [] for f in (*SHIPPED, *TRANSLATION_FIELDS)}
    for n, doc in enumerate(docs):
        fields = entry_fields(doc)
        for field in lengths:
            tokens = fields[field].split()
            lengths[field].append(stored_length(len(tokens)))
            if field in postings:
                table = postings[field]
                for token in tokens:
                    table.setdefault(token, Counter())[n] += 1
    placeholders: dict[str, int] = {}
    for doc in docs:
        targets = doc.entry.links_to
        if doc.entry.placeholder and targets and targets[0] in number:
            placeholders[str(number[doc.id])] = number[targets[0]]
    titles = [[] if doc.anchor else analysis.title_parts(doc.entry.title) for doc in docs]
    position = positions(wholes)
    return {
        "version": corpus.version,
        "analysis": ANALYSIS_VERSION,
        "games": [{"id": g.id, "name": g.name, "short": g.short} for g in corpus.games],
        "docs": {
            "id": [doc.id for doc in docs],
            "title": [doc.shown_title for doc in docs],
            "url": [urls.entry(doc.page, doc.anchor or None) for doc in docs],
            #: A step's docnum → its entry's, where a result for it lands (any other
            #: document lands on its own: `documents.steps`); the results list each once.
            "page": {str(n): number[doc.page] for n, doc in enumerate(docs) if doc.anchor},
            "game": [games.index(doc.entry.game) for doc in docs],
            "where": [_where(corpus, doc) for doc in docs],
            "order": [doc.entry.order for doc in docs],
            "depth": [doc.entry.depth for doc in docs],
            "backlinks": [len(doc.entry.linked_from) for doc in docs],
            "weight": [doc.weight for doc in docs],
            "placeholder": [int(doc.entry.placeholder) for doc in docs],
            #: A "see X" pointer's docnum → X's docnum.
            "see": placeholders,
            #: 1 when the entry's own title and text are in the entry's fields (0: an entry
            #: of a translation other than English, searched in the translation fields).
            "base": [int(doc.base) for doc in docs],
            "lang": [doc.entry.lang for doc in docs],
        },
        #: Per field, the documents its BM25 statistics count (`bm25.FieldStats`).
        "counts": field_counts(docs),
        #: The translation languages whose files (`language_index`, `language_texts`) exist.
        "languages": languages(corpus, docs),
        #: Every language's own name (`languages.json`): "한국어" beside a translation's title.
        "language_names": {s.spec.lang: corpus.language(s.spec.lang).name
                           for s in corpus.sources},
        "titles": {
            "parts": titles,
            #: Each document's place among titles that match equally well.
            "position": [position.get(doc.id, len(docs)) for doc in docs],
            "full": ["" if doc.anchor else analysis.compact_title(doc.entry.title)
                     for doc in docs],
            "alias": [analysis.alias_key(doc.english) if analysis.alias_terms(doc.english)
                      else "" for doc in docs],
            "alias_words": [analysis.alias_terms(doc.english) for doc in docs],
            #: The title the re-rank reads where it is not `full`: a step's heading, a
            #: passage's after the section it sits under (`Document.title`).
            "searched": {str(n): analysis.compact_title(doc.title) for n, doc in enumerate(docs)
                         if doc.title != doc.entry.title},
            # The re-rank's title words: each content word of the (searched) title as its
            # variants.
            "words": [[list(analysis.variants(w)) for w in analysis.words(doc.title)
                       if not w.isdigit() and not analysis.is_function_word(w)]
                      for doc in docs],
        },
        "lengths": lengths,
        "postings": {field: {term: encode_postings(found)
                             for term, found in sorted(table.items())}
                     for field, table in postings.items()},
        "synonyms": {g.id: {k: list(v) for k, v in g.synonyms.items()} for g in corpus.games},
        "related": {game: {k: list(v) for k, v in table.items()}
                    for game, table in related_tables(corpus, wholes).items()},
        "game_names": {k: list(v) for k, v in names.keys.items()},
        "game_name_guards": {k: list(v) for k, v in names.guards.items()},
        #: Hangul loanwords heard by sound (`loanwords.LoanwordVocabulary`): the English
        #: side, made here, since the browser has no English skeletons of its own.
        "loanwords": loanword_vocabulary(corpus, wholes).shipped(),
        #: An English stem → the word a correction to it is said as (`english_surfaces`).
        "surfaces": english_surfaces(docs),
        # Shipped once, for the browser's plan as for the server's (`Corpus.words`).
        "words": sorted(corpus.words),
        "rules": {
            **analysis.client_tables(),
            "choseong": CHOSEONG,
            "jungseong": JUNGSEONG,
            "jongseong": list(JONGSEONG),
            "spaces": SPACES.pattern,
            "list_mark": LIST_MARK.pattern,
            "sentence_end": rank.SENTENCE_END.pattern,
            # A worked example's paragraph start ("" when no language declares one).
            "example": rank.example_pattern(corpus),
            "example_name": rank.EXAMPLE_NAME.pattern,
            "length_steps": LENGTH_STEPS,
            "postings_radix": _RADIX,
        },
        "contract": contract.shipped(),
    }


def texts(corpus: Corpus) -> dict[str, Any]:
    """Each document's text (`Document.text`: the entry's, then its English translation's),
    in docnum order: what the server indexes, ranks and quotes in the entry's fields; and the
    questions each answers (`Document.asks`), indexed in their own field (`ask_w`) and ranked
    with the text, never quoted."""
    docs = documents(corpus)
    return {
        "version": corpus.version,
        "analysis": ANALYSIS_VERSION,
        "texts": [doc.text for doc in docs],
        "asks": [doc.asks for doc in docs],
    }


def languages(corpus: Corpus, docs: tuple[Document, ...]) -> list[str]:
    """The languages of the documents' translations other than English, in the manifest's
    order: the order of each document's translations (`Document.translated`), which the
    engine follows when it adds them."""
    found = {t.lang for doc in docs for t in doc.translated}
    return [lang for lang in dict.fromkeys(s.spec.lang for s in corpus.sources)
            if lang in found]


def _in_language(docs: tuple[Document, ...], lang: str) -> list[tuple[int, Entry]]:
    return [(n, t) for n, doc in enumerate(docs) for t in doc.translated if t.lang == lang]


def language_index(corpus: Corpus, urls: Urls, lang: str) -> dict[str, Any] | None:
    """What the engine adds to search in `lang` (a translation other than English), or None
    when the corpus has no such translation: per document (by docnum), the entry in `lang`
    (id, title, URL) and its title forms, and the `title_tr` postings of its titles."""
    docs = documents(corpus)
    found = _in_language(docs, lang)
    if not found:
        return None
    table: dict[str, Counter[int]] = {}
    for n, entry in found:
        for token in title_tokens(entry.title):
            table.setdefault(token, Counter())[n] += 1
    return {
        "version": corpus.version,
        "analysis": ANALYSIS_VERSION,
        "lang": lang,
        "entries": {str(n): [e.id, e.title, urls.entry(e.id)] for n, e in found},
        "parts": {str(n): analysis.title_parts(e.title) for n, e in found},
        "postings": {"title_tr": {term: encode_postings(hits)
                                  for term, hits in sorted(table.items())}},
    }


def language_texts(corpus: Corpus, lang: str) -> dict[str, Any] | None:
    """The texts of the entries in `lang` by docnum (their `body_tr` postings and snippets),
    or None when the corpus has no translation in `lang`."""
    found = _in_language(documents(corpus), lang)
    if not found:
        return None
    return {
        "version": corpus.version,
        "analysis": ANALYSIS_VERSION,
        "lang": lang,
        "texts": {str(n): e.text for n, e in found},
    }

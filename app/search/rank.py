"""Re-ranking of Whoosh's candidates with features BM25 does not see.

* **coordination** — how many of the query's words the entry contains at all (a long query
  describing a rule should find the entry that has all of its words, not the one repeating
  two of them);
* **proximity** — adjacent query words appearing next to each other (a few characters apart
  for particles) in the entry's space-free text: `교전 중인 적` ≈ "교전 중인 적과" (found with
  `str.find`, not a regex compiled per word pair and query);
* **title coverage** — the share of the entry's title the query explains: an entry whose whole
  title is in the query is the precise answer, more than one whose long title merely shares a
  word;
* **passage** — the largest share of the query's content words that one sentence of the entry
  holds: a question's words together in one sentence (`같은 카드`, `덱`, `2장까지`, `포함`) point
  at the sentence that answers it, more than the same words spread over a long entry;
* **examples** — a word found only in a name a worked example quotes (a paragraph opening
  with `예시:`, a card in ‘…’) counts `example` of its weight in coordination: the card an
  example names is not what the rule is about;
* **authority** — entries other entries link to (glossary terms) are slightly preferred, and
  each source's entries count as much as the manifest's `search_weight` says: a book that
  teaches the game (the rulebooks) below the reference players look rules up in.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.corpus.models import Corpus
from app.search import analysis
from app.search.contract import CONTRACT
from app.search.documents import Document, segment
from app.search.query import Plan
from app.search.scripts import fold_text

__all__ = ["EXAMPLE_NAME", "SENTENCE_END", "Features", "Partial", "Prepared", "Reranker",
           "example_pattern"]

_R = CONTRACT.rerank


@dataclass(frozen=True)
class Features:
    coordination: float
    proximity: float
    #: Share of the title the query explains, times the share of the query the title explains.
    title_coverage: float
    authority: float
    #: The largest share of the content words (by weight) one sentence holds; 0 for short
    #: queries (fewer than `passage_min_words` content words), where coordination says it all.
    passage: float = 0.0

    @property
    def factor(self) -> float:
        return _factor(self.coordination, self.proximity, self.title_coverage, self.passage,
                       self.authority)


def _factor(coordination: float, proximity: float, title_coverage: float, passage: float,
            authority: float) -> float:
    """What BM25 is multiplied by. Every step rises with each argument, in floating point too
    (IEEE rounding is monotonic), so arguments at their most give a factor at its most."""
    return (max(_R.coord_floor, coordination * coordination)
            * (1 + _R.proximity * proximity)
            * (1 + _R.title_coverage * title_coverage)
            * (1 + _R.passage * passage * passage)
            * authority)


@dataclass(slots=True)
class Partial:
    """An entry's features for a query without the two that cost the most (proximity and
    passage), with the most those two could add: `most` is a factor no greater than the
    entry's `Features.factor` can be. The ranking completes only the candidates whose `most`
    could still put them on the page (`Ranker.ranking`)."""

    entry_id: str
    #: Per group of the query: whether the entry has one of its forms.
    has: list[bool]
    present: list[tuple[tuple[str, ...], float]]
    coordination: float
    title_coverage: float
    authority: float
    #: Proximity at its most: the share of word pairs whose two words the entry has.
    proximity_most: float
    #: Passage at its most: one sentence holding every content word the entry has.
    passage_most: float

    @property
    def most(self) -> float:
        return _factor(self.coordination, self.proximity_most, self.title_coverage,
                       self.passage_most, self.authority)


@dataclass(frozen=True)
class _Doc:
    #: The title, then the text's words run together: Hangul and digits in `text`, Latin
    #: words in `latin`. A rule's Korean text and its English original are searched apart,
    #: so a Hangul form scans half the characters (the English half cannot hold it). Each
    #: sentence is a line of its own: proximity stops at a line break.
    text: str
    latin: str
    #: Where each line of `text` starts (the title is line 0).
    starts: tuple[int, ...]
    #: `text` and `latin` without the names its worked examples quote: the same strings when
    #: it has none.
    main: str
    main_latin: str
    title_text: str
    #: The title's content words, each as its variants.
    title_words: tuple[tuple[str, ...], ...]
    title_forms: frozenset[str]
    authority: float
    #: Per title word: its forms as a set, and its stem when longer than one character
    #: (else ""): what `_title_coverage` tests against the query, made once per index.
    title_tests: tuple[tuple[frozenset[str], str], ...] = ()
    #: Where each line of `latin` starts (the title is line 0).
    latin_starts: tuple[int, ...] = ()


@dataclass(frozen=True)
class Prepared:
    """The query's side of the features, computed once per search."""

    plan: Plan
    groups: tuple[tuple[tuple[str, ...], float], ...]
    #: Adjacent groups' forms: (first word's forms, next word's forms), for groups of two
    #: words (a Han word's grams overlap: they are never apart).
    pairs: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]
    query_forms: frozenset[str]
    joined: str
    #: Per group, its Hangul and its Latin forms: which half of a document each is looked for
    #: in, decided once per query rather than once per form and document.
    split: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    total: float = 0.0
    #: The index of each pair's first group (the pair is that group and the next).
    pair_at: tuple[int, ...] = ()
    #: Per group, its forms as a set and those longer than one character: what
    #: `_title_coverage` tests against a title, made once per query.
    title_tests: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = ()


class Reranker:
    """Per-entry data for the features, prepared once per index."""

    def __init__(self, docs: Sequence[Document], example: str = "") -> None:
        """`example`: the pattern a worked example's paragraph starts with
        (`example_pattern`), or "" when no language declares one."""
        examples = re.compile(example) if example else None
        self._docs = {doc.id: _prepare(doc, examples) for doc in docs}

    @staticmethod
    def prepare(plan: Plan) -> Prepared:
        """The query's side of the features (its words are already bounded by the budget)."""
        grouped = _word_groups(plan)
        groups = tuple((forms, weight) for forms, weight, _ in grouped)
        pair_at = tuple(i for i, (a, b) in enumerate(itertools.pairwise(grouped))
                        if a[2] != b[2])
        pairs = tuple((groups[i][0], groups[i + 1][0]) for i in pair_at)
        forms = frozenset(fold_text(f) for w in plan.words for f in (*w.variants,
                                                                     *w.corrections))
        split = tuple((tuple(f for f in g if not _is_latin(f)), tuple(f for f in g if _is_latin(f)))
                      for g, _ in groups)
        title_tests = tuple((frozenset(g), tuple(f for f in g if len(f) > 1))
                            for g, _ in groups)
        return Prepared(plan, groups, pairs, forms,
                        fold_text(plan.stem_compact + plan.compact), split,
                        sum(weight for _, weight in groups), pair_at, title_tests)

    def features(self, query: Prepared, entry_id: str) -> Features:
        """The entry's features for the prepared query."""
        return self.complete(query, self.partial(query, entry_id))

    def partial(self, query: Prepared, entry_id: str) -> Partial:
        """The entry's features but proximity and passage, and the most those can be."""
        doc = self._docs[entry_id]
        if not query.groups:
            return Partial(entry_id, [], [], 1.0, 0.0, doc.authority, 0.0, 0.0)
        text, latin = doc.text, doc.latin
        # Plain loops: a query has a handful of groups of one to three forms, where a
        # generator per group and entry cost more than the tests themselves.
        has: list[bool] = []
        present_list: list[tuple[tuple[str, ...], float]] = []
        found = 0.0
        examples = doc.main is not text
        for (hangul, english), group in zip(query.split, query.groups, strict=True):
            # `_has`, inlined: this loop runs for every form of every group of ~50 entries.
            there = False
            for form in hangul:
                if form in text:
                    there = True
                    break
            else:
                for form in english:
                    if form in latin:
                        there = True
                        break
            has.append(there)
            if there:
                present_list.append(group)
                # A word only a worked example's card name has counts less (`Rerank.example`).
                found += group[1] if not examples or _has(
                    doc.main, doc.main_latin, hangul, english) else group[1] * _R.example
        coordination = found / query.total
        proximity = 0.0
        if query.pairs:
            # Pair i is groups i and i + 1; a pair with a word the entry lacks is never near.
            both = 0
            for i in query.pair_at:
                if has[i] and has[i + 1]:
                    both += 1
            proximity = both / len(query.pairs)
        # One sentence holds at most every word the entry has (`_passage` sums a part of the
        # weights `found` sums, in the same order: never more).
        # (The example discount lowers coordination only: the bound is the undiscounted sum.)
        passage = (sum([weight for _, weight in present_list]) / query.total
                   if len(query.groups) >= _R.passage_min_words else 0.0)
        return Partial(entry_id, has, present_list, coordination,
                       _title_coverage(query, doc), doc.authority, proximity, passage)

    def complete(self, query: Prepared, partial: Partial) -> Features:
        """The features `partial` left out, measured."""
        if not query.groups:
            return Features(1.0, 0.0, 0.0, partial.authority)
        doc = self._docs[partial.entry_id]
        has, present = partial.has, partial.present
        proximity = 0.0
        if partial.proximity_most:
            near = 0
            for i, (a, b) in zip(query.pair_at, query.pairs, strict=True):
                if has[i] and has[i + 1] and _near(doc.latin if _is_latin(a[0]) else doc.text,
                                                   a, b):
                    near += 1
            proximity = near / len(query.pairs)
        passage = 0.0
        if len(query.groups) >= _R.passage_min_words:
            # Only the words the entry has can share a sentence; one word shares it with none.
            passage = (_passage(present, doc) if len(present) > 1
                       else max((w for _, w in present), default=0.0)) / query.total
        return Features(partial.coordination, proximity, partial.title_coverage,
                        partial.authority, passage)


def _has(text: str, latin: str, hangul: tuple[str, ...], english: tuple[str, ...]) -> bool:
    """Whether some Hangul form is in `text` or some Latin form in `latin`."""
    for form in hangul:
        if form in text:
            return True
    return any(form in latin for form in english)


def example_pattern(corpus: Corpus) -> str:
    """The pattern a worked example's paragraph starts with: one of the corpus's languages'
    `examples` words, perhaps after an opening parenthesis, then a colon; "" when no language
    declares one. The browser engine compiles the same source (`client_index`)."""
    words = [w for language in corpus.languages.values() for w in language.examples]
    if not words:
        return ""
    alternatives = "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))
    return rf"^\s*\(?\s*(?:{alternatives})\s*:"


#: A name in a worked example: the Korean texts quote card names in single quotes
#: (‘위로의 선율’).
EXAMPLE_NAME = re.compile(r"‘[^’\n]*’")


def _sentences(text: str, examples: re.Pattern[str] | None,
               ) -> tuple[list[list[str]], list[list[str]] | None]:
    """The words of each sentence of `text` (folded); and the same with the names a worked
    example quotes taken out (a paragraph that starts as `examples` says is an example to
    its end), or None when `text` has none."""
    sentences = [analysis.words(s) for s in SENTENCE_END.split(text)]
    if examples is None:
        return sentences, None
    kept, named = [], False
    for paragraph in text.split("\n"):
        if examples.match(paragraph):
            paragraph, taken = EXAMPLE_NAME.subn("", paragraph)
            named = named or taken > 0
        kept.append(paragraph)
    if not named:
        return sentences, None
    return sentences, [analysis.words(s) for s in SENTENCE_END.split("\n".join(kept))]


def _prepare(doc: Document, examples: re.Pattern[str] | None = None) -> _Doc:
    entry = doc.entry
    # Accents folded (`fold_text`) on both sides: `fatalite` is in a text that says fatalité.
    title_text = fold_text(analysis.compact_title(doc.title), remember=True)
    title_words = tuple(
        tuple(fold_text(f, remember=True) for f in analysis.variants(w))
        for w in analysis.words(doc.title)
        if not w.isdigit() and not analysis.is_function_word(w))
    sentences, unnamed = _sentences(fold_text(doc.searched.strip(), remember=True), examples)
    # The translations' sentences after the entry's own, without their numbers: numbers are
    # in every language, and a Korean query's only words that are not Hangul.
    translated = [[w for w in ws if not w.isdigit()] for t in doc.translated
                  for ws in _sentences(fold_text(segment(t), remember=True), None)[0]]
    sentences += translated
    lines = [title_text] + ["".join(w for w in ws if not _is_latin(w)) for ws in sentences]
    lines = [line for line in lines if line]
    text = "\n".join(lines)
    latin_lines = [title_text] + [_latin_line(ws) for ws in sentences]
    latin = "\n".join(latin_lines)
    main, main_latin = text, latin
    if unnamed is not None:
        unnamed += translated
        main = "\n".join(filter(None, [title_text] + [
            "".join(w for w in ws if not _is_latin(w)) for ws in unnamed]))
        main_latin = "\n".join([title_text] + [_latin_line(ws) for ws in unnamed])
    return _Doc(
        text=text,
        latin=latin,
        starts=_line_starts(lines),
        latin_starts=_line_starts(latin_lines),
        main=main,
        main_latin=main_latin,
        title_text=title_text,
        title_words=title_words,
        title_forms=frozenset(f for forms in title_words for f in forms),
        # A step counts as much as its entry: links to the entry are links to its steps.
        authority=(1 + _R.authority * math.log1p(len(entry.linked_from))) * doc.weight,
        title_tests=tuple((frozenset(forms), shortest if len(shortest) > 1 else "")
                          for forms, shortest in zip(
                              title_words, (min(f, key=len) for f in title_words), strict=True)),
    )


def _latin_line(words: list[str]) -> str:
    """A sentence's Latin words, each by its stem, run together: a stem is not always the
    start of its word (`copies` → copy), so the text is stemmed as the query's forms are
    (`_searched`)."""
    return "".join(analysis.english_stem(w) for w in words if _is_latin(w))


def _searched(form: str) -> str:
    """A query form as the re-rank looks for it: folded, and a Latin one by its stem, as the
    text's Latin words are (`_latin_line`): `fatalité`, kept as typed, is `fatalit` there."""
    folded = fold_text(form)
    return analysis.english_stem(folded) if _is_latin(folded) else folded


def _line_starts(lines: list[str]) -> tuple[int, ...]:
    """Where each of `lines` starts once they are joined by line breaks."""
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    return tuple(starts)


#: Where a sentence ends: a line break, or sentence-final punctuation before a space.
SENTENCE_END = re.compile(r"\n+|(?<=[.?!。])\s+")


def _passage(groups: Sequence[tuple[tuple[str, ...], float]], doc: _Doc) -> float:
    """The largest total weight of content-word groups found together in one line: a
    sentence of the Hangul text for Hangul forms, of the Latin text (the English original)
    for Latin forms, so an English question's words in one English sentence count as a
    Korean question's do."""
    per_line: dict[int, float] = {}
    for forms, weight in groups:
        lines: set[int] = set()
        for form in forms:
            # Latin lines are numbered after the Hangul ones: a sentence of either.
            latin = _is_latin(form)
            text, starts = (doc.latin, doc.latin_starts) if latin else (doc.text, doc.starts)
            offset = len(doc.starts) if latin else 0
            at = text.find(form)
            while at != -1:
                line = bisect.bisect_right(starts, at)  # the line after the one found
                lines.add(offset + line - 1)
                if line >= len(starts):
                    break
                at = text.find(form, starts[line])  # a line counts once: skip to the next
        for line in lines:
            per_line[line] = per_line.get(line, 0.0) + weight
    return max(per_line.values(), default=0.0)


def _is_latin(word: str) -> bool:
    return word.isascii() and word.isalpha()


def _near(text: str, first: tuple[str, ...], then: tuple[str, ...]) -> bool:
    """Some form of `first` followed within `near_gap` characters (no line break) by one of
    `then`.

    The same test as the regex `(?:first…)[^\\n]{0,near_gap}?(?:then…)`, without compiling one per
    word pair and query: every occurrence of every `first` form is tried, overlaps included.
    """
    if not any(b in text for b in then):
        return False
    longest = max(len(b) for b in then)
    gap_allowed = _R.near_gap
    for a in first:
        at = text.find(a)
        while at != -1:
            end = at + len(a)
            window = text[end : end + gap_allowed + longest]
            for b in then:
                gap = window.find(b)
                if 0 <= gap <= gap_allowed and "\n" not in window[:gap]:
                    return True
            at = text.find(a, at + 1)
    return False


def _word_groups(plan: Plan) -> list[tuple[tuple[str, ...], float, int]]:
    """Each content word of the query as the forms that count as present, with its weight
    and the number of the query word it comes from.

    A related word the rewrite added (`포함` beside `넣을`) is a form of the typed word's
    group, not a word of its own: an entry saying either has the word once, and one saying
    both is not counted twice.
    """
    joins = dict(plan.related)
    groups: list[tuple[tuple[str, ...], float, int]] = []
    at: dict[str, int] = {}
    for number, word in enumerate(plan.words):
        if analysis.is_function_word(word.text):
            continue
        if word.grams:
            # A Han word counts as much as another word, shared among its grams.
            groups.extend(((gram,), 1.0 / len(word.grams), number) for gram in word.grams)
            continue
        forms = tuple(_searched(f) for f in (word.stem, *word.corrections, *word.english_words)
                      if f)
        if not forms:
            continue
        weight = _R.short_word if len(word.stem) == 1 and word.hangul else 1.0
        typed = joins.get(word.text)
        if typed in at:
            i = at[typed]
            merged = tuple(dict.fromkeys((*groups[i][0], *forms)))
            groups[i] = (merged, max(groups[i][1], weight), groups[i][2])
            continue
        at[word.text] = len(groups)
        groups.append((forms, weight, number))
    return groups


def _title_coverage(query: Prepared, doc: _Doc) -> float:
    if not doc.title_words:
        return 0.0
    covered = 0
    joined, query_forms = query.joined, query.query_forms
    for forms, stem in doc.title_tests:
        if (stem and stem in joined) or not query_forms.isdisjoint(forms):
            covered += 1
    if not covered:
        # No title word is in the query: the product is 0 whatever the query explains.
        return 0.0
    explained = 0
    title_forms, title_text = doc.title_forms, doc.title_text
    for forms, longer in query.title_tests:
        if not title_forms.isdisjoint(forms):
            explained += 1
            continue
        for form in longer:
            if form in title_text:
                explained += 1
                break
    return covered / len(doc.title_words) * explained / len(query.groups)

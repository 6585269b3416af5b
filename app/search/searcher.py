"""`SearchIndex`: the public search API over one corpus and its Whoosh index.

Ranking, best first:

1. **tiers** from title matching: the query is the whole title, numbering included (4); it
   (or its stems, or its English reading) *is* a title or rule name (3); it is a title's 초성
   or a typo'd title (2); it starts a title (1). Title-level ties across games put the
   manifest's first game first;
2. within a tier, BM25F over Whoosh's postings — title words, title bigrams, body words, body
   bigrams, English names, each with its boost (`CONTRACT.boosts`) — re-scored by
   `rank.Reranker` (coordination, proximity, title coverage, passage, backlinks);
3. then: a "see X" placeholder is moved below X (and X is added if it was missing);
4. last, if asked: entries the caller demotes (rules of collections the player does not own)
   go below all others, each group keeping its order.

Every query runs under a `Budget` (`contract.py`): words analysed, typo corrections, BM25
lookups and re-ranked candidates are bounded, so a 200-character query of made-up words costs
little more than a short one.

One Whoosh searcher per thread (a shared one corrupts results under load: measured, see
tests/test_search_concurrency.py); the index
itself is held in memory, so searchers open in microseconds and never touch the disk.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.corpus.models import Corpus
from app.search import analysis, scripts
from app.search.bm25 import FieldStats
from app.search.contract import CONTRACT, Budget, Tier, TitleRank
from app.search.documents import Document, documents, english_surfaces, segment
from app.search.fuzzy import Vocabulary
from app.search.index import (
    FIELDS,
    Attachment,
    attached,
    field_counts,
    load_index,
    save_index,
)
from app.search.layout import from_qwerty, to_qwerty, typing_forms
from app.search.loanwords import loanword_vocabulary
from app.search.query import Plan, clean, make_plan
from app.search.rank import Reranker, example_pattern
from app.search.ranking import Ranker, Ranking
from app.search.rewrite import Rewrite, Rewriter, game_name_keys, related_tables
from app.search.scripts import fold, fold_text
from app.search.snippet import flatten, make_snippet, present_terms, squash, term_pattern
from app.search.titles import TitleHit, TitleTable

__all__ = ["Hit", "Results", "SearchIndex"]

log = logging.getLogger(__name__)

_LIMITS = CONTRACT.limits
#: The fields whose terms are listed in memory (`FieldStats.lexicons`): the titles', the
#: English names' and the whole words of the bodies and answered questions, where nearly every
#: lookup of an unknown term happens (per dev query, 2.7 in `ask_w`, 1.9 in `body_w`: 0.05
#: ms asked of Whoosh, a twelfth of a compiled search). Those two: 13,500 terms, about 26 ms
#: and 1.6 MiB at start. Not the bodies' bigrams: 20,700 terms, 40 ms and 3.5 MiB more, to
#: save 0.005 ms a query.
_LISTED = ("title_w", "title_bg", "alias", "title_tr", "body_w", "ask_w", "body_tr")
#: A word as typed in either layout: Latin letters, or Hangul syllables and jamo.
_LAYOUT_WORD = re.compile(r"[A-Za-z]+|[가-힣ㄱ-ㅎㅏ-ㅣ]+")
_LAST_LATIN = re.compile(r"[A-Za-z]+$")


@dataclass(frozen=True)
class Hit:
    """One result: the entry's id and an HTML-safe snippet with `<mark>`s, cut from the text
    of `shown`: the entry itself, or the translation whose language the query is in (its
    title is the one to show, with the entry beside it)."""

    id: str
    snippet: str
    shown: str = ""
    #: Where on the entry's page the answer is: a step's anchor (`step-8`), or "".
    anchor: str = ""
    #: That step's heading (`8. 시작 카드를 뽑습니다.`), shown as the result's title.
    heading: str = ""

    def __post_init__(self) -> None:
        if not self.shown:
            object.__setattr__(self, "shown", self.id)


@dataclass(frozen=True)
class _Segment:
    """One language of a document as snippets cut it: the entry shown, its text flattened,
    the same folded (`scripts.fold_text`, as long) and squashed (`present_terms`), and the
    source it comes from."""

    shown: str
    source: str
    flat: str
    folded: str
    squashed: str
    #: The squashed text with umlauts spelled out too (`nachruesten`), if that differs.
    spelled: str = ""

    def has(self, term: str) -> bool:
        """Whether a folded, case-folded term is in the text."""
        return term in self.squashed or (bool(self.spelled) and term in self.spelled)


@dataclass(frozen=True)
class Results:
    """One page of results for `query`; `suggestion` is a title when nothing matched."""

    query: str
    total: int
    hits: tuple[Hit, ...]
    suggestion: str | None
    #: (as typed, official term) for each synonym the search used (`서지` → 급증).
    synonyms: tuple[tuple[str, str], ...] = ()
    #: (as typed, English word, official term or "") for each Hangul loanword matched by
    #: sound (`클루` → clue, 단서).
    loanwords: tuple[tuple[str, str, str], ...] = ()
    #: (as typed, game id) when the query named a game and no filter was set: that game's
    #: rules come first (`엘드리치 호러 한 라운드에 …`).
    game_named: tuple[str, str] | None = None
    #: (as typed, correction) for each word corrected (`토쿤` → 토큰): what the notice quotes.
    corrections: tuple[tuple[str, str], ...] = ()
    #: (as typed, as meant) when the query was typed in the keyboard's other layout
    #: (`xmatorhdrur` → 틈새공격): what was searched.
    layout: tuple[str, str] | None = None
    #: Words no entry has (not even corrected), when the other words found results: the
    #: page says they were left out (`빗나감 피해` → the entries about 피해).
    dropped: tuple[str, ...] = ()
    #: (as typed, word of the texts) for each word that matched nothing, nor any title or
    #: rules' term, and was searched as the closest word of some rule's text instead: the
    #: last resort before "did you mean".
    fallback: tuple[tuple[str, str], ...] = ()
    #: True when every word is in `dropped`: the results only share parts of the words
    #: (letters of a longer word), and the page says so.
    partial: bool = False
    #: With a game or source filter: the id of the best entry outside it, when it answers
    #: better than any inside (the page offers it first).
    elsewhere: str | None = None


class SearchIndex:
    """Search over one corpus. Every public method is safe to call from many threads."""

    def __init__(self, corpus: Corpus, ix: Any, *, budget: Budget = CONTRACT.budget) -> None:
        self.corpus = corpus
        #: The per-query limits every search and plan runs under.
        self.budget = budget
        self._ix = ix
        #: What `open_or_build` kept with the index (named in its stamp when it is saved).
        self._attachments: tuple[Attachment, ...] = ()
        self._local = threading.local()
        self._documents = {doc.id: doc for doc in documents(corpus)}
        # What titles, names and game names are made of: whole entries, not their steps.
        wholes = tuple(d for d in self._documents.values() if not d.anchor)
        # Each document's texts as snippets cut them and as `present_terms` tests them, made
        # once, when it is first a result (most never are: start-up need not wait for them):
        # its own (with English), then each other translation's.
        self._segments: dict[str, tuple[_Segment, ...]] = {}
        self.titles = TitleTable(wholes)
        self._reranker = Reranker(tuple(self._documents.values()), example_pattern(corpus))
        self._loanwords = loanword_vocabulary(corpus, wholes)
        #: The word an English stem is said as, where the stem is none (`tak` → take).
        self._surfaces = english_surfaces(self._documents.values())
        #: The compact forms a query may name a game by (`엘드리치`, `아컴호러`, `엘호`).
        self.game_names = game_name_keys(corpus, wholes)
        self._rewriter = Rewriter({g.id: g.synonyms for g in corpus.games},
                                  related_tables(corpus, wholes),
                                  self.game_names)
        with ix.reader() as reader:
            self._ids: tuple[str, ...] = tuple(
                fields["id"] for _, fields in sorted(reader.iter_docs(), key=lambda d: d[0])
            )
            # A step's heading is a sentence too: its words are no correction targets.
            long_titles = frozenset(n for n, doc_id in enumerate(self._ids)
                                    if self._documents[doc_id].anchor
                                    or _sentence(self._documents[doc_id].shown_title))
            self._hangul, self._english = _vocabularies(reader, long_titles)
            # The translation fields' statistics count the documents that have one.
            translated = sum(1 for d in self._documents.values() if d.translated)
            self._stats = FieldStats(reader, FIELDS,
                                     field_counts(tuple(self._documents.values())),
                                     listed=_LISTED)
        #: Whether any document has a translation field: else they are not looked up at all.
        self.translations = translated > 0
        # Every indexed word as a target, for the last resort of a search that found nothing.
        self._wide_hangul = self._hangul.widened()
        self._wide_english = self._english.widened()
        # Each game's place in the manifest: a title-level tie across games puts the first
        # game's entry first.
        game_order: dict[str, int] = {}
        for source in corpus.sources:
            game_order.setdefault(source.spec.game, len(game_order))
        # The ranker reads through this thread's searcher, not through this object: no cycle
        # keeps an index a reload replaced alive until the collector runs.
        self._ranker = Ranker(self._documents, self._ids,
                              functools.partial(_thread_reader, self._local, ix),
                              self._stats, self._reranker, self.titles, corpus.entries,
                              game_order, budget=budget, translations=self.translations)
        self._docnums = self._ranker.docnums
        self._filters: dict[tuple[str | None, str | None], frozenset[int]] = {}
        for doc in self._documents.values():
            entry = doc.entry
            # A translation's source finds the entries it translates (`Document.sources`).
            keys = [(entry.game, None), *((key, source) for source in doc.sources
                                          for key in (None, entry.game))]
            for key in keys:
                self._filters[key] = self._filters.get(key, frozenset()) | {
                    self._docnums[doc.id]}

    @classmethod
    def open_or_build(cls, corpus: Corpus, index_dir: Path | None,
                      attachments: Sequence[Attachment] = ()) -> SearchIndex:
        """Open the index in index_dir if it was built from corpus.version and is intact, else
        build it there (atomically: in a private folder beside it, then renamed); in memory
        when there is no folder or it cannot be trusted or written (`index.load_index`).
        `attachments` are kept with it (`attachment()` reads them)."""
        index = cls(corpus, load_index(corpus, index_dir, attachments))
        index._attachments = tuple(attachments)
        return index

    def attachment(self, name: str) -> bytes:
        """A file kept with the index (`index.Attachment`), as it was built."""
        return attached(self._ix, name)

    def save(self, folder: Path) -> None:
        """Write this index into the new folder `folder` (`index.save_index`)."""
        save_index(self._ix, self.corpus, folder, self._attachments)

    # -- public API --------------------------------------------------------------------------

    def search(self, query: str, *, game: str | None = None, source: str | None = None,
               limit: int = _LIMITS.search, offset: int = 0,
               demote: Callable[[str], bool] | None = None, as_typed: bool = False) -> Results:
        """Ranked entries for `query`; never raises (an empty result on any failure).

        `demote(entry_id)` true moves an entry below every other, keeping the order inside
        each group; `total`, `limit` and `offset` count the reordered list. `as_typed` searches
        the words as they are: no synonyms, loanwords or typo corrections.
        """
        try:
            return self._search(query, game=game, source=source, limit=limit, offset=offset,
                                demote=demote, as_typed=as_typed)
        except Exception:  # a search box must not turn into an error page
            log.exception("search failed for %r", query[:_LIMITS.most] if isinstance(query, str)
                          else query)
            text = query[:_LIMITS.most] if isinstance(query, str) else ""
            return Results(clean(text), 0, (), None)

    def suggest(self, query: str, *, limit: int = _LIMITS.suggest) -> list[str]:
        """Entry ids of the titles best matching what is typed so far (search-as-you-type)."""
        try:
            return self._suggest(query, limit=limit)
        except Exception:
            log.exception("suggest failed")
            return []

    def close(self) -> None:
        """Close this thread's searcher (others are closed when their threads end)."""
        searcher = getattr(self._local, "searcher", None)
        if searcher is not None:
            searcher.close()
            self._local.searcher = None

    # -- internals ---------------------------------------------------------------------------

    def _searcher(self) -> Any:
        return _thread_searcher(self._local, self._ix)

    def plan(self, query: str, *, correct: bool = True,
             related: tuple[tuple[str, str], ...] = (), everyday: bool = True) -> Plan:
        """The analysed query (exposed for tests, the bench and `scripts/everyday_words.py`,
        which asks with `everyday` false which real words the engine would take for typos)."""
        return make_plan(clean(query), self._hangul, self._english, self.budget,
                         correct=correct, loanword=self._loanwords.sounds_like, related=related,
                         everyday=self.corpus.words if everyday else frozenset())

    def rewrite(self, query: str, game: str | None = None, *, everyday: bool = True) -> Rewrite:
        """The query with players' words replaced by the rules' terms (synonyms files); with
        `everyday` false, as if no word were an everyday word (`plan`)."""
        return self._rewriter.rewrite(clean(query), game, self.budget, self._knows,
                                      self.corpus.words if everyday else frozenset())

    def _knows(self, word: str) -> bool:
        return word in self._hangul or word in self._english

    def layout(self, text: str) -> str | None:
        """`text` with each word typed in the keyboard's other layout converted (`xmatorhdrur`
        → 틈새공격, `ㅁㅅㅅㅁ차` → attack), or None when no word was.

        A Latin word is converted when it is no English word of the corpus, and it types a
        Hangul word the search knows (an indexed word in any form, a title, a word of the
        synonyms files); a Hangul word, when it is none the search knows and types an English
        word of the corpus. Everything else stays as typed."""
        changed = False

        def convert(match: re.Match[str]) -> str:
            nonlocal changed
            word = match.group()
            if word.isascii():
                if self._knows(analysis.english_stem(word)):
                    return word
                hangul = from_qwerty(word)
                if hangul is None or not self._knows_hangul(hangul):
                    return word
                changed = True
                return hangul
            # The keys first: they rarely spell an English word of the corpus, and asking
            # whether the search knows the Hangul word stems it (37 → 28 µs a query).
            latin = to_qwerty(word).lower()
            if (len(latin) < CONTRACT.layout.min_letters or not latin.isalpha()
                    or analysis.english_stem(latin) not in self._english
                    or self._knows_hangul(word)):
                return word
            changed = True
            return latin

        converted = _LAYOUT_WORD.sub(convert, text)
        return converted if changed else None

    def typing_layout(self, text: str) -> str | None:
        """`text` as it reads while a player types it in the other layout, for suggestions:
        its last word stops mid-syllable (`xmat` → 틈ㅅ, `xmator` → 틈새ㄱ: `typing_forms`),
        so it counts when a title starts that way; the words before it convert as `layout`
        converts them. None when no title does, or the last word is an English word or the
        start of an English name (`reso`, resources)."""
        last = _LAST_LATIN.search(text)
        if (last is None or self._knows(analysis.english_stem(last.group()))
                or self.titles.alias_prefix_matches(analysis.alias_key(last.group()))):
            return None
        head = text[: last.start()]
        head = self.layout(head) or head
        for form in typing_forms(last.group()):
            if self.titles.prefix_matches("".join(analysis.words(head + form))):
                return head + form
        return None

    def _knows_hangul(self, word: str) -> bool:
        """True for Hangul syllables the search knows as a word (bare jamo never are)."""
        if not analysis.is_hangul(word):
            return False
        forms = analysis.variants(word)
        return (any(f in self._hangul for f in forms)
                                or analysis.compact_title(word) in self.titles.exact
                                or self._rewriter.lists(word))

    def _search(self, query: str, *, game: str | None, source: str | None, limit: int,
                offset: int, demote: Callable[[str], bool] | None = None,
                as_typed: bool = False) -> Results:
        typed = clean(query)
        meant = None if as_typed else self.layout(typed)
        text = meant or typed
        # `clean` gives what it is given back unchanged when that is its own answer: the text
        # as typed is cleaned once. What the keyboard's layout or a synonym changed is cleaned
        # again (it may be longer than `clean.max_query`).
        rewrite = Rewrite(text) if as_typed else self._rewriter.rewrite(
            typed if meant is None else clean(text), game, self.budget, self._knows,
            self.corpus.words)
        planned = typed if rewrite.text is typed else clean(rewrite.text)
        plan = make_plan(planned, self._hangul, self._english, self.budget,
                         correct=not as_typed, loanword=self._loanwords.sounds_like,
                         related=rewrite.related, everyday=self.corpus.words)
        # What the page tells the player about the query, whatever the results.
        # Quoted without the particle (‘크루’, not ‘크루를’), like the synonyms.
        officials = self._loanwords.officials
        loanwords = tuple((w.stem or w.text, w.english, officials.get(w.english, ""))
                          for w in plan.words if w.english)
        # A game named in the query comes first, unless a filter already chose the game.
        named = rewrite.game if game is None and source is None else None
        empty = Results(typed, 0, (), None, rewrite.synonyms, loanwords, named,
                        tuple((w.text, self.said(w.corrections[0])) for w in plan.words
                              if w.corrections and not w.known),
                        (typed, meant) if meant else None)
        limit = max(0, min(int(limit), _LIMITS.most))
        offset = max(0, int(offset))
        allowed = self.allowed(game, source)
        if plan.empty or ((game or source) and allowed is None):
            return empty
        # A page needs only its own places certain, unless the whole list is reordered below.
        prefix = offset + limit if named is None and demote is None else None
        first = self.ranking(plan, allowed, prefix=prefix)
        if first.order and empty.corrections:
            # A correction only where it clearly finds better: else the words as typed, and
            # the fallbacks below say what they did (a word left out, a similar word).
            plain = make_plan(planned, self._hangul, self._english, self.budget,
                              correct=False, loanword=self._loanwords.sounds_like,
                              related=rewrite.related, everyday=self.corpus.words)
            typed_first = self.ranking(plain, allowed, prefix=prefix)
            if typed_first.order and not self.clearly_better(plan, first.order[0], plain,
                                                             typed_first.order[0]):
                plan, first = plain, typed_first
                empty = dataclasses.replace(empty, corrections=())
        ranked = first.order
        if allowed is not None:
            empty = dataclasses.replace(empty, elsewhere=self.elsewhere(plan, allowed, first))
        short = not as_typed and len(plan.words) <= _LIMITS.dropped_most
        missing = self._missing(plan, rewrite, ranked) if short else ()
        content = [w for w in plan.words if not analysis.is_function_word(w.text)]
        if not as_typed and (not ranked or (missing and len(missing) == len(content))):
            # Nothing, or only entries sharing letters of the words: the closest word of any
            # rule's text, said so.
            fallback = self.nearest_words(plan)
            if fallback:
                swap = dict(fallback)
                near = self.plan(" ".join(swap.get(w, w) for w in analysis.words(plan.text)),
                                 correct=False)
                found = self.ranking(near, allowed, prefix=prefix).order
                if found:
                    plan, ranked, missing = near, found, ()
                    empty = dataclasses.replace(empty, fallback=tuple(
                        (word, self.said(near_word)) for word, near_word in fallback))
        if not ranked:
            return dataclasses.replace(empty, suggestion=self.did_you_mean(plan, allowed))
        # In a short query a word that matched nothing is worth saying; in a sentence, fillers
        # the rules never use (꽉, 걔) are simply not found.
        if missing:
            empty = dataclasses.replace(empty, dropped=missing,
                                        partial=len(missing) == len(content))
        docs = self._documents
        if named is not None:
            ranked.sort(key=lambda doc_id: docs[doc_id].entry.game != named[1])  # stable
        if demote is not None:
            ranked.sort(key=lambda doc_id: demote(docs[doc_id].page))  # stable: groups keep order
        page = ranked[offset : offset + limit]
        terms = list(analysis.unique(fold_text(t) for t in plan.highlight_terms()))
        shown = [self.segment(entry_id, terms, source) for entry_id in page]
        pattern = term_pattern(present_terms(
            terms, [s.squashed for s in shown], max_chars=self.budget.highlight_chars,
            squashed=True))
        # A title hit reads from the rule's opening; a body hit from the sentence it matched.
        # The official term a players' word stood for is a title hit too (AoO → 틈새 공격).
        named_by = {analysis.compact_title(official) for _, official in rewrite.synonyms}
        hits = tuple(Hit(docs[doc_id].page, make_snippet(
            s.flat, pattern.within(s.squashed) if pattern is not None else None,
            flattened=True, folded=s.folded,
            opening=first.tiers.get(doc_id, Tier.NONE) >= Tier.NAMES
            or (bool(named_by)
                and analysis.compact_title(docs[doc_id].shown_title) in named_by)),
            s.shown, docs[doc_id].anchor, docs[doc_id].heading)
            for doc_id, s in zip(page, shown, strict=True))
        return dataclasses.replace(empty, total=len(ranked), hits=hits)

    def said(self, term: str) -> str:
        """A vocabulary term as the page says it: an English stem as its word."""
        return self._surfaces.get(term, term)

    def clearly_better(self, corrected: Plan, best: str, plain: Plan, plain_best: str) -> bool:
        """Whether the corrected query's best entry `best` holds more of the query's words
        than the uncorrected query's best `plain_best` does: the re-rank's coordination
        (their weighted share) times the words' total weight, counting only words the index
        has. A word of neither (the typo as typed, an everyday word) is in no entry as a word,
        only as letters of another (태로 in 상태로). A true typo (`틈세 공격`) finds a word
        more (틈새 beside 공격); a real word taken for one (미혼자 → 혼자, beside 조건) finds as
        many words either way, and is left as typed."""
        return (self._found(corrected, best) > self._found(plain, plain_best)
                + CONTRACT.typos.gain_tolerance)

    def _found(self, plan: Plan, entry_id: str) -> float:
        """The total weight of the words of `plan` the index has (or corrected to one of its
        words) that the entry holds."""
        words = tuple(w for w in plan.words if w.known or w.corrections)
        prepared = self._reranker.prepare(dataclasses.replace(plan, words=words))
        return self._reranker.features(prepared, entry_id).coordination * prepared.total

    def _segments_of(self, entry_id: str) -> tuple[_Segment, ...]:
        """The texts a result may be shown in (its own, then each translation's), made when
        it is first a result. Two threads may make the same one at once; either copy is the
        same."""
        segments = self._segments.get(entry_id)
        if segments is None:
            segments = self._segments.setdefault(entry_id,
                                                 _segments(self._documents[entry_id]))
        return segments

    def segment(self, entry_id: str, terms: list[str], source: str | None = None) -> _Segment:
        """The language a result is shown in: the translation a `source` filter names, else
        the text holding the most of the (folded) query `terms`, the entry's own on a tie."""
        segments = self._segments_of(entry_id)
        if source is not None:
            chosen = next((s for s in segments if s.source == source), None)
            if chosen is not None:
                return chosen
        if len(segments) == 1:
            return segments[0]
        folded = [t.casefold() for t in terms]
        counts = [sum(1 for t in folded if t and s.has(t)) for s in segments]
        return segments[counts.index(max(counts))]

    def _missing(self, plan: Plan, rewrite: Rewrite, ranked: list[str]) -> tuple[str, ...]:
        """The content words of `plan` no entry of `ranked` has: not known, corrected or
        heard as a loanword, not replaced by a synonym, and in no result's text (in any of
        its languages, accents folded) even with its spaces taken out (교전중 is in "교전 중인")."""
        replaced = {squash(typed_word) for typed_word, _ in rewrite.synonyms}
        missing: list[str] = []
        for w in plan.words:
            # A count (두마리, 세번) says how many of something, not which rule: never "left out".
            if (w.known or w.corrections or w.english or analysis.is_function_word(w.text)
                    or analysis.is_count(w.text) or squash(w.text) in replaced):
                continue
            wanted = fold_text(squash(w.stem or w.text))
            if not any(wanted in s.squashed
                       for entry_id in ranked for s in self._segments_of(entry_id)):
                missing.append(w.text)
        return tuple(missing)

    def opening(self, entry_id: str) -> str:
        """The opening of an entry's text, as a snippet (nothing marked)."""
        return make_snippet(self._segments_of(entry_id)[0].flat, None, flattened=True)

    def allowed(self, game: str | None = None,
                source: str | None = None) -> frozenset[int] | None:
        """The document numbers of `game` and `source` (None: that filter is off); None also
        when there is no filter, or no such game or source."""
        return self._filters.get((game, source)) if game or source else None

    def ranking(self, plan: Plan, allowed: frozenset[int] | None = None, *,
                depth: int | None = None, prefix: int | None = None) -> Ranking:
        """Every entry `plan` finds among the document numbers `allowed` (all: None), best
        first (`Ranker.ranking`)."""
        return self._ranker.ranking(plan, allowed, depth=depth, prefix=prefix)

    def tiers(self, plan: Plan) -> dict[str, Tier]:
        """Each entry's `Tier` for this query, from title matching alone (`Ranker.tiers`)."""
        return self._ranker.tiers(plan)

    def elsewhere(self, plan: Plan, allowed: frozenset[int], ranking: Ranking) -> str | None:
        """The best entry outside the filter, when it answers the query better than any
        inside (`Ranker.elsewhere`)."""
        return self._ranker.elsewhere(plan, allowed, ranking)

    def nearest_words(self, plan: Plan) -> tuple[tuple[str, str], ...]:
        """(word, closest indexed word) for each unknown content word of `plan` that has one
        among all the words of the texts (not only titles'), within the typo allowance."""
        found: list[tuple[str, str]] = []
        # The plan's corrections spent the budget first (a word's stem, then the word).
        left = self.budget.corrections - sum(
            2 if w.stem != w.text else 1 for w in plan.words
            if not w.known and not w.everyday and not analysis.is_function_word(w.text))
        for word in plan.words:
            # An everyday word (머리) is a word, not a misspelt one of the texts (버리).
            if word.known or word.everyday or analysis.is_function_word(word.text):
                continue
            if left <= 0:
                break
            left -= 1
            # A short Hangul word falls back to the rules' words only (`wide_fallback_min`).
            vocab = (self._wide_english if not word.hangul else self._hangul
                     if len(word.stem) < CONTRACT.typos.wide_fallback_min else self._wide_hangul)
            near = vocab.corrections(word.stem if word.hangul else word.variants[0], limit=1)
            if near:
                found.append((word.text, near[0].term))
        return tuple(found)

    def did_you_mean(self, plan: Plan, allowed: frozenset[int] | None) -> str | None:
        """The title closest to the query, for a search that found nothing; none when each
        word is a word (an everyday one, 가방, or the index's): a real word is not offered a
        title it is no typo of (가방 → 추방)."""
        if _all_words(plan):
            return None
        typed = plan.alias or plan.stem_compact or plan.compact
        for match in self.titles.fuzzy_matches(typed, extra=CONTRACT.typos.did_you_mean_extra):
            if allowed is None or self._docnums[match.id] in allowed:
                entry = self.titles.entry(match.id)
                return entry.title
        return None

    def _suggest(self, query: str, *, limit: int) -> list[str]:
        """Titles for what is typed so far, with the search's analysis: the keyboard's other
        layout, the players' words (`클루` → 단서, `AoO` → 틈새 공격), particles and endings,
        initials, typos; when no title answers, the search's own best results (`교전중`,
        `틈세 공`)."""
        limit = max(0, min(int(limit), _LIMITS.most))
        text = clean(query)
        text = self.layout(text) or text
        words = analysis.words(text)
        if not words or limit == 0:
            return []
        rewrite, stemmed, matches = self._prefix_hits(text, words)
        if not matches:
            # Nothing starts so as typed: a word being typed in the other layout may (xmat →
            # 틈ㅅ). Asked only now, so an English name's start costs nothing more.
            typing = self.typing_layout(text)
            if typing is not None:
                text, words = typing, analysis.words(typing)
                rewrite, stemmed, matches = self._prefix_hits(text, words)
        if not matches and not any(analysis.listed(w, self.corpus.words) for w in words):
            # A title one typo away, unless a word is a real one (가방 is not 추방 misspelt).
            matches = self.titles.fuzzy_matches(stemmed)
        ids = [m.id for m in self.titles.ranked(matches)]
        if not ids:
            # No title answers what is typed: the search's best results do.
            ids = self.best(rewrite, limit=limit)
        return ids[:limit]

    def _prefix_hits(self, text: str, words: list[str]
                     ) -> tuple[Rewrite, str, list[TitleHit]]:
        """For `_suggest`: the cleaned `text`'s rewrite, its `words`' stems run together, and
        the titles that start as it does (the official term a players' word stands for first;
        with particles and endings off; an English name)."""
        typed = "".join(words)
        matches: list[TitleHit] = []
        rewrite = self.rewrite(text)
        for _, official in rewrite.synonyms:
            # A player's word for an official term: that term's titles first.
            matches += [TitleHit(m.id, TitleRank.EXACT)
                        for m in self.titles.prefix_matches(analysis.compact_title(official))
                        if m.rank <= TitleRank.START]
        matches += self.titles.prefix_matches(typed)
        # `회피하면`, `조사자가`: what is typed may carry a particle or an ending.
        stemmed = "".join(analysis.stem(w) for w in words)
        if stemmed != typed:
            matches += self.titles.prefix_matches(stemmed)
        if typed.isascii():
            matches += self.titles.alias_prefix_matches(analysis.alias_key(text))
        return rewrite, stemmed, matches

    def best(self, rewrite: Rewrite, *, limit: int) -> list[str]:
        """The search's best `limit` entries for a cleaned text's `rewrite` (made once by the
        suggestion that asks: it was a tenth of a long one's time), for suggestions: what a
        page of results needs besides the order (snippets, the words no result has, the
        nearest words of the texts, did-you-mean) is not made, and only the best `limit`
        BM25 candidates are re-ranked, which keeps a suggestion under a millisecond."""
        plan = self.plan(rewrite.text, related=rewrite.related)
        if plan.empty or limit <= 0:
            return []
        docs = self._documents
        order = [docs[doc_id].page for doc_id in self.ranking(
            plan, depth=limit, prefix=limit if rewrite.game is None else None).order]
        if rewrite.game is not None:
            entries, named = self.corpus.entries, rewrite.game[1]
            order.sort(key=lambda entry_id: entries[entry_id].game != named)  # stable
        return order[:limit]


def _thread_searcher(local: threading.local, ix: Any) -> Any:
    """This thread's Whoosh searcher of `ix`, opened when the thread first asks."""
    searcher = getattr(local, "searcher", None)
    if searcher is None:
        searcher = ix.searcher()
        local.searcher = searcher
    return searcher


def _thread_reader(local: threading.local, ix: Any) -> Any:
    """The reader of this thread's searcher (`_thread_searcher`)."""
    return _thread_searcher(local, ix).reader()


def _all_words(plan: Plan) -> bool:
    """Whether each word of `plan` is a word, the index's or an everyday one, and one at least
    is an everyday one (가방, 아파요): nothing in it is a typo."""
    return (any(w.everyday for w in plan.words)
            and all(w.known or w.everyday or analysis.is_function_word(w.text)
                    for w in plan.words))


def _segments(doc: Document) -> tuple[_Segment, ...]:
    own = [(doc.page, doc.entry.source, doc.text)] if doc.base else []
    others = [(t.id, t.source, segment(t)) for t in doc.translated]
    out: list[_Segment] = []
    for shown, source, text in own + others:
        squashed = squash(fold_text(text, remember=True))
        spelled = (squash(fold(scripts.spelled(text.casefold())))
                   if scripts.has_umlaut(text) else "")
        out.append(_Segment(shown, source, flatten(text), fold_text(flatten(text), remember=True),
                            squashed, spelled))
    return tuple(out)


def _sentence(title: str) -> bool:
    """Whether a title is a sentence (a question), not a name (`typos.target_title_most`)."""
    typos = CONTRACT.typos
    last = title.rstrip()[-1:]
    return len(title) > typos.target_title_most or (last != "" and last in typos.question_marks)


def _vocabularies(reader: Any, long_titles: frozenset[int] = frozenset()
                  ) -> tuple[Vocabulary, Vocabulary]:
    """Known Hangul words and known words of other scripts (English and the rest), with
    frequencies.

    Every indexed word is known; typos are corrected only towards the rules' vocabulary: the
    words of titles and English names, never an ordinary word of some rule's text (a
    misspelt 어젠다 once became 언제나, an adverb), nor a word only the titles that
    are sentences (document numbers `long_titles`: FAQ questions, `_sentence`) have.
    """
    hangul: dict[str, int] = {}
    english: dict[str, int] = {}
    targets: set[str] = set()
    for fieldname in ("title_w", "alias", "body_w", "title_tr", "body_tr", "ask_w"):
        for raw, info in reader.iter_field(fieldname):
            term = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
            freq = int(info.doc_frequency())
            if analysis.is_hangul(term):
                hangul[term] = hangul.get(term, 0) + freq
            elif term.isalpha() and not analysis.JAMO_RUN.fullmatch(term):
                # Words of every other script: English, accented, Cyrillic, Han grams.
                english[term] = english.get(term, 0) + freq
            else:
                continue
            # One syllable is never corrected (`max_distance`): known, but no target.
            # Nor is a Han gram: a Han word is never corrected (`typos.han_edits`).
            if (not fieldname.startswith(("body", "ask"))
                    and len(term) >= CONTRACT.typos.target_min_length
                    and not analysis.is_function_word(term) and not scripts.is_han(term)
                    and (fieldname != "title_w" or not long_titles or not long_titles.issuperset(
                        reader.postings(fieldname, raw).all_ids()))):
                targets.add(term)
    return (Vocabulary(list(hangul), list(hangul.values()), targets=targets),
            Vocabulary(list(english), list(english.values()), targets=targets))

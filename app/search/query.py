"""From the player's text to a query plan and the (field, term, boost) lookups BM25 sums.

User text never reaches Whoosh's query parser: it is cut to `CONTRACT.clean.max_query`
characters, cleaned (control, format, surrogate, private-use and unassigned characters become
spaces), split by `analysis.words` and turned into plain (field, term, boost) lookups, so
`AND`, `*`, `"`, `field:value` or `~2` are just characters.

How much of a long query is analysed is bounded by a `Budget` (words, corrections, lookups),
spent in query order so the leading words always count.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Set
from dataclasses import dataclass

from app.search import analysis
from app.search.contract import CONTRACT, Budget
from app.search.fuzzy import Vocabulary, is_initials
from app.search.loanwords import hangul_skeleton

__all__ = ["MAX_QUERY", "Plan", "QueryWord", "clean", "make_plan", "weighted_terms"]

_CLEAN = CONTRACT.clean
#: The contract's `clean.max_query`: longer queries are cut.
MAX_QUERY = _CLEAN.max_query
_BLANK = frozenset(_CLEAN.blank_categories)
_B = CONTRACT.boosts
_SENTENCE_SKELETON = CONTRACT.loanwords.sentence_skeleton
_SHORT_QUERY = CONTRACT.loanwords.short_query


@dataclass(frozen=True)
class QueryWord:
    """One Hangul or English word of the query with its stems and, if unknown, corrections."""

    text: str
    variants: tuple[str, ...]
    stem: str
    hangul: bool
    known: bool
    corrections: tuple[str, ...] = ()
    #: For an unknown Hangul word with no correction: the English word or name it sounds
    #: like (`클루` → clue), searched instead (`loanwords.LoanwordTable`).
    english: str = ""
    #: A Han word's character bigrams (`analysis.han_grams`): what it is looked up by.
    grams: tuple[str, ...] = ()
    #: An everyday word the index does not know (`Corpus.words`: 머리, 우산): left as typed,
    #: never corrected or swapped for a similar word of the texts.
    everyday: bool = False

    @property
    def english_words(self) -> tuple[str, ...]:
        """The English words the loanword stands for, stemmed as the index stems them."""
        return tuple(analysis.english_stem(w) for w in self.english.split())


@dataclass(frozen=True)
class Plan:
    """What the query means to the index."""

    text: str
    words: tuple[QueryWord, ...]
    #: Initial consonants and syllables typed together, spaces removed (`ㅌㅅㄱㄱ`, `틈ㅅ`).
    initials: str
    #: The query's words joined without spaces, and the same with stems.
    compact: str
    stem_compact: str
    #: The English reading: `attack of opportunity` → attackofopportunity.
    alias: str
    #: (rules' word, typed word) for the related words the rewrite added (`Rewrite.related`):
    #: each pair is one word of the query to the re-rank.
    related: tuple[tuple[str, str], ...] = ()

    @property
    def added(self) -> frozenset[str]:
        """The related words the rewrite added: searched, but not typed by the player."""
        return frozenset(official for official, _ in self.related)

    @property
    def empty(self) -> bool:
        return not self.words and not self.initials

    @property
    def has_unknown(self) -> bool:
        return any(not w.known for w in self.words)

    def highlight_terms(self) -> list[str]:
        """Words worth marking in a snippet: stems, whole words and corrections. Light and
        question words (the, and, 어떻게) are not, unless the query is nothing else (`if`,
        `when`: names of rules): marked, they light up every line of an English text."""
        only_word = len(self.words) == 1
        content = [w for w in self.words if not analysis.is_function_word(w.text)]
        terms: list[str] = []
        for word in content or self.words:
            for form in (word.text, word.stem, *word.corrections, *word.english_words,
                         *word.grams):
                if len(form) >= CONTRACT.snippet.min_term or (only_word and form):
                    terms.append(form)
        return list(analysis.unique(terms))


def clean(text: str) -> str:
    """The query as a safe string: NFC, at most `max_query` characters, each character of the
    contract's `blank_categories` (controls, surrogates, …) a space."""
    text = unicodedata.normalize("NFC", text[: _CLEAN.read])
    text = "".join(" " if unicodedata.category(c) in _BLANK else c for c in text)
    return text[: _CLEAN.max_query]


def make_plan(text: str, hangul_vocab: Vocabulary, english_vocab: Vocabulary,
              budget: Budget = CONTRACT.budget, *, correct: bool = True,
              loanword: Callable[[str], str | None] | None = None,
              related: tuple[tuple[str, str], ...] = (),
              everyday: Set[str] = frozenset()) -> Plan:
    """Analyse the cleaned query `text` against the index's vocabularies.

    A word of `everyday` (`Corpus.words`), as typed or without its particle or ending, or a
    form of one of its verb stems (아파요 of 아프-, `analysis.listed`), is a real word, never a
    typo: it stays as typed (`QueryWord.everyday`).

    With `correct` false, unknown words stay as typed (the "그대로 찾기" search). An unknown
    Hangul word with no correction is looked up by sound with `loanword` (a typo of a rules
    term is corrected, not read as English): never a word the index knows, a light word, or
    a lone syllable inside a longer query (쓸, 들 are grammar there; 둠, 씰 alone are terms).

    Only the first `budget.words` distinct words are analysed (a repeated word adds nothing),
    and only `budget.corrections` calls to `Vocabulary.corrections` are made, in query order;
    unknown words past that stay uncorrected.
    """
    raw = analysis.words(text)
    initials = ""
    if any(is_initials(w) for w in raw) or _typing_initials(raw):
        initials = "".join(w for w in raw if analysis.is_hangul(w) or is_initials(w))
    analysed: dict[str, QueryWord] = {}
    #: The tokens taken into account, repeats included: what `compact` is made of.
    considered: list[str] = []
    corrections_left = budget.corrections if correct else 0
    joined = frozenset(typed for _, typed in related)
    for token in raw:
        if analysis.JAMO_RUN.fullmatch(token):
            continue
        if token not in analysed:
            if len(analysed) >= budget.words:
                break
            hangul = analysis.is_hangul(token)
            forms = analysis.variants(token)
            dropped = analysis.dropped_l_stem(token) if hangul else ""
            if dropped and dropped not in forms:
                forms = (*forms, dropped)
            grams = tuple(analysis.han_grams(token))
            stem = min(forms, key=len) if hangul else forms[0]
            vocab = hangul_vocab if hangul else english_vocab
            # A word a related-words line matched is a word players use (사기 of 카드 사기,
            # 서리 of 서리 토큰): never a typo, whatever the index holds.
            known = token.isdigit() or token in joined or any(f in vocab for f in grams or forms)
            corrections: tuple[str, ...] = ()
            real = hangul and not known and analysis.listed(token, everyday)
            # A verb form (빠지면, 죽거나) is not a misspelt rules term, unless its stem is a
            # long one (틈새공걱하면 → 틈새공격); and it is never a loanword.
            inflected = hangul and not known and (analysis.is_inflected(token)
                                                  or analysis.is_verb_form(token, everyday))
            # A light word (나음, 몇개) says nothing the rules would: never "corrected" (나음 is
            # not 다음 misspelt).
            attempted = (not known and not real and corrections_left > 0
                         and not analysis.is_function_word(token)
                         and not analysis.is_count(token))
            if attempted:
                corrections_left -= 1
                if not inflected or len(stem) >= CONTRACT.typos.inflected_stem:
                    corrections = tuple(c.term for c in vocab.corrections(
                        stem if hangul else forms[0]))
                if (hangul and not corrections and stem != token and corrections_left > 0
                        and not inflected):
                    corrections_left -= 1
                    corrections = tuple(c.term for c in vocab.corrections(token))
            english = ""
            # An everyday word is never heard as English: of the 5,921 listed then, 3,670 typed
            # alone were (고양이 → gaining, 파일 → fail, 저격 → check), and the few true
            # loanwords among them that players use for a term are synonyms lines (콘트롤).
            # Never as typed either: that search reads no loanwords (`attempted`).
            if (hangul and attempted and not corrections
                    and loanword is not None
                    and not inflected and (len(token) > 1 or len(raw) <= _SHORT_QUERY)):
                # In a sentence, two consonants (보태: p-t, 싸우지: s-j) sound like too many
                # English words to be read as one (evade, surge): three at least.
                # A loanword is a noun: heard in the word, or the word without a particle
                # (클루를), never in a verb's stem (빗나감 → 빗나 is not "forfeiting").
                heard = [f for f in forms
                         if (f == token or analysis.is_particle(token[len(f):]))
                         and (len(raw) <= _SHORT_QUERY
                              or len(hangul_skeleton(f)) >= _SENTENCE_SKELETON)]
                english = next(filter(None, map(loanword, heard)), None) or ""
            analysed[token] = QueryWord(token, forms, stem, hangul, known, corrections, english,
                                        grams, real)
        considered.append(token)
    compact = "".join(considered)
    stem_compact = "".join(analysed[t].stem for t in considered)
    words = tuple(analysed.values())
    # An English reading only when the words that are not Hangul are all ASCII: an alias key
    # keeps ASCII letters alone (`nachrüsten` would read "nachrsten").
    letters = [w.text for w in words if w.text.isalpha() and not w.hangul]
    alias = analysis.alias_key(text) if letters and all(
        w.isascii() for w in letters) else ""
    return Plan(text, words, initials, compact, stem_compact, alias, related)


def _typing_initials(raw: list[str]) -> bool:
    """`틈ㅅ` arrives as two runs (틈, ㅅ): a syllable run directly followed by initials."""
    return any(analysis.JAMO_RUN.fullmatch(w) for w in raw)


def weighted_terms(plan: Plan, budget: Budget = CONTRACT.budget, *,
                   translations: bool = False) -> list[tuple[str, str, float]]:
    """The (field, term, boost) triples to look up for `plan`, in a stable order.

    At most `budget.lookups` of them, chosen in priority order: the whole query's forms, then
    word by word in query order, each word's forms, corrections and bigrams. With
    `translations` (the index has translations other than English), each word that is not
    Hangul is also looked up in their title and text (`title_tr`, `body_tr`).
    """
    # Insertion order is the priority; a term added again keeps its place and its best boost.
    boosts: dict[tuple[str, str], float] = {}

    def add(fieldname: str, term: str, boost: float) -> None:
        key = (fieldname, term)
        if boost > boosts.get(key, 0.0):
            boosts[key] = boost

    if len(plan.words) > 1:
        for whole in (plan.compact, plan.stem_compact):
            add("title_w", whole, _B.title_whole)
    if plan.alias:
        add("alias", plan.alias, _B.alias_whole)
    # In a sentence-long question one word matching a title says little about the rule that
    # answers it; the content words together (coordination, proximity) decide. A title word
    # weighs less the more content words the query has.
    added = plan.added
    content = sum(1 for w in plan.words if not analysis.is_function_word(w.text)
                  and (w.known or w.corrections or w.english) and w.text not in added)
    title_w = _B.title_w * min(1.0, _B.long_query / max(content, 1))
    for word in plan.words:
        # Question and light forms (어떻게, 되나요, 몇, 수) say nothing about which rule is
        # meant, and their postings lists are the longest: they are not looked up at all
        # (they still count in the whole-query title form above).
        if analysis.is_function_word(word.text):
            continue
        if word.hangul:
            for form in word.variants:
                weight = _B.short_stem if len(form) == 1 and len(word.text) > 1 else 1.0
                add("title_w", form, title_w * weight)
                add("body_w", form, _B.body_w * weight)
                add("ask_w", form, _B.ask_w * weight)
        elif word.grams:
            for gram in word.grams:
                add("title_w", gram, title_w)
                add("body_w", gram, _B.body_w)
                add("ask_w", gram, _B.ask_w)
        else:
            # As written, then folded (`fatalité`, `fatalite`): an ASCII word has one form.
            for form in word.variants:
                add("alias", form, _B.alias)
                add("body_w", form, _B.body_w)
                add("ask_w", form, _B.ask_w)
                add("title_w", form, title_w)
        # Numbers are in every language: only words are looked up in the translations.
        if translations and not word.hangul and not word.text.isdigit():
            for form in word.grams or word.variants:
                add("title_tr", form, title_w * _B.title_tr)
                add("body_tr", form, _B.body_w * _B.body_tr)
        for english in word.english_words:
            add("alias", english, _B.alias * _B.corrected)
            add("title_w", english, _B.title_w * _B.corrected)
            add("body_w", english, _B.body_w * _B.corrected)
            add("ask_w", english, _B.ask_w * _B.corrected)
        if len(word.english_words) > 1:
            add("alias", analysis.alias_key(word.english), _B.alias_whole * _B.corrected)
        for fixed in word.corrections:
            add("title_w", fixed, _B.title_w * _B.corrected)
            add("body_w", fixed, _B.body_w * _B.corrected)
            add("ask_w", fixed, _B.ask_w * _B.corrected)
            if not word.hangul:
                add("alias", fixed, _B.alias * _B.corrected)
        if word.hangul:
            for gram in analysis.bigrams(word.stem if len(word.stem) > 1 else word.text):
                add("title_bg", gram, _B.title_bg)
                add("body_bg", gram, _B.body_bg)
            for fixed in word.corrections:
                for gram in analysis.bigrams(fixed):
                    add("title_bg", gram, _B.title_bg * _B.corrected)
    kept = sorted(itertools.islice(boosts, max(0, budget.lookups)))
    return [(f, t, boosts[(f, t)]) for f, t in kept]

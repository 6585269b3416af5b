"""The per-query budget: long and made-up queries do bounded work and still find what their
first words name. Behaviour only: latency is measured by `bench/hostile_queries.py`."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import process

from app.corpus.models import Corpus
from app.search import SearchIndex, analysis, bm25, fuzzy
from app.search.contract import CONTRACT, Budget
from app.search.fuzzy import Vocabulary
from app.search.query import MAX_QUERY, weighted_terms
from app.search.rank import Reranker, _near
from bench.hostile_queries import KINDS, generate, generate_kinds


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def _unknown_words(index: SearchIndex, count: int, seed: int = 7) -> list[str]:
    """`count` distinct made-up Hangul words of 2–3 syllables the index does not know."""
    rng = random.Random(seed)
    words: list[str] = []
    while len(words) < count:
        word = "".join(chr(0xAC00 + rng.randrange(11172)) for _ in range(rng.randint(2, 3)))
        if word not in words and not any(f in index._hangul for f in analysis.variants(word)):
            words.append(word)
    return words


@pytest.fixture()
def corrections_made(monkeypatch: pytest.MonkeyPatch, index: SearchIndex) -> list[str]:
    """Every word the index's vocabularies are asked to correct, memoised or not; the
    synonyms' near-miss list (a separate, smaller vocabulary) is checked on its own below."""
    asked: list[str] = []
    original = Vocabulary.corrections

    def counting(self: Vocabulary, word: str, *, limit: int = 3) -> list[fuzzy.Correction]:
        if self is index._hangul or self is index._english:
            asked.append(word)
        return original(self, word, limit=limit)

    monkeypatch.setattr(Vocabulary, "corrections", counting)
    return asked


@pytest.fixture()
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[str, str, float]]]:
    """The (field, term, boost) lists each search hands to BM25."""
    calls: list[list[tuple[str, str, float]]] = []
    original = bm25.score_terms

    def counting(reader: Any, stats: bm25.FieldStats, terms: Iterable[tuple[str, str, float]],
                 allowed: Any = None) -> dict[int, float]:
        listed = list(terms)
        calls.append(listed)
        return original(reader, stats, listed, allowed)

    monkeypatch.setattr("app.search.ranking.score_terms", counting)
    return calls


def test_sixty_unknown_words_attempt_only_the_budgeted_corrections(
        index: SearchIndex, corrections_made: list[str]) -> None:
    query = " ".join(_unknown_words(index, 60))[:MAX_QUERY]
    assert len(query.split()) > 40
    index.search(query)
    assert 0 < len(corrections_made) <= CONTRACT.budget.corrections
    # Spent in query order: the first unknown words are the ones corrected.
    first = query.split()[0]
    assert corrections_made[0] in index.plan(first).words[0].variants


def test_long_query_looks_up_at_most_the_budgeted_terms(
        index: SearchIndex, lookups: list[list[tuple[str, str, float]]]) -> None:
    spaced = " ".join(_unknown_words(index, 60))[:MAX_QUERY]
    unspaced = spaced.replace(" ", "")  # one 150-syllable word: ~300 bigram lookups unbounded
    for query in (spaced, unspaced):
        lookups.clear()
        index.search(query)
        assert len(lookups) == 1
        assert 0 < len(lookups[0]) <= CONTRACT.budget.lookups
        assert len({(f, t) for f, t, _ in lookups[0]}) == len(lookups[0])


@pytest.mark.parametrize(("first_words", "expected"), [
    ("틈새 공격", {"Attack_of_Opportunity"}),
    ("attack of opportunity", {"Attack_of_Opportunity"}),
    ("영속", {"Permanent"}),
    # Alone, the title tier puts the manifest's first game first; among 60 made-up words
    # either game's 단서 is the answer.
    ("단서", {"Clues", "eh-단서"}),
])
def test_over_the_budget_the_first_words_still_decide(
        index: SearchIndex, corrections_made: list[str], first_words: str,
        expected: set[str]) -> None:
    assert index.search(first_words).hits[0].id in expected
    query = (first_words + " " + " ".join(_unknown_words(index, 60)))[:MAX_QUERY]
    corrections_made.clear()
    results = index.search(query)
    assert results.total > 0
    assert results.hits[0].id in expected
    assert 0 < len(corrections_made) <= CONTRACT.budget.corrections


def test_only_the_first_distinct_words_are_analysed(index: SearchIndex) -> None:
    words = _unknown_words(index, 40)
    plan = index.plan(" ".join(words))
    assert [w.text for w in plan.words] == words[: CONTRACT.budget.words]
    assert len(index.plan(" ".join(["카드"] * 60)).words) == 1  # a repeat adds nothing
    # Repeats do not use up the budget: the words after them are still analysed.
    repeated = " ".join(["단서"] * 30 + ["파멸"])
    assert [w.text for w in index.plan(repeated).words] == ["단서", "파멸"]


def test_lookups_keep_the_whole_query_and_the_leading_words_first(index: SearchIndex) -> None:
    plan = index.plan("틈새공격 " + " ".join(_unknown_words(index, 30)))
    # The whole query's one or two forms, then the first word's 8: no room for the second's.
    terms = {(f, t) for f, t, _ in weighted_terms(plan, Budget(lookups=8))}
    assert len(terms) == 8
    assert {("title_w", plan.compact), ("title_w", "틈새공격"), ("body_w", "틈새공격")} <= terms
    assert all(t in "틈새공격" or t in (plan.compact, plan.stem_compact) for _, t in terms)


def test_within_the_budget_nothing_is_cut(index: SearchIndex) -> None:
    query = "행동을 하면 교전 중인 적이 공격"
    generous = Budget(words=100, corrections=100, lookups=10_000)
    plan = index.plan(query)
    assert weighted_terms(plan, CONTRACT.budget) == weighted_terms(plan, generous)


def test_rerank_depth_comes_from_the_budget(corpus: Corpus, index: SearchIndex,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    shallow = SearchIndex(corpus, index._ix, budget=Budget(rerank=5))
    scored: list[str] = []
    original = Reranker.partial

    def counting(self: Reranker, query: Any, entry_id: str) -> Any:
        scored.append(entry_id)
        return original(self, query, entry_id)

    # Every re-ranked candidate is measured at least in part (`Reranker.partial`).
    monkeypatch.setattr(Reranker, "partial", counting)
    results = shallow.search("카드")
    assert len(scored) == 5
    assert results.total == index.search("카드").total


def test_corrections_are_memoised_and_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    vocab = Vocabulary(["토큰", "토끼", "혼돈"], [10, 1, 5])
    extracted: list[str] = []
    original = process.extract

    def counting(query: str, *args: Any, **kwargs: Any) -> Any:
        extracted.append(query)
        return original(query, *args, **kwargs)

    monkeypatch.setattr(process, "extract", counting)
    first = vocab.corrections("토쿤")
    assert vocab.corrections("토쿤") == first == vocab.corrections("토쿤", limit=3)
    assert [c.term for c in vocab.corrections("토쿤", limit=1)] == ["토큰"]
    assert len(extracted) == 1
    # Shared by threads: every thread gets the same answer, still computed once.
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: vocab.corrections("토쿤"), range(64)))
    assert all(a == first for a in answers)
    assert len(extracted) == 1
    # Another vocabulary does not see this one's answers.
    assert Vocabulary(["혼돈"]).corrections("토쿤") == []


def test_a_repeated_search_reuses_corrections_and_answers_the_same(
        index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    vocabularies = (index._hangul._jamo, index._english._jamo)
    scans: list[str] = []
    original = process.extract

    def counting(query: str, choices: Any, *args: Any, **kwargs: Any) -> Any:
        if any(choices is v for v in vocabularies):  # not the titles' own fuzzy match
            scans.append(query)
        return original(query, choices, *args, **kwargs)

    monkeypatch.setattr(process, "extract", counting)
    query = " ".join(_unknown_words(index, 30, seed=11))
    first = index.search(query)
    assert scans
    scans.clear()
    assert index.search(query) == first
    assert not scans


def test_postings_are_decoded_once_and_unknown_terms_never_kept(index: SearchIndex) -> None:
    stats = index._stats
    reader = index._searcher().reader()
    terms = [("body_bg", "카드", 1.0), ("body_w", "카드", 1.0)]
    cold = bm25.score_terms(reader, bm25.FieldStats(reader, ("body_bg", "body_w")), terms)
    warm = bm25.score_terms(reader, stats, terms)
    assert warm == bm25.score_terms(reader, stats, terms) == cold  # bit for bit
    assert ("body_bg", "카드") in stats.decoded
    rare = _unknown_words(index, 1)[0]
    bm25.score_terms(reader, stats, [("body_w", rare, 1.0)])
    assert ("body_w", rare) not in stats.decoded


def test_long_typed_prefix_compiles_no_pattern(index: SearchIndex,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    original = fuzzy.prefix_pattern

    def counting(text: str) -> re.Pattern[str] | None:
        compiled.append(text)
        return original(text)

    monkeypatch.setattr("app.search.titles.prefix_pattern", counting)
    # No title is that long: the suggestions are the search's results (#23), and no prefix
    # pattern was compiled for it.
    long = "틈새" * 100
    assert index.suggest(long) == [h.id for h in index.search(long, limit=8).hits]
    assert not compiled
    assert index.suggest("틈새") and compiled


def _pair_regex(first: tuple[str, ...], then: tuple[str, ...]) -> re.Pattern[str]:
    """The proximity test as it was compiled per word pair and query before `_near`."""
    return re.compile("(?:{})[^\\n]{{0,{}}}?(?:{})".format(
        "|".join(map(re.escape, first)), CONTRACT.rerank.near_gap,
        "|".join(map(re.escape, then))))


_FORMS = st.lists(st.text(alphabet="가나다", min_size=1, max_size=3), min_size=1,
                  max_size=3).map(tuple)


@settings(max_examples=500, deadline=None)
@given(text=st.text(alphabet="가나다\n", max_size=30), first=_FORMS, then=_FORMS)
def test_proximity_without_regex_matches_the_regex(text: str, first: tuple[str, ...],
                                                   then: tuple[str, ...]) -> None:
    assert _near(text, first, then) == bool(_pair_regex(first, then).search(text))


def test_hostile_generator_is_deterministic_and_bounded() -> None:
    queries = generate(24, seed=3)
    assert queries == generate(24, seed=3) != generate(24, seed=4)
    assert len(queries) == 24 and all(0 < len(q) <= MAX_QUERY for q in queries)
    assert {kind for kind, _ in generate_kinds(len(KINDS), seed=3)} == set(KINDS)


def test_hostile_queries_answer_within_the_budget(
        index: SearchIndex, corrections_made: list[str],
        lookups: list[list[tuple[str, str, float]]]) -> None:
    for query in generate(30, seed=5):
        corrections_made.clear()
        lookups.clear()
        index.search(query)
        assert len(corrections_made) <= CONTRACT.budget.corrections
        assert all(len(call) <= CONTRACT.budget.lookups for call in lookups)
        assert len(index.plan(query).words) <= CONTRACT.budget.words


def test_synonym_near_misses_are_looked_up_within_the_budget_too(
        index: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    original = Vocabulary.corrections

    def counting(self: Vocabulary, word: str, *, limit: int = 3) -> list[fuzzy.Correction]:
        if self is not index._hangul and self is not index._english:
            asked.append(word)
        return original(self, word, limit=limit)

    monkeypatch.setattr(Vocabulary, "corrections", counting)
    index.search(" ".join(_unknown_words(index, 60))[:MAX_QUERY])
    assert 0 < len(asked) <= CONTRACT.budget.corrections

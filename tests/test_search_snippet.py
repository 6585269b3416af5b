"""Snippets: a bounded window, escaped, with matches marked (spaces inside Hangul allowed)."""

from __future__ import annotations

import re

import pytest

from app.corpus.models import Corpus
from app.search import SearchIndex
from app.search.contract import CONTRACT
from app.search.snippet import TermPattern, make_snippet, present_terms, squash, term_pattern


def test_marks_and_escapes() -> None:
    pattern = term_pattern(["틈새공격"])
    snippet = make_snippet("<b>적</b>이 틈새 공격을 & 합니다", pattern)
    assert snippet == "&lt;b&gt;적&lt;/b&gt;이 <mark>틈새 공격</mark>을 &amp; 합니다"


def test_window_around_first_match() -> None:
    text = "가나다 " * 100 + "파멸 토큰" + " 라마바" * 100
    snippet = make_snippet(text, term_pattern(["파멸"]))
    assert "<mark>파멸</mark>" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet.replace("<mark>", "").replace("</mark>", "")) <= CONTRACT.snippet.chars + 2


def test_no_match_gives_the_start() -> None:
    assert make_snippet("짧은 글", None) == "짧은 글"
    assert make_snippet("짧은\n\n글", term_pattern(["없음"])) == "짧은 글"


def test_longest_term_wins() -> None:
    snippet = make_snippet("조사자는 조사를 합니다", term_pattern(["조사", "조사자"]))
    assert snippet.startswith("<mark>조사자</mark>")


def test_an_english_stem_marks_whole_words_and_never_inside_one() -> None:
    # The index keeps stems (vengeanc, attack): the reader sees the words marked whole.
    snippet = make_snippet("Vengeance X. Attacks of opportunity.",
                           term_pattern(["vengeanc", "attack", "un"]))
    assert snippet == "<mark>Vengeance</mark> X. <mark>Attacks</mark> of opportunity."


def test_present_terms_keeps_only_what_the_page_can_mark() -> None:
    texts = ["적이 틈새 공격을 합니다", "Attack of Opportunity"]
    terms = ["틈새공격", "뷁뷁", "attack", "OPPORTUNITY", "없음"]
    assert present_terms(terms, texts, max_chars=80) == ["틈새공격", "attack", "OPPORTUNITY"]
    # A term that would pass the budget is skipped; a later, shorter one may still fit.
    assert present_terms(["틈새공격", "attack", "적이"], texts, max_chars=7) == ["틈새공격", "적이"]
    assert present_terms(["틈새"], [], max_chars=80) == []


def test_dropped_terms_change_no_snippet() -> None:
    text = "조사자는 틈새 공격을 받습니다. Attack of Opportunity"
    terms = ["틈새공격", "뷁뷁", "attack", "조사", "조사자"]
    everything = make_snippet(text, term_pattern(terms))
    assert make_snippet(text, term_pattern(present_terms(terms, [text], max_chars=80))) == \
        everything
    assert everything.count("<mark>") == 3


def _alternation(terms: list[str]) -> re.Pattern[str]:
    """The one regex the browser compiles for `terms` (`termPattern`): what the terms'
    regexes matched one by one must equal."""
    from app.search.snippet import _term_regex
    ordered = sorted(set(terms), key=len, reverse=True)
    return re.compile("|".join(_term_regex(t).pattern for t in ordered), re.IGNORECASE)


_PIECES = ["조사", "조사자", "자", "틈새", "공격", " ", "  ", ".", "Attack", "attacks", "tack",
           "un", "Opportunity", "x", "가가", "가", "(", "2.9"]


@pytest.mark.parametrize("seed", range(40))
def test_the_terms_match_as_their_alternation_would(seed: int) -> None:
    import random
    pick = random.Random(seed)
    text = "".join(pick.choice(_PIECES) for _ in range(pick.randint(5, 60)))
    terms = pick.sample(["조사", "조사자", "틈새공격", "공격", "attack", "un", "opportunity",
                         "가가", "자", "2.9", "x", "tack"], pick.randint(1, 6))
    pattern = term_pattern(terms)
    assert pattern is not None
    alternation = _alternation(terms)
    assert list(pattern.finditer(text)) == [m.span() for m in alternation.finditer(text)]
    for pos in range(len(text) + 1):
        first = alternation.search(text, pos)
        assert pattern.search(text, pos) == (first.span() if first else None)


def test_a_word_is_marked_whole_when_a_later_term_starts_inside_it() -> None:
    # `ckxyzq1` is found first (the longer term) inside the word `at` starts: `at` starts
    # earlier and wins, to its word's end, as the alternation would have it.
    pattern = term_pattern(["ckxyzq1", "at"])
    assert pattern is not None
    first = _alternation(["ckxyzq1", "at"]).search("atckxyzq1")
    assert first is not None
    assert pattern.search("atckxyzq1") == first.span() == (0, 8)


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def test_search_compiles_only_budgeted_page_terms(index: SearchIndex,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[list[str]] = []
    original = term_pattern

    def recording(terms: list[str]) -> TermPattern | None:
        compiled.append(terms)
        return original(terms)

    monkeypatch.setattr("app.search.searcher.term_pattern", recording)
    # One made-up 200-syllable word: its own forms alone were ~600 characters of pattern.
    junk = "".join(chr(0xAC00 + (n * 7919) % 11172) for n in range(200))
    index.search("단서 " + junk)
    assert compiled and sum(len(t) for t in compiled[-1]) <= CONTRACT.budget.highlight_chars
    assert "단서" in compiled[-1] and all(len(t) < 100 for t in compiled[-1])


@pytest.mark.parametrize(("text", "terms"), [
    ("If an investigator would take damage, assign it to an asset. The card is discarded.",
     ["damage", "investigator", "틈새", "discard", "wolf"]),
    ("교전 중인 적이 있는 조사자가 이동하면 틈새 공격을 받습니다.",
     ["attack", "틈새공격", "이동", "card"]),
    ("Nothing here matches.", ["damage", "틈새"]),
])
def test_a_results_own_terms_mark_its_snippet_as_the_querys_do(text: str,
                                                               terms: list[str]) -> None:
    """Each result's snippet is matched with only the terms its text holds (`within`): the
    same snippet, marks and all, as with every term of the page's results."""
    pattern = term_pattern(terms)
    assert pattern is not None
    own = pattern.within(squash(text))
    assert make_snippet(text, own) == make_snippet(text, pattern)
    kept = 0 if own is None else len(list(own.finditer(text)))
    assert kept == len(list(pattern.finditer(text)))
    if own is not None:
        assert own.within(squash(text)) is own

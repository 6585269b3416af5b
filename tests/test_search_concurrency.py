"""Many threads searching at once get exactly the single-threaded answers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from app.corpus.models import Corpus
from app.search import SearchIndex

QUERIES = [
    ("단서", None), ("틈새공격", None), ("틈세 공격", None), ("ㅌㅅㄱㄱ", None), ("surge", None),
    ("행동을 하면 교전 중인 적이 공격", None), ("행동", "eh"), ("조사자가 회피하면", "ahlcg"),
    ("혼돈 토쿤", None), ("카드", None), ("차원문이 열리면", None), ("zzzz", None),
]


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def _answer(index: SearchIndex, query: str, game: str | None) -> tuple[object, ...]:
    results = index._search(query, game=game, source=None, limit=20, offset=0)
    return (results.total, tuple((h.id, h.snippet) for h in results.hits),
            tuple(index._suggest(query, limit=8)))


def test_threads_agree_with_single_thread(index: SearchIndex) -> None:
    expected = {q: _answer(index, *q) for q in QUERIES}
    jobs = [QUERIES[n % len(QUERIES)] for n in range(1_200)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        answers = list(pool.map(lambda q: (q, _answer(index, *q)), jobs))
    wrong = [q for q, answer in answers if answer != expected[q]]
    assert not wrong

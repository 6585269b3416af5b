"""The client index (app/search/client_index.py) and the rules both engines share.

tests/cases/query_analysis.json holds analysis cases; the Python analysis and the browser
engine's (static/analysis.js, run in Node) are checked against the same file.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import analysis, client_index, contract
from app.search.contract import CONTRACT
from app.search.documents import documents
from app.search.index import ANALYSIS_VERSION, entry_fields, load_index
from app.urls import Urls
from scripts import query_cases
from tests import enginejs
from tests.conftest import ROOT, write_rules_data

CASES = ROOT / "tests" / "cases" / "query_analysis.json"
RULES = [
    {"id": "Attack_of_Opportunity", "title": "틈새 공격",
     "text": "교전 중인 적은 조사자가 다른 행동을 하면 즉시 공격합니다."},
    {"id": "Clues", "title": "단서", "text": "장소에 처음 들어가면 단서를 놓습니다."},
    {"id": "Doom", "title": "파멸", "text": "악당 카드에 파멸 토큰을 올려놓습니다."},
]
ASPECTS = ("words", "variants", "stems", "bigrams", "function_words", "inflected", "counts",
           "verb_stems", "loose_stems", "choseong", "title_parts", "alias_key", "max_distance",
           "max_distance_whole", "clean")


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
    return cases


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return load_corpus(write_rules_data(tmp_path_factory.mktemp("tiny"), RULES))


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["input"])
def test_python_analysis_gives_the_shared_cases(case: dict[str, Any]) -> None:
    assert query_cases.case(case["input"]) == case


def test_browser_analysis_gives_the_shared_cases(tiny: Corpus, tmp_path: Path) -> None:
    files = enginejs.write_files(tmp_path, client_index.index(tiny, Urls()),
                                 client_index.texts(tiny))
    cases = _cases()
    answers = enginejs.run({"index": files["index"], "cases": cases})["answers"]
    for case, answer in zip(cases, answers, strict=True):
        assert answer == {k: case[k] for k in ASPECTS}, case["input"]


def test_postings_round_trip() -> None:
    postings = {0: 1, 3: 2, 40: 1, 41: 37}
    encoded = client_index.encode_postings(postings)
    assert encoded == "1,3.2,11,1.11"  # gaps 1, 3, 37, 1 in base 36
    assert client_index.decode_postings(encoded) == postings


def test_index_holds_the_server_tokens_of_each_shipped_field(tiny: Corpus) -> None:
    built = client_index.index(tiny, Urls(root_path="/ko"))
    docs = documents(tiny)
    assert built["docs"]["id"] == [d.id for d in docs]
    assert built["docs"]["url"][0] == "/ko/rules/Attack_of_Opportunity"
    assert built["version"] == tiny.version == client_index.texts(tiny)["version"]
    for field in client_index.SHIPPED:
        expected: dict[str, Counter[int]] = {}
        for n, doc in enumerate(docs):
            for token in entry_fields(doc)[field].split():
                expected.setdefault(token, Counter())[n] += 1
        got = {term: client_index.decode_postings(encoded)
               for term, encoded in built["postings"][field].items()}
        assert got == {term: dict(found) for term, found in expected.items()}
    assert built["titles"]["parts"][0] == ["틈새공격"]


def test_engine_finds_by_typo_initials_and_body(tiny: Corpus, tmp_path: Path) -> None:
    files = enginejs.write_files(tmp_path, client_index.index(tiny, Urls()),
                                 client_index.texts(tiny))
    queries = ["틈세 공격", "ㅌㅅㄱㄱ", "토큰을 올려놓", "단서가", "파멸", "없는말"]
    answer = enginejs.run({**files, "queries": [{"q": q} for q in queries]})
    firsts = [r["ids"][:1] for r in answer["results"]]
    assert firsts == [["Attack_of_Opportunity"], ["Attack_of_Opportunity"], ["Doom"],
                      ["Clues"], ["Doom"], []]
    assert "<mark>" in answer["results"][2]["snippet"]


def test_engine_derives_the_server_body_postings(corpus: Corpus, tmp_path: Path) -> None:
    """The body fields are not shipped: the engine builds them from the texts, and must get
    exactly the server's tokens (`index.entry_fields`) for every document of the real data,
    and the field lengths the server's index stores."""
    files = enginejs.write_files(tmp_path, client_index.index(corpus, Urls()),
                                 client_index.texts(corpus))
    derived = enginejs.run({**files, "derived": True})
    for field in client_index.DERIVED:
        expected: dict[str, dict[int, int]] = {}
        lengths = []
        for n, doc in enumerate(documents(corpus)):
            tokens = entry_fields(doc)[field].split()
            lengths.append(client_index.stored_length(len(tokens)))
            for token in tokens:
                found = expected.setdefault(token, {})
                found[n] = found.get(n, 0) + 1
        got = {term: dict(zip(docs, tfs, strict=True))
               for term, (docs, tfs) in derived["postings"][field].items()}
        assert got == expected, field
        assert derived["lengths"][field] == lengths


def test_lengths_are_the_ones_the_server_index_stores(corpus: Corpus) -> None:
    """BM25 reads Whoosh's one-byte field lengths; the client index ships those."""
    built = client_index.index(corpus, Urls())
    with load_index(corpus, None).reader() as reader:
        for field in client_index.SHIPPED:
            assert built["lengths"][field] == [
                reader.doc_field_length(n, field, 0) or 0 for n in range(len(built["docs"]["id"]))]


def test_the_engine_refuses_an_index_of_another_analysis(tiny: Corpus, tmp_path: Path) -> None:
    """Like lunr and MiniSearch: the page names the analysis version it was rendered with, and
    the engine will not answer from an index of another."""
    files = enginejs.write_files(tmp_path, client_index.index(tiny, Urls()),
                                 client_index.texts(tiny))
    assert enginejs.run({"index": files["index"], "refused": True})["error"] is None
    error = enginejs.run({"index": files["index"], "refused": True,
                          "analysis": "0123456789abcdef"})["error"]
    assert error == f"search index of analysis {ANALYSIS_VERSION}, expected 0123456789abcdef"


def test_the_analysis_version_follows_the_contract_and_the_tables() -> None:
    """Derived, never typed: any change to a contract value or a table is a new version."""
    tables = analysis.client_tables(unicode_tables=False)
    assert contract.digest(tables) == ANALYSIS_VERSION
    deeper = dataclasses.replace(CONTRACT, budget=dataclasses.replace(CONTRACT.budget, rerank=40))
    assert contract.digest(tables, deeper) != ANALYSIS_VERSION
    light = [str(word) for word in tables["light"]]  # type: ignore[attr-defined]
    assert contract.digest({**tables, "light": [*light, "뭐지"]}) != ANALYSIS_VERSION


def test_the_client_index_ships_the_whole_contract(tiny: Corpus) -> None:
    shipped = client_index.index(tiny, Urls())["contract"]
    for section in dataclasses.fields(contract.Contract):
        values = getattr(CONTRACT, section.name)
        assert set(shipped[section.name]) >= {f.name for f in dataclasses.fields(values)}
    assert shipped["budget"]["rerank"] == CONTRACT.budget.rerank


def test_the_contract_types_are_current() -> None:
    """types/contract.d.ts, the type the JS check holds the engine to, is the contract's."""
    assert query_cases.CONTRACT_TYPES.read_text(encoding="utf-8") == query_cases.contract_types(), (
        "run python -m scripts.query_cases")

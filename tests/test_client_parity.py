"""The browser engine against the server's search, over the development queries.

Each query runs through `SearchIndex.search` (the app's own index) and through
static/engine.js in Node, fed the index and texts the app serves. Where they must agree: the
browser's top 5 holds the server's top 1 for at least 90% of the queries (issue 13).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.search import SearchIndex
from tests import enginejs
from tests.conftest import ROOT

QUERIES = ROOT / "bench" / "search-queries.dev.json"
#: Share of queries whose server top-1 must be in the browser's top 5.
PARITY = 0.90


@pytest.fixture(scope="module")
def served(client: TestClient, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The client index and texts as the app serves them, written to files for Node."""
    index = client.get("/search-index.json").json()
    texts = client.get("/search-texts.json").json()
    return enginejs.write_files(tmp_path_factory.mktemp("client"), index, texts)


def test_browser_top5_holds_server_top1(client: TestClient, served: dict[str, str]) -> None:
    queries: list[dict[str, Any]] = json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]
    server: SearchIndex = client.app.state.library.index  # type: ignore[attr-defined]
    answer = enginejs.run({**served, "limit": 5,
                           "queries": [{"q": q["q"], "game": q.get("game", "")} for q in queries]})
    agreed, identical, misses = 0, 0, []
    for query, browser in zip(queries, answer["results"], strict=True):
        hits = server.search(query["q"], game=query.get("game"), limit=5).hits
        identical += [h.id for h in hits] == browser["ids"]
        if not hits or hits[0].id in browser["ids"]:
            agreed += 1
        else:
            misses.append(f"{query['q']!r}: server {hits[0].id}, browser {browser['ids']}")
    rate = agreed / len(queries)
    times = [r["ms"] for r in answer["results"]]
    print(f"\nparity: browser top-5 holds server top-1 for {agreed}/{len(queries)} = {rate:.3f}; "
          f"engine ms per query (node) median {statistics.median(times):.2f}, "
          f"max {max(times):.2f}; identical top 5: {identical}/{len(queries)}")
    print("\n".join(misses))
    assert rate >= PARITY, "\n".join(misses)


def test_snippets_mark_the_query_like_the_server(client: TestClient,
                                                served: dict[str, str]) -> None:
    server: SearchIndex = client.app.state.library.index  # type: ignore[attr-defined]
    query = "조사자가 공격받으면"
    answer = enginejs.run({**served, "limit": 1, "queries": [{"q": query}]})
    browser = answer["results"][0]
    hit = server.search(query, limit=1).hits[0]
    assert browser["ids"][0] == hit.id
    assert "<mark>" in browser["snippet"]
    # The same window of the same text.
    assert _plain(browser["snippet"])[:40] == _plain(hit.snippet)[:40]


@pytest.mark.parametrize("query", ["퉁새콩격", "탐쌔공녁", "틈쉐곡격", "zkqtm", "조사쟈다아",
                                   "틈새공걱하면", "게임에서 빠지면",
                                   "넣을 수 있나요 혼돈 토쿤", "싸우지 말고 피하는게 나음"])
def test_typos_get_the_same_totals_corrections_and_did_you_mean(
        client: TestClient, served: dict[str, str], query: str) -> None:
    server: SearchIndex = client.app.state.library.index  # type: ignore[attr-defined]
    browser = enginejs.run({**served, "queries": [{"q": query}]})["results"][0]
    found = server.search(query)
    assert (browser["total"], browser["suggestion"]) == (found.total, found.suggestion)
    assert [tuple(pair) for pair in browser["corrections"]] == list(found.corrections)
    assert browser["ids"] == [hit.id for hit in found.hits]


def _plain(snippet: str) -> str:
    return snippet.replace("<mark>", "").replace("</mark>", "").replace("&#34;", "&quot;")


def test_served_files_are_of_the_served_data(client: TestClient, served: dict[str, str]) -> None:
    version = client.get("/readyz").json()["version"]
    for path in served.values():
        assert json.loads(Path(path).read_text(encoding="utf-8"))["version"] == version

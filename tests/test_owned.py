"""Owned collections (보유 게임): the setting, the indexes, search and direct links."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.corpus.collections import format_owned, is_hidden, parse_owned
from app.corpus.models import Corpus
from app.search import SearchIndex
from app.settings import Settings
from app.urls import Urls
from app.web.app import create_app
from app.web.routes import SETTINGS_FORM
from app.web.search_context import search_results
from app.web.views import SearchHit
from tests.conftest import DATA, LOCAL


@pytest.fixture()
def player(tmp_path: Path) -> TestClient:
    """A fresh client with its own cookie jar."""
    return TestClient(create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index")),
                      base_url=LOCAL)


KNOWN = frozenset({"dwl", "ptc", "tfa", "tcu"})


def _cookie(response: object) -> str:
    header: str = response.headers["set-cookie"]  # type: ignore[attr-defined]
    return header.split(";", 1)[0].removeprefix("owned=")


def test_cookie_format_round_trips() -> None:
    assert format_owned({"ptc", "dwl"}, KNOWN) == "-tcu.tfa"
    assert parse_owned(format_owned({"ptc", "dwl"}, KNOWN), KNOWN) == frozenset({"dwl", "ptc"})
    assert parse_owned(format_owned(set(), KNOWN), KNOWN) == frozenset()
    assert format_owned(KNOWN, KNOWN) == ""
    assert parse_owned("", KNOWN) is None and parse_owned("nonsense", KNOWN) is None
    # The older forms (the owned codes; "none") are still read.
    assert parse_owned("dwl.ptc", KNOWN) == frozenset({"dwl", "ptc"})
    assert parse_owned("none", KNOWN) == frozenset()
    assert is_hidden(("tcu", "tde"), frozenset({"dwl"}))
    assert not is_hidden(("tcu", "tde"), frozenset({"tde"}))
    assert not is_hidden((), frozenset())


def test_a_collection_added_later_is_shown_until_unticked() -> None:
    cookie = format_owned({"dwl"}, KNOWN)  # chosen before "tskc" existed
    newer = KNOWN | {"tskc"}
    owned = parse_owned(cookie, newer)
    assert owned is not None and "tskc" in owned and "tcu" not in owned
    assert not is_hidden(("tskc",), owned)
    # Codes the data does not have never reach a cache key.
    assert parse_owned("-tcu.zz-attacker", KNOWN) == KNOWN - {"tcu"}


def test_default_shows_everything(player: TestClient) -> None:
    page = player.get("/sources/ahlcg-reference").text
    assert "항목 숨김" not in page and ">결속 <span" in page
    assert 'value="tcu" checked' in player.get("/settings").text


def test_choosing_collections_hides_other_rules_from_the_index(player: TestClient) -> None:
    saved = player.post("/settings", data={"form": SETTINGS_FORM, "owned": ["dwl", "ptc"]},
                        follow_redirects=False)
    assert saved.status_code == 303
    value = _cookie(saved)
    assert value.startswith("-") and {"tcu", "tfa"} <= set(value[1:].split("."))
    assert not {"dwl", "ptc"} & set(value[1:].split("."))
    player.cookies.set("owned", value)
    settings = player.get("/settings").text
    assert 'value="dwl" checked' in settings and 'value="tcu" checked' not in settings

    page = player.get("/sources/ahlcg-reference").text
    hidden_note = page.split('<details class="hidden-rules">', 1)[1].split("</details>", 1)[0]
    assert "항목 숨김" in hidden_note and ">결속<" in hidden_note  # Bonded is tcu/tde only
    index = page.split('<nav class="jumpbar"', 1)[1]
    assert ">결속" not in index
    assert ">롤라 헤이즈와 “배역” <span" in index  # ptc is owned


def test_direct_links_always_show_hidden_rules(player: TestClient) -> None:
    player.cookies.set("owned", "dwl")
    page = player.get("/rules/Bonded")
    assert page.status_code == 200 and "보유하지 않은 확장의 규칙" in page.text


def test_search_ranks_rules_of_other_collections_last_and_marks_them(player: TestClient) -> None:
    everything = player.get("/api/search", params={"q": "봉인", "limit": 50}).json()["results"]
    player.cookies.set("owned", "dwl")
    owned = player.get("/api/search", params={"q": "봉인", "limit": 50}).json()["results"]
    assert {r["id"] for r in owned} == {r["id"] for r in everything}
    flags = [r["not_owned"] for r in owned]
    assert flags == sorted(flags)  # every owned result comes before every other
    assert any(flags)
    assert "보유하지 않은 확장" in player.get("/search", params={"q": "봉인"}).text


def test_clearing_the_choice_restores_everything(player: TestClient) -> None:
    settings = player.get("/settings").text
    everything = [part.split('"', 1)[0] for part in settings.split('name="owned" value="')[1:]]
    assert {"dwl", "tcu", "parallel"} <= set(everything)
    saved = player.post("/settings", data={"form": SETTINGS_FORM, "owned": everything},
                        follow_redirects=False)
    assert 'owned=""' in saved.headers["set-cookie"] or "Max-Age=0" in saved.headers["set-cookie"]


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def _every_page(corpus: Corpus, index: SearchIndex,
                owned: frozenset[str] | None) -> tuple[list[SearchHit], set[int]]:
    """All results of "카드", 50 a page, and the totals the pages reported."""
    results: list[SearchHit] = []
    totals: set[int] = set()
    for offset in range(0, 10_000, 50):
        page = search_results(corpus, index, Urls(), "카드", limit=50, offset=offset,
                              owned=owned)
        totals.add(page.total)
        if not page.results:
            break
        results.extend(page.results)
    return results, totals


def test_owned_search_pages_through_every_result_once(corpus: Corpus, index: SearchIndex) -> None:
    results, totals = _every_page(corpus, index, frozenset({"tfa"}))
    assert len(totals) == 1
    total = totals.pop()
    assert total > 200  # past the 200 results the owned search used to rank
    ids = [r.id for r in results]
    assert len(ids) == len(set(ids)) == total
    flags = [r.not_owned for r in results]
    assert any(flags) and not all(flags)
    assert flags == sorted(flags)  # every owned result before every other
    # Inside each group, the ranking without owned collections is kept.
    everything = [r.id for r in _every_page(corpus, index, None)[0]]
    assert sorted(everything) == sorted(ids)
    unowned = {r.id for r in results if r.not_owned}
    assert [i for i in ids if i not in unowned] == [i for i in everything if i not in unowned]
    assert [i for i in ids if i in unowned] == [i for i in everything if i in unowned]


def test_owned_search_api_serves_pages_past_the_first_hundred(client: TestClient) -> None:
    params = {"q": "카드", "limit": "50", "offset": "100"}
    # As a header: httpx deprecates per-request cookies=, and the session client's own jar
    # would leak the choice into other tests.
    body = client.get("/api/search", params=params, headers={"cookie": "owned=tfa"}).json()
    assert body["total"] > 150
    assert len(body["results"]) == 50
    flags = [r["not_owned"] for r in body["results"]]
    assert flags == sorted(flags)

"""Owned collections (보유 게임): the setting, the indexes, search and direct links."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.corpus.collections import format_owned, is_hidden, parse_owned
from app.settings import Settings
from app.web.app import create_app
from tests.conftest import DATA


@pytest.fixture()
def player(tmp_path: Path) -> TestClient:
    """A fresh client with its own cookie jar."""
    return TestClient(create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index")))


def test_cookie_format_round_trips() -> None:
    assert parse_owned(format_owned({"ptc", "dwl"})) == frozenset({"dwl", "ptc"})
    assert parse_owned(format_owned(set())) == frozenset()
    assert format_owned({"dwl", "ptc", "tfa", "tcu", "tde", "tic", "eoe", "side",
                         "investigator", "parallel"}) == ""
    assert parse_owned("") is None and parse_owned("nonsense") is None
    assert is_hidden(("tcu", "tde"), frozenset({"dwl"}))
    assert not is_hidden(("tcu", "tde"), frozenset({"tde"}))
    assert not is_hidden((), frozenset())


def test_default_shows_everything(player: TestClient) -> None:
    page = player.get("/sources/ahlcg-reference").text
    assert "항목 숨김" not in page and ">결속 <span" in page
    assert 'value="tcu" checked' in player.get("/settings").text


def test_choosing_collections_hides_other_rules_from_the_index(player: TestClient) -> None:
    saved = player.post("/settings", data={"owned": ["dwl", "ptc"]}, follow_redirects=False)
    assert saved.status_code == 303
    assert "owned=dwl.ptc" in saved.headers["set-cookie"]
    player.cookies.set("owned", "dwl.ptc")
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
    assert page.status_code == 200 and "보유 게임에 없는 확장의 규칙입니다" in page.text


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
    everything = ["dwl", "ptc", "tfa", "tcu", "tde", "tic", "eoe", "side", "investigator",
                  "parallel"]
    saved = player.post("/settings", data={"owned": everything}, follow_redirects=False)
    assert 'owned=""' in saved.headers["set-cookie"] or "Max-Age=0" in saved.headers["set-cookie"]

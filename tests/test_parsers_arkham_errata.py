"""The FAQ and errata parser: questions under scenarios, errata under encounter sets."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from fastapi.testclient import TestClient

from app.corpus.models import GameSpec, SourceSpec
from app.corpus.parsers.arkham_errata import parse
from app.errors import DataError

SPEC = SourceSpec(id="faq", game="ahlcg", title="FAQ", parser="arkham-errata", file="e.json",
                  options={"faq_title": "시나리오 FAQ", "errata_title": "카드 정오표"})
GAME = GameSpec("ahlcg", "아컴", names={"scenarios": {"wilds": "길들지 않은 야생"},
                                      "encounter_sets": {"torch": "횃불"}})


def _doc(faq: Sequence[object] = (), cards: Sequence[object] = ()) -> str:
    return json.dumps({"faq": list(faq), "cards": list(cards)}, ensure_ascii=False)


def test_one_entry_per_question_under_its_scenario() -> None:
    text = _doc(faq=[{"scenario_code": "wilds", "questions": [
        {"question": "Q1?", "answer": "A1"}, {"question": "Q2?", "answer": "A2\n둘째 줄"}]}])
    entries = parse(text, SPEC, GAME)
    assert [(e.id, e.title, e.parent) for e in entries] == [
        ("faq", "시나리오 FAQ", None), ("faq/wilds", "길들지 않은 야생", "faq"),
        ("faq/wilds/1", "Q1?", "faq/wilds"), ("faq/wilds/2", "Q2?", "faq/wilds")]
    assert entries[3].body == "A2\n둘째 줄"


def test_errata_merge_per_encounter_set_and_link_only_official_cards() -> None:
    text = _doc(cards=[{"encounter_code": "torch", "cards": [{"code": ["01109"], "text": "가"}]},
                       {"encounter_code": "torch", "cards": [{"code": ["zdm_00190"],
                                                              "text": "나"}]}])
    entries = parse(text, SPEC, GAME)
    assert [e.id for e in entries] == ["errata", "errata/torch"]
    assert entries[1].body == "- [01109](/card/01109): 가\n- zdm_00190: 나"


def test_a_slug_without_a_name_is_readable_and_noted() -> None:
    entries = parse(_doc(faq=[{"scenario_code": "the_new_one", "questions": []}]), SPEC, GAME)
    assert entries[1].title == "The new one"
    assert entries[1].notes == ('no name for scenarios "the_new_one" in the names file: '
                                'shown as "The new one"',)


@pytest.mark.parametrize(("text", "problem"), [
    ("[]", "top level must be an object"),
    (_doc(faq=[{"questions": []}]), 'faq[0]: "scenario_code" must be a slug'),
    (_doc(faq=[{"scenario_code": "a", "questions": [{"question": "q"}]}]), 'missing "answer"'),
    (_doc(cards=[{"encounter_code": "a", "cards": [{"code": "01109", "text": "x"}]}]),
     '"code" must be a list of card codes'),
])
def test_broken_input_is_one_line(text: str, problem: str) -> None:
    with pytest.raises(DataError) as caught:
        parse(text, SPEC, GAME)
    assert problem in str(caught.value) and str(caught.value).startswith("e.json")


def test_the_bundled_faq_is_browsable_and_searchable(client: TestClient) -> None:
    source = client.get("/api/sources/ahlcg-faq").json()
    assert source["entries"][0]["title"] == "시나리오 FAQ"
    page = client.get("/sources/ahlcg-faq").text
    assert "제단에 흘린 피" in page and "카드 정오표" in page
    question = client.get("/rules/faq/blood_on_the_altar/1")
    assert question.status_code == 200 and "잠재적 희생양" in question.text
    assert 'href="https://arkhamdb.com/card/02220"' in question.text
    found = client.get("/api/search", params={"q": "잠재적 희생양 카드 더미"}).json()
    assert found["results"][0]["id"] == "faq/blood_on_the_altar/1"

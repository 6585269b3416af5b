"""A translation beside its original: paired by id, shown on demand, searched together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.corpus.build import check_data, load_corpus
from app.corpus.models import Corpus
from app.errors import DataError
from tests.conftest import write_manifest

RULES = "rules.json"


def _pair(folder: Path, korean: list[dict[str, object]], english: list[dict[str, object]],
          **extra: str) -> Path:
    write_manifest(folder, [
        {"id": "ko", "game": "ahlcg", "title": "참조", "parser": "rules-json", "file": RULES},
        {"id": "en", "game": "ahlcg", "title": "Reference", "parser": "rules-json",
         "file": "en.json", "lang": "en", "translation_of": "ko", **extra},
    ])
    (folder / RULES).write_text(json.dumps(korean, ensure_ascii=False), encoding="utf-8")
    (folder / "en.json").write_text(json.dumps(english), encoding="utf-8")
    return folder


def test_same_ids_pair_and_never_collide(tmp_path: Path) -> None:
    folder = _pair(tmp_path,
                   [{"id": "A", "title": "가", "text": "[나](#B)"}, {"id": "B", "title": "나"}],
                   [{"id": "A", "title": "Aa", "text": "see [Bb](#B) and [Cc](#C)"},
                    {"id": "C", "title": "Cc", "text": "only here"}])
    corpus = load_corpus(folder)
    assert corpus.entries["A"].translations == {"en": "en/A"}
    assert corpus.entries["en/A"].translations == {"ko": "A"}
    # The translation links within itself first, and to the original for what it lacks.
    assert corpus.entries["en/A"].links_to == ("B", "en/C")
    assert corpus.entries["en/C"].lang == "en" and corpus.english_name(corpus.entries["A"]) == "Aa"
    problems = [str(p) for p in check_data(folder)]
    assert "warning: en.json: 1 ids only in this translation (own pages, en): C" in problems
    assert 'warning: en.json: 1 ids of "ko" have no translation here: B' in problems


@pytest.mark.parametrize(("extra", "problem"), [
    ({"translation_of": "nowhere"}, 'no source "nowhere" declared before this one'),
    ({"lang": "ko"}, 'must be an original in another language'),
])
def test_a_translation_of_what_cannot_be_paired_is_refused(tmp_path: Path, extra: dict[str, str],
                                                          problem: str) -> None:
    folder = _pair(tmp_path, [{"id": "A", "title": "가"}], [{"id": "A", "title": "A"}], **extra)
    with pytest.raises(DataError, match=problem):
        load_corpus(folder)


def test_the_bundled_english_file_pairs_with_the_korean_reference(corpus: Corpus) -> None:
    korean = corpus.entries["Attack_of_Opportunity"]
    english = corpus.translation(korean, "en")
    assert english is not None and english.title == "Attack of Opportunity"
    assert corpus.english_name(corpus.entries["Joes_Hunch_Deck"]) == 'Joe\'s "Hunch Deck"'
    assert corpus.entries["en/Frost_Tokens"].translations == {}


def test_the_entry_page_offers_the_original_without_a_second_request(client: TestClient) -> None:
    page = client.get("/rules/Attack_of_Opportunity").text
    assert '<html lang="ko"' in page
    original = page.split('<details class="original" lang="en">', 1)[1].split("</details>", 1)[0]
    # The publisher's original (the manifest's "original": true) is 원문; others are 번역.
    assert '원문 보기 · <span lang="en">English</span>' in original
    assert "makes an attack of opportunity against the investigator" in original
    assert 'href="/rules/en/Attack_of_Opportunity" hreflang="en"' in original
    # The Korean rule comes first.
    assert page.index("준비 상태인 적과 교전 중인") < page.index('<details class="original"')


def test_an_english_page_is_marked_english_and_links_back(client: TestClient) -> None:
    page = client.get("/rules/en/Attack_of_Opportunity").text
    assert '<html lang="en"' in page and '<header class="site-header" lang="ko">' in page
    assert 'href="/rules/Attack_of_Opportunity" hreflang="ko"' in page
    only = client.get("/rules/en/Frost_Tokens").text
    assert '<html lang="en"' in only and 'aria-label="Frost"' in only


def test_the_english_index_is_grouped_a_to_z(client: TestClient) -> None:
    page = client.get("/sources/ahlcg-reference-en").text
    assert '<html lang="en"' in page and 'id="letter-A"' in page and 'id="letter-기타"' not in page
    data = client.get("/api/sources/ahlcg-reference-en").json()
    letters = [group["letter"] for group in data["index"]]
    assert letters == sorted(letters) and set(letters) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    chaos = next(g for g in data["index"] if g["letter"] == "C")
    tokens = next(t for t in chaos["terms"] if t["title"] == "Chaos Tokens")
    assert "Frost Tokens" in [t["title"] for t in tokens["children"]]  # only in English


def test_english_words_find_the_korean_rule_with_the_english_sentence(
        client: TestClient) -> None:
    found = client.get("/api/search", params={"q": "attack of opportunity"}).json()
    top = found["results"][0]
    assert top["id"] == "Attack_of_Opportunity" and top["lang"] == "ko"
    assert "<mark>Attack</mark>" in top["snippet"] or "<mark>attack</mark>" in top["snippet"]
    frost = client.get("/api/search", params={"q": "frost token"}).json()["results"][0]
    assert frost["id"] == "en/Frost_Tokens" and frost["lang"] == "en"
    ids = [r["id"] for r in client.get("/api/search", params={"q": "enemy phase"}).json()[
        "results"]]
    assert ids[0] == "Enemy_Phase" and not [i for i in ids if i == "en/Enemy_Phase"]


def test_translated_timing_tables_link_their_rows_by_step_label(corpus: Corpus) -> None:
    for table_id in ("Skill_Test_Timing", "en/Skill_Test_Timing"):
        rows = [r for r in corpus.entries[table_id].table or () if r.cells]
        assert rows and all(r.target for r in rows), table_id
    step4 = next(r for r in corpus.entries["en/Skill_Test_Timing"].table or ()
                 if r.cells and r.cells[0].text.startswith("ST.4"))
    assert step4.target == "en/Skilll_Test_4"


def test_the_timing_page_shows_every_table_grouped_by_source(client: TestClient) -> None:
    data = client.get("/timing").text
    korean, english = data.index(">아컴호러 카드게임 참조 안내서<"), data.index(
        ">Arkham Horror: The Card Game Rules Reference<")
    assert (korean < data.index('Skill_Test_Timing">능력 테스트 순서</a></h3>') < english
            < data.index('en/Skill_Test_Timing">Skill Test Timing</a></h3>'))

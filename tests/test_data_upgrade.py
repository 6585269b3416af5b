"""A self-hoster drops in a newer Korean rules file: everything it adds works without code.

The "newer" file is the bundled one plus what upstream revisions bring: new nodes, collection
codes no names file knows, the `[frost]` icon, `[period]` as a word, ids with `/` and other URL
characters, a renamed timing table, a 16-level tree and a field the parser does not use.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.corpus.build import check_data, load_corpus
from app.errors import DataError
from app.settings import Settings
from app.urls import Urls
from app.web.app import create_app
from app.web.routes import SETTINGS_FORM
from tests.conftest import DATA, LOCAL

#: Ids a JSON file allows and a URL must carry intact.
ODD_IDS = ("Frost/Tokens", "What?", "C#_Rule", "100%_Rule", 'Quote"d', "It's", "Odd Slot")


def _deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"id": f"Deep_{levels}", "title": f"깊이 {levels}", "text": "맨 아래"}
    for level in range(levels - 1, 0, -1):
        node = {"id": f"Deep_{level}", "title": f"깊이 {level}", "text": "한 단계",
                "rules": [node]}
    return node


def _newer_rules() -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = json.loads((DATA / "ahlcg-rules.json").read_text("utf-8"))
    appendix = next(n for n in rules if n["id"] == "Appendix_II_Timing_and_Gameplay")
    table = next(n for n in appendix["rules"] if n["id"] == "Skill_Test_Timing")
    table["id"], table["title"] = "Skill_Test_Sequence", "능력 테스트 진행 순서"
    rules.append({"id": "Frost_Tokens", "title": "서리 토큰", "cycle": ["tskc", "zzz"],
                  "scenarios": ["the_heart_of_madness"],
                  "text": "[frost] 토큰을 공개하면 -1입니다. “Limit 1 per [period]”는 "
                          "아이콘이 아닙니다. [틈새 공격](#Attack_of_Opportunity) 참조."})
    rules.append({"id": "Odd_Ids", "title": "이상한 아이디 모음",
                  "text": " ".join(f"[{i}](#{i})" for i in ODD_IDS if " " not in i),
                  "rules": [{"id": i, "title": f"이상한 {n}", "text": f"본문 {n}"}
                            for n, i in enumerate(ODD_IDS)]})
    rules.append(_deep(16))
    return rules


@pytest.fixture(scope="module")
def newer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("newer") / "data"
    shutil.copytree(DATA, folder)
    (folder / "ahlcg-rules.json").write_text(json.dumps(_newer_rules(), ensure_ascii=False),
                                             encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def site(newer: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=newer, index_dir=tmp_path_factory.mktemp("ix")))
    with TestClient(app, base_url=LOCAL) as client:
        yield client


def test_check_names_each_new_thing_once_and_passes(newer: Path) -> None:
    problems = [str(p) for p in check_data(newer)]
    assert not [p for p in problems if p.startswith("error")]
    unknown = [p for p in problems if "collection code" in p and "ahlcg-rules.json" in p]
    # tskc is in the bundled names file; zzz is in none.
    assert len(unknown) == 1 and '"zzz" (1 entries) has no name' in unknown[0]
    assert "shown as its code; add it to ahlcg-names.json" in unknown[0]
    unused = [p for p in problems if 'field "scenarios"' in p and "ahlcg-rules.json" in p]
    assert len(unused) == 1
    # A bracketed word that is not an icon is text, not a finding.
    assert not [p for p in problems if "period" in p or "frost" in p]


def test_unknown_codes_show_as_codes_are_choosable_and_never_hide_for_good(
        site: TestClient) -> None:
    page = site.get("/rules/Frost_Tokens").text
    assert 'class="badge collection"' in page and ">zzz<" in page
    assert ">진홍색 열쇠 캠페인 확장<" in page  # a newer code, named by the names file
    settings = site.get("/settings").text
    assert 'value="zzz"' in settings and 'value="tskc"' in settings
    # A player who unticked one box before this data existed still sees the new rule.
    site.cookies.set("owned", "-tcu")
    index = site.get("/sources/ahlcg-reference").text.split('<nav class="jumpbar"', 1)[1]
    assert ">서리 토큰" in index
    # And unticking the new codes hides it, with the way back listed.
    ticked = [c for c in ("dwl", "ptc", "tfa", "tcu") if f'value="{c}"' in settings]
    saved = site.post("/settings", data={"form": SETTINGS_FORM, "owned": ticked},
                      follow_redirects=False)
    site.cookies.set("owned", saved.headers["set-cookie"].split(";")[0].split("=", 1)[1])
    page = site.get("/sources/ahlcg-reference").text
    hidden = page.split('<details class="hidden-rules">', 1)[1].split("</details>", 1)[0]
    assert "서리 토큰" in hidden
    site.cookies.clear()


def test_new_icons_are_drawn_and_placeholders_stay_words(site: TestClient) -> None:
    page = site.get("/rules/Frost_Tokens").text
    assert 'aria-label="서리"' in page and "[frost]" not in page
    assert "[period]" in page


def test_a_renamed_timing_table_is_still_on_the_timing_page(site: TestClient) -> None:
    page = site.get("/timing").text
    assert "능력 테스트 진행 순서" in page and 'href="/rules/Skill_Test_Sequence"' in page
    assert "단계 순서" in page


@pytest.mark.parametrize("entry_id", ODD_IDS)
def test_any_id_is_served_at_the_url_links_use(site: TestClient, entry_id: str) -> None:
    url = Urls().entry(entry_id)
    page = site.get(url)
    assert page.status_code == 200, url
    assert f"이상한 {ODD_IDS.index(entry_id)}" in page.text
    api = site.get(Urls().api("entries/") + url.removeprefix("/rules/"))
    assert api.status_code == 200 and api.json()["id"] == entry_id
    if " " not in entry_id:
        listing = site.get("/rules/Odd_Ids").text
        assert f'href="{url}"' in listing.replace("&#34;", '"').replace("&#39;", "'")


def test_a_sixteen_level_tree_loads_and_a_seventeenth_level_does_not(
        site: TestClient, tmp_path: Path) -> None:
    assert site.get("/rules/Deep_16").status_code == 200
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    (folder / "ahlcg-rules.json").write_text(json.dumps([_deep(17)]), encoding="utf-8")
    with pytest.raises(DataError, match="nested deeper than 16 levels"):
        load_corpus(folder)


@pytest.mark.parametrize(("entry_id", "problem"), [
    ("a//b", "empty"), ("../etc", '".."'), ("a/./b", '"."'), ("trailing/", "empty"),
    ("line\nbreak", "control character"), ("x" * 201, "at most 200"),
])
def test_ids_a_browser_would_rewrite_are_refused_with_a_reason(
        tmp_path: Path, entry_id: str, problem: str) -> None:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    rules = [{"id": entry_id, "title": "가", "text": "나"}]
    (folder / "ahlcg-rules.json").write_text(json.dumps(rules), encoding="utf-8")
    errors = [str(p) for p in check_data(folder) if p.error]
    assert len(errors) == 1 and problem in errors[0] and "ahlcg-rules.json: [0]" in errors[0]


def test_an_empty_source_loads_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    (folder / "ahlcg-rules.en.json").write_text("[]", encoding="utf-8")
    problems = [str(p) for p in check_data(folder)]
    assert "warning: ahlcg-rules.en.json: the file holds no entries" in problems
    assert not [p for p in problems if p.startswith("error")]

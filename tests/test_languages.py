"""The reference with translations in other scripts, as a club that plays in several
languages adds them (#26): the README's way, a source with `lang` and `translation_of`,
here the tiny corpus's German, French, Russian and Chinese files beside the bundled data."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.corpus.build import check_data
from app.corpus.languages import OTHER, load_languages
from app.settings import Settings
from app.web.app import create_app
from tests.conftest import DATA, LOCAL, ROOT

TINY = ROOT / "tests" / "cases" / "tiny"
LANGS = ("de", "fr", "ru", "zh-cn")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data") / "data"
    shutil.copytree(DATA, folder)
    manifest = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    for lang in LANGS:
        shutil.copy(TINY / f"ahlcg-rules.{lang}.json", folder / f"ahlcg-rules.{lang}.json")
        manifest["sources"].append({
            "id": f"ahlcg-reference-{lang}", "game": "ahlcg", "title": f"Rules ({lang})",
            "parser": "rules-json", "file": f"ahlcg-rules.{lang}.json", "lang": lang,
            "translation_of": "ahlcg-reference"})
    (folder / "sources.json").write_text(json.dumps(manifest, ensure_ascii=False),
                                         encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def client(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    app = create_app(Settings(data_dir=data, index_dir=tmp_path_factory.mktemp("index")))
    with TestClient(app, base_url=LOCAL) as test_client:
        yield test_client


def test_adding_translations_needs_no_code_and_checks_clean(data: Path) -> None:
    assert [str(p) for p in check_data(data) if p.error] == []


def test_a_search_in_german_shows_the_german_title_with_the_korean_entry_beside(
        client: TestClient) -> None:
    page = client.get("/search", params={"q": "Verderben"}).text
    first = page.split('<li class="result">', 1)[1].split("</li>", 1)[0]
    assert ('<h2 lang="de"><a href="/rules/de/Doom" hreflang="de"><span>Verderben</span></a></h2>'
            in first)
    assert '한국어: <a href="/rules/Doom" lang="ko">파멸</a>' in first
    assert '<p class="snippet" lang="de"><mark>Verderben</mark>' in first
    hit = client.get("/api/search", params={"q": "Verderben"}).json()["results"][0]
    assert (hit["id"], hit["translation"]["id"], hit["snippet_lang"]) == ("Doom", "de/Doom", "de")
    korean = client.get("/api/search", params={"q": "파멸"}).json()["results"][0]
    assert korean["id"] == "Doom" and korean["translation"] is None


def test_a_translation_s_source_filter_finds_its_entries(client: TestClient) -> None:
    found = client.get("/api/search", params={"q": "Безысходность",
                                               "source": "ahlcg-reference-ru"}).json()
    assert [(r["id"], r["translation"]["id"]) for r in found["results"]] == [("Doom", "ru/Doom")]


def test_index_letters_are_the_language_s(client: TestClient) -> None:
    russian = client.get("/sources/ahlcg-reference-ru").text
    # Внеочередная атака, Безысходность, Наплыв, Повернуть: under А–Я, none under 기타.
    assert re.findall(r'href="#letter-([^"]+)"', russian) == ["Б", "В", "Н", "П"]
    assert "<span aria-disabled=\"true\">Я</span>" in russian
    chinese = client.get("/sources/ahlcg-reference-zh-cn").text
    # 趁乱攻击 chèn, 毁灭 huǐ, 涌动 yǒng, 冰霜标记 bīng: by pinyin, not all under 기타.
    assert set(re.findall(r'href="#letter-([^"]+)"', chinese)) == {"B", "C", "H", "Y"}
    french = client.get("/sources/ahlcg-reference-fr").text
    assert 'id="letter-E"' in french  # Élimination under E


def test_original_and_translations_are_named_for_what_they_are(client: TestClient) -> None:
    page = client.get("/rules/Doom").text
    assert '원문 보기 · <span lang="en">English</span>' in page
    assert '번역 보기 · <span lang="de">Deutsch</span>' in page
    assert '원문 보기 · <span lang="de">' not in page


def test_icons_are_labelled_in_the_page_s_language(client: TestClient) -> None:
    page = client.get("/rules/zh-cn/Frost_Tokens").text
    assert '<html lang="zh-cn"' in page or 'lang="zh-cn"' in page
    assert 'aria-label="冰霜"' in page and 'aria-label="서리"' not in page


def test_a_visitor_downloads_only_the_languages_they_read(client: TestClient) -> None:
    index = client.get("/search-index.json").json()
    assert index["languages"] == list(LANGS)
    texts = client.get("/search-texts.json").json()["texts"]
    assert not any("Verderben" in t for t in texts)  # German is in its own files
    german = client.get("/search-index.de.json").json()
    assert german["lang"] == "de" and "verderben" in german["postings"]["title_tr"]
    assert "Verderben" in json.dumps(client.get("/search-texts.de.json").json(),
                                     ensure_ascii=False)
    assert client.get("/search-index.pt.json").status_code == 404
    offline = client.get("/offline").text
    assert 'data-lang="de" href="/search-index.de.json" data-texts="/search-texts.de.json"' \
        in offline
    worker = client.get("/sw.js").text
    pages = json.loads(worker.split("const PAGES = ", 1)[1].split(";\n", 1)[0])
    languages = json.loads(worker.split("const LANGUAGES = ", 1)[1].split(";\n", 1)[0])
    assert "/rules/Doom" in pages and "/rules/en/Frost_Tokens" in pages
    assert "/rules/de/Doom" not in pages and "/rules/de/Doom" in languages["de"]
    assert languages["de"][:2] == ["/search-index.de.json", "/search-texts.de.json"]


def test_a_language_s_search_files_are_built_with_the_data_version(client: TestClient) -> None:
    # #20 H2 built the data version's answers once, so that a flood of cache-busting queries
    # costs no CPU; a translation's search files are such answers too, one per language.
    app: Any = client.app
    built = app.state.library.built
    for lang in LANGS:
        for kind in ("index", "texts"):
            path = f"/search-{kind}.{lang}.json"
            answer = client.get(path, params={"z": "1"}, headers={"accept-encoding": "gzip"})
            assert answer.status_code == 200
            assert built.get(path) is not None
            assert answer.headers["etag"] == built.get(path).etag_gzip
    assert built.get("/search-index.pt.json") is None


@pytest.mark.parametrize(("lang", "title", "letter"), [
    ("pl", "Łowca", "L"),  # Ł has no decomposition: its plain spelling is l
    ("pl", "Żetony", "Z"),
    ("fr", "Élimination", "E"), ("fr", "Équipement", "E"),
    ("es", "Ñandú", "Ñ"),  # a letter of the Spanish bar stays itself
    ("ru", "Ёлка", "Е"), ("ru", "Йод", "Й"),
    ("zh-cn", "毁灭", "H"), ("de", "1. Über", "U"), ("de", "«42»", OTHER),
])
def test_a_title_finds_its_letter_in_its_language(lang: str, title: str, letter: str) -> None:
    assert load_languages(DATA, "languages.json")[lang].letter(title) == letter


def test_a_language_s_example_words_are_declared_and_checked(tmp_path: Path) -> None:
    from app.errors import DataError
    found = load_languages(DATA, "languages.json")
    assert found["ko"].examples == ("예시",) and found["en"].examples == ("Example",)
    bad = {"languages": [{"lang": "ko", "name": "한국어", "letters": "ㄱㄴ", "examples": "예시"}]}
    (tmp_path / "languages.json").write_text(json.dumps(bad, ensure_ascii=False),
                                             encoding="utf-8")
    with pytest.raises(DataError, match=r'^languages.json: languages\[0\] \(lang "ko"\): '
                                        r'"examples" must be a list of non-empty strings$'):
        load_languages(tmp_path, "languages.json")

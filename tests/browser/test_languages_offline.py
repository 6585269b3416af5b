"""The browser engine with translations (#26): a German reader's browser loads the German
search files and finds a rule by its German title, offline as on the server; a Korean reader's
downloads no translation at all."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from bench.server import running_server
from tests.browser.conftest import new_context
from tests.conftest import DATA, ROOT

TINY = ROOT / "tests" / "cases" / "tiny"


@pytest.fixture(scope="module")
def translated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("data") / "data"
    shutil.copytree(DATA, folder)
    manifest = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    for lang in ("de", "ru", "zh-cn"):
        shutil.copy(TINY / f"ahlcg-rules.{lang}.json", folder / f"ahlcg-rules.{lang}.json")
        manifest["sources"].append({
            "id": f"ahlcg-reference-{lang}", "game": "ahlcg", "title": lang,
            "parser": "rules-json", "file": f"ahlcg-rules.{lang}.json", "lang": lang,
            "translation_of": "ahlcg-reference"})
    (folder / "sources.json").write_text(json.dumps(manifest, ensure_ascii=False),
                                         encoding="utf-8")
    env = {"RULES_DATA_DIR": str(folder),
           "RULES_INDEX_DIR": str(tmp_path_factory.mktemp("index"))}
    with running_server(env) as (base, _):
        yield base


def _offline(browser: Browser, base: str, locale: str, query: str) -> tuple[str, list[str]]:
    context = new_context(browser, locale=locale)
    fetched: list[str] = []
    page = context.new_page()
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(f"{base}/offline?q={query}")
    page.wait_for_selector("#offline-results[data-ready=engine]", timeout=30000)
    first = page.inner_text("#offline-results li.result")
    context.close()
    return first, [u for u in fetched if "/search-" in u]


def test_a_german_reader_finds_the_rule_by_its_german_title_offline(
        browser: Browser, translated: str) -> None:
    first, files = _offline(browser, translated, "de-DE", "Verderben")
    assert first.startswith("Verderben") and "한국어: 파멸" in first
    assert any(u.endswith("/search-index.de.json") for u in files)
    assert not any(".ru.json" in u or ".zh-cn.json" in u for u in files)


def test_a_korean_reader_downloads_no_translation(browser: Browser, translated: str) -> None:
    first, files = _offline(browser, translated, "ko-KR", "파멸")
    assert first.startswith("파멸")
    assert sorted(Path(u).name for u in files) == ["search-index.json", "search-texts.json"]

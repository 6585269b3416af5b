"""The prepared snapshot a worker starts from, and a start with the index already built: the
saved corpus is read, not parsed again, and is used only when this code saved it for these URLs
(and, beside an index, for this data)."""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from pathlib import Path

import pytest

from app.corpus.models import Corpus
from app.urls import Urls
from app.web.state import _pickled, _saved_corpus, _saved_stamp, load_library, save_corpus
from tests.conftest import DATA, write_rules_data

RULES_FILE = "ahlcg-rules.json"


@pytest.fixture
def snapshot(tmp_path: Path, corpus: Corpus) -> Path:
    """A snapshot folder: the data copy and the corpus saved from it."""
    shutil.copytree(DATA, tmp_path / "data")
    save_corpus(corpus, Urls(), tmp_path)
    return tmp_path


def test_a_worker_reads_the_saved_corpus_instead_of_parsing_the_data(
        snapshot: Path, corpus: Corpus, caplog: pytest.LogCaptureFixture) -> None:
    # The data copy is broken now: only a corpus that was not parsed from it can come back.
    (snapshot / "data" / RULES_FILE).write_text("[", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="app"):
        loaded = _saved_corpus(snapshot, Urls())
    assert loaded == corpus
    assert loaded.version == corpus.version
    assert loaded.get("Attack_of_Opportunity") == corpus.get("Attack_of_Opportunity")
    assert not caplog.records


@pytest.mark.parametrize("damage", ["truncated", "other URLs", "missing"])
def test_a_damaged_or_foreign_saved_corpus_falls_back_to_the_data_copy(
        snapshot: Path, corpus: Corpus, caplog: pytest.LogCaptureFixture, damage: str) -> None:
    saved = snapshot / "corpus.pickle"
    if damage == "truncated":
        saved.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])
    elif damage == "other URLs":
        # Links rendered for another root path must not be served under this one.
        save_corpus(corpus, Urls(root_path="/elsewhere"), snapshot)
    else:
        saved.unlink()
    with caplog.at_level(logging.WARNING, logger="app"):
        loaded = _saved_corpus(snapshot, Urls())
    assert loaded == corpus
    assert [r.getMessage() for r in caplog.records if "is not used" in r.getMessage()]


SURGE = {"id": "Surge", "title": "급증", "text": "조우 카드를 1장 더 뽑습니다."}


def _mark_kept(index: Path, corpus: Corpus, urls: Urls) -> None:
    """Replace the corpus kept beside the index with a copy dated 2000-01-01: a start that
    serves that date read it instead of parsing the data."""
    marked = dataclasses.replace(corpus, updated="2000-01-01")
    (index / "corpus.pickle").write_bytes(
        _pickled(marked, f"{corpus.version} {_saved_stamp(urls)}"))


def test_a_start_with_the_index_built_reads_the_corpus_kept_beside_it(tmp_path: Path) -> None:
    data, index = write_rules_data(tmp_path / "data", [SURGE]), tmp_path / "index"
    first = load_library(data, index, Urls())
    assert (index / "corpus.pickle").is_file()
    _mark_kept(index, first.corpus, Urls())
    again = load_library(data, index, Urls())
    assert again.corpus.updated == "2000-01-01"
    assert again.corpus.get("Surge") == first.corpus.get("Surge")
    assert [h.id for h in again.index.search("급증").hits] == ["Surge"]


@pytest.mark.parametrize("change", ["data", "URLs", "folder others can write to"])
def test_the_kept_corpus_is_not_used_for_other_data_urls_or_an_untrusted_folder(
        tmp_path: Path, change: str, caplog: pytest.LogCaptureFixture) -> None:
    data, index = write_rules_data(tmp_path / "data", [SURGE]), tmp_path / "index"
    first = load_library(data, index, Urls())
    _mark_kept(index, first.corpus, Urls())
    urls = Urls()
    if change == "data":
        (data / "rules.json").write_text(json.dumps(
            [{**SURGE, "text": "조우 카드를 2장 더 뽑습니다."}], ensure_ascii=False),
            encoding="utf-8")
    elif change == "URLs":
        urls = Urls(root_path="/rules")
    else:
        index.chmod(0o777)
    with caplog.at_level(logging.WARNING, logger="app"):
        again = load_library(data, index, urls)
    assert again.corpus.updated != "2000-01-01"
    # Updated data is the everyday case, not news: broken data's one line stays one line.
    assert not [r for r in caplog.records if "corpus kept" in r.getMessage()]
    if change == "data":
        assert "2장" in again.corpus.entries["Surge"].text


def test_an_index_rebuilt_for_the_same_data_keeps_the_corpus_again(tmp_path: Path) -> None:
    # A new index folder (here: the old one's stamp damaged, as after a new analysis) starts
    # without the corpus; the start that used the corpus kept in the old one keeps it anew.
    data, index = write_rules_data(tmp_path / "data", [SURGE]), tmp_path / "index"
    load_library(data, index, Urls())
    stamp = index / "CORPUS_VERSION"
    stamp.write_text("other/" + stamp.read_text(encoding="utf-8"), encoding="utf-8")
    load_library(data, index, Urls())
    assert (index / "corpus.pickle").is_file()

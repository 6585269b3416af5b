"""The prepared snapshot a worker starts from: its saved corpus is read, not parsed again, and
is used only when this code saved it for these URLs."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from app.corpus.models import Corpus
from app.urls import Urls
from app.web.state import _saved_corpus, save_corpus
from tests.conftest import DATA

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
    assert [r.getMessage() for r in caplog.records if "prepared corpus" in r.getMessage()]

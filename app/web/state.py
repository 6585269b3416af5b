"""What the app serves right now: the corpus and its search index, swapped atomically.

A reload builds a complete new `Library` beside the current one and replaces the reference in
one assignment, so a failed reload leaves the old data serving.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.corpus import history as rules_history
from app.corpus.build import load_corpus
from app.corpus.history import History
from app.corpus.models import Corpus
from app.errors import DataError
from app.search import SearchIndex
from app.search.index import Attachment
from app.urls import Urls

log = logging.getLogger("app")


@dataclass(frozen=True)
class Library:
    """One consistent version of the served data: a corpus, the index built from it and the
    rules' history (computed with the index, kept beside it)."""

    corpus: Corpus
    index: SearchIndex
    history: History = rules_history.EMPTY

    @property
    def version(self) -> str:
        return self.corpus.version


def load_library(data_dir: Path, index_dir: Path | None, urls: Urls) -> Library:
    """Load and validate the data, then open (or build) its index.

    Raises `DataError` (one line) on broken data, history included. The index (and the
    history with it) is rebuilt only when the data's
    content hash differs from the one it was built from, or its files are damaged. When
    `index_dir` cannot be written or trusted (a read-only container with a mounted data
    folder), the index is built in memory instead: never at a shared, guessable path.
    """
    corpus = load_corpus(data_dir, urls)
    # The history parses every revision (about a second): computed once per data version,
    # when the index is built, and kept in its folder; a start with a built index reads it.
    kept = Attachment(rules_history.ATTACHMENT, rules_history.FORMAT,
                      lambda: rules_history.compute_history(data_dir, corpus).to_json())
    index = SearchIndex.open_or_build(corpus, index_dir, (kept,))
    history = History.from_json(index.attachment(rules_history.ATTACHMENT))
    return Library(corpus=corpus, index=index, history=history)


def reload_library(state: Any, data_dir: Path, index_dir: Path) -> bool:
    """Replace `state.library` with a fresh load of `data_dir`; keep the old one on failure.

    Returns True when the new data is serving. The swap is one attribute assignment, so every
    request sees either the old library or the new one, never a mix.
    """
    old: Library = state.library
    try:
        new = load_library(data_dir, index_dir, state.urls)
    except DataError as exc:
        log.error("reload failed, still serving data version %s: %s", old.version, exc)
        return False
    state.library = new
    log.info("reloaded: data version %s → %s (%d entries)", old.version, new.version,
             len(new.corpus))
    return True

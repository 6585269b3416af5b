"""What the app serves right now: the corpus and its search index, swapped atomically.

A reload builds a complete new `Library` beside the current one and replaces the reference in
one assignment, so a failed reload leaves the old data serving.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.errors import DataError
from app.search import SearchIndex
from app.urls import Urls
from app.web.built import BuiltAnswers

log = logging.getLogger("app")


@dataclass(frozen=True)
class Library:
    """One consistent version of the served data: a corpus and the index built from it."""

    corpus: Corpus
    index: SearchIndex
    #: The answers that depend on the data version alone, built before the data serves
    #: (None until then: they are answered through the response cache meanwhile).
    built: BuiltAnswers | None = None

    @property
    def version(self) -> str:
        return self.corpus.version


def load_library(data_dir: Path, index_dir: Path | None, urls: Urls) -> Library:
    """Load and validate the data, then open (or build) its index.

    Raises `DataError` (one line) on broken data. The index is rebuilt only when the data's
    content hash differs from the one it was built from, or its files are damaged. When
    `index_dir` cannot be written or trusted (a read-only container with a mounted data
    folder), the index is built in memory instead: never at a shared, guessable path.
    """
    corpus = load_corpus(data_dir, urls)
    return Library(corpus=corpus, index=SearchIndex.open_or_build(corpus, index_dir))


def reload_library(state: Any, data_dir: Path, index_dir: Path,
                   prepare: Callable[[Library], Library] | None = None) -> bool:
    """Replace `state.library` with a fresh load of `data_dir`; keep the old one on failure.

    `prepare` completes the new library before it serves (its built answers). Returns True
    when the new data is serving. The swap is one attribute assignment, so every request sees
    either the old library or the new one, never a mix.
    """
    old: Library = state.library
    try:
        new = load_library(data_dir, index_dir, state.urls)
        if prepare is not None:
            new = prepare(new)
    except DataError as exc:
        log.error("reload failed, still serving data version %s: %s", old.version, exc)
        return False
    state.library = new
    log.info("reloaded: data version %s → %s (%d entries)", old.version, new.version,
             len(new.corpus))
    return True

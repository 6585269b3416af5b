"""What the app serves right now: the corpus and its search index, swapped atomically.

A reload builds a complete new `Library` beside the current one and replaces the reference in
one assignment, so a failed reload leaves the old data serving.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import SearchIndex
from app.urls import Urls


@dataclass(frozen=True)
class Library:
    """One consistent version of the served data: a corpus and the index built from it."""

    corpus: Corpus
    index: SearchIndex

    @property
    def version(self) -> str:
        return self.corpus.version


def load_library(data_dir: Path, index_dir: Path, urls: Urls) -> Library:
    """Load and validate the data, then open (or build) its index.

    Raises `DataError` (one line) on broken data; the index is rebuilt only when the data's
    content hash differs from the one it was built from.
    """
    corpus = load_corpus(data_dir, urls)
    return Library(corpus=corpus, index=SearchIndex.open_or_build(corpus, index_dir))

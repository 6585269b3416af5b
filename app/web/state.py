"""What the app serves right now: the corpus (and later its search index), swapped atomically.

A reload builds a complete new `Library` beside the current one and replaces the reference in
one assignment, so a failed reload leaves the old data serving.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.urls import Urls


@dataclass(frozen=True)
class Library:
    """One consistent version of the served data."""

    corpus: Corpus

    @property
    def version(self) -> str:
        return self.corpus.version


def load_library(data_dir: Path, urls: Urls) -> Library:
    """Load and validate everything; raises `DataError` (one line) on broken data."""
    return Library(corpus=load_corpus(data_dir, urls))

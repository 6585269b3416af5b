"""Build and open the on-disk Whoosh index of a corpus.

Every field is pre-tokenized by `analysis` and stored as space-separated tokens, so the schema
Whoosh pickles into the index holds only Whoosh's own `SpaceSeparatedTokenizer`: nothing of
ours is unpickled at open time and the analysis can change without breaking old indexes (a
change bumps `ANALYSIS_VERSION`, which makes `open_or_build` rebuild).

Fields: `id` (stored), `game`, `source` (filters), `title_w` / `body_w` (word variants),
`title_bg` / `body_bg` (space-insensitive bigrams), `alias` (English rule names from ids).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.analysis import SpaceSeparatedTokenizer
from whoosh.fields import ID, TEXT, Schema
from whoosh.filedb.filestore import FileStorage, RamStorage, copy_storage
from whoosh.filedb.structfile import BufferFile

from app.corpus.models import Corpus, Entry
from app.search import analysis

__all__ = ["ANALYSIS_VERSION", "FIELDS", "build_index", "entry_fields", "open_index", "schema"]

#: Bump when the analysis or the schema changes: indexes built before are rebuilt.
ANALYSIS_VERSION = "4"
_STAMP = "CORPUS_VERSION"
FIELDS = ("title_w", "title_bg", "body_w", "body_bg", "alias")


class SharedRamStorage(RamStorage):  # type: ignore[misc]
    """Whoosh's RamStorage without a copy of the file per reader.

    `RamStorage.open_file` wraps a memoryview, which `BytesIO` copies: every thread's searcher
    would hold its own copy of the index (40 pool threads × 6 MB). Handing `BytesIO` the bytes
    object itself shares it copy-on-write, and reads are never written back.
    """

    def open_file(self, name: str, **kwargs: Any) -> Any:
        if name not in self.files:
            raise NameError(name)
        return BufferFile(self.files[name], name=name, **kwargs)


def schema() -> Schema:
    """The index schema: pre-tokenized text fields plus filters."""

    def text() -> Any:
        return TEXT(analyzer=SpaceSeparatedTokenizer(), phrase=False)

    return Schema(
        id=ID(stored=True, unique=True),
        game=ID(),
        source=ID(),
        title_w=text(),
        title_bg=text(),
        body_w=text(),
        body_bg=text(),
        alias=text(),
    )


def entry_fields(entry: Entry) -> dict[str, str]:
    """The tokens stored for one entry, per field, as space-separated strings."""
    title_words = analysis.index_words(entry.title) + analysis.title_parts(entry.title)
    aliases = analysis.alias_terms(entry.id)
    if aliases:
        aliases.append(analysis.alias_key(entry.id))
    return {
        "id": entry.id,
        "game": entry.game,
        "source": entry.source,
        "title_w": " ".join(title_words),
        "title_bg": " ".join(analysis.index_bigrams(entry.title)),
        "body_w": " ".join(analysis.index_words(entry.text)),
        "body_bg": " ".join(analysis.index_bigrams(entry.text)),
        "alias": " ".join(aliases),
    }


def stamp(corpus: Corpus) -> str:
    """What an index must have been built from to serve `corpus`."""
    return f"{corpus.version}/{ANALYSIS_VERSION}"


def open_index(index_dir: Path, corpus: Corpus) -> Any | None:
    """The index in `index_dir`, loaded into memory, if it was built from this corpus and
    analysis; else None."""
    try:
        if (index_dir / _STAMP).read_text(encoding="utf-8") != stamp(corpus):
            return None
        if not whoosh_index.exists_in(str(index_dir)):
            return None
        # Held in memory (the index is small): later searchers never touch the folder, which a
        # rebuild for newer data may replace while this process still serves the old one.
        memory = SharedRamStorage()
        copy_storage(FileStorage(str(index_dir)), memory)
        return memory.open_index()
    except (OSError, ValueError, whoosh_index.IndexError):
        return None


def build_index(corpus: Corpus, index_dir: Path) -> Any:
    """Build the index in a temporary folder beside `index_dir`, then move it into place.

    Another process may be doing the same: whoever renames first wins and the loser uses the
    winner's index when it carries the right stamp.
    """
    index_dir = index_dir.resolve()
    index_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{index_dir.name}.build-", dir=index_dir.parent))
    try:
        ix = whoosh_index.create_in(str(staging), schema())
        writer = ix.writer(compound=False)
        for entry in corpus:
            writer.add_document(**entry_fields(entry))
        writer.commit()
        (staging / _STAMP).write_text(stamp(corpus), encoding="utf-8")
        # mkdtemp makes the folder private (0700); an index built at image build time (as
        # root) must stay readable by the unprivileged user that serves it.
        staging.chmod(0o755)
        _swap_into_place(staging, index_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    opened = open_index(index_dir, corpus)
    if opened is None:
        raise RuntimeError(f"search index in {index_dir} could not be opened after building")
    return opened


def _swap_into_place(staging: Path, index_dir: Path) -> None:
    old: Path | None = None
    if index_dir.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{index_dir.name}.old-", dir=index_dir.parent))
        with contextlib.suppress(OSError):  # someone else moved it first
            os.replace(index_dir, old / "index")
    with contextlib.suppress(OSError):  # someone else put one there first; its stamp decides
        os.replace(staging, index_dir)
    if old is not None:
        with contextlib.suppress(OSError):
            shutil.rmtree(old)

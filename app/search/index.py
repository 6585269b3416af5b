"""Build and open the on-disk Whoosh index of a corpus.

Every field is pre-tokenized by `analysis` and stored as space-separated tokens, so the schema
Whoosh pickles into the index holds only Whoosh's own `SpaceSeparatedTokenizer`: nothing of
ours is unpickled at open time and the analysis can change without breaking old indexes (a
change bumps `ANALYSIS_VERSION`, which makes `open_or_build` rebuild).

Fields: `id` (stored), `game`, `source` (filters), `title_w` / `body_w` (word variants),
`title_bg` / `body_bg` (space-insensitive bigrams), `alias` (English rule names from ids),
`title_tr` / `body_tr` (the titles and texts of the translations other than English:
`documents.py`), `ask_w` (word variants of the questions the entry answers, its answers file's
lines: `Document.asks`, weighed apart from the body by `Boosts.ask_w`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh.analysis import SpaceSeparatedTokenizer
from whoosh.fields import ID, TEXT, Schema
from whoosh.filedb.filestore import FileStorage, RamStorage
from whoosh.filedb.structfile import BufferFile

from app.corpus.models import Corpus
from app.search import analysis, contract
from app.search.documents import Document, documents

__all__ = ["ANALYSIS_VERSION", "ASK_FIELD", "BESIDE", "FIELDS", "Attachment", "attached",
           "build_index", "entry_fields", "field_counts", "holds", "load_index", "open_index",
           "save_index", "schema", "untrusted"]

log = logging.getLogger(__name__)

#: Derived, never typed: a hash of the contract, the analysis tables and the code that makes
#: the tokens (`contract.digest`). Indexes built under another version are rebuilt.
ANALYSIS_VERSION = contract.digest(analysis.client_tables(unicode_tables=False))
_STAMP = "CORPUS_VERSION"
#: The parsed corpus, which the library keeps in the index folder beside the index
#: (`app.web.state`), outside its checksums: a rebuilt index folder starts without it.
BESIDE = "corpus.pickle"
FIELDS = ("title_w", "title_bg", "body_w", "body_bg", "alias", "title_tr", "body_tr", "ask_w")
#: The translation fields: only documents with a translation count in their statistics
#: (`bm25.FieldStats`), so the entry's own fields score the same with or without them.
TRANSLATION_FIELDS = ("title_tr", "body_tr")
#: The field of the questions an entry answers: only documents with an answers line count in
#: its statistics, as only documents with a translation count in the translation fields'.
ASK_FIELD = "ask_w"


def field_counts(docs: Sequence[Document]) -> dict[str, int]:
    """Per field, the documents its BM25 statistics count (N, and the average length's
    denominator): the documents that can have it."""
    base = sum(1 for d in docs if d.base)
    translated = sum(1 for d in docs if d.translated)
    asked = max(1, sum(1 for d in docs if d.asks))
    return {f: translated if f in TRANSLATION_FIELDS else asked if f == ASK_FIELD else base
            for f in FIELDS}


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

    def temp_storage(self, name: str | None = None) -> Any:
        # Whoosh's writer asks for "MAIN.tmp", which RamStorage puts in the system's temporary
        # folder under that very name: two processes building at once (the supervisor and a
        # `data update`, two servers on one box) shared it, and the first to finish deleted the
        # other's files ("No such file or directory: /tmp/MAIN.tmp/…", a failed reload).
        return FileStorage(tempfile.mkdtemp(prefix="segment-", dir=self.scratch)).create()

    #: A private folder for the temporary segments of a build (removed after it, whatever
    #: Whoosh leaves in it).
    scratch: str | None = None


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
        title_tr=text(),
        body_tr=text(),
        ask_w=text(),
    )


def entry_fields(doc: Document) -> dict[str, str]:
    """The tokens stored for one document, per field, as space-separated strings."""
    entry = doc.entry
    own = doc.title if doc.base else ""
    aliases = analysis.alias_terms(doc.english)
    if aliases:
        aliases.append(analysis.alias_key(doc.english))
    return {
        "id": doc.id,
        "game": entry.game,
        "source": entry.source,
        "title_w": " ".join(title_tokens(own)),
        "title_bg": " ".join(analysis.index_bigrams(own)),
        "body_w": " ".join(analysis.index_words(doc.text)),
        "body_bg": " ".join(analysis.index_bigrams(doc.text)),
        "alias": " ".join(aliases),
        "title_tr": " ".join(t for other in doc.translated for t in title_tokens(other.title)),
        "body_tr": " ".join(t for other in doc.translated
                            for t in analysis.index_words(other.text)),
        "ask_w": " ".join(analysis.index_words(doc.asks)),
    }


def title_tokens(title: str) -> list[str]:
    """A title's word tokens: its words' variants (or grams), then its compact forms."""
    return analysis.index_words(title) + analysis.title_parts(title) if title else []


@dataclass(frozen=True)
class Attachment:
    """A file kept with the index: made from the same data when the index is built (the
    rules' history), checked and swapped with it, and held in memory beside it.

    `version` names what `build` makes: a change to it rebuilds the index folder, like a change
    of the data or the analysis.
    """

    name: str
    version: str
    build: Callable[[], bytes]


def stamp(corpus: Corpus, attachments: Sequence[Attachment] = ()) -> str:
    """What an index must have been built from to serve `corpus` (with `attachments`)."""
    kept = "".join(f" {a.name}@{a.version}" for a in attachments)
    return f"{corpus.version}/{ANALYSIS_VERSION}{kept}"


def holds(index_dir: Path, corpus: Corpus, attachments: Sequence[Attachment] = ()) -> bool:
    """Whether `index_dir` is stamped as holding the index of `corpus` (with `attachments`):
    the folder an index was just opened from or built in, not one left as it was when the
    index had to be built in memory."""
    lines = _stamp_lines(index_dir)
    return bool(lines) and lines[0] == stamp(corpus, attachments)


def _stamp_lines(index_dir: Path) -> list[str]:
    """The lines of `index_dir`'s stamp file (its stamp, then a checksum per file); [] when it
    cannot be read."""
    try:
        return (index_dir / _STAMP).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def attached(ix: Any, name: str) -> bytes:
    """The attachment `name` of an index `load_index` returned."""
    data: bytes = ix.storage.files[name]
    return data


def load_index(corpus: Corpus, index_dir: Path | None,
               attachments: Sequence[Attachment] = ()) -> Any:
    """The index for `corpus`: from `index_dir` when it holds one built from this corpus
    (with these attachments), intact and ours; else built there; else (no folder, or one we
    cannot trust or write) built in memory. Each fallback is one warning line. The
    attachments are read with `attached`.
    """
    if index_dir is None:
        return _build_in_memory(corpus, attachments)
    index_dir = index_dir.absolute()
    problem = untrusted(index_dir)
    if problem:
        log.warning("search index folder %s is not safe to use (%s); building the index in "
                    "memory", index_dir, problem)
        return _build_in_memory(corpus, attachments)
    opened, damage = _open_verified(index_dir, corpus, attachments)
    if opened is not None:
        return opened
    if damage:
        log.warning("search index in %s is damaged (%s); rebuilding it", index_dir, damage)
    try:
        return build_index(corpus, index_dir, attachments)
    except OSError as exc:
        log.warning("cannot write the search index to %s (%s); building it in memory",
                    index_dir, exc.strerror or exc)
        return _build_in_memory(corpus, attachments)


def open_index(index_dir: Path, corpus: Corpus,
               attachments: Sequence[Attachment] = ()) -> Any | None:
    """The index in `index_dir`, loaded into memory, if it was built from this corpus and
    analysis (and attachments) and its files are exactly the ones written then; else None."""
    return _open_verified(index_dir, corpus, attachments)[0]


def _open_verified(index_dir: Path, corpus: Corpus,
                   attachments: Sequence[Attachment] = ()) -> tuple[Any | None, str]:
    """(index, "") when intact; (None, "") when absent or for other data; (None, why) when
    the files do not match the checksums written with them.

    Whoosh unpickles its table of contents, so nothing is handed to it before every file has
    been read into memory and checked: a damaged or swapped file is caught here, and the
    index served is byte for byte the one that was built.
    """
    lines = _stamp_lines(index_dir)
    if len(lines) < 2 or lines[0] != stamp(corpus, attachments):
        return None, ""  # for other data, or from a version that wrote no checksums
    expected = dict(line.split(" ", 1)[::-1] for line in lines[1:] if " " in line)
    try:
        present = {p.name for p in index_dir.iterdir()} - {_STAMP, BESIDE}
        if not expected or present != set(expected):
            return None, "its files are not the ones listed in " + _STAMP
        memory = SharedRamStorage()
        for name, digest in expected.items():
            data = (index_dir / name).read_bytes()
            if hashlib.sha256(data).hexdigest() != digest:
                return None, f"{name} does not match its checksum"
            memory.files[name] = data
        return memory.open_index(), ""
    except OSError as exc:
        return None, str(exc.strerror or exc)
    except Exception as exc:  # a file that matches its checksum but Whoosh cannot read
        return None, type(exc).__name__


def build_index(corpus: Corpus, index_dir: Path,
                attachments: Sequence[Attachment] = ()) -> Any:
    """Build the index in a private folder beside `index_dir`, then move it into place.

    The folder stays private (0700) to the user that built it; the Dockerfile opens the one
    it builds at image build time to the runtime user. Another process may be building at the
    same time: whoever renames first wins and the loser uses the winner's index when it
    carries the right stamp.
    """
    index_dir = index_dir.absolute()
    index_dir.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{index_dir.name}.build-", dir=index_dir.parent))
    try:
        _write(whoosh_index.create_in(str(staging), schema()), corpus)
        for attachment in attachments:
            (staging / attachment.name).write_bytes(attachment.build())
        sums = [f"{hashlib.sha256(p.read_bytes()).hexdigest()} {p.name}"
                for p in sorted(staging.iterdir())]
        (staging / _STAMP).write_text("\n".join([stamp(corpus, attachments), *sums]) + "\n",
                                      encoding="utf-8")
        _swap_into_place(staging, index_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    opened = open_index(index_dir, corpus, attachments)
    if opened is None:
        raise RuntimeError(f"search index in {index_dir} could not be opened after building")
    return opened


def save_index(ix: Any, corpus: Corpus, folder: Path,
               attachments: Sequence[Attachment] = ()) -> None:
    """Write the index `ix` (held in memory, as every index this module opens is, with its
    `attachments`) into the new folder `folder`, with its stamp and checksums: what
    `open_index` opens and verifies. The server writes it into the data snapshot its workers
    start from."""
    files: dict[str, bytes] = dict(ix.storage.files)
    folder.mkdir(mode=0o700, parents=True)
    sums = []
    for name, data in sorted(files.items()):
        (folder / name).write_bytes(data)
        sums.append(f"{hashlib.sha256(data).hexdigest()} {name}")
    (folder / _STAMP).write_text("\n".join([stamp(corpus, attachments), *sums]) + "\n",
                                 encoding="utf-8")


def _build_in_memory(corpus: Corpus, attachments: Sequence[Attachment] = ()) -> Any:
    memory = SharedRamStorage()
    with tempfile.TemporaryDirectory(prefix="rulesajeon-index-") as scratch:
        memory.scratch = scratch
        _write(memory.create_index(schema()), corpus)
    memory.scratch = None
    for attachment in attachments:
        memory.files[attachment.name] = attachment.build()
    return memory.open_index()


def _write(ix: Any, corpus: Corpus) -> None:
    writer = ix.writer(compound=False)
    for doc in documents(corpus):
        writer.add_document(**entry_fields(doc))
    writer.commit()


def untrusted(index_dir: Path) -> str:
    """Why `index_dir` could have been written by someone else, or "" when it is ours.

    The folder and its files must belong to this user (or root, for an index built into an
    image) and be writable by nobody else; the folder above may be shared only when it is
    sticky (like /tmp), where others cannot replace what is ours.
    """
    me = os.geteuid()
    try:
        parent = index_dir.parent.stat()
        if parent.st_uid not in (me, 0):
            return f"{index_dir.parent} belongs to another user"
        if parent.st_mode & 0o022 and not parent.st_mode & stat.S_ISVTX:
            return f"others can write to {index_dir.parent}"
        if not index_dir.exists() and not index_dir.is_symlink():
            return ""
        info = index_dir.lstat()
        if not stat.S_ISDIR(info.st_mode):
            return "it is not a folder"
        for path, item in [(index_dir, info), *((p, p.lstat()) for p in index_dir.iterdir())]:
            if item.st_uid not in (me, 0):
                return f"{path.name} belongs to another user"
            if item.st_mode & 0o022:
                return f"others can write to {path.name}"
    except FileNotFoundError:
        return ""  # a parent that does not exist yet is created private
    except OSError as exc:
        return str(exc.strerror or exc)
    return ""
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

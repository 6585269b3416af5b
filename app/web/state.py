"""What the app serves right now: the corpus and its search index, swapped atomically.

A reload builds a complete new `Library` beside the current one and replaces the reference in
one assignment, so a failed reload leaves the old data serving.
"""

from __future__ import annotations

import copyreg
import hashlib
import io
import json
import logging
import os
import pickle
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from app.corpus import history as rules_history
from app.corpus.build import load_corpus, version_of
from app.corpus.history import History
from app.corpus.models import Corpus
from app.errors import DataError
from app.search import SearchIndex
from app.search.index import BESIDE, Attachment, holds, untrusted
from app.urls import Urls
from app.web.built import BuiltAnswers

log = logging.getLogger("app")


@dataclass(frozen=True)
class Library:
    """One consistent version of the served data: a corpus, the index built from it and the
    rules' history (computed with the index, kept beside it)."""

    corpus: Corpus
    index: SearchIndex
    history: History = rules_history.EMPTY
    #: The answers that depend on the data version alone, built before the data serves
    #: (None until then: they are answered through the response cache meanwhile).
    built: BuiltAnswers | None = None
    #: Views that depend on this version alone, made as a worker starts or when first asked
    #: for (an entry page's data and its version-bound HTML: `routes._entry_view`,
    #: `routes._entry_article`). Bounded by the corpus; a new version starts empty.
    views: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)

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
    kept = _kept_corpus(data_dir, index_dir, urls)
    corpus = kept or load_corpus(data_dir, urls)
    attachments = (_history_kept(data_dir, corpus),)
    index = SearchIndex.open_or_build(corpus, index_dir, attachments)
    history = History.from_json(index.attachment(rules_history.ATTACHMENT))
    # Kept again when it was not used, or when the index was rebuilt (a new folder, without it).
    if (index_dir is not None and (kept is None or not (index_dir / BESIDE).is_file())
            and holds(index_dir, corpus, attachments)):
        _keep_corpus(corpus, urls, index_dir)
    return Library(corpus=corpus, index=index, history=history)


# The corpus parsed and rendered (0.45 s of a start), kept in the index folder for the next
# start with the same data, code and URLs: the folder is trusted as the index is (whose files
# Whoosh unpickles), ours and writable by no one else (`index.untrusted`).

def _kept_corpus(data_dir: Path, index_dir: Path | None, urls: Urls) -> Corpus | None:
    """The corpus kept in `index_dir` for the data now in `data_dir`, or None."""
    if index_dir is None or not (index_dir / BESIDE).is_file() or untrusted(index_dir):
        return None
    version = version_of(data_dir)
    if version is None:
        return None
    # New data or new code leaves the kept corpus stale: expected, so said only when damaged.
    return _unpickled(index_dir / BESIDE, _kept_stamp(version, urls), stale_is_news=False)


def _kept_stamp(version: str, urls: Urls) -> str:
    """What a kept corpus is stamped with, and must be to be read: one place for both, as a
    stale corpus is passed over without a word."""
    return f"{version} {_saved_stamp(urls)}"


def _keep_corpus(corpus: Corpus, urls: Urls, index_dir: Path) -> None:
    """Keep `corpus` in the index folder, which holds its index (atomically: a reader sees
    the old file or the new, whole)."""
    if untrusted(index_dir) or not os.access(index_dir, os.W_OK):
        return  # an index carried by a read-only image: its corpus is the image's to keep
    try:
        with tempfile.NamedTemporaryFile(dir=index_dir, prefix=".corpus-", delete=False) as out:
            out.write(_pickled(corpus, _kept_stamp(corpus.version, urls)))
        os.replace(out.name, index_dir / BESIDE)
    except OSError as exc:
        log.warning("cannot keep the corpus in %s (%s); the next start parses the data",
                    index_dir, exc.strerror or exc)


def _history_kept(data_dir: Path, corpus: Corpus) -> Attachment:
    # The history parses every revision (about a second): computed once per data version,
    # when the index is built, and kept in its folder; a start with a built index reads it.
    return Attachment(rules_history.ATTACHMENT, rules_history.FORMAT,
                      lambda: rules_history.compute_history(data_dir, corpus).to_json())


#: Set by the supervisor of several workers: the prepared snapshot a worker starts from.
PREPARED_ENV = "RULES_PREPARED"
#: Set by the supervisor: the file that says whether every worker can serve (`/readyz`).
STATUS_ENV = "RULES_WORKER_STATUS"


def load_prepared(folder: Path, urls: Urls, code_version: str) -> Library:
    """The library of a snapshot the supervisor prepared (`app.web.server`): its data copy,
    its verified index and its built answers, each checked against the data version (an index
    or answers that do not match are made again, with one warning)."""
    corpus = _saved_corpus(folder, urls)
    index = SearchIndex.open_or_build(corpus, folder / "index",
                                      (_history_kept(folder / "data", corpus),))
    history = History.from_json(index.attachment(rules_history.ATTACHMENT))
    built = BuiltAnswers.load(folder / "built", corpus.version, code_version)
    if built is None:
        log.warning("the prepared answers in %s do not match the data; building them", folder)
    return Library(corpus=corpus, index=index, history=history, built=built)


#: The corpus the supervisor loaded, saved in the snapshot beside its data copy: a worker reads
#: it in about 10 ms, where parsing and rendering the data copy took 0.45 s of each worker's
#: start (bench.server). A pickle runs code when read, so it is read only from the snapshot
#: folder the server made for itself (mode 0700, locked), never from the data folder.
_CORPUS = "corpus.pickle"
_APP = Path(__file__).resolve().parents[1]


def save_corpus(corpus: Corpus, urls: Urls, folder: Path) -> None:
    """Save `corpus` (loaded with `urls`) into the snapshot `folder`, for `load_prepared`."""
    (folder / _CORPUS).write_bytes(_pickled(corpus, _saved_stamp(urls)))


def _pickled(corpus: Corpus, stamp: str) -> bytes:
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_mapping}
    pickler.dump((stamp, corpus))
    return buffer.getvalue()


def _unpickled(path: Path, stamp: str, *, stale_is_news: bool = True) -> Corpus | None:
    """The corpus `_pickled` wrote to `path` with `stamp`; None (with one warning) when it is
    absent, damaged or was written with another stamp (other code, URLs or data; without a
    warning unless `stale_is_news`)."""
    try:
        saved, corpus = pickle.loads(path.read_bytes())
        if saved == stamp and isinstance(corpus, Corpus):
            return corpus
        if not stale_is_news and isinstance(saved, str):
            return None
        why = "it was saved by other code, or for other URLs or data"
    except (OSError, EOFError, ValueError, TypeError, AttributeError, ImportError,
            IndexError, pickle.UnpicklingError) as exc:
        why = f"it cannot be read ({type(exc).__name__})"
    log.warning("the corpus kept in %s is not used, %s; loading the data", path, why)
    return None


def _saved_corpus(folder: Path, urls: Urls) -> Corpus:
    """The corpus saved in the snapshot, if this code saved it with these URLs; else (absent,
    damaged, or written by other code: the server's files were replaced while it ran) the
    snapshot's data copy, loaded, with one warning."""
    return (_unpickled(folder / _CORPUS, _saved_stamp(urls))
            or load_corpus(folder / "data", urls))


def _reduce_mapping(mapping: Mapping[str, Any]) -> tuple[Any, ...]:
    return (_mapping, (dict(mapping),))


def _mapping(items: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(items)


@cache
def _code_hash() -> str:
    """A hash of the app's Python sources: the classes a saved corpus is made of."""
    digest = hashlib.sha256()
    for path in sorted(_APP.rglob("*.py")):
        digest.update(path.relative_to(_APP).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _saved_stamp(urls: Urls) -> str:
    return f"{_code_hash()} {urls!r}"


def workers_ready() -> tuple[bool, str]:
    """(whether every worker of this server can serve, why not); a single process is always
    ready once it answers. The supervisor keeps the status file current."""
    path = os.environ.get(STATUS_ENV)
    if not path:
        return True, ""
    try:
        status = json.loads(Path(path).read_text(encoding="utf-8"))
        ready, total = int(status["ready"]), int(status["workers"])
    except (OSError, ValueError, KeyError, TypeError):
        return False, "the supervisor's status is missing"
    if ready < total:
        return False, f"{ready} of {total} workers can serve"
    return True, ""


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

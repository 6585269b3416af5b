"""`python -m app data update [--from BASE]`: newer upstream files, installed as new revisions.

For each source whose manifest entry names an `upstream` path (`rules/ko/rules.json`):

1. fetch `BASE/path`, where BASE is an http(s) URL, a `file://` URL or a folder laid out like
   the upstream repository (default: the manifest's `upstream.base`), bounded in size and time;
   a failed or cut-off download changes nothing;
2. a file with the same bytes as the source's own changes nothing;
3. in a private copy of the data folder, put each changed file in place and add it to the
   source's history as a new revision, then validate the copy with the same checks as
   `python -m app check`, history included: one error refuses the whole update, in one line
   naming the file and the problem;
4. only then write the new files into the data folder, each by an atomic rename (revision
   file, source file, revision index, in that order) with interrupting signals held back: the
   folder holds valid data at every moment, and a running server keeps serving the old data
   until it reloads;
5. print what changed (entries new, rewritten, removed) and tell a running server to reload
   (SIGHUP, through its pid file), or say how.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import http.client
import json
import os
import shutil
import signal
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from app.corpus.build import Problem, inspect_data
from app.corpus.history import History
from app.corpus.manifest import MANIFEST, load_manifest
from app.corpus.models import SourceSpec
from app.corpus.revisions import index_entry
from app.corpus.snapshot import snapshot
from app.errors import DataError
from app.pidfile import running_server

__all__ = ["MAX_BYTES", "TIMEOUT", "Outcome", "UpdateError", "UpdateResult", "fetch",
           "reload_server", "update_data"]

#: The upstream rules file is about 400 KB; a response forty times that is not a rules file.
MAX_BYTES = 16 * 1024 * 1024
#: Seconds one download may take, connecting and reading together.
TIMEOUT = 60.0
_CHUNK = 64 * 1024
#: Warnings printed per update before "and N more".
_WARNINGS_SHOWN = 10


class UpdateError(Exception):
    """The update cannot be made; nothing was changed. The message is one line."""


@dataclass(frozen=True)
class Outcome:
    """What the update did to one source."""

    source: str
    url: str
    #: The new revision's key, or "" when the file was unchanged.
    revision: str = ""
    new: int = 0
    rewritten: int = 0
    removed: int = 0
    renamed: int = 0

    def line(self) -> str:
        if not self.revision:
            return f"{self.source}: unchanged ({self.url})"
        counts = f"{self.new} new, {self.rewritten} rewritten, {self.removed} removed"
        if self.renamed:
            counts += f", {self.renamed} renamed"
        return f"{self.source}: new revision {self.revision}: {counts} ({self.url})"


@dataclass
class UpdateResult:
    outcomes: list[Outcome]
    #: The check's warnings about the new files that the data did not have before.
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(o.revision for o in self.outcomes)


# --- Downloads --------------------------------------------------------------------------------

def _url(base: str, path: str) -> str:
    """`base` and an upstream `path` as one URL or file path."""
    scheme = urlsplit(base).scheme
    if scheme in ("http", "https", "file"):
        return base.rstrip("/") + "/" + quote(path)
    return str(Path(base) / path)


def fetch(base: str, path: str, *, max_bytes: int = MAX_BYTES,
          timeout: float = TIMEOUT) -> bytes:
    """The bytes of `path` under `base`, or `UpdateError` (too big, too slow, cut off, not
    there). Nothing is written anywhere."""
    url = _url(base, path)
    scheme = urlsplit(base).scheme
    if scheme not in ("http", "https"):
        local = Path(unquote(urlsplit(url).path)) if scheme == "file" else Path(url)
        return _read_local(local, url, max_bytes)
    request = urllib.request.Request(url, headers={"User-Agent": "rulesajeon-data-update"})
    deadline = time.monotonic() + timeout
    try:
        with urllib.request.urlopen(request, timeout=min(timeout, 30.0)) as response:
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                raise UpdateError(f"{url}: {int(length):,} bytes (at most {max_bytes:,})")
            body = bytearray()
            while True:
                if time.monotonic() > deadline:
                    raise UpdateError(f"{url}: not received within {timeout:.0f} s")
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                body.extend(chunk)
                if len(body) > max_bytes:
                    raise UpdateError(f"{url}: more than {max_bytes:,} bytes")
            # http.client ends a read short, without an error, when the connection closes
            # before the promised length: a cut-off file must never pass for a whole one.
            if length is not None and length.isdigit() and len(body) < int(length):
                raise http.client.IncompleteRead(bytes(body), int(length) - len(body))
            return bytes(body)
    except http.client.IncompleteRead as exc:
        raise UpdateError(f"{url}: the download was cut off after {len(exc.partial):,} bytes"
                          ) from None
    except urllib.error.HTTPError as exc:
        raise UpdateError(f"{url}: the server answered {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise UpdateError(f"{url}: cannot connect ({exc.reason})") from None
    except (TimeoutError, OSError, http.client.HTTPException) as exc:
        raise UpdateError(f"{url}: the download failed ({exc or type(exc).__name__})"
                          ) from None


def _read_local(path: Path, url: str, max_bytes: int) -> bytes:
    try:
        with path.open("rb") as file:
            data = file.read(max_bytes + 1)
    except FileNotFoundError:
        raise UpdateError(f"{url}: no such file") from None
    except OSError as exc:
        raise UpdateError(f"{url}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise UpdateError(f"{url}: more than {max_bytes:,} bytes")
    return data


# --- The update -----------------------------------------------------------------------------

def update_data(data_dir: Path, base: str | None = None, *,
                today: datetime.date | None = None) -> UpdateResult:
    """Fetch every source's upstream file, validate, install. Raises `UpdateError` (nothing
    changed) with a one-line reason."""
    try:
        manifest = load_manifest(data_dir)
    except DataError as exc:
        raise UpdateError(f"cannot read the data folder: {exc}") from None
    sources = [s for s in manifest.sources if s.upstream]
    if not sources:
        raise UpdateError(f'no source in {data_dir / MANIFEST} names an "upstream" file')
    base = base or manifest.upstream_base
    if not base:
        raise UpdateError(f"give --from BASE: {MANIFEST} names no upstream.base")
    downloads = {s.id: fetch(base, s.upstream) for s in sources}
    changed = [s for s in sources if downloads[s.id] != _current(data_dir, s)]
    if not changed:
        return UpdateResult([Outcome(s.id, _url(base, s.upstream)) for s in sources])
    date = (today or datetime.datetime.now(datetime.UTC).date()).isoformat()
    stage = Path(tempfile.mkdtemp(prefix="rulesajeon-update-"))
    try:
        try:
            snapshot(data_dir, stage)
        except DataError as exc:
            raise UpdateError(f"cannot copy the data folder: {exc}") from None
        writes = [w for s in changed for w in _stage(stage, s, downloads[s.id], date, base)]
        _corpus, history, problems = inspect_data(stage)
        errors = [p for p in problems if p.error]
        if errors or history is None:
            first = errors[0] if errors else Problem(MANIFEST, "", "no history")
            raise UpdateError(f"{_origin(first, changed, base)}refused, nothing changed: {first}"
                              + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
        warnings = _new_warnings(data_dir, problems, changed)
        outcomes = [_outcome(s, base, history, changed) for s in sources]
        _install(stage, data_dir, writes)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return UpdateResult(outcomes, warnings)


def _current(data_dir: Path, spec: SourceSpec) -> bytes | None:
    try:
        return (data_dir / spec.file).read_bytes()
    except OSError:
        return None


def _stage(stage: Path, spec: SourceSpec, data: bytes, date: str, base: str) -> list[str]:
    """Put `data` in place in the copy, as the source's file and as a new revision of its
    history; returns the files to install, in the order to install them."""
    (stage / spec.file).write_bytes(data)
    if spec.history is None:
        return [spec.file]
    folder = stage / spec.history.folder
    index_path = folder / spec.history.index
    try:
        doc: Any = json.loads(index_path.read_text(encoding="utf-8"))
        revisions: list[Any] = doc["revisions"]
    except (OSError, ValueError, KeyError, TypeError):
        raise UpdateError(f"{spec.history.folder}/{spec.history.index}: cannot read the "
                          "revision index; run python -m app check") from None
    digest = hashlib.sha256(data).hexdigest()
    name = f"{date}_{digest[:9]}.json"
    taken = {r.get("file") for r in revisions if isinstance(r, dict)}
    for n in range(2, 100):
        if name not in taken:
            break
        name = f"{date}_{digest[:9]}-{n}.json"
    (folder / name).write_bytes(data)
    subject = f"python -m app data update ({urlsplit(base).netloc or 'local files'})"
    revisions.append(index_entry(name, data, date=date, subject=subject))
    index_path.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n",
                          encoding="utf-8")
    return [f"{spec.history.folder}/{name}", spec.file,
            f"{spec.history.folder}/{spec.history.index}"]


def _origin(problem: Problem, changed: list[SourceSpec], base: str) -> str:
    """"rules/ko/rules.json from BASE: " when the problem is in a downloaded file."""
    for spec in changed:
        if problem.file == spec.file or (spec.history is not None
                                         and problem.file.startswith(spec.history.folder + "/")):
            return f"{_url(base, spec.upstream)}: "
    return ""


def _new_warnings(data_dir: Path, problems: list[Problem],
                  changed: list[SourceSpec]) -> list[str]:
    """The warnings about the changed files that the current data does not already have."""
    files = {s.file for s in changed}
    before = {str(p) for p in inspect_data(data_dir)[2]}
    found = [str(p) for p in problems if not p.error and p.file in files
             and str(p) not in before]
    if len(found) > _WARNINGS_SHOWN:
        found = [*found[:_WARNINGS_SHOWN],
                 f"… and {len(found) - _WARNINGS_SHOWN} more (python -m app check)"]
    return found


def _outcome(spec: SourceSpec, base: str, history: History,
             changed: list[SourceSpec]) -> Outcome:
    url = _url(base, spec.upstream)
    if spec not in changed:
        return Outcome(spec.id, url)
    if spec.id not in history.sources:  # a source without a history: the file is replaced
        return Outcome(spec.id, url, f"{spec.file} (no history kept)")
    revisions = history.sources[spec.id].revisions
    newest = revisions[-1].number
    kinds = [c.kind for e in history.entries.values() if e.source == spec.id
             for c in e.changes if c.revision == newest]
    return Outcome(spec.id, url, revisions[-1].key,
                   new=kinds.count("added") + kinds.count("restored"),
                   rewritten=kinds.count("changed"), removed=kinds.count("removed"),
                   renamed=kinds.count("renamed"))


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait until the block ends (then take effect)."""
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _install(stage: Path, data_dir: Path, files: list[str]) -> None:
    """Copy each file of the validated copy into the data folder: written beside its target,
    flushed to disk, then renamed over it, so every file is whole and the folder valid at
    every step. If a write fails (a full disk), what was installed is put back as it was."""
    before: dict[Path, bytes | None] = {}
    with _signals_held():
        try:
            for name in files:
                target = data_dir / name
                before[target] = target.read_bytes() if target.is_file() else None
                _replace(target, (stage / name).read_bytes())
        except OSError as exc:
            for target, old in reversed(list(before.items())):
                with contextlib.suppress(OSError):
                    if old is None:
                        target.unlink(missing_ok=True)
                    else:
                        _replace(target, old)
            raise UpdateError(f"cannot write into {data_dir} ({exc.strerror or exc}); "
                              "nothing changed") from None


def _replace(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.update-{os.getpid()}")
    try:
        with partial.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, target)
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


def reload_server(pid_file: Path) -> str:
    """Tell the server holding `pid_file` to reload; what was done, as one line."""
    pid = running_server(pid_file)
    if pid is None:
        return (f"no running server found ({pid_file} is not held): a server started now "
                "serves the new data; one started otherwise reloads on SIGHUP "
                "(kill -HUP <pid>, docker compose kill -s HUP rules)")
    try:
        os.kill(pid, signal.SIGHUP)
    except OSError as exc:
        return (f"could not signal the server (pid {pid}: {exc.strerror or exc}): reload it "
                f"with kill -HUP {pid}")
    return (f"told the server (pid {pid}) to reload; it serves the old data until the new "
            "data has loaded")


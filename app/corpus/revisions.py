"""A source's earlier revisions, as the manifest declares them, read from their index file.

A source may declare `"history": {"folder": "history/rules-ko", "index": "revisions.json"}`:
the folder holds one file per revision of the source's file, exactly as it was published, and
the index lists them oldest first, each with the facts that only the data knows (the date and
subject of the upstream commit):

    {"revisions": [{"file": "2023-09-04_928d3538c.json", "date": "2023-09-04",
                    "subject": "…", "commit": "928d3538c…", "sha256": "…", "valid": true}]}

`valid: false` marks a revision that was published broken (kept for the record, never read);
`baseline: true` marks a first revision that is a snapshot rather than the file's creation,
so its entries have no known date of addition. This module only reads and checks the index;
`app.corpus.history` reads the revisions themselves.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.corpus.manifest import Manifest
from app.corpus.models import HistoryDecl, SourceSpec
from app.errors import DataError

__all__ = ["MAX_REVISIONS", "RevisionDecl", "declared_files", "index_entry", "load_revisions",
           "revision_files"]

#: Far more than upstream's 45 revisions in five years; each one is parsed when the history
#: is computed, so the count is bounded like every other input.
MAX_REVISIONS = 1_000
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{0,64}")
#: A plain file name inside the history folder: no path separators, nothing hidden.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,150}")


@dataclass(frozen=True)
class RevisionDecl:
    """One revision as the index lists it."""

    #: The file, relative to the data folder (`history/rules-ko/2023-09-04_928d3538c.json`).
    file: str
    #: Its name inside the history folder, without `.json`: the revision's key in URLs.
    key: str
    date: str
    subject: str
    commit: str
    sha256: str
    valid: bool = True
    baseline: bool = False


def _index_path(decl: HistoryDecl) -> str:
    return f"{decl.folder}/{decl.index}"


def load_revisions(data_dir: Path, spec: SourceSpec) -> tuple[RevisionDecl, ...]:
    """The revisions `spec` declares, oldest first, or `DataError` naming the first problem
    of the index file (the revision files themselves are not read here)."""
    decl = spec.history
    if decl is None:
        return ()
    index = _index_path(decl)
    try:
        doc: Any = json.loads((data_dir / index).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(index, "", "file not found (the history of source "
                                   f'"{spec.id}")') from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(index, "", f"cannot read the revision index ({exc})") from None
    items = doc.get("revisions") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        raise DataError(index, "", '"revisions" must be a non-empty list')
    if len(items) > MAX_REVISIONS:
        raise DataError(index, "", f"{len(items):,} revisions (at most {MAX_REVISIONS:,})")
    found: list[RevisionDecl] = []
    for i, item in enumerate(items):
        found.append(_revision(index, f"revisions[{i}]", item, decl))
    keys = [r.key for r in found]
    for i, key in enumerate(keys):
        if key in keys[:i]:
            raise DataError(index, f"revisions[{i}]", f'file "{key}.json" is listed twice')
    for i in range(1, len(found)):
        if found[i].date < found[i - 1].date:
            raise DataError(index, f"revisions[{i}]", f"date {found[i].date} is before the "
                                                      f"previous revision's ({found[i - 1].date}):"
                                                      " list revisions oldest first")
    return tuple(found)


def _revision(index: str, where: str, item: object, decl: HistoryDecl) -> RevisionDecl:
    if not isinstance(item, dict):
        raise DataError(index, where, "a revision must be an object")
    name = item.get("file")
    if not isinstance(name, str) or not _NAME.fullmatch(name) or not name.endswith(".json"):
        raise DataError(index, where, '"file" must be a file name in the history folder '
                                      'ending in ".json" (letters, digits, "._-")')
    where = f'{where} ("{name}")'
    date, subject = item.get("date"), item.get("subject", "")
    if not isinstance(date, str) or not _DATE.fullmatch(date):
        raise DataError(index, where, '"date" must be a date like "2023-09-04"')
    if not isinstance(subject, str) or len(subject) > 1_000:
        raise DataError(index, where, '"subject" must be a string (at most 1,000 characters)')
    commit = item.get("commit", "")
    if not isinstance(commit, str) or not _COMMIT.fullmatch(commit):
        raise DataError(index, where, '"commit" must be a commit hash (hex digits) or ""')
    sha = item.get("sha256")
    if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
        raise DataError(index, where, '"sha256" must be the file\'s SHA-256 (64 hex digits)')
    valid, baseline = item.get("valid", True), item.get("baseline", False)
    if not isinstance(valid, bool) or not isinstance(baseline, bool):
        raise DataError(index, where, '"valid" and "baseline" must be true or false')
    return RevisionDecl(file=f"{decl.folder}/{name}", key=name.removesuffix(".json"),
                        date=date, subject=" ".join(subject.split()), commit=commit,
                        sha256=sha, valid=valid, baseline=baseline)


def revision_files(data_dir: Path, manifest: Manifest) -> list[str]:
    """Every revision file the manifest's histories list as valid (relative to the data
    folder), for the data version and the private copy. Lenient: an index that cannot be read
    lists nothing here; loading reports it."""
    files: list[str] = []
    for spec in manifest.sources:
        try:
            files.extend(r.file for r in load_revisions(data_dir, spec) if r.valid)
        except DataError:
            continue
    return files


def declared_files(data_dir: Path, manifest: Manifest) -> tuple[str, ...]:
    """The manifest's own files and every revision file its histories list, each once."""
    return tuple(sorted({*manifest.files, *revision_files(data_dir, manifest)}))


def index_entry(name: str, data: bytes, *, date: str, subject: str, commit: str = "",
                nodes: int | None = None) -> dict[str, Any]:
    """The index object for a new revision file `name` holding `data` (`data update`)."""
    entry: dict[str, Any] = {"file": name, "commit": commit, "date": date, "subject": subject}
    if nodes is not None:
        entry["nodes"] = nodes
    entry.update(sha256=hashlib.sha256(data).hexdigest(), valid=True)
    return entry

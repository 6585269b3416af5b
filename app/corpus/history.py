"""The rules' history: what each revision of a source added, changed, renamed and removed.

A source that declares its earlier revisions (`app.corpus.revisions`) gets, per entry: the
revision that added it, each revision that changed its title or text, and its removal. The
source's own file is the newest state; when it differs from the newest listed revision (a file
copied in by hand), it counts as one more, local revision.

What counts as a change is what a reader can see: the plain text of the title and body (icons
as their names, links as their labels), with every run of whitespace counted as one space.
Markup alone (bold, a link's target, the spacing) is not a change, so every change listed has
a word-level difference to show.

An id that disappears while another appears with nearly the same words is a rename, found by
content (`app.corpus.renames`): the entry keeps its history under the new id and the old id
redirects. An id that disappears with no such successor is removed: its last text stays
readable.

Computing this parses every revision (about two seconds for the bundled 72): it is done once
per data version and kept with the search index (`app.web.state`), never per request.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from app.corpus.manifest import load_manifest
from app.corpus.models import Corpus, SourceSpec
from app.corpus.normalize import SPACES
from app.corpus.parsers import parse_bytes
from app.corpus.renames import renames as find_renames
from app.corpus.revisions import RevisionDecl, load_revisions
from app.errors import DataError
from app.render.diff import change_size, count_words
from app.render.icons import IconSet
from app.render.markup import LinkTarget, render, render_inline

__all__ = ["ATTACHMENT", "EMPTY", "FORMAT", "Change", "EntryHistory", "History", "Revision",
           "SourceHistory", "compute_history"]

#: Bump when what is computed or how it is stored changes: stored histories are recomputed.
FORMAT = "1"
#: The file the history is kept in, beside the search index.
ATTACHMENT = "history.json"
Kind = Literal["added", "changed", "renamed", "removed", "restored"]
_KINDS: tuple[Kind, ...] = ("added", "changed", "renamed", "removed", "restored")


@dataclass(frozen=True)
class Revision:
    """One revision of a source, as its index lists it (or the local file)."""

    source: str
    number: int
    key: str
    date: str
    subject: str
    commit: str = ""
    #: The history starts with a snapshot: its entries' additions are not known.
    baseline: bool = False
    #: The source's file differs from every listed revision: edited or copied in by hand.
    local: bool = False


@dataclass(frozen=True)
class Change:
    """What one revision did to one entry; `title` and `text` are the entry's plain text
    after it (for a removal: the last text it had)."""

    revision: int
    kind: Kind
    id: str
    title: str
    text: str
    #: Words added and removed against the previous version (an addition: all its words).
    added: int = 0
    removed: int = 0
    title_changed: bool = False
    #: The id it had before this revision, when this revision renamed it.
    renamed_from: str = ""

    @property
    def edits(self) -> bool:
        """Whether the title or text changed (an addition, a rewrite, a restored text)."""
        return self.kind in ("added", "changed", "restored")


@dataclass(frozen=True)
class EntryHistory:
    """Every change to one entry, oldest first; the first is its addition."""

    id: str
    source: str
    changes: tuple[Change, ...]

    @property
    def added(self) -> Change:
        return self.changes[0]

    @property
    def removed(self) -> bool:
        return self.changes[-1].kind == "removed"

    @property
    def revisions(self) -> tuple[Change, ...]:
        """The changes after the addition that changed its title or text."""
        return tuple(c for c in self.changes[1:] if c.kind == "changed")

    @property
    def last_text(self) -> Change:
        """The change that gave the entry its current (or last) title and text."""
        return next(c for c in reversed(self.changes) if c.edits)

    @property
    def former_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.renamed_from for c in self.changes if c.renamed_from))


@dataclass(frozen=True)
class SourceHistory:
    """A source's revisions, oldest first."""

    source: str
    revisions: tuple[Revision, ...]


@dataclass(frozen=True)
class History:
    """The history of every source that declares one."""

    sources: Mapping[str, SourceHistory]
    #: By corpus id: every entry of such a source, and every removed one (by its last id).
    entries: Mapping[str, EntryHistory]
    #: A former id → the id it lives under now (or, if removed since, its last id).
    redirects: Mapping[str, str]
    #: An upstream commit's page, `{commit}` standing for its hash ("" when not known).
    commit_url: str = ""

    def of(self, entry_id: str) -> EntryHistory | None:
        return self.entries.get(entry_id)

    def revision(self, source: str, number: int) -> Revision:
        return self.sources[source].revisions[number]

    def date_of(self, entry: EntryHistory, change: Change) -> str:
        return self.revision(entry.source, change.revision).date

    @cached_property
    def last_changed(self) -> Mapping[str, str]:
        """Entry id → the date its title or text last changed (its addition counts)."""
        return {i: self.date_of(e, e.last_text) for i, e in self.entries.items()
                if not e.removed}

    @cached_property
    def latest(self) -> str:
        """The date of the newest revision that changed something (a baseline, where a
        history starts, is none); "" without history."""
        return max((r.date for s in self.sources.values() for r in s.revisions
                    if not r.baseline), default=self.newest)

    @cached_property
    def newest(self) -> str:
        """The date of the newest revision of any source ("" without history)."""
        return max((r.date for s in self.sources.values() for r in s.revisions), default="")

    def to_json(self) -> bytes:
        doc = {
            "format": FORMAT,
            "sources": {s.source: [_revision_json(r) for r in s.revisions]
                        for s in self.sources.values()},
            "entries": [{"id": e.id, "source": e.source,
                         "changes": [_change_json(c) for c in e.changes]}
                        for e in self.entries.values()],
            "redirects": dict(self.redirects),
            "commit_url": self.commit_url,
        }
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> History:
        """A history written by `to_json` (of this `FORMAT`)."""
        doc: Any = json.loads(data)
        if doc.get("format") != FORMAT:
            raise ValueError(f"history format {doc.get('format')!r}, expected {FORMAT!r}")
        sources = {source: SourceHistory(source, tuple(
            Revision(source=source, number=n, key=r["key"], date=r["date"], subject=r["subject"],
                     commit=r.get("commit", ""), baseline=r.get("baseline", False),
                     local=r.get("local", False)) for n, r in enumerate(revisions)))
            for source, revisions in doc["sources"].items()}
        entries = {e["id"]: EntryHistory(e["id"], e["source"], tuple(
            Change(revision=c["r"], kind=_KINDS[c["k"]], id=c.get("id", e["id"]),
                   title=c["title"], text=c["text"], added=c.get("a", 0),
                   removed=c.get("d", 0), title_changed=c.get("t", False),
                   renamed_from=c.get("from", "")) for c in e["changes"]))
            for e in doc["entries"]}
        return cls(sources, entries, dict(doc["redirects"]), doc.get("commit_url", ""))


EMPTY = History({}, {}, {})


def _revision_json(r: Revision) -> dict[str, Any]:
    out: dict[str, Any] = {"key": r.key, "date": r.date, "subject": r.subject}
    for name in ("commit", "baseline", "local"):
        if getattr(r, name):
            out[name] = getattr(r, name)
    return out


def _change_json(c: Change) -> dict[str, Any]:
    out: dict[str, Any] = {"r": c.revision, "k": _KINDS.index(c.kind), "id": c.id,
                           "title": c.title, "text": c.text}
    for key, value in (("a", c.added), ("d", c.removed), ("t", c.title_changed),
                       ("from", c.renamed_from)):
        if value:
            out[key] = value
    return out


# --- Computing it ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _State:
    """An entry as one revision has it: its plain title and text, and their compared forms."""

    title: str
    text: str

    @cached_property
    def key(self) -> tuple[str, str]:
        return _squeeze(self.title), _squeeze(self.text)

    @cached_property
    def words(self) -> list[str]:
        return f"{self.title} {self.text}".split()


def _squeeze(text: str) -> str:
    return SPACES.sub(" ", text).strip()


class _PlainText:
    """Plain text of titles and bodies, as the corpus makes it, each distinct one made once."""

    def __init__(self, icons: IconSet, lang: str) -> None:
        self.icons, self.lang = icons, lang
        self.titles: dict[str, str] = {}
        self.bodies: dict[str, str] = {}

    def state(self, title: str, body: str) -> _State:
        if title not in self.titles:
            self.titles[title] = render_inline(title, _label, self.icons, self.lang).text
        if body not in self.bodies:
            self.bodies[body] = render(body, _label, self.icons, self.lang).text
        return _State(self.titles[title], self.bodies[body])


def _label(href: str) -> LinkTarget:
    return LinkTarget("")  # a link reads as its label


@dataclass
class _Track:
    """An entry followed through the revisions (it may change ids)."""

    id: str
    changes: list[Change]
    state: _State


def compute_history(data_dir: Path, corpus: Corpus,
                    warnings: list[DataError] | None = None) -> History:
    """The history of every source of `corpus` that declares one, read from `data_dir`.

    A listed file that is missing or not what its index's checksum says raises `DataError`
    (the history would be wrong); a revision its parser refuses is skipped, with a warning in
    `warnings` (upstream once published a node without an id).
    """
    sources: dict[str, SourceHistory] = {}
    entries: dict[str, EntryHistory] = {}
    redirects: dict[str, str] = {}
    for source in corpus.sources:
        spec = source.spec
        decls = load_revisions(data_dir, spec)
        if not decls:
            continue
        states = _states(data_dir, corpus, spec, decls, warnings)
        revisions = tuple(dataclasses.replace(r, number=n) for n, (r, _) in enumerate(states))
        sources[spec.id] = SourceHistory(spec.id, revisions)
        for track in _follow([s for _, s in states]):
            entries[track.id] = EntryHistory(track.id, spec.id, tuple(track.changes))
            for change in track.changes:
                if change.renamed_from:
                    redirects[change.renamed_from] = track.id
    for former in [f for f in redirects if f in entries]:
        del redirects[former]  # an id in use again is that entry's, not a redirect
    return History(sources, entries, redirects, load_manifest(data_dir).commit_url)


def _states(data_dir: Path, corpus: Corpus, spec: SourceSpec, decls: tuple[RevisionDecl, ...],
            warnings: list[DataError] | None) -> list[tuple[Revision, dict[str, _State]]]:
    """Each readable revision with its entries, and the source's file when it is not the
    newest of them."""
    game = corpus.game(spec.game)
    plain = _PlainText(corpus.icons, spec.lang)
    found: list[tuple[Revision, dict[str, _State]]] = []
    newest_sha = ""
    for decl in decls:
        if not decl.valid:
            continue
        data = _read(data_dir, decl.file, f"listed in the history of {spec.id}")
        if hashlib.sha256(data).hexdigest() != decl.sha256:
            raise DataError(decl.file, "", "does not match the sha256 its revision index gives: "
                                           "the history would be wrong")
        newest_sha = decl.sha256
        try:
            state = _parse(data, dataclasses.replace(spec, file=decl.file), game, plain,
                           warnings)
        except DataError as exc:
            if warnings is not None:
                warnings.append(DataError(exc.file, exc.entry, f"{exc.problem}: revision "
                                          "left out of the history"))
            continue
        found.append((Revision(spec.id, 0, decl.key, decl.date, decl.subject, decl.commit,
                               decl.baseline), state))
    data = _read(data_dir, spec.file, "")
    if hashlib.sha256(data).hexdigest() != newest_sha:
        # Edited or copied in by hand: the served file is the newest state all the same.
        date = corpus.updated or (found[-1][0].date if found else "")
        found.append((Revision(spec.id, 0, "local", date, "", local=True),
                      _parse(data, spec, game, plain)))
    return found


def _read(data_dir: Path, file: str, why: str) -> bytes:
    try:
        return (data_dir / file).read_bytes()
    except FileNotFoundError:
        raise DataError(file, "", f"file not found ({why})" if why else "file not found") \
            from None
    except OSError as exc:
        raise DataError(file, "", f"cannot read file ({exc.strerror or exc})") from None


def _parse(data: bytes, spec: SourceSpec, game: Any, plain: _PlainText,
           warnings: list[DataError] | None = None) -> dict[str, _State]:
    """The entries of one revision. An id given twice (upstream's 2023-09-04 Korean file did)
    is followed in its first node, the one its links reach; the others are left out."""
    ns = spec.namespace
    found: dict[str, _State] = {}
    for raw in parse_bytes(data, spec, game):
        if ns + raw.id in found:
            if warnings is not None:
                warnings.append(DataError(spec.file, raw.location, f'duplicate id "{raw.id}": '
                                          "the history follows its first node"))
            continue
        found[ns + raw.id] = plain.state(raw.title, raw.body)
    return found


def _follow(states: list[dict[str, _State]]) -> list[_Track]:
    """Follow every entry through the revisions; returns the tracks of the entries alive in
    the last revision and of those removed on the way."""
    alive: dict[str, _Track] = {}
    gone: dict[str, _Track] = {}
    previous: dict[str, _State] = {}
    for number, state in enumerate(states):
        vanished = [i for i in previous if i not in state]
        appeared = [i for i in state if i not in previous]
        # A removed id that comes back is the same entry restored, before any rename guess.
        for entry_id in [i for i in appeared if i in gone]:
            track = alive[entry_id] = gone.pop(entry_id)
            track.changes.append(_edit(number, "restored", entry_id, track.state,
                                       state[entry_id]))
            track.state = state[entry_id]
        appeared = [i for i in appeared if i not in alive]
        renames = find_renames({i: previous[i].words for i in vanished},
                               {i: state[i].words for i in appeared})
        for entry_id in previous:
            if entry_id in state and state[entry_id].key != previous[entry_id].key:
                track = alive[entry_id]
                track.changes.append(_edit(number, "changed", entry_id, track.state,
                                           state[entry_id]))
                track.state = state[entry_id]
        for old, new in renames.items():
            track = alive.pop(old)
            changed = state[new].key != track.state.key
            track.changes.append(_edit(number, "changed" if changed else "renamed", new,
                                       track.state, state[new], renamed_from=old))
            track.id, track.state = new, state[new]
            alive[new] = track
        for entry_id in vanished:
            if entry_id in renames:
                continue
            track = alive.pop(entry_id)
            track.changes.append(Change(number, "removed", entry_id, track.state.title,
                                        track.state.text))
            gone[entry_id] = track
        for entry_id in appeared:
            if entry_id not in renames.values():
                new_state = state[entry_id]
                alive[entry_id] = _Track(entry_id, [Change(
                    number, "added", entry_id, new_state.title, new_state.text,
                    added=count_words(f"{new_state.title} {new_state.text}"))], new_state)
        previous = state
    return [*alive.values(), *gone.values()]


def _edit(number: int, kind: Kind, entry_id: str, before: _State, after: _State, *,
          renamed_from: str = "") -> Change:
    added, removed, _ = change_size(f"{before.title}\n{before.text}",
                                    f"{after.title}\n{after.text}")
    return Change(number, kind, entry_id, after.title, after.text, added=added,
                  removed=removed, title_changed=before.key[0] != after.key[0],
                  renamed_from=renamed_from)


def by_revision(history: History, entries: Iterable[EntryHistory]
                ) -> dict[tuple[str, int], list[tuple[EntryHistory, Change]]]:
    """(source, revision number) → the changes that revision made, in the order given."""
    grouped: dict[tuple[str, int], list[tuple[EntryHistory, Change]]] = {}
    for entry in entries:
        for change in entry.changes:
            grouped.setdefault((entry.source, change.revision), []).append((entry, change))
    return grouped

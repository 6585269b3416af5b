"""Ids a source renamed: one vanished while another appeared with nearly the same words.

Upstream renames an id now and then (`Swarming X` → `Swarming`, 2023-01-26) in one language's
file and not yet in the others. The history shows such a rename as one entry under its new id
(`app.corpus.history`); the translations pair by id (`app.corpus.translations`), so they need
the same knowledge to keep pairing the Korean `Swarming` with the English `Swarming X`. Both
ask `renames` whether a vanished id and an appeared one are the same entry.

`revision_entries` reads only the ids and raw words of each declared revision (the parser, no
rendering: about 3 ms a revision, 0.2 s for the bundled 71), so the corpus can pair by rename
before the history, which renders every revision, is computed; `former_ids` follows ids
through what it read.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from difflib import SequenceMatcher
from pathlib import Path

from app.corpus.models import GameSpec, RawEntry, SourceSpec
from app.corpus.parsers import parse_bytes
from app.corpus.revisions import load_revisions
from app.errors import DataError

__all__ = ["RENAME_SIMILARITY", "former_ids", "raw_words", "renames", "revision_entries"]

#: Words in common (0–1) above which a vanished id and a new one are the same entry renamed.
#: Real renames upstream share all their words (Golden_Rule → The_Golden_Rules, Evade_Action →
#: Evade); unrelated entries share under a fifth.
RENAME_SIMILARITY = 0.6


def renames(vanished: Mapping[str, Sequence[str]],
            appeared: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Vanished id → appeared id, for pairs whose words (title, then text) are nearly the
    same; each id in at most one pair, the closest first."""
    if not vanished or not appeared:
        return {}
    scored: list[tuple[float, str, str]] = []
    for old, before in vanished.items():
        for new, after in appeared.items():
            matcher = SequenceMatcher(None, before, after, autojunk=False)
            if matcher.real_quick_ratio() < RENAME_SIMILARITY:
                continue
            if matcher.quick_ratio() < RENAME_SIMILARITY:
                continue
            ratio = matcher.ratio()
            if ratio >= RENAME_SIMILARITY:
                scored.append((ratio, old, new))
    found: dict[str, str] = {}
    for _, old, new in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if old not in found and new not in found.values():
            found[old] = new
    return found


def raw_words(raw: RawEntry) -> list[str]:
    """The words `former_ids` compares: the title's, then the body's, markup and all."""
    return f"{raw.title} {raw.body}".split()


def revision_entries(data_dir: Path, spec: SourceSpec,
                     game: GameSpec) -> list[Mapping[str, RawEntry]]:
    """Each declared revision of `spec`'s file, oldest first: its entries by namespaced id (a
    revision that cannot be read is left out, as the history leaves it out and says why). A
    source without a history, or whose history cannot be read, has none."""
    try:
        decls = load_revisions(data_dir, spec)
    except DataError:
        return []
    ns = spec.namespace
    states: list[Mapping[str, RawEntry]] = []
    for decl in decls:
        if not decl.valid:
            continue
        try:
            data = (data_dir / decl.file).read_bytes()
            read: dict[str, RawEntry] = {}
            for raw in parse_bytes(data, spec, game):
                read.setdefault(ns + raw.id, raw)
        except (OSError, DataError):
            continue
        states.append(read)
    return states


def former_ids(revisions: Sequence[Mapping[str, RawEntry]], current: Mapping[str, RawEntry],
               wanted: Collection[str]) -> dict[str, str]:
    """Each of the `wanted` ids that a source had in one of its `revisions`
    (`revision_entries`) and renamed since → its id in `current` (the source's entries now, by
    namespaced id). Only the wanted ids are followed, so the cost is reading the revisions,
    not comparing every entry that came and went."""
    if not wanted:
        return {}
    # Each revision's words are split only for the few ids compared.
    states = [*revisions, current]
    # The id each wanted one goes by in the revision read last.
    now = {old: old for old in wanted}
    previous: Mapping[str, RawEntry] = {}
    seen: set[str] = set()
    for state in states:
        followed = {name for name in now.values() if name in previous and name not in state}
        if followed:
            # An id seen before that comes back is the same entry restored, never a target.
            appeared = {i: raw_words(raw) for i, raw in state.items()
                        if i not in previous and i not in seen}
            found = renames({i: raw_words(previous[i]) for i in followed}, appeared)
            now = {old: found.get(name, name) for old, name in now.items()}
        seen.update(previous)
        previous = state
    return {old: name for old, name in now.items()
            if name != old and name in current and old not in current}

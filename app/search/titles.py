"""Title matching in memory: exact titles, 초성 and as-you-type prefixes, typo'd titles.

The corpus has a few hundred titles, so a scan over precomputed compact forms is faster than
any index lookup; it serves `suggest` on its own and adds title tiers to `search`.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from app.corpus.hangul import decompose
from app.corpus.models import Entry
from app.search import analysis
from app.search.contract import CONTRACT, TitleRank
from app.search.documents import Document
from app.search.fuzzy import is_initials, max_distance, prefix_pattern

__all__ = ["TitleHit", "TitleTable", "positions", "short_title"]


@dataclass(frozen=True)
class TitleHit:
    """An entry whose title answers the query, and how well (`rank`: lower is better)."""

    id: str
    rank: int


@dataclass(frozen=True)
class _Row:
    entry: Entry
    parts: tuple[str, ...]
    alias: str
    alias_words: tuple[str, ...]
    #: The title parts of the entry's translations other than English (`Document.others`):
    #: titles of the entry in their languages, after its own.
    translated: tuple[str, ...] = ()

    @property
    def titles(self) -> tuple[str, ...]:
        """Every title part the entry answers to, its own first."""
        return self.parts + self.translated if self.translated else self.parts


def short_title(title: str, most: int = CONTRACT.limits.suggest_title) -> str:
    """`title` cut at the last space before `most` characters, with an ellipsis, when it is
    longer (a suggested FAQ question); as it is otherwise."""
    if len(title) <= most:
        return title
    cut = title.rfind(" ", 0, most)
    return title[: cut if cut > 0 else most].rstrip(" ,") + "…"


def positions(docs: Sequence[Document]) -> dict[str, int]:
    """Each document's place among titles that match equally well: real entries before "see
    X" pointers, then short titles, shallow entries, many backlinks, reading order. The
    client index ships it, so both engines break ties the same way."""

    def key(doc: Document) -> tuple[int, float, int, int, int]:
        entry = doc.entry
        parts = analysis.title_parts(entry.title)
        return (int(entry.placeholder), len(parts[0]) if parts else math.inf, entry.depth,
                -len(entry.linked_from), entry.order)

    return {doc.id: n for n, doc in enumerate(sorted(docs, key=key))}


class TitleTable:
    """Every entry's title forms, scanned per query."""

    def __init__(self, docs: Sequence[Document]) -> None:
        rows: list[_Row] = []
        for doc in docs:
            entry = doc.entry
            parts = tuple(analysis.title_parts(entry.title))
            words = analysis.alias_terms(doc.english)
            alias = analysis.alias_key(doc.english) if words else ""
            translated = tuple(dict.fromkeys(p for other in doc.others
                                             for p in analysis.title_parts(other.title)
                                             if p not in parts))
            rows.append(_Row(entry, parts, alias, tuple(words), translated))
        self._rows = tuple(rows)
        self._by_id = {row.entry.id: row for row in rows}
        #: Each entry's place among equal ranks (`positions`).
        self.position = positions(docs)
        self._part_rows: list[int] = []
        parts_jamo: list[str] = []
        for position, row in enumerate(rows):
            for part in (*row.titles, row.alias) if row.alias else row.titles:
                self._part_rows.append(position)
                parts_jamo.append(decompose(part))
        self._parts_jamo = tuple(parts_jamo)
        # Every title part on a line of its own, for one regex scan per typed prefix
        # (`prefix_matches`): (row, the part's place in the row, where its line starts).
        self._lines: list[tuple[int, int, int]] = []
        at = 0
        for position, row in enumerate(rows):
            for index, part in enumerate(row.titles):
                self._lines.append((position, index, at))
                at += len(part) + 1
        self._line_starts = [start for _, _, start in self._lines]
        self._joined = "\n".join(part for row in rows for part in row.titles)
        #: No title part is longer: a longer typed prefix cannot match (nor cost a regex).
        self._longest = max((len(p) for row in rows for p in row.titles), default=0)
        self.exact: dict[str, list[str]] = {}
        #: The whole title, numbering included: `(1.1) 틈새 공격` → 11틈새공격.
        self.full: dict[str, list[str]] = {}
        for row in rows:
            self.full.setdefault(analysis.compact_title(row.entry.title), []).append(
                row.entry.id)
        for row in rows:
            for part in row.titles:
                self.exact.setdefault(part, []).append(row.entry.id)
            if row.alias:
                self.exact.setdefault(row.alias, []).append(row.entry.id)

    def entry(self, entry_id: str) -> Entry:
        return self._by_id[entry_id].entry

    def exact_ids(self, keys: Iterable[str]) -> set[str]:
        """Entries with a title part or English name equal to one of `keys`."""
        found: set[str] = set()
        for key in keys:
            found.update(self.exact.get(key, ()))
        return found

    def prefix_matches(self, typed: str) -> list[TitleHit]:
        """Titles that `typed` (syllables and initial consonants, no spaces) starts."""
        # Each typed character (spaces aside) matches exactly one title character.
        if sum(1 for c in typed if not c.isspace()) > self._longest:
            return []
        pattern = prefix_pattern(typed)
        if pattern is None:
            return []
        initials_only = is_initials(typed)
        inside = len(typed) >= CONTRACT.titles.inside_min_typed
        # One scan of every part (a line each; the pattern never matches a line break): a
        # part's first match is at its start whenever one is, as the pattern has a fixed
        # length and no match crosses into the next line.
        best: dict[int, TitleRank] = {}
        seen = -1
        lines, starts = self._lines, self._line_starts
        for match in pattern.finditer(self._joined):
            line = bisect.bisect_right(starts, match.start()) - 1
            if line == seen:
                continue  # a part's later matches add nothing
            seen = line
            position, index, start = lines[line]
            if match.start() == start:
                end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self._joined)
                if match.end() == end:
                    rank = TitleRank.INITIALS_EXACT if initials_only else TitleRank.EXACT
                else:
                    rank = TitleRank.START if index == 0 else TitleRank.PART_START
            elif inside:
                rank = TitleRank.INSIDE
            else:
                continue
            if position not in best or rank < best[position]:
                best[position] = rank
        rows = self._rows
        return [TitleHit(rows[position].entry.id, rank) for position, rank in sorted(best.items())]

    def alias_prefix_matches(self, typed: str) -> list[TitleHit]:
        """Entries whose English name starts with `typed` (already an alias key)."""
        if len(typed) < CONTRACT.titles.alias_prefix_min:
            return []
        out: list[TitleHit] = []
        for row in self._rows:
            if not row.alias:
                continue
            if row.alias == typed:
                out.append(TitleHit(row.entry.id, TitleRank.EXACT))
            elif row.alias.startswith(typed):
                out.append(TitleHit(row.entry.id, TitleRank.START))
            elif any(w.startswith(typed) for w in row.alias_words):
                out.append(TitleHit(row.entry.id, TitleRank.PART_START))
        return out

    def fuzzy_matches(self, text: str, *, extra: int = 0) -> list[TitleHit]:
        """Titles within the typo allowance of `text` (a compact query), closest first."""
        allowed = max_distance(text) + extra
        if allowed <= 0 or len(text) < CONTRACT.typos.title_min_length:
            return []
        found = process.extract(decompose(text), self._parts_jamo, scorer=Levenshtein.distance,
                                score_cutoff=allowed, limit=CONTRACT.typos.title_candidates)
        best: dict[str, int] = {}
        for _, score, index in found:
            entry_id = self._rows[self._part_rows[index]].entry.id
            if entry_id not in best or score < best[entry_id]:
                best[entry_id] = int(score)
        return [TitleHit(i, TitleRank.FUZZY + d)
                for i, d in sorted(best.items(), key=lambda x: x[1])]

    def ranked(self, matches: Iterable[TitleHit]) -> list[TitleHit]:
        """Best match per entry, sorted by rank then by the entry's own key."""
        best: dict[str, int] = {}
        for match in matches:
            if match.id not in best or match.rank < best[match.id]:
                best[match.id] = match.rank
        order = sorted(best.items(), key=lambda item: (item[1], self.position[item[0]]))
        return [TitleHit(i, r) for i, r in order]

"""`Ranker`: the order of a query's candidates, best first (the ranking `searcher` describes).

BM25F over the index's postings (`bm25`), the re-rank's features (`rank.Reranker`) for the
best candidates, title tiers above all (`tiers`), "see X" entries below their X, and each page
once. Split from `SearchIndex`, which owns the analysis around it (rewrite, plan, snippets)
and asks this for orders.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.corpus.models import Entry
from app.search import analysis
from app.search.bm25 import FieldStats, score_terms
from app.search.contract import CONTRACT, Budget, Tier, TitleRank
from app.search.documents import Document
from app.search.query import Plan, weighted_terms
from app.search.rank import Features, Partial, Prepared, Reranker
from app.search.titles import TitleTable

__all__ = ["Ranker", "Ranking"]

_ORDER = CONTRACT.order


@dataclass(frozen=True)
class Ranking:
    """Each stage of one ranking (`Ranker.ranking`), for the stage traces both engines
    reproduce (`app/search/trace.py`)."""

    #: The (field, term, boost) lookups.
    terms: list[tuple[str, str, float]]
    #: Entry id → BM25F score, for every entry a lookup scored.
    bm25: dict[str, float]
    #: Entry id → its title tier, for entries title matching placed in one.
    tiers: dict[str, Tier]
    #: The re-ranked candidates' features, best BM25 (or title-only) score first.
    features: dict[str, Features]
    #: Every candidate, best first.
    order: list[str]


class Ranker:
    """Orders over one index's documents. Safe to call from many threads: it reads only
    what it was made with, and the statistics' caches (`FieldStats`) are built to be shared."""

    def __init__(self, docs: Mapping[str, Document], ids: tuple[str, ...],
                 reader: Callable[[], Any], stats: FieldStats, reranker: Reranker,
                 titles: TitleTable, entries: Mapping[str, Entry], game_order: Mapping[str, int],
                 *, budget: Budget, translations: bool) -> None:
        """`docs`: the searched documents by id; `ids`: their ids by document number;
        `reader`: this thread's index reader; `entries`: the corpus's, for the "see X"
        links; `game_order`: each game's place in the manifest."""
        self.budget = budget
        #: Whether any document has a translation field: else they are not looked up at all.
        self.translations = translations
        self.titles = titles
        self._reader = reader
        self._stats = stats
        self._reranker = reranker
        self._entries = entries
        self._ids = ids
        #: Entry id → document number.
        self.docnums = {entry_id: n for n, entry_id in enumerate(ids)}
        # `Document.page` is a property; `one_per_page` asks it of every ranked candidate.
        self._pages = {doc_id: doc.page for doc_id, doc in docs.items()}
        # What the order reads of each entry, looked up once per index, not per candidate:
        # its game's place in the manifest and its reading order; the "see X" entries.
        self._placed = {doc.id: (game_order[doc.entry.game], doc.entry.order)
                        for doc in docs.values()}
        self._placeholders = frozenset(doc.id for doc in docs.values()
                                       if doc.entry.placeholder)
        self._steps = frozenset(doc.id for doc in docs.values() if doc.anchor)
        #: Whether some "see X" entry is itself some other's X: then a page's ranking is made
        #: in full (`_best_only` relies on there being none; today's data has none).
        self._chained = any(
            entries[i].links_to and entries[i].links_to[0] in self._placeholders
            for i in self._placeholders)

    def ranking(self, plan: Plan, allowed: frozenset[int] | None = None, *,
                depth: int | None = None, prefix: int | None = None) -> Ranking:
        """Every entry `plan` finds among the document numbers `allowed` (all: None), best
        first, with what each stage decided on the way. The best `depth` BM25 candidates
        are re-ranked (the budget's `rerank` unless fewer are asked for).

        With `prefix`, only the first `prefix` entries of `order` are sure to be in their
        places (all a page needs); the others follow in BM25 order. A candidate is then not
        re-ranked in full when even the most its proximity and passage could give it
        leaves it below `prefix` entries already scored (`_best_only`): the first `prefix`
        are those of the full ranking, in its order, and `features` holds only the entries
        measured in full."""
        reader = self._reader()
        terms = weighted_terms(plan, self.budget, translations=self.translations)
        by_docnum = score_terms(reader, self._stats, terms, allowed)
        bm25 = {self._ids[docnum]: score for docnum, score in by_docnum.items()}
        scores = dict(bm25)
        prepared = self._reranker.prepare(plan)
        if len(prepared.groups) < CONTRACT.steps.min_words:
            # A step answers a question on its own; a name or a few words are its entry's.
            for doc_id in self._steps.intersection(scores):
                del scores[doc_id]
        elif prefix is not None:
            # Each page is listed once (`one_per_page`): a step and its entry may both be in
            # the first places, so as many more are made sure as there are steps.
            prefix += len(self._steps.intersection(scores))
        tiers = self.tiers(plan)
        if allowed is not None:
            tiers = {i: t for i, t in tiers.items() if self.docnums[i] in allowed}
        top = max(scores.values(), default=1.0)
        for entry_id in tiers:
            scores.setdefault(entry_id, top * _ORDER.title_only)
        # Equal scores in reading order (the browser engine's order too): two sorts keyed in
        # C, the second stable (`reverse` keeps equal items in order).
        by_score = sorted(sorted(scores, key=self.docnums.__getitem__),
                          key=scores.__getitem__, reverse=True)
        features: dict[str, Features] = {}
        depth = self.budget.rerank if depth is None else min(depth, self.budget.rerank)
        for entry_id in by_score[depth:]:
            scores[entry_id] *= CONTRACT.rerank.coord_floor
        placeholders = self._placeholders
        if prefix is None or self._chained or prefix >= len(by_score):
            for entry_id in by_score[:depth]:
                features[entry_id] = self._reranker.features(prepared, entry_id)
                scores[entry_id] *= features[entry_id].factor
            for entry_id in placeholders.intersection(scores):
                scores[entry_id] *= _ORDER.placeholder
            below: list[str] = []
        else:
            below = self._best_only(prepared, by_score, depth, prefix, tiers, scores,
                                    features)
        placed, none, close = self._placed, Tier.NONE, Tier.CLOSE

        def key(entry_id: str) -> tuple[int, int, float, int]:
            tier = tiers.get(entry_id, none)
            game, reading = placed[entry_id]
            # Title-level matches in several games: the manifest's first game first.
            return (-tier, game if tier >= close else 0, -scores[entry_id], reading)

        if below:
            out = set(below)
            ordered = sorted((i for i in scores if i not in out), key=key) + below
        else:
            ordered = sorted(scores, key=key)
        order = self.one_per_page(self._placeholders_below_targets(ordered, allowed))
        return Ranking(terms, bm25, tiers, features, order)

    def one_per_page(self, order: list[str]) -> list[str]:
        """`order` with each entry's page once: where the entry or one of its steps
        (`documents.steps`) first ranks, as that document."""
        pages, seen, out = self._pages, set(), []
        for doc_id in order:
            page = pages[doc_id]
            if page not in seen:
                seen.add(page)
                out.append(doc_id)
        return out

    def _best_only(self, prepared: Prepared, by_score: list[str], depth: int, prefix: int,
                   tiers: dict[str, Tier], scores: dict[str, float],
                   features: dict[str, Features]) -> list[str]:
        """Re-rank the best `depth` of `by_score` as far as the first `prefix` places need:
        multiply `scores` by each factor measured (into `features`), halve the placeholders'
        and return, in BM25 order, the candidates sure to rank below the first `prefix`
        places: those left out, and those scored below `prefix` others (the order need not
        sort them).

        Why the first `prefix` places are those of the full ranking: every entry of a title
        tier sorts above every entry of none, so those are always measured. An entry of no
        tier is left out only when `prefix` minus the tiered entries' count scores, already
        final, are each above the most it could score (`Partial.most`, with the factor's
        arithmetic: it can only be lower in full). It therefore ranks below `prefix` others
        whatever its features, and moving "see X" entries (`_placeholders_below_targets`)
        moves nothing into the first `prefix` places from below, as long as no "see X"
        entry is itself some X (`_chained`)."""
        reranker, none = self._reranker, Tier.NONE
        placeholders, halved = self._placeholders, _ORDER.placeholder
        need = prefix - sum(1 for i in scores if tiers.get(i, none) > none)
        for entry_id in placeholders.intersection(by_score[depth:]):
            scores[entry_id] *= halved
        # The final scores of entries of no tier measured so far: the best `need` of them,
        # as a min-heap.
        best = heapq.nlargest(need, (scores[i] for i in by_score[depth:]
                                     if tiers.get(i, none) == none)) if need > 0 else []
        heapq.heapify(best)
        waiting: list[tuple[float, int, Partial]] = []
        for n, entry_id in enumerate(by_score[:depth]):
            partial = reranker.partial(prepared, entry_id)
            if tiers.get(entry_id, none) > none:
                features[entry_id] = reranker.complete(prepared, partial)
                scores[entry_id] *= features[entry_id].factor
                if entry_id in placeholders:
                    scores[entry_id] *= halved
                continue
            most = scores[entry_id] * partial.most
            if entry_id in placeholders:
                most *= halved
            waiting.append((-most, n, partial))
        waiting.sort()
        skipped: set[str] = set()
        for at, (most, _, partial) in enumerate(waiting):
            if need <= 0 or (len(best) >= need and best[0] > -most):
                skipped = {p.entry_id for _, _, p in waiting[at:]}
                break
            entry_id = partial.entry_id
            features[entry_id] = reranker.complete(prepared, partial)
            scores[entry_id] *= features[entry_id].factor
            if entry_id in placeholders:
                scores[entry_id] *= halved
            if len(best) < need:
                heapq.heappush(best, scores[entry_id])
            else:
                heapq.heappushpop(best, scores[entry_id])
        if need <= 0:
            return [i for i in by_score if tiers.get(i, none) == none]
        if len(best) < need:
            return [i for i in by_score if i in skipped]
        # Below the `need`-th best final score of no tier is below the first `prefix` places
        # too (a tie may be in them: it stays to be sorted).
        least = best[0]
        return [i for i in by_score if i in skipped
                or (scores[i] < least and tiers.get(i, none) == none)]

    def tiers(self, plan: Plan) -> dict[str, Tier]:
        """Each entry's `Tier` for this query, from title matching alone (see `contract.Tier`)."""
        tiers: dict[str, Tier] = {}
        keys = {plan.compact, plan.stem_compact, plan.alias} - {""}
        if len(plan.words) == 1:
            keys.update(plan.words[0].variants)
        keys.update(analysis.title_parts(plan.text))
        for entry_id in self.titles.exact_ids(keys):
            tiers[entry_id] = Tier.NAMES
        for entry_id in self.titles.full.get(analysis.compact_title(plan.text), ()):
            tiers[entry_id] = Tier.WHOLE
        if plan.initials:
            for match in self.titles.prefix_matches(plan.initials):
                tier = Tier.CLOSE if match.rank <= TitleRank.INITIALS_EXACT else (
                    Tier.STARTS if match.rank <= TitleRank.START else Tier.NONE)
                tiers[match.id] = max(tiers.get(match.id, Tier.NONE), tier)
        if plan.has_unknown and not tiers:
            typed = plan.stem_compact if not plan.alias else plan.alias
            for match in self.titles.fuzzy_matches(typed):
                # FUZZY + n: a title n edits away.
                tier = Tier.CLOSE if match.rank == TitleRank.FUZZY + 1 else Tier.STARTS
                tiers[match.id] = max(tiers.get(match.id, Tier.NONE), tier)
            if plan.compact != plan.stem_compact and not plan.alias:
                for match in self.titles.fuzzy_matches(plan.compact):
                    tiers.setdefault(match.id, Tier.STARTS)
        return tiers

    def _placeholders_below_targets(self, order: list[str],
                                    allowed: frozenset[int] | None) -> list[str]:
        """Move each "see X" entry just below X when it ranked above it; add X if missing."""
        entries = self._entries
        placeholders = self._placeholders
        for entry_id in [i for i in order if i in placeholders]:
            targets = entries[entry_id].links_to
            if not targets or targets[0] not in entries:
                continue
            target = targets[0]
            if target not in self.docnums:
                continue  # a translation's entry: searched as part of its original
            if allowed is not None and self.docnums[target] not in allowed:
                continue
            position = order.index(entry_id)
            if target in order and order.index(target) < position:
                continue
            order.remove(entry_id)
            if target in order:
                order.remove(target)
            order.insert(position, target)
            order.insert(position + 1, entry_id)
        return order

    def elsewhere(self, plan: Plan, allowed: frozenset[int], ranking: Ranking) -> str | None:
        """The best entry outside the filter, when it answers the query better than any
        inside: a title-level match of a higher tier, or anything when the filter finds
        nothing (`틈새 공격` searched in Eldritch Horror alone)."""
        inside = ranking.tiers.get(ranking.order[0], Tier.NONE) if ranking.order else None
        tiers = self.tiers(plan)
        # When the filter finds something, only a title-level match outside it can be
        # offered: with none, every game's ranking (as dear as the search itself, on each
        # search of a player whose filter is remembered) would end in None anyway.
        if inside is not None and not any(
                tier >= Tier.NAMES and tier > inside and self.docnums[entry_id] not in allowed
                for entry_id, tier in tiers.items()):
            return None
        best = self.ranking(plan, prefix=1).order[:1]
        if not best or self.docnums[best[0]] in allowed:
            return None
        outside = tiers.get(best[0], Tier.NONE)
        if inside is None or (outside >= Tier.NAMES and outside > inside):
            return self._pages[best[0]]
        return None


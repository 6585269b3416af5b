"""One search, stage by stage: what `tests/cases/traces.json` records for each trace query
(written by `scripts/query_cases.py`) and what static/engine.js's `trace` must reproduce.

Each stage is JSON data: the cleaned text, the rewrite, the plan, the (field, term, boost)
lookups, each candidate's BM25F score, the title tiers, the re-rank features of the candidates
within the budget's depth, the final order and the page of results. Loanwords by sound are not
ported to the browser (`docs/search.md`), so a trace query must not use them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from app.search.query import Plan, clean
from app.search.searcher import SearchIndex

__all__ = ["trace"]


def trace(index: SearchIndex, query: str, *, game: str | None = None) -> dict[str, Any]:
    """The stages of `index.search(query, game=game)`."""
    typed = clean(query)
    rewrite = index.rewrite(typed, game)
    plan = index.plan(rewrite.text, related=rewrite.related)
    allowed = index.allowed(game)
    ranking = None if plan.empty or (game and allowed is None) else index.ranking(plan, allowed)
    found = index.search(query, game=game)
    return {
        "query": query,
        "game": game,
        "clean": typed,
        "rewrite": {"text": rewrite.text, "synonyms": [list(p) for p in rewrite.synonyms],
                    "related": [list(p) for p in rewrite.related],
                    "game": list(rewrite.game) if rewrite.game else None},
        "plan": _plan(plan),
        "terms": [list(t) for t in ranking.terms] if ranking else [],
        # By id: the same file whatever order sets and hashing left them in.
        "bm25": dict(sorted(ranking.bm25.items())) if ranking else {},
        "tiers": {i: int(t) for i, t in sorted(ranking.tiers.items())} if ranking else {},
        "rerank": {i: {**dataclasses.asdict(f), "factor": f.factor}
                   for i, f in sorted(ranking.features.items())} if ranking else {},
        "order": ranking.order if ranking else [],
        "results": {"total": found.total, "ids": [h.id for h in found.hits],
                    "snippets": [h.snippet for h in found.hits],
                    "synonyms": [list(p) for p in found.synonyms],
                    "corrections": [list(p) for p in found.corrections],
                    "game_named": list(found.game_named) if found.game_named else None,
                    "suggestion": found.suggestion},
    }


def _plan(plan: Plan) -> dict[str, Any]:
    return {"words": [{"text": w.text, "variants": list(w.variants), "stem": w.stem,
                       "hangul": w.hangul, "known": w.known,
                       "corrections": list(w.corrections), "english": w.english,
                       "grams": list(w.grams), "everyday": w.everyday}
                      for w in plan.words],
            "initials": plan.initials, "compact": plan.compact,
            "stem_compact": plan.stem_compact, "alias": plan.alias}

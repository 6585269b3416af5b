"""How much work one query may cause: every per-query loop of the search is bounded here.

A 200-character query of made-up words used to cost up to ~55 ms in-process: a typo correction
per word, hundreds of BM25 lookups and a regex per word pair. Under these limits the worst
query `bench/hostile_queries.py` generates costs under 10 ms on the reference 2-core machine,
while no query of the development set and no title of the corpus reaches any limit (the
longest title, a pasted FAQ question, has 15 words and 90 lookups).

Limits are spent in query order: a query over the budget is answered from its leading words, as
if the rest had not been typed; it never fails and never loses what its first words find.
Results never depend on what earlier queries left in a cache: a memoised correction still
counts as an attempt.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_BUDGET", "Budget"]


@dataclass(frozen=True)
class Budget:
    """Per-query limits; `DEFAULT_BUDGET` is what `SearchIndex` uses unless told otherwise."""

    #: Distinct words analysed (groups and word pairs to re-rank, snippet terms): the corpus's
    #: longest title has 15, the dev set's longest query 6.
    words: int = 16
    #: Calls to `Vocabulary.corrections` per vocabulary: the index's correction targets (title
    #: words, ~1,350: ~50 µs each) and the synonyms' near-miss list (~600: ~25 µs). The dev
    #: set needs 2, a title at most 3; a hurried player may get a few more words wrong.
    corrections: int = 6
    #: (field, term) pairs scored by BM25 (frequent terms ~40 µs each): a title needs at most
    #: 90, the dev set 39; 120 of the most frequent terms cost ~6 ms.
    lookups: int = 120
    #: Best BM25 candidates re-scored by `rank.Reranker` (~20 µs each at 16 words): the depth
    #: the ranking was tuned with; dev-set figures are the same anywhere from 10 to 200.
    rerank: int = 60
    #: Characters of query terms compiled into the snippet pattern (~10 µs each to compile),
    #: counting only terms found on the page: a long question's words and stems fit.
    highlight_chars: int = 80


#: The limits every search runs under by default.
DEFAULT_BUDGET = Budget()

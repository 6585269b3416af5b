"""BM25F over Whoosh's postings, with field lengths held in memory.

Whoosh stores the inverted index (lexicon, postings, document frequencies); scoring through
its matcher and collector machinery costs ~10 µs per posting in Python, most of it in layers
this corpus does not need (union trees, block quality, length columns). Reading each term's
postings directly and summing BM25 here gives the same ranking formula 3–4× faster.

Even read directly, a posting costs ~0.45 µs to decode, so each term's postings are decoded
the first time a query meets it and kept. The set is bounded by the index, never by what is
typed (a term the index lacks is never stored): decoding all 34,748 terms of today's index
(163,355 postings) took 1.3 s once and added under 10 MiB; keeping every term rather than only
those in 32+ documents took the bench's p50 from 1.05–1.10 to 0.86–0.87 ms (#10).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Set
from typing import Any

from app.search.contract import CONTRACT

__all__ = ["FieldStats", "score_terms"]


class FieldStats:
    """Document count, each field's per-document and average lengths, and the decoded
    postings of the terms queries have met (shared by all threads)."""

    def __init__(self, reader: Any, fields: Iterable[str],
                 counts: Mapping[str, int] | None = None, *,
                 listed: Iterable[str] = ()) -> None:
        """`counts`: per field, the number of documents its statistics count (the documents
        that can have it: `index.TRANSLATION_FIELDS` are only some); default every one.
        `listed`: fields whose every term is held in memory (`lexicons`)."""
        #: Per field of `listed`, every term it has: a term a query meets that is not there
        #: is known missing without asking Whoosh (a hashed lookup in its term table, in
        #: Python: a twelfth of a compiled search). For the fields queries miss in most
        #: (`searcher._LISTED`), not all: the bodies' bigrams would take more memory and
        #: start-up than they save.
        self.lexicons: dict[str, frozenset[str]] = {
            field: frozenset(t.decode("utf-8") if isinstance(t, bytes) else str(t)
                             for t in reader.lexicon(field))
            for field in listed}
        self.decoded: dict[tuple[str, str], tuple[int, array[int], array[float]]] = {}
        #: Per (field, term, boost) met: the decoded document numbers and their scores.
        self.scored: dict[tuple[str, str, float], tuple[array[int], array[float]]] = {}
        total = int(reader.doc_count_all())
        self.lengths: dict[str, list[int]] = {}
        self.average: dict[str, float] = {}
        #: Per field, the documents counted (BM25's N).
        self.counts: dict[str, int] = {}
        for field in fields:
            lengths = [int(reader.doc_field_length(d, field, 0) or 0) for d in range(total)]
            count = total if counts is None else counts.get(field, total)
            self.lengths[field] = lengths
            self.counts[field] = count
            self.average[field] = max(1.0, sum(lengths) / max(1, count))


def score_terms(reader: Any, stats: FieldStats, terms: Iterable[tuple[str, str, float]],
                allowed: Set[int] | None = None) -> dict[int, float]:
    """Sum of boosted BM25 scores per document number over `terms` (field, text, boost)."""
    scores: dict[int, float] = {}
    get = scores.get
    for field, text, boost in terms:
        found = _scored(reader, stats, field, text, boost)
        if found is None:
            continue
        docnums, parts = found
        if allowed is None:
            for docnum, part in zip(docnums, parts, strict=True):
                scores[docnum] = get(docnum, 0.0) + part
        else:
            for docnum, part in zip(docnums, parts, strict=True):
                if docnum in allowed:
                    scores[docnum] = get(docnum, 0.0) + part
    return scores


def _scored(reader: Any, stats: FieldStats, field: str, text: str,
            boost: float) -> tuple[array[int], array[float]] | None:
    """(document numbers, each one's boosted BM25 score) of a term, or None if it is not
    indexed. Kept per (field, term, boost) like the decoded postings: a score depends on
    nothing else (the field's statistics are the index's), and the boosts a query can give
    a term are a handful of the contract's products (`query.weighted_terms`)."""
    key = (field, text, boost)
    cached = stats.scored.get(key)
    if cached is not None:
        return cached
    found = _postings(reader, stats, field, text)
    if found is None:
        return None
    df, docnums, weights = found
    k1, b = CONTRACT.bm25.k1, CONTRACT.bm25.field_b[field]
    idf = (math.log(stats.counts[field] / (df + 1)) + 1) * boost
    lengths = stats.lengths[field]
    norm = k1 * (1 - b)
    per_length = k1 * b / stats.average[field]
    parts = array("d", [idf * tf * (k1 + 1) / (tf + norm + per_length * lengths[docnum])
                        for docnum, tf in zip(docnums, weights, strict=True)])
    # Two threads may score the same term at once; either copy is the same.
    return stats.scored.setdefault(key, (docnums, parts))


def _postings(reader: Any, stats: FieldStats, field: str,
              text: str) -> tuple[int, array[int], array[float]] | None:
    """(document frequency, document numbers, weights) of a term, or None if it is not
    indexed."""
    cached = stats.decoded.get((field, text))
    if cached is None:
        lexicon = stats.lexicons.get(field)
        if (text not in lexicon) if lexicon is not None else (field, text) not in reader:
            return None
        df = int(reader.doc_frequency(field, text))
        docnums, weights = array("l"), array("d")
        for docnum, weight in reader.postings(field, text).items_as("weight"):
            docnums.append(docnum)
            weights.append(weight)
        # Two threads may decode the same term at once; either copy is the same.
        cached = stats.decoded.setdefault((field, text), (df, docnums, weights))
    return cached

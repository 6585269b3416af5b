"""BM25F over Whoosh's postings: the properties the ranking relies on."""

from __future__ import annotations

from pathlib import Path

from app.corpus.build import load_corpus
from app.search.bm25 import FieldStats, score_terms
from app.search.index import FIELDS, load_index
from tests.conftest import write_rules_data

RULES = [
    {"id": "A", "title": "가", "text": "단서 단서 단서 희귀"},
    {"id": "B", "title": "나", "text": "단서"},
    {"id": "C", "title": "다", "text": "단서 " + "아무말 " * 40},
]


def _scores(tmp_path: Path, terms: list[tuple[str, str, float]],
            allowed: set[int] | None = None, listed: tuple[str, ...] = ()) -> dict[str, float]:
    corpus = load_corpus(write_rules_data(tmp_path / "data", RULES))
    ix = load_index(corpus, None)
    with ix.reader() as reader:
        ids = {n: fields["id"] for n, fields in reader.iter_docs()}
        stats = FieldStats(reader, FIELDS, listed=listed)
        found = score_terms(reader, stats, terms, allowed)
    return {ids[n]: s for n, s in found.items()}


def test_more_occurrences_score_higher_but_saturate(tmp_path: Path) -> None:
    s = _scores(tmp_path, [("body_w", "단서", 1.0)])
    assert s["A"] > s["B"] > 0
    assert s["A"] < 3 * s["B"]  # three times the term is not three times the score


def test_a_longer_body_counts_each_occurrence_for_less(tmp_path: Path) -> None:
    s = _scores(tmp_path, [("body_w", "단서", 1.0)])
    assert s["B"] > s["C"]


def test_rare_terms_weigh_more_and_boosts_multiply(tmp_path: Path) -> None:
    common = _scores(tmp_path, [("body_w", "단서", 1.0)])["A"]
    rare = _scores(tmp_path, [("body_w", "희귀", 1.0)])["A"]
    boosted = _scores(tmp_path, [("body_w", "희귀", 3.0)])["A"]
    assert rare > common / 3 and abs(boosted - 3 * rare) < 1e-9


def test_only_allowed_documents_and_known_terms_score(tmp_path: Path) -> None:
    assert _scores(tmp_path, [("body_w", "없는말", 1.0)]) == {}
    only = _scores(tmp_path, [("body_w", "단서", 1.0)], allowed={0})
    assert len(only) == 1


def test_fields_listed_in_memory_score_as_whoosh_does(tmp_path: Path) -> None:
    """A listed field answers "not indexed" from memory: the same for known and unknown
    terms as asking Whoosh."""
    terms = [("body_w", "단서", 1.0), ("body_w", "없는말", 1.0), ("body_w", "희귀", 2.0)]
    asked = _scores(tmp_path / "asked", terms)
    listed = _scores(tmp_path / "listed", terms, listed=("body_w",))
    assert asked == listed and set(listed) == {"A", "B", "C"}

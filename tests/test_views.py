"""The views the code builds (`EntryLink.of`, `context.path_of`, the pages' and answers' models)
are exactly what validating their own data again gives: the page and the JSON API read the same
typed values, whatever each was built from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic_core import to_json

from app.corpus.models import Corpus
from app.search import SearchIndex
from app.urls import Urls
from app.web.context import entry_context
from app.web.search_context import search_results, suggest_context
from app.web.views import EntryPage, EntryRef, SearchResults, Suggestions, TimingLink

QUERIES = Path(__file__).resolve().parents[1] / "bench" / "search-queries.dev.json"
URLS = Urls()


def _same_as_validated(view: EntryPage | SearchResults | Suggestions) -> None:
    """Validating the view's own data again changes nothing, field for field and byte for
    byte of its JSON."""
    data = view.model_dump(exclude=set(type(view).model_computed_fields))
    validated = type(view).model_validate(data)
    assert validated == view
    assert to_json(validated) == to_json(view)


def test_entry_views_equal_their_validated_form(corpus: Corpus) -> None:
    for entry_id in corpus.entries:
        for owned in (None, frozenset({"dwl"})):
            _same_as_validated(entry_context(corpus, entry_id, URLS, owned))


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def test_search_and_suggest_views_equal_their_validated_form(corpus: Corpus,
                                                              index: SearchIndex) -> None:
    queries = [q["q"] for q in json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]]
    for query in queries[:40]:
        _same_as_validated(search_results(corpus, index, URLS, query))
        _same_as_validated(suggest_context(corpus, index, URLS, query[:2]))


def test_a_summary_refuses_a_field_its_model_does_not_declare(corpus: Corpus) -> None:
    entry = next(iter(corpus))
    assert TimingLink.of(entry, URLS, steps=3).steps == 3
    with pytest.raises(TypeError, match="steps"):
        EntryRef.of(entry, URLS, steps=3)

"""Both engines, stage by stage, on the tiny corpus (tests/cases/tiny/).

`tests/cases/traces.json` holds, for each trace query, what every stage of the server's search
decided: the cleaned text, the rewrite, the plan, the lookups, the BM25F scores, the title
tiers, the re-rank features, the order and the page of results (`app/search/trace.py`).
`scripts/query_cases.py` writes it. The server must reproduce it, and the browser engine too,
reading nothing but the client index of the tiny corpus.

Floating-point values may differ in their last bits between the engines (V8's Math.log and
the C library's log are not bound to round alike): they are compared to 1e-12 relative; every
id, term, tier, word and order is compared exactly.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.search import SearchIndex, client_index
from app.search.contract import CONTRACT, Budget
from app.urls import Urls
from scripts import query_cases
from tests import enginejs

TRACES = query_cases.TRACES


def _committed() -> list[dict[str, Any]]:
    traces: list[dict[str, Any]] = json.loads(TRACES.read_text(encoding="utf-8"))["traces"]
    return traces


@pytest.fixture(scope="module")
def tiny() -> SearchIndex:
    return query_cases.tiny_index()


@pytest.fixture(scope="module")
def files(tiny: SearchIndex, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    # Every translation language of the tiny corpus, as a visitor reading them all has them.
    return enginejs.write_files(tmp_path_factory.mktemp("tiny"),
                                client_index.index(tiny.corpus, Urls()),
                                client_index.texts(tiny.corpus),
                                enginejs.language_files(tiny.corpus, Urls()))


def _browser(files: dict[str, Any], index: dict[str, Any] | None = None,
             folder: Path | None = None) -> list[dict[str, Any]]:
    """The browser engine's traces of the committed queries (over `index`, when given)."""
    if index is not None:
        assert folder is not None
        files = {**enginejs.write_files(folder, index, json.loads(
            Path(files["texts"]).read_text(encoding="utf-8"))), "languages": files["languages"]}
    queries = [{"query": t["query"], "game": t["game"]} for t in _committed()]
    traces: list[dict[str, Any]] = enginejs.run({**files, "traces": queries})["traces"]
    return traces


def differences(expected: Any, got: Any, where: str = "") -> Iterator[str]:
    """Where `got` differs from `expected`: floats to 1e-12 relative, the rest exactly."""
    if isinstance(expected, float) or isinstance(got, float):
        if not (isinstance(expected, int | float) and isinstance(got, int | float)
                and math.isclose(expected, got, rel_tol=1e-12)):
            yield f"{where}: {expected!r} != {got!r}"
    elif isinstance(expected, dict) and isinstance(got, dict):
        if expected.keys() != got.keys():
            yield f"{where}: keys {sorted(expected.keys() ^ got.keys())} differ"
        for key in expected.keys() & got.keys():
            yield from differences(expected[key], got[key], f"{where}.{key}")
    elif isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            yield f"{where}: {len(expected)} items != {len(got)}: {expected!r} != {got!r}"
        for i, (a, b) in enumerate(zip(expected, got, strict=False)):
            yield from differences(a, b, f"{where}[{i}]")
    elif expected != got or type(expected) is not type(got):
        yield f"{where}: {expected!r} != {got!r}"


def _report(expected: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[str]:
    found: list[str] = []
    for a, b in zip(expected, got, strict=True):
        found += [f"{a['query']!r} {d}" for d in differences(a, b)][:5]
    return found


def test_the_committed_traces_are_the_server_s(tiny: SearchIndex) -> None:
    """The server reproduces tests/cases/traces.json: after an intended change to the
    analysis, the contract or the ranking, `python -m scripts.query_cases` rewrites it."""
    assert not _report(_committed(), query_cases.traces(tiny)), (
        "tests/cases/traces.json is not what the server does: run python -m scripts.query_cases "
        "and read the diff")


def test_the_browser_engine_reproduces_every_stage(files: dict[str, Any]) -> None:
    problems = _report(_committed(), _browser(files))
    assert not problems, "\n".join(problems)


def test_the_traces_reach_every_budget_limit(tiny: SearchIndex) -> None:
    """Each limit of the budget changes some trace: a limit neither engine reaches on the tiny
    corpus could differ between them unseen."""
    committed = _committed()
    for name in (f.name for f in dataclasses.fields(Budget)):
        tighter = dataclasses.replace(CONTRACT.budget, **{name: getattr(CONTRACT.budget, name) - 1})
        tight = SearchIndex(tiny.corpus, tiny._ix, budget=tighter)
        assert _report(committed, query_cases.traces(tight)), f"no trace reaches budget.{name}"


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(Budget)])
def test_a_budget_changed_on_the_browser_side_only_fails_the_trace(
        files: dict[str, Any], tmp_path: Path, name: str) -> None:
    """The browser engine reads its budget from the client index: one shipped with another
    value (as if the JS had its own) makes it disagree with the committed traces."""
    index = json.loads(Path(files["index"]).read_text(encoding="utf-8"))
    other = copy.deepcopy(index)
    other["contract"]["budget"][name] -= 1
    assert _report(_committed(), _browser(files, other, tmp_path))

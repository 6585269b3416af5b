"""docs/search.md's stage → Python → JavaScript table names things that exist: a rename on
either side fails here instead of leaving the table (the one place the two engines are
mapped to each other) silently wrong."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.conftest import ROOT

DOC = ROOT / "docs" / "search.md"
ENGINE = "".join((ROOT / "static" / name).read_text(encoding="utf-8")
                 for name in ("analysis.js", "matching.js", "engine.js"))
_NAME = re.compile(r"`([A-Za-z_][\w.]*)`")


def _rows() -> list[tuple[str, list[str], list[str]]]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| stage | Python"):].split("\n\n")[0].splitlines()[2:]
    rows = []
    for line in table:
        stage, python, javascript = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((stage, _NAME.findall(python), _NAME.findall(javascript)))
    return rows


def test_the_table_covers_the_pipeline() -> None:
    stages = [stage for stage, _, _ in _rows()]
    for stage in ("clean", "rewrite", "plan", "lookups", "BM25F", "tiers", "re-rank", "order",
                  "snippets", "suggest", "trace"):
        assert stage in stages


@pytest.mark.parametrize(("stage", "python", "javascript"), _rows(), ids=lambda v: str(v))
def test_every_name_exists_on_its_side(stage: str, python: list[str],
                                       javascript: list[str]) -> None:
    assert python and javascript, stage
    for name in python:
        module, *path = name.split(".")
        found: object = importlib.import_module(f"app.search.{module}")
        for part in path:
            assert hasattr(found, part), f"{name} (Python) does not exist"
            found = getattr(found, part)
        assert not any(p.startswith("_") for p in path), f"{name} is private"
    for name in javascript:
        *owner, method = name.split(".")
        if owner:
            at = ENGINE.find(f"class {owner[0]} ")
            assert at >= 0, f"class {owner[0]} (JavaScript) does not exist"
            body = ENGINE[at:]
            end = body.find("\n  class ", 1)
            body = body if end < 0 else body[:end]
            assert re.search(rf"^\s+(static\s+)?{method}\(", body, re.MULTILINE), (
                f"{name} (JavaScript) does not exist")
        else:
            assert f"function {method}(" in ENGINE, f"{name} (JavaScript) does not exist"

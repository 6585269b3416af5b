"""bench/figures.py: the one file of measured figures, which the benches write."""

from __future__ import annotations

import json
from pathlib import Path

from bench import figures


def test_a_bench_replaces_its_own_section_and_the_markdown_follows(tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    first = figures.Table(title="Search", command="python -m bench.search",
                          columns=["metric", "value"], rows=[["p50 ms", "0.75"]],
                          notes=["a | note"])
    figures.record("search", first, path=path)
    figures.record("client", figures.Table(title="Client", command="python -m bench.x",
                                           columns=["a", "b"], rows=[["1"]]), path=path)
    markdown = figures.record("search", figures.Table(
        title="Search", command="python -m bench.search", columns=["metric", "value"],
        rows=[["p50 ms", "0.70"]]), path=path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data) == ["search", "client"]  # a section keeps its place when re-recorded
    assert data["search"]["rows"] == [["p50 ms", "0.70"]]
    text = markdown.read_text(encoding="utf-8")
    assert "| p50 ms | 0.70 |" in text and "0.75" not in text
    assert "| 1 |   |" in text  # a short row is padded to the header
    assert text.index("## Search") < text.index("## Client")


def test_the_committed_figures_are_the_rendering_of_their_data() -> None:
    """docs/figures.md is written from docs/figures.json, never by hand."""
    data = json.loads(figures.FIGURES_JSON.read_text(encoding="utf-8"))
    assert figures.FIGURES_MD.read_text(encoding="utf-8") == figures.render(data)

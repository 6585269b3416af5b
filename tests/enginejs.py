"""Run the browser engine (static/engine.js) in Node from the Python tests.

One `node` process per call, fed one JSON request (see tests/node/engine_cli.js); the index
and texts are written to files first, as the browser would download them. The engine is told
to expect this code's analysis version (`index.ANALYSIS_VERSION`), as a page rendered by this
server would tell it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from app.search.index import ANALYSIS_VERSION
from tests.conftest import ROOT, missing_tool

CLI = ROOT / "tests" / "node" / "engine_cli.js"


def node() -> str:
    """The `node` executable, or skip: the README's test command must work with Python alone.
    Where the browser checks are required (`RULES_BROWSER_TESTS=required`, as `.ci/run`
    sets), a missing Node fails instead."""
    found = shutil.which("node")
    if found is None:
        missing_tool("`node` is not on PATH: install Node.js to test the browser engine",
                     "RULES_BROWSER_TESTS")
    return found


def run(request: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
    """The engine CLI's answer to `request` (expecting `ANALYSIS_VERSION` unless it says)."""
    request = {"analysis": ANALYSIS_VERSION, **request}
    done = subprocess.run([node(), str(CLI)], input=json.dumps(request, ensure_ascii=False),
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def write_files(folder: Path, index: dict[str, Any], texts: dict[str, Any],
                languages: list[tuple[dict[str, Any], dict[str, Any]]] | None = None,
                ) -> dict[str, Any]:
    """The two files (and each translation language's two) written under `folder`; their
    paths as the CLI's request fields (`languages`: [[index, texts], …], added in order)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"index": folder / "search-index.json", "texts": folder / "search-texts.json"}
    paths["index"].write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    paths["texts"].write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    written: dict[str, Any] = {k: str(v) for k, v in paths.items()}
    written["languages"] = []
    for chunk, chunk_texts in languages or ():
        pair = []
        for part, data in (("index", chunk), ("texts", chunk_texts)):
            path = folder / f"search-{part}.{chunk['lang']}.json"
            path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            pair.append(str(path))
        written["languages"].append(pair)
    return written


def language_files(corpus: Any, urls: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every translation language's two files of `corpus` (`client_index.language_index`
    and `language_texts`), as a visitor who reads them all would download them."""
    from app.search import client_index

    out = []
    for lang in client_index.index(corpus, urls)["languages"]:
        chunk = client_index.language_index(corpus, urls, lang)
        texts = client_index.language_texts(corpus, lang)
        assert chunk is not None and texts is not None
        out.append((chunk, texts))
    return out

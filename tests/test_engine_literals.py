"""The browser engine writes no number of its own: every number and list it uses is a value of
the search contract (app/search/contract.py) that the client index ships.

ESLint's rule `rulesajeon/shared-numbers` (eslint.config.js, with the short, commented list of
the numbers the engine may write: 0, 1 and Hangul syllable arithmetic) is run on the three
engine files; a number anywhere else fails it.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from tests.conftest import ROOT, missing_tool
from tests.enginejs import node

ENGINE = ("static/analysis.js", "static/matching.js", "static/engine.js")
ESLINT = ROOT / "node_modules" / "eslint" / "bin" / "eslint.js"
RULE = "rulesajeon/shared-numbers"


def _lint(*args: str, stdin: str | None = None) -> list[dict[str, Any]]:
    if not ESLINT.exists():
        missing_tool("ESLint is not installed: run `npm ci --ignore-scripts`",
                     "RULES_BROWSER_TESTS")
    done = subprocess.run([node(), str(ESLINT), "--format", "json", *args], cwd=ROOT,
                          input=stdin, capture_output=True, text=True, encoding="utf-8",
                          timeout=120, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return [m for f in found for m in f["messages"]]


def test_the_engine_files_hold_no_number_outside_the_allow_list() -> None:
    found = [m for m in _lint(*ENGINE) if m["ruleId"] == RULE]
    assert not found, [f"{m['line']}:{m['column']} {m['message']}" for m in found]


@pytest.mark.parametrize("path", ENGINE)
def test_a_number_written_into_an_engine_file_fails(path: str) -> None:
    source = (ROOT / path).read_text(encoding="utf-8")
    literals = ["16", "0.5", "99", "1e4", "0x24"]
    added = "".join(f"\nvar depth{i} = {x};" for i, x in enumerate(literals))
    changed = source.replace('"use strict";', '"use strict";' + added, 1)
    found = [m for m in _lint("--stdin", "--stdin-filename", path, stdin=changed)
             if m["ruleId"] == RULE]
    first = source[: source.index('"use strict";')].count("\n") + 2
    assert [m["line"] for m in found] == list(range(first, first + len(literals)))

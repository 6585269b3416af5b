"""static/visits.js, the "changed since your last visit" logic, run in Node (the browser
flow itself is in tests/browser/test_history_pages.py)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from tests.conftest import ROOT
from tests.enginejs import node

SCRIPT = """
const fs = require("fs");
require("vm").runInThisContext(fs.readFileSync(process.argv[1], "utf-8"));
const V = globalThis.RulesVisits;
const cases = JSON.parse(fs.readFileSync(0, "utf-8"));
process.stdout.write(JSON.stringify(cases.map(([stored, current, changed]) => {
  const visit = V.advance(stored, current);
  return {visit, marked: changed.filter((c) => V.isNew(c, visit)), cleared: V.cleared(visit)};
})));
"""


def _run(cases: list[Any]) -> list[dict[str, Any]]:
    done = subprocess.run([node(), "-e", SCRIPT, str(ROOT / "static" / "visits.js")],
                          input=json.dumps(cases), capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    answer: list[dict[str, Any]] = json.loads(done.stdout)
    return answer


def test_a_first_visit_marks_nothing_and_remembers_the_data_date() -> None:
    first, garbage = _run([[None, "2025-11-01", ["2025-11-01", "2021-05-18"]],
                           [{"seen": "x", "before": 3}, "2025-11-01", ["2025-11-01"]]])
    assert first["visit"] == {"seen": "2025-11-01", "before": "2025-11-01"}
    assert first["marked"] == [] and garbage["marked"] == []


def test_newer_data_marks_what_changed_after_the_last_visit_until_cleared() -> None:
    stored = {"seen": "2024-08-17", "before": "2024-08-17"}
    later, again = _run([[stored, "2025-11-01", ["2025-11-01", "2024-08-17", "2023-09-04",
                                                 None, "not a date"]],
                         [{"seen": "2025-11-01", "before": "2024-08-17"}, "2025-11-01",
                          ["2025-11-01"]]])
    assert later["visit"] == {"seen": "2025-11-01", "before": "2024-08-17"}
    assert later["marked"] == ["2025-11-01"]
    # The marks stay on the next page of the same data, until the player clears them.
    assert again["marked"] == ["2025-11-01"]
    assert again["cleared"] == {"seen": "2025-11-01", "before": "2025-11-01"}


def test_older_data_than_last_time_starts_over() -> None:
    (older,) = _run([[{"seen": "2025-11-01", "before": "2024-01-01"}, "2024-08-17",
                      ["2024-08-17"]]])
    assert older["visit"] == {"seen": "2024-08-17", "before": "2024-08-17"}
    assert older["marked"] == []

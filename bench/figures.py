"""Measured figures in one place: `docs/figures.json`, which the benches write, and
`docs/figures.md`, the tables rendered from it. README.md and docs/ link there instead of
quoting numbers that go stale.

A bench run with `--record` replaces its own section (keyed by what it measured, such as
`search: search-queries.dev.json`) with the table it printed, the command that printed it,
the date and the machine's state, and renders the Markdown again; the other sections stay as
they were. Run it again to update a figure; never edit either file by hand.

    from bench import figures
    figures.record("client index", figures.Table(title=…, command=…, columns=…, rows=…))
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["FIGURES_JSON", "FIGURES_MD", "Table", "record", "render"]

ROOT = Path(__file__).resolve().parents[1]
FIGURES_JSON = ROOT / "docs" / "figures.json"
FIGURES_MD = ROOT / "docs" / "figures.md"

_HEADER = """# Measured figures

Every figure here was printed by a bench (`bench/`) and written by it with `--record`
(`bench/figures.py`); README.md and docs/ link here rather than quote them. To update a table,
run the command under it with `--record`; never edit this file (or `figures.json`, its data)
by hand. Timings were taken on a shared 2-core VM: its neighbours move them by ±25 % from run
to run, so compare figures measured in the same run, and re-run a bench on a quiet machine
before trusting a small difference.
"""


@dataclass(frozen=True)
class Table:
    """One bench's figures: a table as the bench prints it, and where it came from."""

    title: str
    #: The command that measured it, as typed (without `--record`).
    command: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    #: Lines said under the table: what the rows mean, what was measured with what.
    notes: Sequence[str] = field(default_factory=tuple)


def command(program: str, argv: Sequence[str] | None) -> str:
    """The command a bench was run with, as typed, without `--record` (the table's command):
    `argv` as given to its `main`, else the process's own arguments."""
    shown = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--record"]
    return " ".join([program, *shown])


def machine() -> str:
    """The machine a figure was measured on, as far as it can tell."""
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (f"{os.cpu_count()} cores{load}, Python {platform.python_version()}, "
            f"{platform.system()} {platform.machine()}")


def record(key: str, table: Table, *, path: Path = FIGURES_JSON) -> Path:
    """Put `table` under `key` in the figures file (replacing what was there) and render the
    Markdown beside it; returns the Markdown's path."""
    data: dict[str, Any] = {}
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
    entry = {**asdict(table), "columns": list(table.columns),
             "rows": [list(r) for r in table.rows], "notes": list(table.notes),
             "measured": datetime.date.today().isoformat(), "machine": machine()}
    data[key] = entry
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    markdown = path.with_suffix(".md")
    markdown.write_text(render(data), encoding="utf-8")
    return markdown


def render(data: dict[str, Any]) -> str:
    """The Markdown of every recorded table, in the order they were first recorded."""
    out = [_HEADER]
    for key, table in data.items():
        out.append(f"## {table['title']}\n")
        out.append(f"`{table['command']}` — measured {table['measured']} ({table['machine']}; "
                   f"key `{key}`)\n")
        columns = list(table["columns"])
        out.append("| " + " | ".join(_cell(c) for c in columns) + " |")
        out.append("|" + "|".join("---" for _ in columns) + "|")
        for row in table["rows"]:
            cells = [*row, *[""] * (len(columns) - len(row))]
            out.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        out.append("")
        out += [f"{note}\n" for note in table["notes"]]
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").strip() or " "

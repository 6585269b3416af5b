"""Lighthouse audit: the four category scores per page, mobile form factor (Lighthouse's default).

    .venv/bin/python -m bench.audit [--base-url URL] [--runs N] [--details] [--json DIR]

Runs Lighthouse from bench/lighthouse/ (pinned there; `npm ci --prefix bench/lighthouse` first,
kept apart so the tests and CI do not install its ~145 packages) with Debian's
Chromium (`/usr/bin/chromium`, or `CHROME_PATH`) on the pages the browser tests check. Without
`--base-url` it starts `python -m app serve` on a free loopback port over the bundled data.
Prints one table (the median of `--runs` runs per page) and, with `--details`, the audits that
cost points. Exits 1 when a score is under the target (95). Lighthouse does not audit pages
served with an error status, so the 404 page shows "n/a" (axe and vnu check it in the tests).
Only 127.0.0.1 is contacted unless `--base-url` says otherwise. About 10–15 s per page and run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from bench.server import running_server

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE_DIR = ROOT / "bench" / "lighthouse"
LIGHTHOUSE = LIGHTHOUSE_DIR / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TARGET = 95
#: The pages of tests/browser (kept in step by hand: bench/ does not import the tests).
PAGES: dict[str, str] = {
    "home": "/",
    "source-index": "/sources/ahlcg-reference",
    "entry-table": "/rules/Skill_Test_Timing",
    "entry": "/rules/Attack_of_Opportunity",
    "timing": "/timing",
    "search": "/search?q=" + quote("틈새 공격"),
    "not-found": "/rules/No_Such_Rule",
}
CHROME_FLAGS = [
    "--headless=new", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    *(["--no-sandbox"] if os.geteuid() == 0 else []),
]



@contextmanager
def serve(data: Path, timeout: float = 90.0) -> Iterator[str]:
    """`python -m app serve` on a free loopback port (index in a temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="audit-index-") as index:
        env = {"RULES_DATA_DIR": str(data), "RULES_INDEX_DIR": index,
               "RULES_LOG_LEVEL": "warning"}
        with running_server(env, timeout=timeout) as (base, _):
            yield base


class NotAuditable(Exception):
    """Lighthouse refuses the page (it audits only pages served with a 2xx status)."""


def lighthouse(url: str, chrome: str, out: Path, *, attempts: int = 3) -> dict[str, Any]:
    """One Lighthouse run (mobile, simulated throttling); its JSON report.

    Retried: Lighthouse 12 with this Chromium now and then fails a run with NO_NAVSTART
    ("Please run Lighthouse again") or CHROME_INTERSTITIAL_ERROR, and passes the next one.
    """
    for attempt in range(1, attempts + 1):
        try:
            return _lighthouse_once(url, chrome, out)
        except RuntimeError as error:
            if attempt == attempts:
                raise
            print(f"  retrying {url}: {str(error).splitlines()[-1][:120]}", file=sys.stderr)
    raise AssertionError("unreachable")


def _lighthouse_once(url: str, chrome: str, out: Path) -> dict[str, Any]:
    command = [
        str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
        "--only-categories=" + ",".join(CATEGORIES),
        "--chrome-flags=" + " ".join(CHROME_FLAGS),
    ]
    run = subprocess.run(command, env={**os.environ, "CHROME_PATH": chrome},
                         capture_output=True, text=True, timeout=240, check=False)
    if "Status code: " in run.stderr and "unable to reliably load" in run.stderr:
        raise NotAuditable("Lighthouse does not audit a page with an error status")
    if run.returncode != 0 or not out.is_file():
        raise RuntimeError(f"lighthouse failed ({run.returncode}) on {url}:\n{run.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


def scores(report: dict[str, Any]) -> dict[str, int | None]:
    """Category → score out of 100 (None when Lighthouse could not score it)."""
    result: dict[str, int | None] = {}
    for category in CATEGORIES:
        score = report["categories"].get(category, {}).get("score")
        result[category] = None if score is None else round(score * 100)
    return result


def losses(report: dict[str, Any]) -> list[str]:
    """The weighted audits that did not score full marks, per category, worst first."""
    lines: list[str] = []
    audits = report["audits"]
    for category in CATEGORIES:
        refs = report["categories"].get(category, {}).get("auditRefs", [])
        failing = []
        for ref in refs:
            audit = audits.get(ref["id"], {})
            score = audit.get("score")
            if ref.get("weight", 0) > 0 and score is not None and score < 1:
                failing.append((score, ref["id"], audit.get("displayValue", ""),
                                audit.get("title", "")))
        for score, audit_id, value, title in sorted(failing):
            lines.append(f"    {category}: {audit_id} = {score:.2f} {value} ({title})")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base-url", help="audit this running server instead of starting one")
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--runs", type=int, default=1, help="runs per page; the median is shown")
    parser.add_argument("--details", action="store_true", help="list the audits that cost points")
    parser.add_argument("--json", type=Path, help="keep the JSON reports in this folder")
    args = parser.parse_args(argv)

    if not LIGHTHOUSE.exists():
        print(f"{LIGHTHOUSE} is missing: run `npm ci --prefix {LIGHTHOUSE_DIR}`", file=sys.stderr)
        return 2
    chrome = os.environ.get("CHROME_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chrome).exists():
        print(f"no Chromium at {chrome}: apt-get install -y chromium, or set CHROME_PATH",
              file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="audit-") as scratch:
        out_dir = args.json or Path(scratch)
        out_dir.mkdir(parents=True, exist_ok=True)
        with serve(args.data) if args.base_url is None else _given(args.base_url) as base:
            rows: list[tuple[str, dict[str, int | None], list[str], float]] = []
            for name, path in PAGES.items():
                started = time.monotonic()
                runs: list[dict[str, int | None]] = []
                details: list[str] = []
                for i in range(max(1, args.runs)):
                    try:
                        report = lighthouse(base + path, chrome, out_dir / f"{name}-{i + 1}.json")
                    except NotAuditable as error:
                        details = [f"    not audited: {error}"]
                        break
                    runs.append(scores(report))
                    details = losses(report)
                median: dict[str, int | None] = {}
                for category in CATEGORIES:
                    values = [v for r in runs if (v := r[category]) is not None]
                    median[category] = round(statistics.median(values)) if values else None
                elapsed = (time.monotonic() - started) / max(1, args.runs)
                rows.append((name, median, details, elapsed))
                print(f"  {name}: done in {elapsed:.1f} s", file=sys.stderr)

    print(f"Lighthouse {_version()} (mobile, simulated throttling), target ≥ {TARGET}, "
          f"median of {max(1, args.runs)} run(s)\n")
    print("| page | path | " + " | ".join(CATEGORIES) + " | s/run |")
    print("|---|---|" + "---:|" * len(CATEGORIES) + "---:|")
    below = False
    for name, median, _, elapsed in rows:
        cells = []
        for category in CATEGORIES:
            value = median.get(category)
            if value is None:
                cells.append("n/a")
                continue
            below = below or value < TARGET
            cells.append(f"{value}" + (" ✗" if value < TARGET else ""))
        print(f"| {name} | {unquote(PAGES[name])} | " + " | ".join(cells) + f" | {elapsed:.1f} |")
    if args.details:
        for name, _, details, _ in rows:
            if details:
                print(f"\n{name}:")
                print("\n".join(details))
    return 1 if below else 0


@contextmanager
def _given(base_url: str) -> Iterator[str]:
    yield base_url.rstrip("/")


def _version() -> str:
    package = LIGHTHOUSE_DIR / "node_modules" / "lighthouse" / "package.json"
    try:
        version: str = json.loads(package.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return "?"
    return version


if __name__ == "__main__":
    raise SystemExit(main())

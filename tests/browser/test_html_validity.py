"""The Nu HTML Checker (vnu.jar, errors only) on the HTML of every page, as the app sends it
and as a static server sends its export.

The pages are fetched once and checked in one JVM run (start-up dominates: ~2 s per run).
"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import SITE_PAGES, VNU_JAR, require_file, require_java, site_base


def fetch(url: str) -> bytes:
    """The body at `url`, also for error statuses (the 404 page is checked too)."""
    parts = urllib.parse.urlsplit(url)
    quoted = parts._replace(path=urllib.parse.quote(parts.path),
                            query=urllib.parse.quote(parts.query, safe="=&"))
    try:
        with urllib.request.urlopen(urllib.parse.urlunsplit(quoted), timeout=30) as response:
            body: bytes = response.read()
    except urllib.error.HTTPError as error:
        body = error.read()
    return body


@pytest.fixture(scope="module")
def vnu_messages(request: pytest.FixtureRequest,
                 tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """"site-name" → the checker's error messages for that page of the app or the export."""
    jar = require_file(VNU_JAR, "run `npm ci` in the project root")
    java = require_java()
    folder = tmp_path_factory.mktemp("vnu")
    files: dict[str, Path] = {}
    for site, name, path in SITE_PAGES:
        key = f"{site}-{name}"
        files[key] = folder / f"{key}.html"
        files[key].write_bytes(fetch(site_base(request, site) + path))
    run = subprocess.run(
        [java, "-jar", str(jar), "--errors-only", "--format", "json",
         *(str(f) for f in files.values())],
        capture_output=True, text=True, timeout=180, check=False,
    )
    try:
        report: dict[str, Any] = json.loads(run.stderr or run.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"vnu.jar exited {run.returncode} without a JSON report:\n"
                    f"{run.stdout}\n{run.stderr}", pytrace=False)
    by_file: dict[str, list[Any]] = {name: [] for name in files}
    names = {f.name: name for name, f in files.items()}  # vnu reports "file:/tmp/…/home.html"
    for message in report.get("messages", []):
        file_name = urllib.parse.urlsplit(str(message.get("url", ""))).path.rpartition("/")[2]
        page = names.get(file_name)
        if page is None:  # a non-document message (e.g. an I/O error): blame every page
            for found in by_file.values():
                found.append(message)
        else:
            by_file[page].append(message)
    return by_file


def format_messages(messages: list[Any]) -> str:
    lines = []
    for m in messages:
        where = f"line {m.get('lastLine', '?')}:{m.get('firstColumn', m.get('lastColumn', '?'))}"
        extract = " ".join(str(m.get("extract", "")).split())
        kind = "/".join(str(m[k]) for k in ("type", "subType") if m.get(k))
        lines.append(f"{kind} {where}: {m.get('message')}"
                     + (f"\n    {extract}" if extract else ""))
    return "\n".join(lines)


@pytest.mark.parametrize("key", [f"{site}-{name}" for site, name, _ in SITE_PAGES])
def test_page_is_valid_html(vnu_messages: dict[str, list[Any]], key: str) -> None:
    messages = vnu_messages[key]
    path = next(p for site, name, p in SITE_PAGES if f"{site}-{name}" == key)
    assert not messages, (f"Nu HTML Checker: {len(messages)} error(s) on {path}:\n"
                          + format_messages(messages))

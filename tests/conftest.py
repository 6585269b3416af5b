"""Shared fixtures: the app over the real data (built once per session) and tiny data folders."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

# The tests run the search as Python, compiled or not (`app.native`): several spy on its
# functions, which compiled code calls directly. Servers the tests start inherit this.
# tests/test_native.py checks the compiled search against it.
os.environ["RULES_COMPILED"] = "0"

import pytest
from fastapi.testclient import TestClient

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search.index import load_index
from app.settings import Settings
from app.web.app import create_app
from bench.server import running_server

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
#: What test clients call the app: a host a default install answers for.
LOCAL = "http://localhost"


def missing_tool(message: str, required_by: str) -> NoReturn:
    """Skip a test whose tool is not installed, with the install hint in `message`; fail
    instead where the environment variable `required_by` is `required` (as `.ci/run` sets once
    it has installed the tools), so a missing tool never passes quietly there."""
    if os.environ.get(required_by) == "required":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """The corpus built from the bundled data."""
    return load_corpus(DATA)


@pytest.fixture(scope="session")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A client for the app serving the bundled data (index built in a temporary folder)."""
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index")))
    with TestClient(app, base_url=LOCAL, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def data_2023(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled data folder with the Korean rules as they were on 2023-02-15 (upstream
    4023ec81c, the project's original seed): for what only that text has (a broken link)."""
    folder = tmp_path_factory.mktemp("data-2023") / "data"
    shutil.copytree(DATA, folder)
    shutil.copy(DATA / "history" / "rules-ko" / "2023-02-15_4023ec81c.json",
                folder / "ahlcg-rules.json")
    return folder


#: The games of a small test manifest (no names files: every collection code is undeclared).
GAMES = [{"id": "ahlcg", "name": "아컴호러 카드게임"}, {"id": "eh", "name": "엘드리치 호러"}]


def write_manifest(folder: Path, sources: list[dict[str, Any]], **extra: Any) -> Path:
    """A data folder's manifest declaring `sources`, with the bundled icon and languages
    files beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"icons": "icons.json", "languages": "languages.json", "games": GAMES,
                "sources": sources, **extra}
    (folder / "sources.json").write_text(json.dumps(manifest, ensure_ascii=False),
                                         encoding="utf-8")
    for name in ("icons.json", "languages.json"):
        (folder / name).write_bytes((DATA / name).read_bytes())
    return folder


def write_rules_data(folder: Path, rules: Any, *, raw: str | bytes | None = None) -> Path:
    """A data folder with one rules.json source holding `rules` (or the literal `raw` text)."""
    write_manifest(folder, [{"id": "t", "game": "ahlcg", "title": "테스트",
                             "parser": "rules-json", "file": "rules.json"}])
    content = raw if raw is not None else json.dumps(rules, ensure_ascii=False)
    target = folder / "rules.json"
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A search index folder for the bundled data, built once: real servers open it at once."""
    folder = tmp_path_factory.mktemp("live") / "index"
    load_index(load_corpus(DATA), folder)
    return folder


@pytest.fixture(scope="session")
def live_server(index_dir: Path) -> Iterator[str]:
    """The real server (uvicorn) over the bundled data, default settings, for raw HTTP."""
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index_dir)}
    with running_server(env) as (base, _):
        yield base


#: Where the static export of the bundled data is published in the tests: under a sub-path.
EXPORT_BASE_URL = "https://example.org/rules/"


@pytest.fixture(scope="session")
def static_export(tmp_path_factory: pytest.TempPathFactory, index_dir: Path) -> Iterator[Path]:
    """`python -m app export --gzip` of the bundled data under `EXPORT_BASE_URL`, once per
    session: the folder holding the site's root (the export itself is its `rules/` folder)."""
    from app.export import export_site

    # Not under pytest's 0700 base folder: as root, nginx's workers (`nobody`) must read it.
    www = Path(tempfile.mkdtemp(prefix="export-"))
    www.chmod(0o755)
    export_site(Settings(data_dir=DATA, index_dir=index_dir), www / "rules", EXPORT_BASE_URL,
                precompress=True)
    yield www
    shutil.rmtree(www, ignore_errors=True)

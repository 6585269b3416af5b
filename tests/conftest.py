"""Shared fixtures: the app over the real data (built once per session) and tiny data folders."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from fastapi.testclient import TestClient

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.settings import Settings
from app.web.app import create_app

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    """The corpus built from the bundled data."""
    return load_corpus(DATA)


@pytest.fixture(scope="session")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """A client for the app serving the bundled data (index built in a temporary folder)."""
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index")))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def write_rules_data(folder: Path, rules: Any, *, raw: str | bytes | None = None) -> Path:
    """A data folder with one rules.json source holding `rules` (or the literal `raw` text)."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"sources": [{"id": "t", "game": "ahlcg", "title": "테스트", "parser": "rules-json",
                             "file": "rules.json"}]}
    (folder / "sources.json").write_text(json.dumps(manifest), encoding="utf-8")
    content = raw if raw is not None else json.dumps(rules, ensure_ascii=False)
    target = folder / "rules.json"
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")
    return folder


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def running_server(
    env: dict[str, str], *, timeout: float = 60.0
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`python -m app serve` on a free loopback port; yields its base URL and process."""
    port = free_port()
    full_env = {**os.environ, "RULES_HOST": "127.0.0.1", "RULES_PORT": str(port), **env}
    base = f"http://127.0.0.1:{port}"
    # The server's output goes to a file: a pipe nobody reads fills up with access logs and
    # then blocks the server mid-test.
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "serve"], cwd=ROOT, env=full_env,
            stdout=log, stderr=subprocess.STDOUT, text=True,
        )
        try:
            _wait_until_ready(base, process, log, timeout)
            yield base, process
        finally:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_ready(
    base: str, process: subprocess.Popen[str], log: IO[str], timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited with {process.returncode}: {log.read()}")
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("server did not become ready")
        time.sleep(0.2)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The real server (uvicorn) over the bundled data, for tests that need raw HTTP."""
    index = tmp_path_factory.mktemp("live-index")
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index)}
    with running_server(env) as (base, _):
        yield base

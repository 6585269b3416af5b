"""bench.floor_app's stored answers: the attack bench's floor sends the app's own bytes."""

from __future__ import annotations

import gzip
from pathlib import Path

from starlette.testclient import TestClient

from bench.floor_app import BODY, StoredAnswers


def test_the_floor_sends_each_stored_answer_as_asked_and_4_kb_for_anything_else(
        tmp_path: Path) -> None:
    plain = b'{"entries": []}' * 100
    (tmp_path / "search-index.json").write_bytes(plain)
    (tmp_path / "search-index.json.gz").write_bytes(gzip.compress(plain))
    client = TestClient(StoredAnswers(tmp_path))

    packed = client.get("/search-index.json?z=1", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip" and packed.content == plain
    identity = client.get("/search-index.json", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in identity.headers and identity.content == plain
    other = client.get("/healthz")
    assert other.status_code == 200 and other.content == BODY

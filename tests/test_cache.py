"""The response cache: replays pages, splits by variant and encoding, empties on new data."""

from __future__ import annotations

import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from app.settings import Settings
from app.web.app import create_app
from app.web.state import reload_library
from tests.conftest import DATA


def test_cached_pages_are_identical_and_follow_reloads(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    app = create_app(Settings(data_dir=data, index_dir=tmp_path / "index", cache_mb=4))
    with TestClient(app) as client:
        first = client.get("/rules/Attack_of_Opportunity")
        second = client.get("/rules/Attack_of_Opportunity")
        assert first.text == second.text and first.headers["etag"] == second.headers["etag"]
        assert second.headers["content-security-policy"]
        plain = client.get("/rules/Attack_of_Opportunity", headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.text == first.text
        head = client.head("/rules/Attack_of_Opportunity")
        assert head.status_code == 200 and head.content == b""

        text = (data / "ahlcg-rules.json").read_text(encoding="utf-8")
        (data / "ahlcg-rules.json").write_text(text.replace("틈새 공격", "새 이름"),
                                               encoding="utf-8")
        assert reload_library(app.state, data, tmp_path / "index")
        after = client.get("/rules/Attack_of_Opportunity")
        assert "새 이름" in after.text and after.headers["etag"] != first.headers["etag"]


def test_errors_are_not_cached(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=DATA, index_dir=tmp_path / "index", cache_mb=4))
    with TestClient(app) as client:
        assert client.get("/rules/Nope").status_code == 404
        assert client.get("/rules/Nope").status_code == 404
        assert client.get("/api/search", params={"q": "x", "limit": 0}).status_code == 422

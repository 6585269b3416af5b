"""Serving under a sub-path (`RULES_ROOT_PATH`) behind either kind of reverse proxy.

A proxy may pass `/rules-ko/rules/X` on as it is, or strip the prefix. Before the fix, the
first broke the response cache (nothing was ever stored) and gave static files a page ETag,
and the second answered API 404s with HTML.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.settings import Settings
from app.web.app import create_app
from tests.conftest import DATA, LOCAL

ROOT = "/rules-ko"


@pytest.fixture(scope="module")
def sub_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    settings = Settings(data_dir=DATA, index_dir=tmp_path_factory.mktemp("index"), root_path=ROOT)
    with TestClient(create_app(settings), base_url=LOCAL) as client:
        yield client


@pytest.mark.parametrize("prefix", ["", ROOT], ids=["stripped", "kept"])
def test_pages_and_links_carry_the_prefix(sub_path: TestClient, prefix: str) -> None:
    page = sub_path.get(prefix + "/rules/Attack_of_Opportunity")
    assert page.status_code == 200
    assert f'<link rel="canonical" href="http://localhost{ROOT}/rules/Attack_of_Opportunity">' \
        in page.text
    links = re.findall(r'(?:href|src)="(/[^"]*)"', page.text)
    assert links and all(link.startswith(ROOT + "/") for link in links), links[:5]


@pytest.mark.parametrize("prefix", ["", ROOT], ids=["stripped", "kept"])
def test_api_errors_are_json(sub_path: TestClient, prefix: str) -> None:
    missing = sub_path.get(prefix + "/api/entries/Nope")
    assert missing.status_code == 404
    assert missing.json()["error"]["status"] == 404


def test_both_styles_share_one_cache_entry(sub_path: TestClient) -> None:
    store = sub_path.app.state.store  # type: ignore[attr-defined]
    before = len(store)
    first = sub_path.get("/timing")
    assert len(store) == before + 1
    second = sub_path.get(ROOT + "/timing")
    assert len(store) == before + 1 and second.headers["etag"] == first.headers["etag"]


@pytest.mark.parametrize("prefix", ["", ROOT], ids=["stripped", "kept"])
def test_static_files_keep_their_own_etag(sub_path: TestClient, prefix: str) -> None:
    html = sub_path.get(prefix + "/").text
    match = re.search(rf'{ROOT}/static/(style\.[0-9a-f]{{10}}\.css)', html)
    assert match is not None
    asset = sub_path.get(prefix + "/static/" + match[1])
    assert asset.status_code == 200
    assert asset.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert re.fullmatch(r'"[0-9a-f]{10}"', asset.headers["etag"])


def test_redirects_stay_under_the_prefix(sub_path: TestClient) -> None:
    for url in ("/rules/Attack_of_Opportunity/", ROOT + "/rules/Attack_of_Opportunity/"):
        moved = sub_path.get(url, follow_redirects=False)
        assert moved.headers["location"] == f"{ROOT}/rules/Attack_of_Opportunity"


def test_the_cookie_is_scoped_to_the_prefix(sub_path: TestClient) -> None:
    saved = sub_path.post(ROOT + "/settings", data={"form": "owned-form", "owned": ["tfa"]},
                          follow_redirects=False)
    assert saved.headers["location"] == f"{ROOT}/settings?saved=1"
    assert f"Path={ROOT}/" in saved.headers["set-cookie"]

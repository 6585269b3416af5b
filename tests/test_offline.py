"""The installable app: manifest, service worker and the offline title list."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.corpus.models import Corpus
from app.search.index import ANALYSIS_VERSION


def test_manifest_is_installable_and_korean(client: TestClient) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert manifest["short_name"] == "룰사전" and manifest["lang"] == "ko"
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200
    assert '<link rel="manifest" href="/manifest.webmanifest">' in client.get("/").text


def test_service_worker_precaches_every_page_under_the_data_version(
    client: TestClient, corpus: Corpus
) -> None:
    response = client.get("/sw.js")
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"
    script = response.text
    assert corpus.version in script
    assert '"/rules/Attack_of_Opportunity"' in script
    assert script.count('"/rules/') == len(corpus)
    assert re.search(r'"/static/style\.[0-9a-f]{10}\.css"', script)
    assert '"/offline"' in script and '"/api/titles"' in script


def test_service_worker_is_kept_by_the_response_cache_yet_revalidated_by_browsers(
    client: TestClient,
) -> None:
    first = client.get("/sw.js")
    again = client.get("/sw.js")  # from the response cache: the same bytes and headers
    assert again.text == first.text
    for response in (first, again):
        assert response.headers.get_list("cache-control") == ["no-cache"]
        assert response.headers["etag"] == first.headers["etag"]
    unchanged = client.get("/sw.js", headers={"if-none-match": first.headers["etag"]})
    assert unchanged.status_code == 304
    assert unchanged.headers.get_list("cache-control") == ["no-cache"]


def test_title_list_has_initials_for_offline_matching(client: TestClient, corpus: Corpus) -> None:
    titles = client.get("/api/titles").json()
    assert titles["version"] == corpus.version
    assert len(titles["titles"]) == len(corpus)
    entry = next(t for t in titles["titles"] if t["url"] == "/rules/Attack_of_Opportunity")
    assert entry["initials"] == "ㅌㅅㄱㄱ" and entry["key"] == "틈새공격"


def test_offline_page_is_a_search_shell_for_the_browser_engine(client: TestClient) -> None:
    page = client.get("/offline").text
    assert 'id="offline-results"' in page
    # The page names the analysis version the engine must find in the index it loads.
    assert f'data-analysis="{ANALYSIS_VERSION}"' in page
    assert client.get("/search-index.json").json()["analysis"] == ANALYSIS_VERSION
    assert 'data-index="/search-index.json"' in page
    assert 'data-texts="/search-texts.json"' in page
    scripts = re.search(r'data-scripts="([^"]+)"', page)
    assert scripts is not None
    names = scripts.group(1).split()
    assert [re.sub(r"\.[0-9a-f]{10}\.js$", ".js", n) for n in names] == [
        "/static/analysis.js", "/static/matching.js", "/static/engine.js"]
    for name in names:
        assert client.get(name).status_code == 200


def test_service_worker_precaches_the_browser_engine_and_its_files(client: TestClient) -> None:
    script = client.get("/sw.js").text
    assert '"/search-index.json"' in script and '"/search-texts.json"' in script
    for name in ("analysis", "matching", "engine"):
        assert re.search(rf'"/static/{name}\.[0-9a-f]{{10}}\.js"', script)


def test_client_index_files_are_served_cached_and_gzipped(client: TestClient,
                                                          corpus: Corpus) -> None:
    for part in ("index", "texts"):
        response = client.get(f"/search-{part}.json", headers={"accept-encoding": "gzip"})
        assert response.status_code == 200
        assert response.headers["content-encoding"] == "gzip"
        assert response.headers["content-type"].startswith("application/json")
        assert response.json()["version"] == corpus.version
        assert "etag" in response.headers
    assert client.get("/search-nothing.json").status_code == 404

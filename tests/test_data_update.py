"""`python -m app data update`, against a local HTTP server that serves real upstream
revisions in order (never the internet), as an admin runs it from a shell or cron."""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.update import UpdateError, fetch
from bench.server import running_server
from tests.conftest import DATA

ROOT = Path(__file__).resolve().parents[1]
HISTORY = DATA / "history"
BROKEN = ROOT / "tests" / "fixtures" / "upstream-broken"
KO_PATH, EN_PATH = "rules/ko/rules.json", "rules/en/rules.json"
ERRATA_PATH = "errata/ko/errata.json"


class Upstream:
    """A folder laid out like the upstream repository, served on 127.0.0.1. `cut` makes the
    next answers promise more bytes than they send and then close the connection."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.cut = False
        self.requests: list[str] = []
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                upstream.requests.append(self.path)
                path = upstream.root / self.path.lstrip("/")
                if not path.is_file():
                    self.send_error(404)
                    return
                body = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if upstream.cut:
                    self.wfile.write(body[:1000])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def put(self, path: str, source: Path | bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source if isinstance(source, bytes) else source.read_bytes())


@pytest.fixture()
def upstream(tmp_path: Path) -> Iterator[Upstream]:
    served = Upstream(tmp_path / "upstream")
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()


def _older_data(folder: Path, ko: str, en: str) -> Path:
    """The bundled data folder as it was when upstream's newest Korean revision was `ko` and
    the English one `en`: those are the served files, their histories end there."""
    shutil.copytree(DATA, folder)
    for lang, key in (("ko", ko), ("en", en)):
        history = folder / "history" / f"rules-{lang}"
        index = json.loads((history / "revisions.json").read_text(encoding="utf-8"))
        names = [r["file"] for r in index["revisions"]]
        keep = names[:names.index(f"{key}.json") + 1]
        for name in names[len(keep):]:
            (history / name).unlink()
        index["revisions"] = index["revisions"][:len(keep)]
        (history / "revisions.json").write_text(json.dumps(index, ensure_ascii=False, indent=1),
                                                encoding="utf-8")
        target = "ahlcg-rules.json" if lang == "ko" else "ahlcg-rules.en.json"
        shutil.copy(history / f"{key}.json", folder / target)
    return folder


def _serve_as_now(upstream: Upstream, folder: Path) -> None:
    """Upstream serves exactly what `folder` holds."""
    upstream.put(KO_PATH, folder / "ahlcg-rules.json")
    upstream.put(EN_PATH, folder / "ahlcg-rules.en.json")
    upstream.put(ERRATA_PATH, folder / "ahlcg-errata.ko.json")


def _update(folder: Path, base: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", "data", "update", "--from", base], cwd=ROOT,
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "RULES_DATA_DIR": str(folder),
             "RULES_PID_FILE": str(folder.parent / "server.pid"), **env})


def _state(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file of the folder (hidden ones too) with its content hash and modification time."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                         p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _revisions(folder: Path, lang: str) -> list[dict[str, Any]]:
    index = folder / "history" / f"rules-{lang}" / "revisions.json"
    revisions: list[dict[str, Any]] = json.loads(index.read_text(encoding="utf-8"))["revisions"]
    return revisions


def _get(url: str) -> tuple[int, str, str]:
    """Status, final URL and body of a GET that follows redirects."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.url, response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, url, exc.read().decode("utf-8")


def _wait_for(url: str, status: int, seconds: float = 60) -> tuple[int, str, str]:
    deadline = time.monotonic() + seconds
    while True:
        answer = _get(url)
        if answer[0] == status or time.monotonic() > deadline:
            return answer
        time.sleep(0.3)


def test_upgrading_through_real_revisions_while_a_server_runs(
        tmp_path: Path, upstream: Upstream) -> None:
    folder = _older_data(tmp_path / "data", "2023-02-15_4023ec81c", "2023-01-04_c542cae8c")
    _serve_as_now(upstream, folder)
    env = {"RULES_DATA_DIR": str(folder), "RULES_INDEX_DIR": str(tmp_path / "index"),
           "RULES_PID_FILE": str(tmp_path / "server.pid")}
    with running_server(env) as (base, _):
        assert _get(base + "/rules/Concealed_X")[0] == 404
        # (2023-09-04 and 2024-07-31 each give one id to two nodes: refused, see below.)
        # Counted in the files themselves: new ids, and texts that differ beyond spacing (two
        # of 2024-08-17's 8, Skill_Cards and The_Thing_That_Should_Not_Be, only in markup).
        steps = [("2023-09-13_66332748b", "3 new, 46 rewritten, 0 removed"),
                 ("2024-08-17_7782eaf78", "5 new, 6 rewritten, 0 removed"),
                 ("2025-11-01_f364171f0", "0 new, 0 rewritten, 0 removed")]
        for key, counts in steps:
            upstream.put(KO_PATH, HISTORY / "rules-ko" / f"{key}.json")
            result = _update(folder, upstream.url)
            assert result.returncode == 0, result.stderr
            ko_line = next(line for line in result.stdout.splitlines()
                           if line.startswith("ahlcg-reference:"))
            assert "new revision" in ko_line and counts in ko_line, result.stdout
            assert "ahlcg-faq: unchanged" in result.stdout
            assert "told the server (pid " in result.stdout
        # The newest Korean file is served, kept beside the old ones, as upstream has it.
        newest = (HISTORY / "rules-ko" / "2025-11-01_f364171f0.json").read_bytes()
        assert (folder / "ahlcg-rules.json").read_bytes() == newest
        added = _revisions(folder, "ko")[-3:]
        assert len(_revisions(folder, "ko")) == 17 + 3
        assert [(folder / "history" / "rules-ko" / r["file"]).read_bytes()
                == (HISTORY / "rules-ko" / f"{key}.json").read_bytes()
                for r, (key, _) in zip(added, steps, strict=True)] == [True] * 3
        # The running server reloaded by itself: the rule new in 2024 is served, with its date.
        status, _, page = _wait_for(base + "/rules/Concealed_X", 200)
        assert status == 200 and "은신 X" in page and 'class="history-line"' in page
        changes = _get(base + "/api/changes?source=ahlcg-reference")[2]
        assert json.loads(changes)["revisions"][0]["revision"]["subject"].startswith(
            "python -m app data update")
    assert subprocess.run([sys.executable, "-m", "app", "check", "--data-dir", str(folder)],
                          cwd=ROOT, capture_output=True, timeout=300).returncode == 0


def test_a_real_revision_with_a_duplicate_id_is_refused(tmp_path: Path,
                                                        upstream: Upstream) -> None:
    folder = _older_data(tmp_path / "data", "2023-02-15_4023ec81c", "2025-11-15_8f761098d")
    _serve_as_now(upstream, folder)
    upstream.put(KO_PATH, HISTORY / "rules-ko" / "2023-09-04_928d3538c.json")
    before = _state(folder)
    result = _update(folder, upstream.url)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"룰사전: data update: {upstream.url}{KO_PATH}: refused, nothing changed: error: "
        'ahlcg-rules.json: [142].rules[4].rules[25] (id "Ignoring_all_costs"): duplicate id '
        '"Ignoring_all_costs" (also ahlcg-rules.json: [142].rules[4].rules[24] (id '
        '"Ignoring_all_costs"))')
    assert _state(folder) == before


@pytest.mark.parametrize("broken", sorted(p.name for p in BROKEN.glob("*.json")))
def test_a_broken_revision_is_refused_and_nothing_changes(
        tmp_path: Path, upstream: Upstream, broken: str) -> None:
    folder = _older_data(tmp_path / "data", "2025-11-01_f364171f0", "2025-11-01_f364171f0")
    _serve_as_now(upstream, folder)
    upstream.put(EN_PATH, BROKEN / broken)
    before = _state(folder)
    result = _update(folder, upstream.url)
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"룰사전: data update: {upstream.url}{EN_PATH}: refused, "
                               "nothing changed: error: ahlcg-rules.en.json: line ")
    assert "invalid JSON" in lines[0]
    assert _state(folder) == before


def test_a_connection_cut_mid_body_changes_nothing(tmp_path: Path, upstream: Upstream) -> None:
    folder = _older_data(tmp_path / "data", "2024-07-31_32077d0f7", "2025-11-15_8f761098d")
    _serve_as_now(upstream, folder)
    upstream.put(KO_PATH, HISTORY / "rules-ko" / "2025-11-01_f364171f0.json")
    upstream.cut = True
    before = _state(folder)
    result = _update(folder, upstream.url)
    assert result.returncode == 1
    assert "the download was cut off after 1,000 bytes" in result.stderr
    assert _state(folder) == before
    upstream.cut = False  # and the next run, with the whole file, goes through
    assert _update(folder, upstream.url).returncode == 0
    assert _state(folder) != before


def test_an_unchanged_upstream_changes_nothing(tmp_path: Path, upstream: Upstream) -> None:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    _serve_as_now(upstream, folder)
    before = _state(folder)
    result = _update(folder, upstream.url)
    assert result.returncode == 0, result.stderr
    assert "ahlcg-reference: unchanged" in result.stdout
    assert f"{folder}: up to date, nothing changed" in result.stdout
    assert "told the server" not in result.stdout
    assert _state(folder) == before
    assert sorted(upstream.requests) == sorted(f"/{p}" for p in (KO_PATH, EN_PATH, ERRATA_PATH))


def _edited(nodes: list[dict[str, Any]], edit: Any) -> bytes:
    def walk(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for node in items:
            node = edit(dict(node))
            if node is not None:
                if "rules" in node:
                    node["rules"] = walk(node["rules"])
                out.append(node)
        return out
    return json.dumps(walk(nodes), ensure_ascii=False, indent=2).encode("utf-8")


def test_a_revision_that_renames_and_removes_entries(tmp_path: Path, upstream: Upstream) -> None:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    _serve_as_now(upstream, folder)
    nodes = json.loads((folder / "ahlcg-rules.json").read_text(encoding="utf-8"))

    def edit(node: dict[str, Any]) -> dict[str, Any] | None:
        if node["id"] == "Keys2":
            return None  # removed
        if node["id"] == "Concealed_X":
            node["id"] = "Concealed_X_Keyword"  # renamed, same words
        return node

    upstream.put(KO_PATH, _edited(nodes, edit))
    result = _update(folder, upstream.url)
    assert result.returncode == 0, result.stderr
    assert "0 new, 0 rewritten, 1 removed, 1 renamed" in result.stdout
    env = {"RULES_DATA_DIR": str(folder), "RULES_INDEX_DIR": str(tmp_path / "index")}
    with running_server(env) as (base, _):
        status, url, page = _get(base + "/rules/Concealed_X")
        assert (status, url) == (200, base + "/rules/Concealed_X_Keyword")
        request = urllib.request.Request(base + "/rules/Concealed_X", method="HEAD")
        opener = urllib.request.build_opener(NoRedirect)
        with contextlib.suppress(urllib.error.HTTPError), opener.open(request) as response:
            pytest.fail(f"followed to {response.url}")
        status, _, page = _get(base + "/rules/Keys2")
        assert status == 410
        assert "삭제된 항목입니다." in page and "에 추가" in page
        assert "열쇠" in page  # its last text is still there to read
        history = _get(base + "/history/Keys2")[2]
        assert "삭제" in history and "2024-07-31" in history
        api = _get(base + "/api/entries/Keys2")
        assert api[0] == 410 and "/history/Keys2" in json.loads(api[2])["error"]["message"]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> None:
        assert code == 301 and newurl.endswith("/rules/Concealed_X_Keyword")
        raise urllib.error.HTTPError(newurl, code, msg, headers, fp)


def test_a_revision_with_an_icon_the_icon_file_lacks(tmp_path: Path, upstream: Upstream) -> None:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    _serve_as_now(upstream, folder)
    nodes = json.loads((folder / "ahlcg-rules.json").read_text(encoding="utf-8"))

    def edit(node: dict[str, Any]) -> dict[str, Any]:
        if node["id"] == "Frost_Tokens" or node["id"] == "Keys2":
            node["text"] = "[moon] 토큰을 공개하면 열쇠를 하나 얻습니다.\n" + node.get("text", "")
        return node

    upstream.put(KO_PATH, _edited(nodes, edit))
    result = _update(folder, upstream.url)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "[moon]" in line]
    assert warnings == ['warning: ahlcg-rules.json: [143].rules[12] (id "Keys2"): [moon] is not '
                        "in the icon file: shown as its name, marked as an icon; add it (a "
                        'label and a drawing), or list it under "words" if it is text']
    env = {"RULES_DATA_DIR": str(folder), "RULES_INDEX_DIR": str(tmp_path / "index")}
    with running_server(env) as (base, _):
        page = _get(base + "/rules/Keys2")[2]
        assert "[moon]" not in page and '<span class="icon-missing" title="아이콘: moon">' in page


# --- Downloads on their own: bounded in size and time -------------------------------------------

def test_downloads_are_bounded_in_size(upstream: Upstream) -> None:
    upstream.put(KO_PATH, b"[" + b" " * 5000 + b"]")
    with pytest.raises(UpdateError, match="5,002 bytes \\(at most 4,096\\)"):
        fetch(upstream.url, KO_PATH, max_bytes=4096)
    assert fetch(upstream.url, KO_PATH) == b"[" + b" " * 5000 + b"]"


def test_downloads_are_bounded_in_time() -> None:
    # A server that accepts and never answers.
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        base = f"http://127.0.0.1:{listener.getsockname()[1]}/"
        started = time.monotonic()
        with pytest.raises(UpdateError, match=r"download failed|not received"):
            fetch(base, KO_PATH, timeout=1.0)
        assert time.monotonic() - started < 5


def test_a_missing_file_or_folder_is_one_line(tmp_path: Path, upstream: Upstream) -> None:
    with pytest.raises(UpdateError, match="the server answered 404"):
        fetch(upstream.url, KO_PATH)
    with pytest.raises(UpdateError, match="no such file"):
        fetch(str(tmp_path), KO_PATH)
    (tmp_path / "rules" / "ko").mkdir(parents=True)
    (tmp_path / "rules" / "ko" / "rules.json").write_bytes(b"[]")
    assert fetch(str(tmp_path), KO_PATH) == b"[]"
    assert fetch(tmp_path.as_uri() + "/", KO_PATH) == b"[]"


def test_an_install_that_fails_half_way_puts_back_what_it_wrote(tmp_path: Path) -> None:
    from app.update import _install

    stage, data = tmp_path / "stage", tmp_path / "data"
    for folder in (stage, data):
        (folder / "history").mkdir(parents=True)
    (stage / "history" / "new.json").write_text("new revision")
    (stage / "rules.json").write_text("new rules")
    (stage / "history" / "revisions.json").write_text("new index")
    (data / "rules.json").write_text("old rules")
    (data / "history" / "revisions.json").mkdir()  # cannot be replaced by a file: the write fails
    before = _state(data)
    with pytest.raises(UpdateError, match="nothing changed"):
        _install(stage, data, ["history/new.json", "rules.json", "history/revisions.json"])
    assert {k: v[0] for k, v in _state(data).items()} == {k: v[0] for k, v in before.items()}
    assert not (data / "history" / "new.json").exists()

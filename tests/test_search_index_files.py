"""The search index folder cannot be poisoned, and a damaged one is rebuilt.

Whoosh unpickles its table of contents when it opens an index, so a folder someone else can
write is never opened (the index is built in memory instead), a folder that cannot be written
never sends the index to a shared temp path, and files that do not match the checksums in the
stamp are rebuilt with one warning line instead of a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from whoosh import index as whoosh_index

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import index as search_index
from app.search.documents import documents
from bench.server import running_server
from tests.conftest import DATA, ROOT, write_rules_data

QUERIES = ("단서", "틈새 공격", "교전", "조사자")
STAMP = "CORPUS_VERSION"
RULES = [
    {"id": "Attack_of_Opportunity", "title": "틈새 공격", "text": "교전 중인 적이 공격합니다."},
    {"id": "Clues", "title": "단서", "text": "장소에 처음 들어가면 단서를 놓습니다."},
]


class _Payload:
    """Runs a shell command when unpickled: what a planted table of contents can carry."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (self.command,))


def _api_search(base: str, query: str) -> list[str]:
    url = f"{base}/api/search?{urllib.parse.urlencode({'q': query})}"
    with urllib.request.urlopen(url, timeout=10) as response:
        return [result["id"] for result in json.load(response)["results"]]


def _expected(client: TestClient) -> dict[str, list[str]]:
    """What the app answers over an index it built itself from the bundled data."""
    found = {q: [r["id"] for r in client.get("/api/search", params={"q": q}).json()["results"]]
             for q in QUERIES}
    assert all(found.values())
    return found


def _serve_and_search(env: dict[str, str], log: Path) -> dict[str, list[str]]:
    with running_server({"RULES_DATA_DIR": str(DATA), **env}, log_path=log) as (base, _):
        return {query: _api_search(base, query) for query in QUERIES}


def _log_lines(log: Path, text: str) -> list[str]:
    return [line for line in log.read_text(encoding="utf-8").splitlines() if text in line]


def _checksums(folder: Path) -> list[str]:
    return [f"{hashlib.sha256(p.read_bytes()).hexdigest()} {p.name}"
            for p in sorted(folder.iterdir()) if p.name != STAMP]


def _plant(folder: Path, corpus: Corpus, marker: Path) -> None:
    """A real index of `corpus` whose pickled schema runs `touch marker` when opened."""
    schema = search_index.schema()
    schema.payload = _Payload(f"touch {shlex.quote(str(marker))}")
    folder.mkdir()
    writer = whoosh_index.create_in(str(folder), schema).writer()
    for doc in documents(corpus):
        writer.add_document(**search_index.entry_fields(doc))
    writer.commit()
    # The planted index is live: plain Whoosh runs the payload when it opens it.
    subprocess.run([sys.executable, "-c", "import sys; from whoosh import index; "
                    "index.open_dir(sys.argv[1])", str(folder)], check=True, timeout=60)
    assert marker.exists(), "the planted index does not run its payload"
    marker.unlink()


@pytest.mark.parametrize(("stamp_format", "attack"), [
    ("checksums", "writable by others"),
    ("stamp only", "writable by others"),
    ("checksums", "owned by another user"),
])
def test_planted_index_is_never_unpickled(tmp_path: Path, corpus: Corpus, client: TestClient,
                                          stamp_format: str, attack: str) -> None:
    planted, marker = tmp_path / "planted", tmp_path / "payload-ran"
    _plant(planted, corpus, marker)
    # The attacker can compute the stamp (either format) and the checksums of its own files.
    lines = [search_index.stamp(corpus)]
    if stamp_format == "checksums":
        (planted / STAMP).write_text("\n".join([*lines, *_checksums(planted)]) + "\n",
                                     encoding="utf-8")
    else:
        (planted / STAMP).write_text(lines[0], encoding="utf-8")
    if attack == "writable by others":
        planted.chmod(0o777)
    else:
        if os.geteuid() != 0:
            pytest.skip("giving the folder to another user needs root")
        for path in [planted, *planted.iterdir()]:
            os.chown(path, 12345, 12345)
    listing = sorted(p.name for p in planted.iterdir())

    log = tmp_path / "server.log"
    found = _serve_and_search({"RULES_INDEX_DIR": str(planted)}, log)

    assert found == _expected(client)
    assert not marker.exists(), "the server unpickled the planted index"
    assert sorted(p.name for p in planted.iterdir()) == listing, "the server wrote into it"
    unsafe = _log_lines(log, "not safe")
    assert len(unsafe) == 1, log.read_text(encoding="utf-8")
    assert str(planted) in unsafe[0]


def test_unwritable_index_folder_builds_in_memory_not_in_the_temp_folder(
    tmp_path: Path, client: TestClient
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    temp = tmp_path / "tmp"  # what tempfile.gettempdir() answers in the server
    temp.mkdir()
    log = tmp_path / "server.log"
    found = _serve_and_search({"RULES_INDEX_DIR": str(blocker / "index"), "TMPDIR": str(temp)},
                              log)

    assert [p.name for p in temp.iterdir() if "rulesajeon-index" in p.name] == []
    assert found == _expected(client)
    assert len(_log_lines(log, "in memory")) == 1, log.read_text(encoding="utf-8")
    assert blocker.read_text(encoding="utf-8") == "not a folder"


@pytest.mark.parametrize(("suffix", "where"), [(".trm", 0), ("._body_w_len.col", None)])
def test_damaged_index_with_a_valid_stamp_is_rebuilt(tmp_path: Path, client: TestClient,
                                                     suffix: str, where: int | None) -> None:
    index = tmp_path / "index"
    env = {"RULES_DATA_DIR": str(DATA), "RULES_INDEX_DIR": str(index)}
    subprocess.run([sys.executable, "-m", "app", "index"], cwd=ROOT, env={**os.environ, **env},
                   check=True, capture_output=True, timeout=120)
    damaged = next(p for p in index.iterdir() if p.name.endswith(suffix))
    content = bytearray(damaged.read_bytes())
    at = len(content) // 2 if where is None else where
    content[at] ^= 0xFF
    damaged.write_bytes(bytes(content))

    log = tmp_path / "server.log"
    found = _serve_and_search(env, log)

    assert found == _expected(client)
    warnings = _log_lines(log, "damaged")
    assert len(warnings) == 1, log.read_text(encoding="utf-8")
    assert damaged.name in warnings[0] and "rebuilding" in warnings[0]
    assert "Traceback" not in log.read_text(encoding="utf-8")


# -- load_index on its own ------------------------------------------------------------------


def _small_corpus(tmp_path: Path) -> Corpus:
    return load_corpus(write_rules_data(tmp_path / "data", RULES))


def _listed(folder: Path) -> set[str]:
    lines = (folder / STAMP).read_text(encoding="utf-8").splitlines()[1:]
    return {line.split(" ", 1)[1] for line in lines}


def _files_state(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_ino, p.stat().st_mtime_ns) for p in [folder, *folder.iterdir()]}


def test_intact_index_opens_without_rebuilding_and_is_private(tmp_path: Path) -> None:
    corpus = _small_corpus(tmp_path)
    folder = tmp_path / "index"
    search_index.load_index(corpus, folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert [p.name for p in folder.iterdir() if p.stat().st_mode & 0o022] == []
    state = _files_state(folder)

    opened = search_index.load_index(corpus, folder)

    assert _files_state(folder) == state
    assert opened.doc_count() == len(corpus)


@pytest.mark.parametrize("change", ["unlisted file", "missing file"])
def test_index_files_not_matching_the_stamp_are_rebuilt(tmp_path: Path, change: str) -> None:
    corpus = _small_corpus(tmp_path)
    folder = tmp_path / "index"
    search_index.load_index(corpus, folder)
    built = folder.stat().st_ino
    if change == "unlisted file":  # a newer table of contents, which Whoosh would prefer
        shutil.copyfile(next(folder.glob("_MAIN_*.toc")), folder / "_MAIN_2.toc")
    else:
        next(folder.glob("*.trm")).unlink()

    opened = search_index.load_index(corpus, folder)

    assert folder.stat().st_ino != built, "the index was not rebuilt"
    assert {p.name for p in folder.iterdir()} == _listed(folder) | {STAMP}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert opened.doc_count() == len(corpus)


def test_an_index_built_in_memory_shares_no_temporary_folder(tmp_path: Path) -> None:
    # #20 (found by the reload bench): Whoosh's RAM index writer kept its temporary segments in
    # <system temp>/MAIN.tmp, one folder for every process on the box: a build finishing
    # elsewhere deleted it under ours (a reload failed: "No such file or directory:
    # /tmp/MAIN.tmp/…"), and a file of that name left by anyone stopped every build.
    temp = tmp_path / "tmp"
    temp.mkdir()
    (temp / "MAIN.tmp").write_text("someone else's", encoding="utf-8")
    code = ("from app.corpus.build import load_corpus; from app.search import SearchIndex; "
            "from app.urls import Urls; import sys; "
            "index = SearchIndex.open_or_build(load_corpus(__import__('pathlib').Path(sys.argv[1]),"
            " Urls()), None); print(index.search('틈새 공격').hits[0].id)")
    done = subprocess.run([sys.executable, "-c", code, str(DATA)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "TMPDIR": str(temp)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "Attack_of_Opportunity"
    assert (temp / "MAIN.tmp").read_text(encoding="utf-8") == "someone else's"
    assert [p.name for p in temp.iterdir()] == ["MAIN.tmp"]  # its own folder is gone again

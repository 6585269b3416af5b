"""Opening and (re)building the on-disk index."""

from __future__ import annotations

from pathlib import Path

from app.corpus.build import load_corpus
from app.search import SearchIndex
from app.search.documents import documents
from app.search.index import entry_fields
from tests.conftest import write_rules_data

RULES = [
    {"id": "Attack_of_Opportunity", "title": "틈새 공격", "text": "교전 중인 적이 공격합니다."},
    {"id": "Clues", "title": "단서", "text": "장소에 처음 들어가면 단서를 놓습니다."},
]


def test_build_then_open_without_rebuilding(tmp_path: Path) -> None:
    corpus = load_corpus(write_rules_data(tmp_path / "data", RULES))
    index_dir = tmp_path / "index"
    first = SearchIndex.open_or_build(corpus, index_dir)
    assert [h.id for h in first.search("틈새공격").hits][:1] == ["Attack_of_Opportunity"]
    stamp = (index_dir / "CORPUS_VERSION").stat().st_mtime_ns
    again = SearchIndex.open_or_build(corpus, index_dir)
    assert (index_dir / "CORPUS_VERSION").stat().st_mtime_ns == stamp
    assert [h.id for h in again.search("단서").hits] == ["Clues"]
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_new_data_rebuilds(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    old = load_corpus(write_rules_data(tmp_path / "a", RULES))
    SearchIndex.open_or_build(old, index_dir)
    more = [*RULES, {"id": "Doom", "title": "파멸", "text": "파멸 토큰."}]
    new = load_corpus(write_rules_data(tmp_path / "b", more))
    assert new.version != old.version
    index = SearchIndex.open_or_build(new, index_dir)
    assert [h.id for h in index.search("파멸").hits] == ["Doom"]


def test_broken_index_folder_is_rebuilt(tmp_path: Path) -> None:
    corpus = load_corpus(write_rules_data(tmp_path / "data", RULES))
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    (index_dir / "CORPUS_VERSION").write_text("garbage", encoding="utf-8")
    (index_dir / "junk").write_bytes(b"\x00")
    index = SearchIndex.open_or_build(corpus, index_dir)
    assert index.search("단서").total == 1


def test_fields_are_pretokenized(tmp_path: Path) -> None:
    corpus = load_corpus(write_rules_data(tmp_path / "data", RULES))
    fields = entry_fields(next(d for d in documents(corpus) if d.id == "Attack_of_Opportunity"))
    assert "틈새공격" in fields["title_w"].split()
    assert {"attack", "opportunity", "attackofopportunity"} <= set(fields["alias"].split())
    assert {"교전", "중인", "적이", "적", "공격"} <= set(fields["body_w"].split())
    assert {"틈새", "새공", "공격"} <= set(fields["title_bg"].split())

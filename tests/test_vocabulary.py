"""Game vocabulary from data: the manifest's games and their names files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.corpus.build import load_corpus
from app.corpus.manifest import GameDecl, load_manifest
from app.corpus.models import Corpus
from app.corpus.vocabulary import load_game
from app.errors import DataError
from tests.conftest import write_rules_data


def _game(tmp_path: Path, doc: object) -> Path:
    (tmp_path / "names.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return tmp_path


def test_the_bundled_names_cover_every_code_the_bundled_data_uses(corpus: Corpus) -> None:
    assert all(c.declared for c in corpus.collections)
    ahlcg = corpus.game("ahlcg")
    assert ahlcg.name == "아컴호러 카드게임" and corpus.game("eh").name == "엘드리치 호러"
    assert corpus.collection("tcu").name == "끝맺지 못한 의식"
    assert corpus.collection("tcu").name_en == "The Circle Undone"
    positions = [c.position for c in ahlcg.collections]
    assert positions == sorted(positions)
    assert ahlcg.name_of("scenarios", "wilds") == "길들지 않은 야생"


def test_a_names_file_is_read_and_sorted(tmp_path: Path) -> None:
    game = load_game(_game(tmp_path, {
        "collections": [{"code": "b", "name": "나", "position": 2},
                        {"code": "a", "name": "가", "name_en": "A", "position": 1}],
        "scenarios": {"x": "엑스"}}), GameDecl("g", "게임", "", "names.json", 20))
    assert [c.code for c in game.collections] == ["a", "b"]
    assert game.name_of("scenarios", "x") == "엑스" and game.name_of("scenarios", "y") is None


@pytest.mark.parametrize(("doc", "problem"), [
    ({"collections": [{"code": "a.b", "name": "가"}]}, 'must not hold "."'),
    ({"collections": [{"code": "a", "name": "가"}, {"code": "a", "name": "나"}]},
     "duplicate code"),
    ({"collections": [{"code": "a"}]}, 'missing "name"'),
    ({"scenarios": {"x": 1}}, "a name table must map codes to names"),
])
def test_a_broken_names_file_is_one_line(tmp_path: Path, doc: object, problem: str) -> None:
    with pytest.raises(DataError) as caught:
        load_game(_game(tmp_path, doc), GameDecl("g", "게임", "", "names.json", 20))
    assert problem in str(caught.value) and str(caught.value).startswith("names.json")


def test_games_are_declared_not_coded(tmp_path: Path) -> None:
    folder = write_rules_data(tmp_path, [{"id": "A", "title": "가"}])
    manifest = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    manifest["games"] = [{"id": "ahlcg", "name": "새 이름"}, {"id": "mythos", "name": "미토스"}]
    manifest["sources"].append({"id": "m", "game": "mythos", "title": "미토스 규칙",
                                "parser": "rules-json", "file": "rules2.json"})
    (folder / "sources.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "rules2.json").write_text('[{"id": "M", "title": "미"}]', encoding="utf-8")
    corpus = load_corpus(folder)
    assert [g.id for g in corpus.games] == ["ahlcg", "mythos"]
    assert corpus.game("mythos").name == "미토스" and corpus.entries["M"].game == "mythos"
    manifest["sources"][1]["game"] = "unknown"
    (folder / "sources.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DataError, match="one of the declared games: ahlcg, mythos"):
        load_manifest(folder)


def test_a_synonyms_file_holds_synonyms_and_related_words(tmp_path: Path) -> None:
    from app.corpus.vocabulary import load_synonyms
    (tmp_path / "syn.txt").write_text(
        "급증 = 서지, surge\n포함 ~ 넣다, 집어넣다\n# 주석\n", encoding="utf-8")
    synonyms, related = load_synonyms(tmp_path, "syn.txt")
    assert dict(synonyms) == {"서지": ("급증",), "surge": ("급증",)}
    # A verb is written as in a dictionary and keyed by its stem, which queries meet.
    assert dict(related) == {"넣": ("포함",), "집어넣": ("포함",)}


def test_a_synonyms_line_of_neither_kind_is_one_clear_error(tmp_path: Path) -> None:
    from app.corpus.vocabulary import load_synonyms
    (tmp_path / "syn.txt").write_text("급증 = 서지\n포함 넣다\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_synonyms(tmp_path, "syn.txt")
    assert "syn.txt" in str(caught.value) and "line 2" in str(caught.value)
    assert "~" in str(caught.value)


def test_an_answers_file_holds_each_entrys_questions(tmp_path: Path) -> None:
    from app.corpus.vocabulary import load_answers
    (tmp_path / "answers.txt").write_text(
        "# 주석\nAttack_of_Opportunity: 교전 중에 이동하면 | 붙어 있는데 맞나요\n\n"
        "Attack_of_Opportunity: 한 대 맞나요\n", encoding="utf-8")
    answers = load_answers(tmp_path, "answers.txt")
    assert answers["Attack_of_Opportunity"] == ("교전 중에 이동하면", "붙어 있는데 맞나요",
                                                "한 대 맞나요")


@pytest.mark.parametrize("line", ["Attack_of_Opportunity", ": 질문", "Move: | "])
def test_a_broken_answers_line_is_one_line(tmp_path: Path, line: str) -> None:
    from app.corpus.vocabulary import load_answers
    (tmp_path / "answers.txt").write_text(f"{line}\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_answers(tmp_path, "answers.txt")
    assert str(caught.value) == ('answers.txt: line 1: expected "entry id: question | '
                                 'question"')


def test_the_bundled_answers_name_real_entries_and_are_searched_not_shown(
        corpus: Corpus) -> None:
    from app.corpus.build import answers_warnings
    from app.search.documents import documents
    assert answers_warnings(corpus) == []
    docs = {d.id: d for d in documents(corpus)}
    move = docs["Attack_of_Opportunity"]
    assert "이동" in move.asks and move.asks not in move.text
    assert move.searched.endswith(move.asks)
    assert "교전 중에 다른 장소로 이동하면" not in corpus.entries["Attack_of_Opportunity"].html

"""What search indexes (`app/search/documents.py`): a long procedure's steps as documents of
their own that land on their anchors, and passages searched under the section they sit in."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.corpus.build import load_corpus
from app.corpus.models import Corpus
from app.search import SearchIndex
from app.search.documents import documents, english_surfaces
from tests.conftest import GAMES, write_manifest, write_rules_data

#: Three bold numbered steps, the last followed by a closing paragraph (the setup appendix's
#: shape), and a glossary entry.
SETUP = [
    {"id": "Setup", "title": "게임 준비",
     "text": "다음 과정에 따라 준비합니다.\n\n"
             "<b>1. 조사자를 고릅니다.</b> 서로 다른 조사자를 고릅니다.\n"
             "<b>2. 시작 카드를 뽑습니다.</b> 카드를 5장 뽑습니다.\n"
             "- 뽑은 약점 카드는 치워 두고 새로 뽑습니다.\n"
             "<b>3. 혼돈 주머니를 만듭니다.</b>\n\n"
             "준비 중에는 행동 기회가 없습니다."},
    {"id": "Weakness", "title": "약점", "text": "약점은 카드의 부가 종류입니다."},
]


def _steps(corpus: Corpus) -> dict[str, tuple[str, str]]:
    return {d.id: (d.title, d.text) for d in documents(corpus) if d.anchor}


def test_each_anchored_step_is_a_document_with_its_heading_and_lines(tmp_path: Path) -> None:
    corpus = load_corpus(write_rules_data(tmp_path / "data", SETUP))
    assert _steps(corpus) == {
        "Setup#step-1": ("1. 조사자를 고릅니다.",
                         "1. 조사자를 고릅니다. 서로 다른 조사자를 고릅니다."),
        "Setup#step-2": ("2. 시작 카드를 뽑습니다.",
                         "2. 시작 카드를 뽑습니다. 카드를 5장 뽑습니다.\n\n"
                         "- 뽑은 약점 카드는 치워 두고 새로 뽑습니다."),
        # The closing paragraph is the entry's, not the last step's.
        "Setup#step-3": ("3. 혼돈 주머니를 만듭니다.", "3. 혼돈 주머니를 만듭니다."),
    }
    assert 'id="step-2"' in corpus.entries["Setup"].html


def test_an_entry_with_fewer_steps_is_read_whole(tmp_path: Path) -> None:
    two = [{**SETUP[0], "text": SETUP[0]["text"].split("<b>3.")[0]}]
    assert _steps(load_corpus(write_rules_data(tmp_path / "data", two))) == {}


def test_a_step_answers_a_question_on_the_entry_s_page_and_a_name_stays_the_entry_s(
        tmp_path: Path) -> None:
    corpus = load_corpus(write_rules_data(tmp_path / "data", SETUP))
    index = SearchIndex.open_or_build(corpus, tmp_path / "index")
    try:
        first = index.search("시작 카드 뽑을 때 약점 카드 나오면").hits
        assert (first[0].id, first[0].anchor, first[0].heading) == (
            "Setup", "step-2", "2. 시작 카드를 뽑습니다.")
        assert [h.id for h in first].count("Setup") == 1  # each page once
        assert "약점" in first[0].snippet
        name = index.search("약점").hits[0]
        assert (name.id, name.anchor) == ("Weakness", "")
    finally:
        index.close()


def _setup_with_answers(folder: Path, lines: str) -> Corpus:
    write_rules_data(folder, SETUP)
    write_manifest(folder, [{"id": "t", "game": "ahlcg", "title": "테스트",
                             "parser": "rules-json", "file": "rules.json"}],
                   games=[{**GAMES[0], "answers": "answers.txt"}, GAMES[1]])
    (folder / "answers.txt").write_text(lines, encoding="utf-8")
    return load_corpus(folder)


def test_a_step_answers_the_questions_its_own_answers_line_lists(tmp_path: Path) -> None:
    # The question is the step's, not the whole procedure's: it lands on the step's anchor.
    corpus = _setup_with_answers(tmp_path / "data",
                                 "Setup#step-3: 처음에 가방에 넣는 토큰 고르기\n")
    index = SearchIndex.open_or_build(corpus, tmp_path / "index")
    try:
        first = index.search("처음에 가방에 넣는 토큰 고르기").hits[0]
        assert (first.id, first.anchor) == ("Setup", "step-3")
    finally:
        index.close()


def test_an_answers_line_for_a_step_the_entry_lacks_is_one_warning(tmp_path: Path) -> None:
    from app.corpus.build import answers_warnings
    corpus = _setup_with_answers(tmp_path / "data", "Setup#step-3: 가방에 넣는 토큰 고르기\n"
                                 "Setup#step-9: 가방에 넣는 토큰 고르기\n")
    assert [(p.file, p.entry) for p in answers_warnings(corpus)] == [
        ("answers.txt", '"Setup#step-9"')]


def test_a_repeated_passage_title_is_searched_under_its_section(tmp_path: Path) -> None:
    folder = write_manifest(tmp_path / "data", [
        {"id": "book", "game": "ahlcg", "title": "규칙서", "parser": "learn-to-play",
         "file": "book.txt", "id_prefix": "b"}])
    (folder / "book.txt").write_text(
        "블로그 제목\n---\n조사 단계\n\n조사 단계에서 조사자는 행동합니다.\n\n"
        "회피\n\n회피하면 적에게서 벗어납니다.\n\n전략 조언\n\n회피를 잘 쓰면 이깁니다.\n\n"
        "교전\n\n교전하면 적과 붙습니다.\n\n전략 조언\n\n교전을 잘 쓰면 안전합니다.\n",
        encoding="utf-8")
    corpus = load_corpus(folder)
    titles = {d.id: (d.title, d.shown_title) for d in documents(corpus)}
    assert titles["b-회피-전략_조언"] == ("회피 전략 조언", "전략 조언")
    assert titles["b-교전-전략_조언"] == ("교전 전략 조언", "전략 조언")
    assert titles["b-회피"] == ("회피", "회피")  # a title the book gives once stays as it is
    index = SearchIndex.open_or_build(corpus, tmp_path / "index")
    try:
        assert index.search("교전 전략").hits[0].id == "b-교전-전략_조언"
    finally:
        index.close()


def test_the_setup_appendix_step_is_the_answer_on_the_real_data(client: TestClient) -> None:
    found = client.get("/api/search", params={"q": "시작 패에 약점 카드 들어왔어요"}).json()
    # The step is among the first answers, with its heading as its title (the general 약점
    # entry, which every such question also matches, may come before it).
    tops = [r for r in found["results"][:3] if r["anchor"]]
    assert tops, [r["id"] for r in found["results"][:3]]
    top = tops[0]
    assert (top["id"], top["anchor"], top["title"]) == (
        "Appendix_III_Setting_Up_The_Game", "step-8", "8. 시작 카드를 뽑습니다.")
    assert top["url"].endswith("/rules/Appendix_III_Setting_Up_The_Game#step-8")
    assert top["path"][-1]["id"] == "Appendix_III_Setting_Up_The_Game"
    page = client.get("/rules/Appendix_III_Setting_Up_The_Game").text
    assert 'id="step-8"' in page
    page = client.get("/search", params={"q": "시작 패에 약점 카드 들어왔어요"}).text
    link = ('<a href="/rules/Appendix_III_Setting_Up_The_Game#step-8"><span>8. 시작 카드를 '
            '뽑습니다.</span></a>')
    assert link in page
    # A community word of two: the glossary entry, not a step sharing the words.
    assert client.get("/api/search", params={"q": "탭된 카드"}).json()["results"][0]["id"] == (
        "Exhaust")


def test_the_client_index_ships_steps_as_documents_of_their_pages(client: TestClient) -> None:
    index = client.get("/search-index.json").json()
    docs = index["docs"]
    at = docs["id"].index("Upkeep_Phase#step-4-5")
    assert docs["url"][at].endswith("/rules/Upkeep_Phase#step-4-5")
    assert docs["id"][docs["page"][str(at)]] == "Upkeep_Phase"
    assert index["titles"]["parts"][at] == [] and index["titles"]["full"][at] == ""
    # What the re-rank reads as the step's title: its heading, compact.
    assert index["titles"]["searched"][str(at)].startswith("45모든조사자는")


def test_an_english_stem_that_is_no_word_is_said_as_its_most_frequent_word(
        tmp_path: Path) -> None:
    corpus = load_corpus(write_rules_data(tmp_path / "data", [
        {"id": "Take", "title": "Taking", "text": "Take it. Takes one, take two; games."},
        {"id": "Clue", "title": "Clues", "text": "A clue, two clues."},
    ]))
    surfaces = english_surfaces(documents(corpus))
    # take, takes and taking share the stem tak: the most frequent word says it.
    assert surfaces["tak"] == "take"
    assert surfaces["gam"] == "games"
    # A stem that is a word of the texts is said as itself.
    assert "clue" not in surfaces

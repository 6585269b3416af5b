"""Tests for the learn-to-play blog parser: small inline inputs per rule, then the real file."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.corpus.models import RawEntry, SourceSpec
from app.corpus.parsers import learn_to_play
from app.corpus.parsers._text import assign_ids
from app.errors import DataError

DATA = Path(__file__).parents[1] / "data"
SPEC = SourceSpec(
    id="ahlcg-rulebook", game="ahlcg", title="아컴호러 카드게임 규칙서", parser="learn-to-play",
    file="ahlcg-learn-to-play.txt", id_prefix="ahr",
)
NBSP = "\u00a0"


def parse(*sections: str, header: str = "블로그 제목\n") -> list[RawEntry]:
    """Sections joined the way the blog writes them: a blank line between every line."""
    text = header + "".join(f"---\n{s}\n" for s in sections) + "---\n"
    return learn_to_play.parse("\n\n".join(text.split("\n")), SPEC)


def by_title(entries: list[RawEntry]) -> dict[str, RawEntry]:
    return {e.title: e for e in entries}


# --- inline rules ------------------------------------------------------------------------


def test_header_is_skipped_and_first_line_is_the_chapter() -> None:
    entries = parse("라운드 순서\n게임은 여러 라운드로 진행됩니다.", header="제목\nhttps://x\n")
    got = [(e.id, e.title, e.parent) for e in entries]
    assert got == [("ahr-라운드_순서", "라운드 순서", None)]
    assert entries[0].body == "게임은 여러 라운드로 진행됩니다."
    assert entries[0].location == "line 7"


def test_short_standalone_line_is_a_heading() -> None:
    entries = parse("조사 단계\n조사자는 행동합니다.\n뽑기\n카드를 1장 뽑습니다.")
    assert [e.title for e in entries] == ["조사 단계", "뽑기"]
    assert entries[1].parent == "ahr-조사_단계"
    assert entries[1].body == "카드를 1장 뽑습니다."


def test_sentences_and_question_headings() -> None:
    entries = parse("장\n그리고 공격합니다!\n신화 단계 다음에는?\n조사 단계를 진행합니다.")
    assert [e.title for e in entries] == ["장", "신화 단계 다음에는?"]


def test_short_lines_after_a_list_intro_are_bullets_not_headings() -> None:
    entries = parse(
        f"장\n할 수 있는 행동은 다음과 같습니다.\n{NBSP}\n카드 1장 뽑기\n자원 1개 획득하기"
        f"\n{NBSP}\n그 밖의 행동은 없습니다."
    )
    assert len(entries) == 1
    assert entries[0].body.endswith(
        "- 카드 1장 뽑기\n- 자원 1개 획득하기\n\n그 밖의 행동은 없습니다."
    )


def test_dash_bullets_keep_an_attached_line_and_stop_at_a_gap() -> None:
    entries = parse(f"장\n- 첫째입니다.\n덧붙입니다.\n{NBSP}\n- 둘째입니다.\n{NBSP}\n끝입니다.")
    assert entries[0].body == "- 첫째입니다.\n\n  덧붙입니다.\n- 둘째입니다.\n\n끝입니다."


def test_open_steps_keep_their_explanation_closed_steps_end_at_a_gap() -> None:
    open_steps = parse(
        f"장\n1. 적이 움직입니다.\n설명입니다.\n{NBSP}\n더 설명합니다.\n2. 공격합니다."
    )
    assert open_steps[0].body == (
        "1. 적이 움직입니다.\n\n   설명입니다.\n\n   더 설명합니다.\n2. 공격합니다."
    )
    closed = parse(f"장\n1. 첫 단계\n2. 둘째 단계\n{NBSP}\n중요 사항: 끝입니다.")
    assert closed[0].body == "1. 첫 단계\n2. 둘째 단계\n\n중요 사항: 끝입니다."


def test_question_and_answer_labels_are_bold_and_prose_is_escaped() -> None:
    entries = parse("장\nQ: 무엇을 *할까요*?\nA: >>(행동 격발) 기능을 [쓰세요].")
    assert entries[0].body == (
        "<b>Q:</b> 무엇을 \\*할까요\\*?\n\n<b>A:</b> [action] 기능을 \\[쓰세요\\]."
    )


def test_recurring_box_nests_under_its_section_with_qualified_ids() -> None:
    entries = parse("장\n자원\n자원을 얻습니다.\n전략 조언\n아껴 쓰세요.\n교전\n교전합니다."
                    "\n전략 조언\n도우세요.")
    tips = [e for e in entries if e.title == "전략 조언"]
    assert [(e.id, e.parent) for e in tips] == [
        ("ahr-자원-전략_조언", "ahr-자원"), ("ahr-교전-전략_조언", "ahr-교전"),
    ]


def test_ordinal_headings_nest_under_the_previous_heading() -> None:
    entries = by_title(parse("장\n보정하기\n방법은 두 가지입니다.\n첫 번째 방법\n소모합니다."
                             "\n두 번째 방법\n활성화합니다."))
    assert entries["첫 번째 방법"].parent == entries["두 번째 방법"].parent == "ahr-보정하기"


def test_ids_repeat_only_with_suffixes_in_reading_order() -> None:
    ids = assign_ids("p", ["장", "팁", "팁", "장", "팁"], [None, 0, 0, None, 3])
    assert ids == ["p-장", "p-장-팁", "p-장-팁-2", "p-장-2", "p-장-팁-3"]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("text", ["", "  \n\n", "제목\n본문입니다.\n"])
def test_unparseable_input_raises_data_error(text: str) -> None:
    with pytest.raises(DataError) as info:
        learn_to_play.parse(text, SPEC)
    assert str(info.value).startswith("ahlcg-learn-to-play.txt: ")
    assert "\n" not in str(info.value)


# --- the real file -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> list[RawEntry]:
    return learn_to_play.parse((DATA / SPEC.file).read_text(encoding="utf-8"), SPEC)


def test_real_chapters_and_headings(real: list[RawEntry]) -> None:
    chapters = [e.title for e in real if e.parent is None]
    assert chapters == ["라운드 순서", "조사 단계", "적 단계", "정리 단계", "신화 단계"]
    titles = by_title(real)
    for heading in ["뽑기", "자원", "첫 게임에 유용한 팁", "적 교전", "능력과 능력 테스트",
                    "혼돈 토큰 효과", "능력 테스트의 결과", "신화 단계 다음에는?"]:
        assert heading in titles, heading
    assert titles["뽑기"].parent == "ahr-조사_단계"
    assert sum(e.title == "전략 조언" for e in real) == 3
    assert "카드 1장 뽑기" not in titles  # an item of the actions list


def test_real_ids_unique_and_parents_first(real: list[RawEntry]) -> None:
    ids = [e.id for e in real]
    assert len(ids) == len(set(ids))
    seen: set[str] = set()
    for entry in real:
        assert entry.parent is None or entry.parent in seen
        assert entry.id.startswith("ahr-") and entry.location.startswith("line ")
        seen.add(entry.id)


def test_real_lists_and_steps(real: list[RawEntry]) -> None:
    titles = by_title(real)
    assert "- 카드 1장 뽑기\n- 자원 1개 획득하기\n- [action] 기능 하나 활성화하기" in (
        titles["조사 단계"].body
    )
    enemy = titles["적 단계"].body
    assert "1. \"사냥꾼\"들이 움직입니다.\n\n   일부 적은" in enemy
    assert "\n2. 적이 공격합니다." in enemy
    upkeep = titles["정리 단계"].body
    assert upkeep.endswith(
        "\n\n위 단계를 모두 마치면 라운드가 끝납니다. 다음 라운드의 신화 단계로 넘어갑니다."
    )
    assert "\u00a0" not in "".join(e.body for e in real)

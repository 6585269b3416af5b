"""Word-level (어절) differences: what a player reading a rule's history sees."""

from __future__ import annotations

from app.render.diff import change_size, plain_html, tokens, word_diff


def test_a_changed_word_is_struck_and_the_new_one_underlined() -> None:
    diff = word_diff("조사자는 행동을 3번 할 수 있다.", "조사자는 행동을 4번 할 수 있다.")
    assert "<del>3번</del> <ins>4번</ins>" in diff.html
    assert "조사자는 행동을" in diff.html and (diff.added, diff.removed) == (1, 1)
    assert not diff.rewrite


def test_korean_is_compared_by_eojeol_never_by_syllable() -> None:
    # One 어절 changed its ending: the whole 어절 is marked, not a fragment of a syllable.
    diff = word_diff("적과 교전 중인 조사자", "적과 교전 중이던 조사자")
    assert "<del>중인</del> <ins>중이던</ins>" in diff.html


def test_long_unchanged_stretches_fold_so_the_change_is_found() -> None:
    words = " ".join(f"낱말{i}" for i in range(200))
    diff = word_diff(words + " 끝.", words + " 마지막.")
    assert "<del>끝.</del> <ins>마지막.</ins>" in diff.html
    assert "188어절 같음" in diff.html and "낱말10 " not in diff.html
    assert diff.html.count("낱말") == 12  # the context kept before the change


def test_a_rewrite_shows_both_versions_whole_not_a_patchwork() -> None:
    diff = word_diff("가 나 다 라 마 바", "하나 둘 셋 넷 다섯 여섯 일곱")
    assert diff.rewrite and diff.similarity < 0.4
    assert diff.html.startswith('<del class="diff-block">')
    assert "이전" in diff.html and "이후" in diff.html and diff.html.count("<ins") == 1


def test_line_breaks_are_kept_and_not_counted_as_words() -> None:
    old, new = "첫 줄\n둘째 줄", "첫 줄\n\n둘째 줄 더"
    assert tokens(new) == ["첫", "줄", "\n", "둘째", "줄", "더"]
    assert change_size(old, new)[:2] == (1, 0)
    assert "<br>" in word_diff(old, new).html


def test_text_is_escaped() -> None:
    diff = word_diff("<b>안전</b>", "<script>alert(1)</script>")
    assert "<script>" not in diff.html and "&lt;script&gt;" in diff.html
    assert "&lt;b&gt;" in plain_html("<b>안전</b>")


def test_plain_text_keeps_its_paragraphs() -> None:
    assert plain_html("첫 문단\n둘째 줄\n\n새 문단") == "<p>첫 문단<br>둘째 줄</p><p>새 문단</p>"

"""Snippets: a bounded window, escaped, with matches marked (spaces inside Hangul allowed)."""

from __future__ import annotations

from app.search.snippet import SNIPPET_CHARS, make_snippet, term_pattern


def test_marks_and_escapes() -> None:
    pattern = term_pattern(["틈새공격"])
    snippet = make_snippet("<b>적</b>이 틈새 공격을 & 합니다", pattern)
    assert snippet == "&lt;b&gt;적&lt;/b&gt;이 <mark>틈새 공격</mark>을 &amp; 합니다"


def test_window_around_first_match() -> None:
    text = "가나다 " * 100 + "파멸 토큰" + " 라마바" * 100
    snippet = make_snippet(text, term_pattern(["파멸"]))
    assert "<mark>파멸</mark>" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet.replace("<mark>", "").replace("</mark>", "")) <= SNIPPET_CHARS + 2


def test_no_match_gives_the_start() -> None:
    assert make_snippet("짧은 글", None) == "짧은 글"
    assert make_snippet("짧은\n\n글", term_pattern(["없음"])) == "짧은 글"


def test_longest_term_wins() -> None:
    snippet = make_snippet("조사자는 조사를 합니다", term_pattern(["조사", "조사자"]))
    assert snippet.startswith("<mark>조사자</mark>")

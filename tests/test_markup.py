"""Rendering the markup dialect: safety, icons, traits, links and plain text."""

from __future__ import annotations

import pytest

from app.render.icons import load_icons
from app.render.markup import LinkTarget, Rendered, Resolver
from app.render.markup import render as _render
from app.render.markup import render_inline as _render_inline
from tests.conftest import DATA

ICONS = load_icons(DATA, "icons.json")


def render(body: str, resolver: Resolver, lang: str = "ko") -> Rendered:
    return _render(body, resolver, ICONS, lang)


def render_inline(text: str, resolver: Resolver, lang: str = "ko") -> Rendered:
    return _render_inline(text, resolver, ICONS, lang)


def _resolver(href: str) -> LinkTarget | None:
    if href == "#Known":
        return LinkTarget("/rules/Known", "Known")
    if href.startswith("/card/"):
        return LinkTarget("https://cards.example/" + href[6:])
    return None


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "<iframe src=//evil.example></iframe>",
        '<a href="javascript:alert(1)">x</a>',
        "<b onclick=alert(1)>x</b>",
        "<style>body{}</style>",
    ],
)
def test_raw_html_other_than_b_i_br_center_is_escaped(hostile: str) -> None:
    out = render(f"앞 {hostile} 뒤", _resolver)
    for dangerous in ("<script", "<img", "<iframe", "<a ", "<b onclick", "<style"):
        assert dangerous not in out.html
    assert "&lt;" in out.html


def test_javascript_links_never_render_as_links() -> None:
    out = render("[눌러](javascript:alert(1))", _resolver)
    assert "<a" not in out.html
    assert out.text == "[눌러](javascript:alert(1))"


def test_allowed_tags_pass_and_unclosed_ones_are_closed() -> None:
    out = render("<b>굵게</b> <i>기울임 <br> <center>가운데</center>", _resolver)
    assert "<b>굵게</b>" in out.html
    assert '<span class="center">가운데</span>' in out.html
    assert out.html.count("<i>") == out.html.count("</i>") == 1
    assert "<br>" in out.html


def test_stray_closing_tag_is_dropped() -> None:
    assert "</b>" not in render("글</b>자", _resolver).html


def test_icons_become_labelled_svg_and_korean_text() -> None:
    out = render("[reaction] 기능과 [free] 기능", _resolver)
    assert 'aria-label="반응 격발"' in out.html
    assert "<svg" in out.html
    assert "[reaction]" not in out.html
    assert out.text == "반응 격발 기능과 자유 격발 기능"


def test_icon_before_parenthesis_is_not_a_link() -> None:
    # The data writes a test of intellect at difficulty 3 as `[intellect](3)`.
    out = render("[intellect](3)를 테스트합니다", _resolver)
    assert 'aria-label="지식"' in out.html
    assert out.text == "지식(3)를 테스트합니다"
    assert out.problems == []


def test_a_bracketed_word_the_icon_file_lists_as_text_is_text_without_a_warning() -> None:
    out = render("Limit 1 per [period]. See [uses](#Known).", _resolver)
    assert "[period]" in out.html and '<a href="/rules/Known">uses</a>' in out.html
    assert out.problems == []


def test_a_token_the_icon_file_lacks_is_shown_by_name_never_raw() -> None:
    out = render("[tentacle] 토큰을 공개합니다.", _resolver)
    assert "[tentacle]" not in out.html
    assert '<span class="icon-missing" title="아이콘: tentacle">' in out.html
    assert out.text == "tentacle 토큰을 공개합니다."
    assert out.problems == ["[tentacle] is not in the icon file: shown as its name, marked as "
                            'an icon; add it (a label and a drawing), or list it under "words" '
                            "if it is text"]


def test_a_near_miss_of_an_icon_is_text_and_an_error() -> None:
    out = render("[reacton] 기능", _resolver)
    assert "[reacton]" in out.html
    assert out.errors == ["[reacton] is not an icon and would show as text: write [reaction]"]
    # A translated token (fr upstream's `[réaction]`) is one too; a bracketed word is text.
    assert render("[réaction] et [period]", _resolver, lang="fr").errors == [
        "[réaction] is not an icon and would show as text: write [reaction]"]


def test_newer_icons_are_drawn_and_labelled_in_the_entry_language() -> None:
    korean = render("[frost] 토큰, [day], [night]", _resolver)
    english = render("a [frost] token", _resolver, lang="en")
    assert 'aria-label="서리"' in korean.html and 'aria-label="낮"' in korean.html
    assert 'aria-label="밤"' in korean.html and "[frost]" not in korean.html
    assert english.text == "a Frost token" and 'aria-label="Frost"' in english.html


def test_bracketed_korean_prose_is_not_an_icon() -> None:
    out = render("[카드/게임 요소]와 [기간]", _resolver)
    assert out.text == "[카드/게임 요소]와 [기간]"
    assert out.problems == []


def test_traits_render_bold_italic() -> None:
    out = render("[[연구]] 카드", _resolver)
    assert '<b class="trait"><i>연구</i></b>' in out.html
    assert out.text == "연구 카드"


def test_entry_link_with_an_icon_in_its_label() -> None:
    out = render("[“조사자당( [per_investigator] )”](#Known) 값", _resolver)
    assert '<a href="/rules/Known">' in out.html
    assert 'aria-label="조사자당"' in out.html
    assert out.links == ["Known"]
    assert "](#" not in out.html


def test_card_links_are_external() -> None:
    out = render("[카드](/card/06004)", _resolver)
    expected = '<a href="https://cards.example/06004" class="external" rel="external noopener">'
    assert expected in out.html


def test_broken_link_renders_as_plain_text_and_is_reported() -> None:
    out = render("[“소모”](#_ST_2)해야 합니다", _resolver)
    assert "<a" not in out.html
    assert "“소모”해야" in out.text
    assert out.problems == ["broken link (#_ST_2)"]


def test_lists_and_paragraphs_in_plain_text() -> None:
    out = render("머리말\n- 하나\n- 둘\n\n1. 첫째\n2. 둘째", _resolver)
    assert "<ul>" in out.html and "<ol>" in out.html
    assert out.text == "머리말\n\n- 하나\n- 둘\n\n1. 첫째\n2. 둘째"


def test_indented_lines_are_not_code_blocks() -> None:
    assert "<code>" not in render("문단\n\n        들여쓴 줄", _resolver).html


def test_bold_step_paragraphs_get_anchors() -> None:
    out = render("<b>1.1 시작합니다.</b>\n설명\n\n<b>2.2.1 행동</b>", _resolver)
    assert out.anchors == {"1.1": "step-1-1", "2.2.1": "step-2-2-1"}
    assert '<p id="step-1-1">' in out.html


def test_inline_titles_have_no_paragraph() -> None:
    out = render_inline("축복([bless]) 토큰", _resolver)
    assert not out.html.startswith("<p>")
    assert out.text == "축복(축복) 토큰"


def test_a_plain_line_after_a_list_item_is_a_paragraph_of_its_own() -> None:
    out = render("- 하나\n- 둘\n추가 참조: 셋", _resolver)
    assert out.html.count("<li>") == 2
    assert "<p>추가 참조: 셋</p>" in out.html
    assert "추가 참조" not in out.html.split("</ul>")[0]
    # Indented lines stay inside their item; a list after a list stays one list.
    nested = render("- 하나\n  이어짐\n- 둘", _resolver)
    assert nested.html.count("<li>") == 2 and "<p>" not in nested.html


def test_a_paragraph_that_is_only_links_is_marked_as_a_list_of_them() -> None:
    # `관련된 주제: 길, 칸`: its links are tap targets of their own (the stylesheet sizes them);
    # a link inside a sentence stays a word of it.
    related = render("관련된 주제: [길](#Known), [칸](#Known)", _resolver).html
    assert related.startswith('<p class="links">관련된 주제: <a ')
    dotted = render("참조: [길](#Known) · [칸](#Known)", _resolver).html
    assert dotted.startswith('<p class="links">')
    for sentence in ("이 규칙은 [길](#Known)을 봅니다.",
                     "관련된 주제: [길](#Known) (16페이지), [칸](#Known)"):
        assert render(sentence, _resolver).html.startswith("<p>"), sentence

"""Server-rendered pages: every page answers, nothing raw leaks, hostile data stays inert."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.corpus.models import Corpus
from app.settings import Settings
from app.urls import Urls
from app.web.app import create_app
from tests.conftest import LOCAL, write_rules_data


def _visible(html: str) -> str:
    """The page without tags, attribute values and entity-escaped text kept as shown."""
    return re.sub(r"<[^>]*>", " ", html)


def test_every_page_answers_200_in_its_language(client: TestClient, corpus: Corpus) -> None:
    """Every source and entry (translations and the FAQ included) at the URL links use."""
    # An icon's token left as text is a rendering bug; other bracketed words ("[period]") are
    # the data's own text.
    tokens = "|".join(map(re.escape, corpus.icons.icons))
    raw_token = re.compile(rf"\[(?:{tokens})\]")
    urls = [("/", "ko"), ("/timing", "ko")]
    urls += [(Urls().source(s.id), s.spec.lang) for s in corpus.sources]
    urls += [(Urls().entry(e.id), e.lang) for e in corpus]
    for url, lang in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.text
        assert f'<html lang="{lang}"' in html, url
        assert "](#" not in html, url
        assert not raw_token.search(_visible(html)), (url, raw_token.search(_visible(html)))


def test_entry_page_shows_breadcrumb_badges_backlinks_and_neighbours(client: TestClient) -> None:
    html = client.get("/rules/Skill_Test_3").text
    assert '<a href="/rules/Skill_Test_Timing">능력 테스트 순서</a>' in html
    assert "아컴호러 카드게임 참조 안내서" in html
    assert "이 항목을 참조하는 항목" in html
    assert 'rel="prev"' in html and 'rel="next"' in html


def test_children_render_as_anchored_subsections(client: TestClient) -> None:
    html = client.get("/rules/Skill_Test_Timing").text
    assert 'id="r-Skill_Test_3"' in html
    assert '<a class="anchor" href="#r-Skill_Test_3"' in html


def test_collection_badges_use_korean_names(client: TestClient) -> None:
    html = client.get("/rules/Bonded").text
    assert "끝맺지 못한 의식" in html and "꿈을 먹는 자" in html


def test_backlinks_list_linking_entries(client: TestClient) -> None:
    html = client.get("/rules/Per_Investigator").text
    section = html.split("이 항목을 참조하는 항목", 1)[1]
    assert 'href="/rules/Location_Cards"' in section


def test_timing_page_colours_cues_and_row_links(client: TestClient, corpus: Corpus) -> None:
    html = client.get("/timing").text
    assert html.count('class="row row-step"') >= 20
    assert 'class="row row-window"' in html and 'class="row row-transition"' in html
    assert 'href="/rules/Mythos_Phase#step-1-1"' in html
    assert 'href="/rules/Skill_Test_3"' in html
    assert "플레이어의 행동 기회" in html and "class=\"legend\"" in html
    for table_id in ("Phase_Sequence_Timing", "Skill_Test_Timing"):
        table = corpus.entries[table_id].table
        assert table is not None
        rows = [r for r in table if r.cells]
        page = client.get(f"/rules/{table_id}").text
        assert page.count('<tr class="row row-') == len(rows)


def test_source_index_has_jump_bar_and_korean_order(client: TestClient) -> None:
    html = client.get("/sources/ahlcg-reference").text
    assert 'href="#letter-ㄱ"' in html and 'id="letter-ㅎ"' in html
    nearest = '>가장 가까운 <span class="alias" lang="en">Nearest<'
    assert html.index(nearest) < html.index(">틈새 공격 <")


def test_eh_glossary_terms_are_in_the_index(client: TestClient) -> None:
    html = client.get("/sources/eh-reference").text
    letter = html.split('id="letter-ㅈ"', 1)[1]
    assert ">징조<" in letter  # rulebook sections have no English name


def test_unknown_pages_are_korean_404s(client: TestClient) -> None:
    for url in ("/rules/Nope", "/sources/nope", "/no/such/page"):
        response = client.get(url)
        assert response.status_code == 404
        assert "찾을 수 없습니다" in response.text


def test_script_in_title_and_text_is_escaped(tmp_path: Path) -> None:
    rules = [{"id": "X", "title": "<script>alert('t')</script>제목",
              "text": "본문 <script>alert('b')</script> <img src=x onerror=alert(1)>"}]
    folder = write_rules_data(tmp_path / "data", rules)
    app = create_app(Settings(data_dir=folder, index_dir=tmp_path / "index"))
    with TestClient(app, base_url=LOCAL) as hostile:
        for url in ("/rules/X", "/sources/t", "/api/entries/X"):
            body = hostile.get(url).text
            assert "<script>alert" not in body and "<img src=x" not in body, url
        assert "&lt;script&gt;" in hostile.get("/rules/X").text


def test_no_see_also_line_or_intro_is_glued_into_a_bullet(client: TestClient,
                                                          corpus: Corpus) -> None:
    """Over the whole corpus: a plain line after a list item is never inside that item."""
    glued = re.compile(r"<li>(?:(?!</li>).)*<br>\s*(?:추가 참조|See also)", re.DOTALL)
    for entry in corpus:
        assert not glued.search(entry.html), entry.id
        assert not re.search(r"<li>(?:(?!</li>).)*추가 참조", entry.html, re.DOTALL), entry.id
    page = client.get("/rules/Attack_of_Opportunity").text
    see_also = page.index("추가 참조")
    assert page.rfind("</ul>", 0, see_also) > page.rfind("<ul>", 0, see_also)


def test_the_timing_page_jumps_to_each_phase_and_does_not_repeat_titles(
        client: TestClient) -> None:
    page = client.get("/timing").text
    jump = page.split('<nav class="phase-jump"', 1)[1].split("</nav>", 1)[0]
    for phase in ("I. 신화 단계", "II. 조사 단계", "III. 적 단계", "IV. 정리 단계",
                  "능력 테스트 순서"):
        assert f">{phase}</a>" in jump
    for anchor in re.findall(r'href="#([^"]+)"', jump):
        assert f'id="{anchor}"' in page
    rows = page.split('aria-labelledby="t2-h"', 1)[1].split("<tbody>", 1)[1].split("</tbody>")[0]
    assert "능력 테스트 순서" not in rows  # the heading says it; no first row repeats it
    assert '<p class="print-only">http://localhost/timing · 자료 ' in page


def test_the_timing_tables_are_one_tap_from_every_page(client: TestClient) -> None:
    for url in ("/", "/rules/Attack_of_Opportunity", "/search?q=x", "/settings"):
        header = client.get(url).text.split('<header class="site-header"', 1)[1]
        assert '<a class="tool" href="/timing">타이밍 표</a>' in header.split("</header>")[0]
    home = client.get("/").text
    quick = home.split('class="quick"', 1)[1].split("</section>", 1)[0]
    subtitles = re.findall(r'<a class="card"[^>]*><strong>.*?</strong><span>(.*?)</span>', quick)
    assert len(subtitles) == len(set(subtitles))  # no two cards share a subtitle
    assert "빠른 참조" in home


def test_the_api_reference_is_made_from_the_schema(client: TestClient) -> None:
    page = client.get("/api").text
    schema = client.get("/openapi.json").json()
    for path in schema["paths"]:
        assert f"<code>GET {path}</code>" in page
    assert "<code>q</code>" in page and "≤ 50" in page  # /api/search's limit
    # Each answer's type, and every field of every type an answer uses, from the schema.
    assert "응답: <code>SearchResults</code>" in page
    assert "응답: <code>list[SourceSummary]</code>" in page
    assert "오류(4xx): <code>ErrorAnswer</code>" in page
    for name in ("SearchHit", "EntryPage", "Suggestions", "ErrorBody"):
        for field in schema["components"]["schemas"][name]["properties"]:
            assert f"<code>{field}</code>" in page.split(f'id="schema-{name}"', 1)[1]
    assert "<script" not in page.split("<main", 1)[1].split("</main>", 1)[0]

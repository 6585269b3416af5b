"""Tests for the inline SVG game icons in ``app.render.icons``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape

import pytest

from app.render import icons
from app.render.icons import ICONS, Icon, icon_html

EXPECTED_LABELS: dict[str, str] = {
    "action": "행동",
    "free": "자유 격발",
    "reaction": "반응 격발",
    "fast": "신속",
    "per_investigator": "조사자당",
    "elder_sign": "고대 표식",
    "skull": "해골",
    "cultist": "광신도",
    "tablet": "석판",
    "elder_thing": "고대의 것",
    "auto_fail": "자동 실패",
    "bless": "축복",
    "curse": "저주",
    "willpower": "의지",
    "intellect": "지식",
    "combat": "힘",
    "agility": "민첩",
    "wild": "만능",
    "guardian": "수호자",
    "seeker": "탐구자",
    "rogue": "무법자",
    "mystic": "신비주의자",
    "survivor": "생존자",
}

TOKENS = sorted(EXPECTED_LABELS)
SVG_NS = "{http://www.w3.org/2000/svg}"
ALLOWED_TAGS = {"svg", "g", "path", "circle", "rect", "polygon", "ellipse", "line", "polyline"}


def _svg_part(html: str) -> str:
    start = html.index("<svg")
    end = html.index("</svg>") + len("</svg>")
    return html[start:end]


def test_all_tokens_present_with_korean_labels() -> None:
    assert set(ICONS) == set(EXPECTED_LABELS)
    assert len(ICONS) == 23
    for token, label in EXPECTED_LABELS.items():
        icon = ICONS[token]
        assert isinstance(icon, Icon)
        assert icon.token == token
        assert icon.label == label


def test_unknown_token_is_none() -> None:
    assert icon_html("no_such_icon") is None
    assert icon_html("") is None
    assert icon_html("Action") is None


def test_icons_mapping_is_read_only() -> None:
    with pytest.raises(TypeError):
        ICONS["action"] = ICONS["free"]  # type: ignore[index]


@pytest.mark.parametrize("token", TOKENS)
def test_exact_html_shape(token: str) -> None:
    icon = ICONS[token]
    html = icon_html(token)
    assert html is not None
    assert "\n" not in html
    assert html == (
        f'<span class="icon icon-{token}" role="img" aria-label="{icon.label}" '
        f'title="{icon.label}"><svg viewBox="0 0 24 24" width="1em" height="1em" '
        f'aria-hidden="true" focusable="false">{icon.body}</svg></span>'
    )


@pytest.mark.parametrize("token", TOKENS)
def test_svg_is_well_formed_and_safe(token: str) -> None:
    html = icon_html(token)
    assert html is not None
    svg = _svg_part(html)
    # Parse with the SVG namespace declared, as a browser would treat inline SVG.
    root = ET.fromstring(svg.replace("<svg ", f'<svg xmlns="{SVG_NS[1:-1]}" ', 1))
    assert root.tag == f"{SVG_NS}svg"
    assert root.get("viewBox") == "0 0 24 24"
    for element in root.iter():
        assert element.tag.startswith(SVG_NS)
        assert element.tag[len(SVG_NS) :] in ALLOWED_TAGS
        for attribute in element.attrib:
            assert attribute not in {"id", "style", "class"}
            assert not attribute.startswith("on")
            assert "href" not in attribute
    lowered = html.lower()
    for forbidden in ("style=", " id=", "<script", "href", "url(", "javascript:"):
        assert forbidden not in lowered


@pytest.mark.parametrize("token", TOKENS)
def test_body_uses_current_color_only(token: str) -> None:
    body = ICONS[token].body
    assert "currentColor" in body
    colours = re.findall(r'(?:fill|stroke)="([^"]*)"', body)
    assert colours
    assert set(colours) <= {"currentColor", "none"}


@pytest.mark.parametrize("token", TOKENS)
def test_body_is_small(token: str) -> None:
    assert len(ICONS[token].body.encode()) < 700


def test_label_is_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    nasty = Icon(token="action", label="<b>\"x\" & 'y'</b>", body='<path fill="currentColor"/>')
    monkeypatch.setattr(icons, "ICONS", {**ICONS, "action": nasty})
    html = icon_html("action")
    assert html is not None
    assert "<b>" not in html
    assert 'aria-label="&lt;b&gt;&quot;x&quot; &amp; &#x27;y&#x27;&lt;/b&gt;"' in html
    label = re.search(r'aria-label="([^"]*)"', html)
    assert label is not None
    assert unescape(label.group(1)) == nasty.label


def test_korean_labels_are_not_mangled() -> None:
    html = icon_html("reaction")
    assert html is not None
    assert 'aria-label="반응 격발"' in html
    assert 'title="반응 격발"' in html

"""The icon set: loaded from the data's icon file, drawn safely, labelled per language."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path

import pytest

from app.errors import DataError
from app.render.icons import IconSet, load_icons
from tests.conftest import DATA, ROOT

ICONS = load_icons(DATA, "icons.json")
#: The Korean names the community uses (NOTES), and the newer data's icons.
EXPECTED_LABELS: dict[str, str] = {
    "action": "행동", "free": "자유 격발", "reaction": "반응 격발", "fast": "신속",
    "per_investigator": "조사자당", "elder_sign": "고대 표식", "skull": "해골",
    "cultist": "광신도", "tablet": "석판", "elder_thing": "고대의 것", "auto_fail": "자동 실패",
    "bless": "축복", "curse": "저주", "willpower": "의지", "intellect": "지식", "combat": "힘",
    "agility": "민첩", "wild": "만능", "guardian": "수호자", "seeker": "탐구자",
    "rogue": "무법자", "mystic": "신비주의자", "survivor": "생존자",
    "frost": "서리", "day": "낮", "night": "밤",
}
TOKENS = sorted(EXPECTED_LABELS)
SVG_NS = "{http://www.w3.org/2000/svg}"
ALLOWED_TAGS = {"svg", "g", "path", "circle", "rect", "polygon", "ellipse", "line", "polyline"}


def test_every_icon_has_its_korean_and_english_label() -> None:
    assert set(ICONS.icons) == set(EXPECTED_LABELS)
    for token, label in EXPECTED_LABELS.items():
        assert ICONS.label(token) == label
        assert ICONS.label(token, "en").isascii()
    # A language the file does not name falls back to English, then Korean (#26).
    assert ICONS.label("reaction", "pt") == "Reaction"
    assert ICONS.label("reaction", "fr") == "Réaction"
    assert ICONS.label("skull", "de") == "Skull"


def test_unknown_token_is_none() -> None:
    assert ICONS.html("no_such_icon") is None
    assert ICONS.html("period") is None
    assert ICONS.html("Action") is None


@pytest.mark.parametrize("token", TOKENS)
def test_svg_is_well_formed_safe_and_follows_the_text_colour(token: str) -> None:
    html = ICONS.html(token)
    assert html is not None and "\n" not in html
    svg = html[html.index("<svg"):html.index("</svg>") + len("</svg>")]
    root = ET.fromstring(svg.replace("<svg ", f'<svg xmlns="{SVG_NS[1:-1]}" ', 1))
    assert root.get("viewBox") == "0 0 24 24"
    for element in root.iter():
        assert element.tag[len(SVG_NS):] in ALLOWED_TAGS
        for attribute in element.attrib:
            assert attribute not in {"id", "style", "class"} and not attribute.startswith("on")
    colours = re.findall(r'(?:fill|stroke)="([^"]*)"', ICONS.icons[token].body)
    assert colours and set(colours) <= {"currentColor", "none"}
    assert len(ICONS.icons[token].body.encode()) < 700


def _icon_file(tmp_path: Path, svg: str, label: object = None) -> Path:
    icon = {"token": "x", "label": label or {"ko": "엑스"}, "svg": svg}
    (tmp_path / "icons.json").write_text(json.dumps({"icons": [icon]}), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("svg", "problem"), [
    ('<script>alert(1)</script>', "<script> is not a plain shape"),
    ('<path d="M0 0" onload="alert(1)"/>', 'attribute "onload"'),
    ('<path d="M0 0" style="fill:red"/>', 'attribute "style"'),
    ('<use href="#a"/>', "<use> is not a plain shape"),
    ('<path fill="red" d="M0 0"/>', 'fill="red": drawings use currentColor or none'),
    ('<path d="M0 0"', "not well-formed"),
    ('<g>text</g>', "text inside the drawing"),
    # #20 M1: markup an XML parser drops but the page's HTML parser keeps.
    ('<path fill="currentColor" d="M0 0"/><?x ><script>x()</script><meta http-equiv="refresh" '
     'content="0;url=https://evil.example/">?>', "a processing instruction (<?…) is not allowed"),
    ('<path fill="currentColor" d="M0 0"/><!--><a href="https://evil.example/">x</a>'
     '<img src="x" onerror="x()"/>-->', "a comment (<!--…) is not allowed"),
    ('<path fill="currentColor" d="M0 0"/><![CDATA[<img src=x onerror=x()>]]>',
     "a CDATA section (<![CDATA[…) is not allowed"),
    ('<foreignObject><div/></foreignObject>', "<foreignObject> is not a plain shape"),
    ('<path d="M0 0" onclick="x()"/>', 'event attribute "onclick"'),
    ('<path d="M0 0" transform="url(#x)"/>', 'transform="url(#x)" on <path>: only numbers'),
    ('<g><title/></g>', "<title> is not a plain shape"),
    # Markup that ends the <svg> as HTML: <p> closes foreign content in the page's parser.
    ('<path d="M0 0"/><p/>', "<p> ends the drawing"),
])
def test_an_unsafe_drawing_is_refused_with_one_line(tmp_path: Path, svg: str,
                                                    problem: str) -> None:
    with pytest.raises(DataError) as caught:
        load_icons(_icon_file(tmp_path, svg), "icons.json")
    assert str(caught.value).startswith('icons.json: icons[0] (token "x"): "svg": ')
    assert problem in str(caught.value) and "\n" not in str(caught.value)


def test_labels_are_escaped(tmp_path: Path) -> None:
    nasty = "<b>\"x\" & 'y'</b>"
    icons: IconSet = load_icons(_icon_file(tmp_path, '<path fill="currentColor" d="M0 0"/>',
                                           {"ko": nasty}), "icons.json")
    html = icons.html("x")
    assert html is not None and "<b>" not in html
    label = re.search(r'aria-label="([^"]*)"', html)
    assert label is not None and unescape(label.group(1)) == nasty


def test_a_drawing_is_rebuilt_from_its_parsed_tree(tmp_path: Path) -> None:
    # #20 M1: what reaches the page is serialised from the allow-listed tree, not the file's
    # text: odd spacing, quotes and entities come out in one canonical form.
    svg = "<g  fill='currentColor'\n><path d=\"M1 1&#x20;L2 2\" /></g>"
    icons = load_icons(_icon_file(tmp_path, svg), "icons.json")
    assert icons.icons["x"].body == '<g fill="currentColor"><path d="M1 1 L2 2"/></g>'


def test_every_bundled_drawing_survives_the_rebuild() -> None:
    raw = json.loads((DATA / "icons.json").read_text(encoding="utf-8"))["icons"]
    for item in raw:
        rebuilt = ICONS.icons[item["token"]].body
        assert ET.fromstring(f"<svg>{rebuilt}</svg>") is not None
        assert len(rebuilt) >= len(item["svg"]) * 0.8, item["token"]


def test_check_and_serve_refuse_a_drawing_that_smuggles_markup(tmp_path: Path) -> None:
    # #20 M1, the finding as reported: a processing instruction appended to a bundled icon
    # passed `check` with 0 errors, and the page navigated to evil.example.
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    doc = json.loads((data / "icons.json").read_text(encoding="utf-8"))
    doc["icons"][0]["svg"] += ('<?x ><meta http-equiv="refresh" '
                               'content="0;url=https://evil.example/">?>')
    (data / "icons.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "RULES_INDEX_DIR": str(tmp_path / "index")}
    check = subprocess.run([sys.executable, "-m", "app", "check", "--data-dir", str(data)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert check.returncode == 1
    errors = [line for line in check.stderr.splitlines() if line.startswith("error:")]
    assert errors == ['error: icons.json: icons[0] (token "action"): "svg": a processing '
                      "instruction (<?…) is not allowed in a drawing"]
    serve = subprocess.run([sys.executable, "-m", "app", "serve"], cwd=ROOT, capture_output=True,
                           text=True, timeout=120, env={**env, "RULES_DATA_DIR": str(data)})
    assert serve.returncode == 1 and "evil.example" not in serve.stdout
    assert serve.stderr.startswith("룰사전: cannot start: icons.json: icons[0]")

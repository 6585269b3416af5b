"""Timing tables: each row finds the entry that explains it, by general rules."""

from __future__ import annotations

from pathlib import Path

from app.corpus.build import load_corpus
from tests.conftest import write_rules_data


def _table(*rows: tuple[str, str]) -> list[dict[str, object]]:
    return [{"row": [{"text": text, "color": colour}]} for text, colour in rows]


RULES = [
    {"id": "Appendix", "title": "부록",
     "text": "설명입니다.\n붉은 상자는 '플레이어의 행동 기회'입니다.",
     "rules": [
         {"id": "Table", "title": "능력 테스트 순서", "table": _table(
             ("1단계. 능력을 정합니다.", "green"), ("[free] 플레이어의 행동 기회", "red"),
             ("1.1 라운드를 시작합니다.", "green"), ("조사 단계를 진행합니다.", "grey")),
          "rules": [{"id": "Step_1", "title": "1단계. 능력을 정합니다.", "text": "본문"}]},
     ]},
    {"id": "Round", "title": "라운드", "text": "<b>1.1 라운드를 시작합니다.</b>\n설명"},
    {"id": "Investigation", "title": "조사 단계", "text": "조사합니다."},
]


def test_each_rule_of_row_matching(tmp_path: Path) -> None:
    corpus = load_corpus(write_rules_data(tmp_path / "data", RULES))
    rows = [r for r in corpus.entries["Table"].table or () if r.cells]
    targets = [(r.target, r.anchor) for r in rows]
    assert targets[0] == ("Step_1", None)                       # a step label: the child
    assert targets[1] == ("Appendix", "explain-플레이어의_행동_기회")  # the parent explains it
    assert targets[2] == ("Round", "step-1-1")                  # a step number: its anchor
    assert targets[3] == ("Investigation", None)                # the longest title inside
    assert 'id="explain-플레이어의_행동_기회"' in corpus.entries["Appendix"].html

"""The rules.json parser: tree walking, fields, and one clear message per kind of breakage."""

from __future__ import annotations

import pytest

from app.corpus.models import SourceSpec
from app.corpus.parsers.rules_json import MAX_DEPTH, parse
from app.errors import DataError

SPEC = SourceSpec(id="t", game="ahlcg", title="테스트", parser="rules-json", file="rules.json")


def test_walks_nested_rules_depth_first_with_parents() -> None:
    text = '[{"id": "A", "title": "가", "rules": [{"id": "B", "title": "나", "text": "x"}]},'
    text += ' {"id": "C", "title": "다"}]'
    entries = parse(text, SPEC)
    assert [(e.id, e.parent) for e in entries] == [("A", None), ("B", "A"), ("C", None)]
    assert entries[1].body == "x"
    assert entries[1].location == '[0].rules[0] (id "B")'


def test_reads_collections_and_coloured_tables() -> None:
    text = '[{"id": "T", "title": "표", "cycle": ["tfa"], "table": [{"row": [{"text": "1.1 a",'
    text += ' "color": "green"}]}, {"row": []}]}]'
    (entry,) = parse(text, SPEC)
    assert entry.collections == ("tfa",)
    assert entry.table is not None
    assert entry.table[0].cells[0].colour == "green"
    assert entry.table[1].cells == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[{"id": "A", "title": "가"', "rules.json: line 1 column 26: invalid JSON"),
        ('{"id": "A"}', "top level must be a JSON array, not an object"),
        ('[{"title": "가"}]', 'rules.json: [0]: missing "id"'),
        ('[{"id": 3, "title": "가"}]', '[0]: "id" must be a non-empty string'),
        ('[{"id": "A"}]', '[0] (id "A"): missing "title"'),
        ('[{"id": "A", "title": ["가"]}]', '"title" must be a string, not an array'),
        ('[{"id": "A", "title": "가", "text": 1}]', '"text" must be a string, not a number'),
        ('[{"id": "A", "title": "가", "rules": {}}]', '"rules" must be an array, not an object'),
        ('[{"id": "A", "title": "가", "cycle": "tfa"}]', '"cycle" must be an array of strings'),
        ('[{"id": "A", "title": "가", "table": [{"row": [{"text": "x", "color": "pink"}]}]}]',
         'unknown colour "pink"'),
        ('["A"]', "[0]: a rule must be an object, not a string"),
    ],
)
def test_malformed_input_gets_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(DataError) as caught:
        parse(text, SPEC)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_absurd_nesting_is_refused_not_recursed() -> None:
    node = '{"id": "X", "title": "x"}'
    for depth in range(MAX_DEPTH + 2):
        node = f'{{"id": "N{depth}", "title": "n", "rules": [{node}]}}'
    with pytest.raises(DataError, match="nested deeper than"):
        parse(f"[{node}]", SPEC)


def test_links_to_ids_with_spaces_become_valid_markdown() -> None:
    text = '[{"id": "A", "title": "가", "text": "[카드](#Myriad_Cards_in_Standalone Mode) 참조"}]'
    (entry,) = parse(text, SPEC)
    assert entry.body == "[카드](<#Myriad_Cards_in_Standalone Mode>) 참조"

"""Words in every script (app/search/scripts.py), on both engines (#26).

Python's `unicodedata` decides on the server, JavaScript's Unicode properties in the browser:
they must agree on every code point, and a search in Russian, Chinese, French or German must
find the entry, on the tiny corpus's translations (tests/cases/tiny/, 3-line entries).
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from app.search import SearchIndex, analysis, client_index, scripts
from app.urls import Urls
from scripts import query_cases
from tests import enginejs


@pytest.fixture(scope="module")
def tiny() -> SearchIndex:
    return query_cases.tiny_index()


def test_words_of_every_script() -> None:
    assert analysis.words("Внеочередная АТАКА") == ["внеочередная", "атака"]
    assert analysis.words("趁乱攻击，毁灭") == ["趁乱攻击", "毁灭"]
    assert analysis.words("Fatalité Straße ΟΔΟΣ") == ["fatalité", "strasse", "οδοσ"]
    # Hangul as before: syllable runs, bare jamo, digits, each its own word.
    assert analysis.words("xp계산ㅌㅅ3회") == ["xp", "계산", "ㅌㅅ", "3", "회"]
    assert analysis.han_grams("趁乱攻击") == ["趁乱", "乱攻", "攻击"]
    assert analysis.han_grams("毁") == ["毁"] and analysis.han_grams("atak") == []


def test_han_and_hangul_ranges_are_every_code_point_their_unicode_names_say() -> None:
    # The scan reads names only for letters (start-up: 0.12 s -> 0.08 s); this reference reads
    # every code point's name, so a letter test that dropped one would fail here.
    def ranges(test: Any) -> list[tuple[int, int]]:
        found: list[list[int]] = []
        for code in [*range(0x10000), *range(0x20000, 0x40000)]:
            char = chr(code)
            if test(char, unicodedata.name(char, "")):
                if found and found[-1][1] == code - 1:
                    found[-1][1] = code
                else:
                    found.append([code, code])
        return [(a, b) for a, b in found]

    def han(char: str, name: str) -> bool:
        return name.startswith("CJK UNIFIED IDEOGRAPH-") or (
            name.startswith("CJK COMPATIBILITY IDEOGRAPH-")
            and not unicodedata.decomposition(char))

    def hangul(char: str, name: str) -> bool:
        return "HANGUL" in name and unicodedata.category(char)[0] == "L"

    assert list(scripts.han_ranges()) == ranges(han)
    assert list(scripts.hangul_ranges()) == ranges(hangul)


def test_accents_fold_on_both_sides_and_the_written_form_comes_first() -> None:
    # The folded form is stemmed as the same letters typed in ASCII are (#23's English
    # endings: fatalite → fatalit), so that either spelling meets it.
    assert analysis.variants("fatalité") == ("fatalité", analysis.english_stem("fatalite"))
    assert analysis.variants("nachrüsten") == ("nachrüsten", "nachrusten", "nachruesten")
    assert analysis.variants("zagłada") == ("zagłada", "zaglada")
    # An ASCII word as it always was.
    assert analysis.variants("fatalite") == (analysis.english_stem("fatalite"),)
    assert analysis.title_parts("Élimination") == ["élimination", "elimination"]


def test_cyrillic_case_endings_come_off() -> None:
    for word in ("атака", "атаки", "атаку", "атакой"):
        assert scripts.light_stem(word) == "атак", word
    assert scripts.light_stem("безысходности") == scripts.light_stem("безысходность")
    assert scripts.light_stem("attaques") == "attaques"  # other scripts never end so


@pytest.mark.parametrize(("query", "entry", "shown"), [
    ("Verderben", "Doom", "de/Doom"),                        # German title = the entry's
    ("nachruesten", "Surge", "de/Surge"),                    # umlaut spelt out
    ("fatalite", "Doom", "fr/Doom"),                         # accent-less French
    ("Fatalité", "Doom", "fr/Doom"),
    ("внеочередной атаки", "Attack_of_Opportunity", "ru/Attack_of_Opportunity"),
    ("безысходность", "Doom", "ru/Doom"),
    ("趁乱攻击", "Attack_of_Opportunity", "zh-cn/Attack_of_Opportunity"),  # Han bigrams
    ("涌动", "Surge", "zh-cn/Surge"),
    ("Ausschwärmen", "de/Swarming X", "de/Swarming X"),     # an entry only German has
    ("파멸", "Doom", "Doom"),                                # Korean: the Korean entry
])
def test_a_search_in_a_translation_s_language_finds_the_entry_and_shows_that_language(
        tiny: SearchIndex, query: str, entry: str, shown: str) -> None:
    found = tiny.search(query)
    assert found.hits and (found.hits[0].id, found.hits[0].shown) == (entry, shown), query


def test_the_accented_form_ranks_first() -> None:
    """`fatalité` matches its written and folded forms; a text saying `fatalite` one only."""
    text_accented, text_plain = "la fatalité", "la fatalite"
    tokens = [analysis.index_words(t) for t in (text_accented, text_plain)]
    query = set(analysis.variants("fatalité"))
    assert len(query & set(tokens[0])) == 2 and len(query & set(tokens[1])) == 1


def test_a_translation_s_source_finds_its_entries(tiny: SearchIndex) -> None:
    """`source=ahlcg-reference-de` used to find nothing for every paired entry."""
    found = tiny.search("Verderben", source="ahlcg-reference-de")
    assert [(h.id, h.shown) for h in found.hits] == [("Doom", "de/Doom")]
    # Filtered by a translation's source, a result is shown in that language.
    korean = tiny.search("파멸", source="ahlcg-reference-fr")
    assert [(h.id, h.shown) for h in korean.hits] == [("Doom", "fr/Doom")]


def test_korean_search_is_the_same_with_or_without_translations(tiny: SearchIndex) -> None:
    """The translation fields keep their own statistics: a Korean search scores as it did
    before the tiny corpus had translations (the stage traces hold the scores too)."""
    traces = json.loads(query_cases.TRACES.read_text(encoding="utf-8"))["traces"]
    korean = [t for t in traces if analysis.is_hangul(
        "".join(w for w in analysis.words(t["query"]) if not w.isdigit())) and t["results"]["ids"]]
    assert len(korean) > 10
    for trace in korean:
        assert not any(field.endswith("_tr") for field, _, _ in trace["terms"]), trace["query"]


def _python(start: int, stop: int) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for code in range(start, stop):
        if 0xD800 <= code <= 0xDFFF or unicodedata.category(chr(code)) == "Cn":
            continue
        c = chr(code)
        words = analysis.words(c)
        kind = ("han" if scripts.is_han(c) else "word") if words else ""
        lower, folded = c.casefold(), scripts.fold_char(c)
        if kind or lower != c or folded != c:
            out[str(code)] = [kind, lower, folded]
    return out


def test_both_engines_read_every_code_point_alike(tiny: SearchIndex, tmp_path: Path) -> None:
    """Which characters make words (Han, other letters), case folding and accent folding:
    the server's unicodedata and the browser's Unicode properties, on every code point this
    Python's Unicode assigns (a newer JavaScript may know more: `clean` blanks those)."""
    files = enginejs.write_files(tmp_path, client_index.index(tiny.corpus, Urls()),
                                 client_index.texts(tiny.corpus))
    differ: list[str] = []
    for start in range(0, 0x110000, 0x22000):
        stop = min(start + 0x22000, 0x110000)
        got: dict[str, Any] = enginejs.run({"index": files["index"],
                                            "codepoints": [start, stop]})["codepoints"]
        expected = _python(start, stop)
        for code in sorted(set(expected) | set(got), key=int):
            if unicodedata.category(chr(int(code))) == "Cn":
                continue  # assigned after this Python's Unicode: clean() blanks it
            if expected.get(code) != got.get(code):
                differ.append(f"U+{int(code):04X} {unicodedata.name(chr(int(code)), '')}: "
                              f"{expected.get(code)} != {got.get(code)}")
    assert differ == []

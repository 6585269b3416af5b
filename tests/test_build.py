"""The corpus builder on the real data and on tiny broken data folders."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.corpus.build import check_data, load_corpus
from app.corpus.models import Corpus
from app.errors import DataError
from tests.conftest import DATA, write_manifest, write_rules_data


def _rules_ids(nodes: list[dict[str, object]]) -> list[str]:
    ids: list[str] = []
    for node in nodes:
        ids.append(str(node["id"]))
        children = node.get("rules", [])
        assert isinstance(children, list)
        ids.extend(_rules_ids(children))
    return ids


def test_every_rules_json_node_is_an_entry_with_its_title(corpus: Corpus) -> None:
    nodes = json.loads((DATA / "ahlcg-rules.json").read_text(encoding="utf-8"))
    ids = _rules_ids(nodes)
    source = corpus.source("ahlcg-reference")
    assert source is not None and len(ids) == len(set(ids)) == len(source.entry_ids)
    for entry_id in ids:
        assert entry_id in corpus.entries
    assert corpus.entries["Attack_of_Opportunity"].title == "틈새 공격"
    assert corpus.entries["Tarot Slot"].parent == "Additional_Rules_by_Collections"


def test_tree_structure_and_reading_order(corpus: Corpus) -> None:
    skill = corpus.entries["Skill_Test_Timing"]
    assert skill.children[0] == "Skill_Test_1"
    assert [p.id for p in corpus.path(corpus.entries["Skill_Test_3"])] == [
        "Appendix_II_Timing_and_Gameplay", "Skill_Test_Timing"]
    orders = [e.order for e in corpus]
    assert orders == sorted(orders)


def test_every_declared_source_is_loaded(corpus: Corpus) -> None:
    assert [s.id for s in corpus.sources] == [
        "ahlcg-reference", "ahlcg-rulebook", "ahlcg-faq", "ahlcg-reference-en", "eh-rulebook",
        "eh-reference"]
    for source in corpus.sources:
        assert source.entry_ids, source.id


def test_eldritch_horror_glossary_terms_are_entries(corpus: Corpus) -> None:
    titles = {e.title for e in corpus if e.source == "eh-reference"}
    terms = ("징조", "차원문", "괴물 급증", "쓰러진 조사자", "집어삼켜짐", "은행 대출", "테스트")
    for term in terms:
        assert term in titles


def test_related_topic_lines_link_to_entries(corpus: Corpus) -> None:
    nearest = next(e for e in corpus if e.source == "eh-reference" and e.title == "가장 가까운")
    targets = {corpus.entries[i].title for i in nearest.links_to}
    assert {"길", "칸"} <= targets


def test_collections_are_kept(corpus: Corpus) -> None:
    assert corpus.entries["Bonded"].collections == ("tcu", "tde")


def test_links_and_backlinks_agree(corpus: Corpus) -> None:
    for entry in corpus:
        for target in entry.links_to:
            assert entry.id in corpus.entries[target].linked_from
    assert "Skill_Test_Timing" in corpus.entries["Appendix_II_Timing_and_Gameplay"].links_to


def test_case_insensitive_id_link_resolves(corpus: Corpus) -> None:
    assert "Per_Investigator" in corpus.entries["Location_Cards"].links_to


def test_plain_text_has_no_markup(corpus: Corpus) -> None:
    for entry in corpus:
        assert not re.search(r"\[(reaction|free|action|bless|curse)\]", entry.text), entry.id
        assert "](#" not in entry.text and "<b>" not in entry.text, entry.id
    assert "반응 격발" in corpus.entries["Reaction_Opportunities"].text


def test_timing_tables_link_every_row(corpus: Corpus) -> None:
    for table_id in ("Phase_Sequence_Timing", "Skill_Test_Timing"):
        table = corpus.entries[table_id].table
        assert table is not None
        rows = [r for r in table if r.cells]
        assert rows and all(r.target for r in rows), table_id
    phases = corpus.entries["Phase_Sequence_Timing"].table
    assert phases is not None
    first_step = next(r for r in phases if r.cells and r.cells[0].text.startswith("1.1"))
    assert (first_step.target, first_step.anchor) == ("Mythos_Phase", "step-1-1")
    skill = corpus.entries["Skill_Test_Timing"].table
    assert skill is not None
    third = next(r for r in skill if r.cells and r.cells[0].text.startswith("3단계"))
    assert third.target == "Skill_Test_3"


def test_check_reports_the_known_broken_links(data_2023: Path) -> None:
    # The 2023 Korean file (the original seed) links to #_ST_2, which matches nothing.
    lines = [str(p) for p in check_data(data_2023)]
    assert any("broken link (#_ST_2)" in line and "Skill_Cards" in line for line in lines)
    assert not any(line.startswith("error") for line in lines)
    # The newest one fixed that link; a case-only mismatch is still there.
    lines = [str(p) for p in check_data(DATA)]
    assert not any("broken link (#" in line for line in lines)
    assert any("#Per_investigator matches Per_Investigator only when case is ignored" in line
               for line in lines)
    assert not any(line.startswith("error") for line in lines)


def test_ids_are_stable_between_runs(corpus: Corpus) -> None:
    again = load_corpus(DATA)
    assert list(again.entries) == list(corpus.entries)
    assert again.version == corpus.version


# --- broken data: one clear line naming the file, the entry and the problem -----------------

def test_duplicate_ids_are_an_error(tmp_path: Path) -> None:
    folder = write_rules_data(tmp_path, [{"id": "A", "title": "가"}, {"id": "A", "title": "나"}])
    with pytest.raises(DataError) as caught:
        load_corpus(folder)
    assert str(caught.value) == (
        'rules.json: [1] (id "A"): duplicate id "A" (also rules.json: [0] (id "A"))')


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("[{", "rules.json: line 1 column 3: invalid JSON: Expecting property name"),
        (b"[\xff]", "rules.json: byte 1: not UTF-8 text"),
        ('[{"title": "가"}]', 'rules.json: [0]: missing "id"'),
        ('[{"id": "A", "title": 5}]', 'rules.json: [0] (id "A"): "title" must be a string'),
    ],
)
def test_broken_files_fail_with_one_line(tmp_path: Path, raw: str | bytes, expected: str) -> None:
    folder = write_rules_data(tmp_path, None, raw=raw)
    with pytest.raises(DataError) as caught:
        load_corpus(folder)
    assert str(caught.value).startswith(expected)
    assert "\n" not in str(caught.value)


def test_missing_file_and_bad_manifest(tmp_path: Path) -> None:
    folder = write_rules_data(tmp_path, [])
    (folder / "rules.json").unlink()
    with pytest.raises(DataError, match=r"^rules.json: file not found$"):
        load_corpus(folder)
    (folder / "sources.json").write_text(
        '{"icons": "icons.json", "games": [{"id": "ahlcg", "name": "가"}], '
        '"sources": [{"id": "x"}]}', encoding="utf-8")
    expected = r'sources.json: sources\[0\]: missing or empty string field "game"'
    with pytest.raises(DataError, match=expected):
        load_corpus(folder)


def test_warnings_for_links_icons_and_empty_entries(tmp_path: Path) -> None:
    rules = [
        {"id": "A", "title": "가", "text": "[나](#B) [없음](#Nowhere) [tentacle] [reacton]"},
        {"id": "B", "title": "나", "text": "[가](#a)"},
        {"id": "C", "title": "다"},
    ]
    lines = [str(p) for p in check_data(write_rules_data(tmp_path, rules))]
    assert lines == [
        # A near-miss of an icon would show as text where the icon belongs (#26): an error.
        'error: rules.json: [0] (id "A"): [reacton] is not an icon and would show as text: '
        'write [reaction]',
        # A bracketed token no icon is near is an icon the file lacks (newer data).
        'warning: rules.json: [0] (id "A"): [tentacle] is not in the icon file: shown as its '
        'name, marked as an icon; add it (a label and a drawing), or list it under "words" if '
        'it is text',
        'warning: rules.json: [0] (id "A"): broken link (#Nowhere)',
        'warning: rules.json: [1] (id "B"): link #a matches A only when case is ignored',
        'warning: rules.json: [2] (id "C"): empty entry',
    ]


def _translation(tmp_path: Path, lang: str, rules: list[dict[str, Any]]) -> Path:
    """A Korean rules file with one rule and a translation of it in `lang`."""
    folder = write_rules_data(tmp_path, [{"id": "A", "title": "가", "text": "본문"}])
    manifest = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    manifest["sources"].append({"id": "t-x", "game": "ahlcg", "title": lang, "parser":
                                "rules-json", "file": "x.json", "lang": lang,
                                "translation_of": "t"})
    (folder / "sources.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "x.json").write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
    return folder


def test_rules_under_a_misspelt_key_are_an_error_not_lost_silently(tmp_path: Path) -> None:
    """es upstream keeps 9 rules (both timing tables) under "Reglas": each would be lost."""
    rules = [{"id": "A", "title": "Apéndice", "Reglas": [
        {"id": "B", "title": "Secuencia", "rules": [{"id": "C", "title": "Paso"}]},
        {"id": "D", "title": "Prueba"}]}]
    lines = [str(p) for p in check_data(_translation(tmp_path, "es", rules))
             if str(p).startswith("error: x.json")]
    assert lines == ['error: x.json: [0] (id "A"): field "Reglas" holds 3 rules that would be '
                     'lost (only "rules" is read): rename it "rules"']
    with pytest.raises(DataError, match="and 1 more"):  # the data does not load
        load_corpus(tmp_path)


def test_a_translated_icon_token_is_an_error(tmp_path: Path) -> None:
    """fr upstream writes `[réaction]`: shown raw on two pages, unseen by check before."""
    rules = [{"id": "A", "title": "Réaction", "text": "Une capacité [réaction] : [reaction]."}]
    lines = [str(p) for p in check_data(_translation(tmp_path, "fr", rules))
             if str(p).startswith("error")]
    assert lines == ['error: x.json: [0] (id "A"): [réaction] is not an icon and would show '
                     'as text: write [reaction]']


def test_link_and_bold_markup_that_would_show_raw_are_errors(tmp_path: Path) -> None:
    """it and zh upstream: `[瓦倫蒂諾·里瓦斯]](/card/05048)` and a bold span across a break."""
    rules = [{"id": "A", "title": "前導", "text": "調查員（[瓦倫蒂諾·里瓦斯]](/card/05048)）。"},
             {"id": "B", "title": "Rivelazione", "text": "**Rivelazione\n\n– Mettila** in gioco."},
             {"id": "C", "title": "Fine", "text": "**Fine** e [Rivelazione](#B)."}]
    errors = [str(p) for p in check_data(_translation(tmp_path, "zh", rules))
              if str(p).startswith("error: x.json")]
    assert errors[0].startswith('error: x.json: [0] (id "A"): link markup would show as '
                                "written: “調查員（[瓦倫蒂諾·里瓦斯]](/card/05048)")
    assert errors[1].startswith('error: x.json: [1] (id "B"): bold markup would show as '
                                "written: “**Rivelazione”")
    assert len(errors) == 2  # a closed bold span and a good link are fine


def test_a_translation_s_timing_rows_link_like_the_original_s_row_for_row(
        tmp_path: Path) -> None:
    """Upstream fr, it, pl, ru and zh rows (8, 8, 12, 25, 4) named their steps in words no
    title of theirs contains, and were not linked; the Korean rows at the same places are."""
    korean: list[dict[str, Any]] = [
        {"id": "Myth", "title": "신화 단계", "text": "본문"},
        {"id": "T", "title": "순서", "table": [
            {"row": [{"text": "신화 단계", "color": "green"}]}, {"row": []},
            {"row": [{"text": "다음 단계로", "color": "grey"}]}]}]
    french: list[dict[str, Any]] = [
        {"id": "Myth", "title": "Phase Mythe", "text": "Texte"},
        {"id": "T", "title": "Ordre", "table": [
            {"row": [{"text": "I. Mythos", "color": "green"}]}, {"row": []},
            {"row": [{"text": "Passez", "color": "grey"}]}]}]
    folder = _translation(tmp_path, "fr", french)
    (folder / "rules.json").write_text(json.dumps(korean, ensure_ascii=False), encoding="utf-8")
    corpus = load_corpus(folder)
    assert [r.target for r in corpus.entries["T"].table or ()] == ["Myth", None, None]
    assert [r.target for r in corpus.entries["fr/T"].table or ()] == ["fr/Myth", None, None]


def test_a_translation_s_link_that_matches_only_ignoring_case_stays_in_its_language(
        tmp_path: Path) -> None:
    """ru upstream links `#per_investigator`: its own Per_Investigator, not the Korean page."""
    folder = _translation(tmp_path, "ru", [{"id": "A", "title": "За сыщика", "text": "Текст"},
                                           {"id": "B", "title": "Б", "text": "[за](#a)"}])
    corpus = load_corpus(folder)
    assert corpus.entries["ru/B"].links_to == ("ru/A",)
    assert 'href="/rules/ru/A"' in corpus.entries["ru/B"].html
    warnings = [str(p) for p in check_data(folder) if "case is ignored" in str(p)]
    assert warnings == ['warning: x.json: [1] (id "B"): link #a matches ru/A only when case is '
                        "ignored"]


def test_a_language_must_be_declared_and_have_icon_labels(tmp_path: Path) -> None:
    rules = [{"id": "A", "title": "A", "text": "[action]"}]
    errors = [str(p) for p in check_data(_translation(tmp_path, "pt", rules))
              if str(p).startswith("error")]
    assert errors == [
        'error: sources.json: source "t-x": language "pt" is not declared in languages.json '
        "(add its name and index letters)",
        'error: icons.json: no icon has a "pt" label: add "pt" to every icon\'s "label" (pages '
        "in pt would name every icon in English)"]


def test_icons_without_a_label_in_a_language_fall_back_to_english_visibly(
        tmp_path: Path) -> None:
    folder = _translation(tmp_path, "de", [{"id": "A", "title": "A", "text": "[skull] [action]"}])
    warnings = [str(p) for p in check_data(folder) if "label" in str(p)]
    assert len(warnings) == 1 and warnings[0].startswith(
        'warning: icons.json: 5 icons have no "de" label, so de pages name them in English: '
        "skull (Skull), cultist (Cultist)")
    entry = load_corpus(folder).entries["de/A"]
    assert 'aria-label="Schädel"' not in entry.html and 'aria-label="Skull"' in entry.html
    assert 'aria-label="Aktion"' in entry.html and "자유 격발" not in entry.html


def test_title_links_resolve_by_title_and_report_unknown_names(tmp_path: Path) -> None:
    rules = [
        {"id": "A", "title": "틈새 공격", "text": "본문"},
        {"id": "B", "title": "나", "text": "관련된 주제: [틈새공격](<title:틈새공격>), "
                                           "[없는 주제](<title:없는 주제>)"},
    ]
    folder = write_rules_data(tmp_path, rules)
    assert load_corpus(folder).entries["B"].links_to == ("A",)
    lines = [str(p) for p in check_data(folder)]
    assert lines == ['warning: rules.json: [1] (id "B"): no entry titled "없는 주제"']


# --- #20 L1, L6: what `serve` and `export` refuse, `check` refuses first, with one line ------

def _source(folder: Path, **changes: str) -> Path:
    manifest = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    manifest["sources"][0].update(changes)
    (folder / "sources.json").write_text(json.dumps(manifest, ensure_ascii=False),
                                         encoding="utf-8")
    return folder


@pytest.mark.parametrize("file", ["../outside-secret.txt", "/etc/passwd", "a/../../b.json",
                                  "./rules.json", "a//b.json"])
def test_a_declared_file_outside_the_data_folder_is_an_error(tmp_path: Path, file: str) -> None:
    folder = _source(write_rules_data(tmp_path / "data", [{"id": "A", "title": "가"}]),
                     file=file)
    (tmp_path / "outside-secret.txt").write_text('[{"id": "S", "title": "비밀"}]',
                                                 encoding="utf-8")
    problems = check_data(folder)
    assert [str(p) for p in problems if p.error] == [
        f'error: sources.json: sources[0]: "file" {_outside(file)}: {file}']


def _outside(file: str) -> str:
    if file.startswith("/"):
        return "must be a path relative to the data folder, not an absolute one"
    return 'must name a file inside the data folder (no "..", "." or empty path segments)'


@pytest.mark.parametrize("source_id", ["../../x", "a/b", ".", "..", "a\\b"])
def test_a_source_id_that_cannot_be_a_path_segment_is_an_error(tmp_path: Path,
                                                               source_id: str) -> None:
    folder = _source(write_rules_data(tmp_path, [{"id": "A", "title": "가"}]), id=source_id)
    errors = [str(p) for p in check_data(folder) if p.error]
    assert len(errors) == 1
    assert errors[0].startswith(f'error: sources.json: sources[0]: source id "{source_id}" '
                                "must be one path segment")


def test_an_entry_id_too_long_for_a_file_name_is_an_error(tmp_path: Path) -> None:
    long_id = "가" * 100  # 100 characters, 300 bytes: export failed with "File name too long"
    folder = write_rules_data(tmp_path, [{"id": long_id, "title": "가"},
                                         {"id": "가" * 85, "title": "나"}])
    errors = [str(p) for p in check_data(folder) if p.error]
    assert errors == [f'error: rules.json: [0] (id "{long_id}"): id segment "{"가" * 20}…" is '
                      "300 bytes in UTF-8: a file name may have at most 255 (the static export "
                      "writes one folder per segment)"]


def test_a_data_file_over_the_size_limit_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    from app.corpus.manifest import MAX_FILE_BYTES

    folder = write_rules_data(tmp_path, [{"id": "A", "title": "가"}])
    with (folder / "rules.json").open("r+b") as file:
        file.truncate(MAX_FILE_BYTES + 1)  # sparse: the size is all that is read
    assert [str(p) for p in check_data(folder)] == [
        "error: rules.json: the file is 4.0 MiB, over the 4 MiB a data file may hold"]
    with pytest.raises(DataError, match=r"^rules\.json: the file is 4\.0 MiB, over the 4 MiB"):
        load_corpus(folder)
    (folder / "rules.json").write_text('[{"id": "A", "title": "가"}]', encoding="utf-8")
    with (folder / "sources.json").open("ab") as file:
        file.truncate(MAX_FILE_BYTES + 10)
    assert [str(p) for p in check_data(folder)] == [
        "error: sources.json: the file is 4.0 MiB, over the 4 MiB a data file may hold"]


def test_an_official_term_the_rules_never_use_is_a_warning_a_verb_by_its_stem(
        tmp_path: Path) -> None:
    games = [{"id": "ahlcg", "name": "아컴호러 카드게임", "synonyms": "syn.txt"}]
    folder = write_manifest(tmp_path, [{"id": "t", "game": "ahlcg", "title": "테스트",
                                        "parser": "rules-json", "file": "rules.json"}],
                            games=games)
    (folder / "rules.json").write_text(json.dumps(
        [{"id": "A", "title": "덱", "text": "버린 카드 더미를 섞습니다."}], ensure_ascii=False),
        encoding="utf-8")
    (folder / "syn.txt").write_text("섞다 = 셔플\n날다 = 플라이\n", encoding="utf-8")
    warned = [str(p) for p in check_data(folder) if "official term" in p.message]
    assert warned == ['warning: syn.txt: "날다": official term found nowhere in the game\'s rules']

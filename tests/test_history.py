"""The rules' history: computed from the bundled revisions and from tiny made-up ones."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from app.corpus.build import check_data, load_corpus
from app.corpus.history import History, compute_history
from app.corpus.models import Corpus
from app.errors import DataError
from tests.conftest import DATA, write_manifest

KO = DATA / "history" / "rules-ko"
SEED, NEWEST = "2023-02-15_4023ec81c", "2025-11-01_f364171f0"


@pytest.fixture(scope="module")
def history(corpus: Corpus) -> History:
    return compute_history(DATA, corpus)


def _nodes(path: Path) -> dict[str, dict[str, Any]]:
    """Every node of a rules.json file by id, read without the project's parser."""
    found: dict[str, dict[str, Any]] = {}

    def walk(nodes: list[dict[str, Any]]) -> None:
        for node in nodes:
            found[node["id"]] = node
            walk(node.get("rules", []))

    walk(json.loads(path.read_text(encoding="utf-8")))
    return found


# --- The bundled history -----------------------------------------------------------------------

def test_new_entries_since_the_seed_agree_with_an_independent_count(history: History) -> None:
    seed, newest = _nodes(KO / f"{SEED}.json"), _nodes(KO / f"{NEWEST}.json")
    independent = set(newest) - set(seed)
    assert independent == {
        "Concealed_X", "Concealed_Mini_Cards", "Keys2", "Clues_on_Player_Cards",
        "Ignoring_All_Costs", "Revelation_Ability_Priority",
        "Controlling_and_Attaching_Permanent_Cards", "Weakness_Events_and_changing_the_game_state"}
    added = {e.id for e in history.entries.values() if e.source == "ahlcg-reference"
             and not e.removed and history.date_of(e, e.added) > "2023-02-15"}
    assert added == independent


def test_rewrites_since_the_seed_are_the_texts_that_read_differently(
        history: History, corpus: Corpus) -> None:
    seed, newest = _nodes(KO / f"{SEED}.json"), _nodes(KO / f"{NEWEST}.json")

    def squeezed(node: dict[str, Any]) -> tuple[str, str]:
        return " ".join(node["title"].split()), " ".join((node.get("text") or "").split())

    differ = {i for i in set(seed) & set(newest) if squeezed(seed[i]) != squeezed(newest[i])}
    assert len(differ) == 51
    changed = {e.id for e in history.entries.values() if e.source == "ahlcg-reference"
               and any(history.date_of(e, c) > "2023-02-15" for c in e.revisions)}
    # Two differ in markup only (a link's target, #_ST_2 → #Skill_Test_2): nothing to read.
    markup_only = differ - changed
    assert markup_only == {"Skill_Cards", "The_Thing_That_Should_Not_Be"}
    for entry_id in markup_only:
        record = history.entries[entry_id]
        assert all(history.date_of(record, c) <= "2023-02-15" for c in record.changes)
    # And one entry new since then was rewritten after it was added.
    assert changed - differ == {"Revelation_Ability_Priority"}


def test_renames_are_found_by_content(history: History) -> None:
    assert history.redirects["Golden_Rule"] == "The_Golden_Rules"
    assert history.redirects["Grim_Rule"] == "The_Grim_Rule"
    assert history.redirects["Swarming X"] == "Swarming"
    # Upstream added 2.24 as Ignoring_all_costs (2023-09-04), then fixed its case; 2.25 was
    # added as Ignoring_All_Costs_2 (09-11) and named properly two days later.
    assert history.redirects["Ignoring_all_costs"] == "Ignoring_All_Costs"
    assert history.redirects["Ignoring_All_Costs_2"] == "Revelation_Ability_Priority"
    record = history.entries["Revelation_Ability_Priority"]
    assert record.former_ids == ("Ignoring_All_Costs_2",)
    assert history.date_of(record, record.added) == "2023-09-11"
    assert history.date_of(history.entries["Ignoring_All_Costs"],
                           history.entries["Ignoring_All_Costs"].added) == "2023-09-04"
    # English ids, under the translation's namespace.
    assert history.redirects["en/Evade_Action"] == "en/Evade"


def test_a_removed_entry_that_came_back_is_restored_not_new(history: History) -> None:
    record = history.entries["Draw_vs_Add_to_hand"]
    kinds = [(c.kind, history.date_of(record, c)) for c in record.changes]
    assert ("removed", "2022-08-30") in kinds and ("restored", "2022-12-12") in kinds
    assert kinds[0] == ("added", "2022-08-30")


def test_the_history_ends_with_the_served_file(history: History, corpus: Corpus) -> None:
    for source in ("ahlcg-reference", "ahlcg-reference-en", "ahlcg-faq"):
        revisions = history.sources[source].revisions
        assert not revisions[-1].local  # the served file is the newest listed revision
        alive = {i for i, e in history.entries.items() if e.source == source and not e.removed}
        assert alive == set(corpus.source(source).entry_ids)  # type: ignore[union-attr]
    assert [r.date for r in history.sources["ahlcg-reference"].revisions][:2] == [
        "2021-05-18", "2021-05-28"]
    assert history.sources["ahlcg-faq"].revisions[0].baseline


def test_broken_revisions_are_read_as_far_as_they_can_be_with_warnings(corpus: Corpus) -> None:
    warnings: list[DataError] = []
    history = compute_history(DATA, corpus, warnings)
    assert [str(w) for w in warnings] == [
        # Two Korean revisions gave one id to two nodes: the first is followed.
        'history/rules-ko/2023-09-04_928d3538c.json: [142].rules[4].rules[25] (id '
        '"Ignoring_all_costs"): duplicate id "Ignoring_all_costs": the history follows its '
        "first node",
        'history/rules-ko/2024-07-31_32077d0f7.json: [144].rules[8] (id "Patrol"): duplicate '
        'id "Patrol": the history follows its first node',
        # One English revision has a node without an id: the parser refuses it.
        'history/rules-en/2022-08-31_2cb95eb9b.json: [159].rules[0]: missing "id": revision '
        "left out of the history"]
    assert "2022-08-31_2cb95eb9b" not in [r.key for r in
                                          history.sources["ahlcg-reference-en"].revisions]


def test_the_history_survives_its_storage(history: History) -> None:
    again = History.from_json(history.to_json())
    assert again == history


# --- Made-up histories: 3-line revisions -------------------------------------------------------

def _folder(tmp_path: Path, revisions: list[list[dict[str, Any]]],
            current: list[dict[str, Any]] | None = None) -> Path:
    """A data folder with one rules.json source whose history holds `revisions`, the served
    file being `current` (default: the last revision)."""
    folder = write_manifest(tmp_path / "data", [{
        "id": "t", "game": "ahlcg", "title": "테스트", "parser": "rules-json",
        "file": "rules.json", "history": {"folder": "history/t"}}])
    (folder / "history" / "t").mkdir(parents=True)
    listed = []
    for n, nodes in enumerate(revisions, start=1):
        data = json.dumps(nodes, ensure_ascii=False).encode()
        name = f"2024-0{n}-01_r{n}.json"
        (folder / "history" / "t" / name).write_bytes(data)
        listed.append({"file": name, "date": f"2024-0{n}-01", "subject": f"revision {n}",
                       "commit": f"{n}" * 9, "sha256": hashlib.sha256(data).hexdigest()})
    (folder / "history" / "t" / "revisions.json").write_text(json.dumps({"revisions": listed}))
    served = current if current is not None else revisions[-1]
    (folder / "rules.json").write_text(json.dumps(served, ensure_ascii=False), encoding="utf-8")
    return folder


def _history(folder: Path) -> History:
    return compute_history(folder, load_corpus(folder))


def test_changes_renames_removals_and_spacing(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [
        [{"id": "A", "title": "가", "text": "조사자는 행동을 3번 합니다."},
         {"id": "B", "title": "나", "text": "적과 교전 중인 조사자는 틈새 공격을 받습니다."}],
        [{"id": "A", "title": "가", "text": "조사자는  <b>행동을</b>\n3번 합니다."},
         {"id": "C", "title": "나", "text": "적과 교전 중인 조사자는 틈새 공격을 받습니다."},
         {"id": "D", "title": "다", "text": "새 규칙."}],
        [{"id": "A", "title": "가", "text": "조사자는 행동을 4번 합니다."},
         {"id": "C", "title": "나", "text": "적과 교전 중인 조사자는 틈새 공격을 받습니다."}],
    ])
    history = _history(folder)
    a = history.entries["A"]
    # Spacing and bold in revision 2 are not a change; the word in revision 3 is.
    assert [(c.kind, c.revision) for c in a.changes] == [("added", 0), ("changed", 2)]
    assert (a.changes[1].added, a.changes[1].removed) == (1, 1)
    c = history.entries["C"]
    assert [(x.kind, x.renamed_from) for x in c.changes] == [("added", ""), ("renamed", "B")]
    assert history.redirects == {"B": "C"}
    d = history.entries["D"]
    assert d.removed and [x.kind for x in d.changes] == ["added", "removed"]
    assert d.last_text.text == "새 규칙."


def test_a_hand_edited_file_is_one_more_local_revision(tmp_path: Path) -> None:
    first = [{"id": "A", "title": "가", "text": "하나."}]
    folder = _folder(tmp_path, [first], current=[{"id": "A", "title": "가", "text": "둘."}])
    history = _history(folder)
    revisions = history.sources["t"].revisions
    assert [r.local for r in revisions] == [False, True]
    assert [c.kind for c in history.entries["A"].changes] == ["added", "changed"]


def test_a_revision_that_is_not_what_its_index_says_is_an_error(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [[{"id": "A", "title": "가", "text": "하나."}]])
    (folder / "history" / "t" / "2024-01-01_r1.json").write_text('[{"id": "A", "title": "x"}]')
    errors = [str(p) for p in check_data(folder) if p.error]
    assert errors == ["error: history/t/2024-01-01_r1.json: does not match the sha256 its "
                      "revision index gives: the history would be wrong"]


def test_an_index_out_of_order_or_naming_a_missing_file_is_an_error(tmp_path: Path) -> None:
    folder = _folder(tmp_path, [[{"id": "A", "title": "가", "text": "하나."}],
                                [{"id": "A", "title": "가", "text": "둘."}]])
    index = folder / "history" / "t" / "revisions.json"
    doc = json.loads(index.read_text())
    doc["revisions"].reverse()
    index.write_text(json.dumps(doc))
    errors = [str(p) for p in check_data(folder) if p.error]
    assert len(errors) == 1 and "list revisions oldest first" in errors[0]
    doc["revisions"].reverse()
    doc["revisions"][1]["file"] = "2024-09-09_gone.json"
    index.write_text(json.dumps(doc))
    errors = [str(p) for p in check_data(folder) if p.error]
    assert errors == ["error: history/t/2024-09-09_gone.json: file not found (listed in the "
                      "history of t)"]

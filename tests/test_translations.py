"""A translation beside its original: paired by id, shown on demand, searched together."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.corpus.build import check_data, load_corpus
from app.corpus.models import Corpus, SourceSpec
from app.corpus.translations import pair_translations
from app.errors import DataError
from tests.conftest import write_manifest

RULES = "rules.json"


def _pair(folder: Path, korean: list[dict[str, object]], english: list[dict[str, object]],
          **extra: str) -> Path:
    write_manifest(folder, [
        {"id": "ko", "game": "ahlcg", "title": "참조", "parser": "rules-json", "file": RULES},
        {"id": "en", "game": "ahlcg", "title": "Reference", "parser": "rules-json",
         "file": "en.json", "lang": "en", "translation_of": "ko", **extra},
    ])
    (folder / RULES).write_text(json.dumps(korean, ensure_ascii=False), encoding="utf-8")
    (folder / "en.json").write_text(json.dumps(english), encoding="utf-8")
    return folder


def test_same_ids_pair_and_never_collide(tmp_path: Path) -> None:
    folder = _pair(tmp_path,
                   [{"id": "A", "title": "가", "text": "[나](#B)"}, {"id": "B", "title": "나"}],
                   [{"id": "A", "title": "Aa", "text": "see [Bb](#B) and [Cc](#C)"},
                    {"id": "C", "title": "Cc", "text": "only here"}])
    corpus = load_corpus(folder)
    assert corpus.entries["A"].translations == {"en": "en/A"}
    assert corpus.entries["en/A"].translations == {"ko": "A"}
    # The translation links within itself first, and to the original for what it lacks.
    assert corpus.entries["en/A"].links_to == ("B", "en/C")
    assert corpus.entries["en/C"].lang == "en" and corpus.english_name(corpus.entries["A"]) == "Aa"
    problems = [str(p) for p in check_data(folder)]
    assert "warning: en.json: 1 ids only in this translation (own pages, en): C" in problems
    assert 'warning: en.json: 1 ids of "ko" have no translation here: B' in problems


@pytest.mark.parametrize(("extra", "problem"), [
    ({"translation_of": "nowhere"}, 'no source "nowhere" declared before this one'),
    ({"lang": "ko"}, 'must be an original in another language'),
])
def test_a_translation_of_what_cannot_be_paired_is_refused(tmp_path: Path, extra: dict[str, str],
                                                          problem: str) -> None:
    folder = _pair(tmp_path, [{"id": "A", "title": "가"}], [{"id": "A", "title": "A"}], **extra)
    with pytest.raises(DataError, match=problem):
        load_corpus(folder)


def _with_history(folder: Path, source: str, file: str, revisions: list[list[dict[str, str]]],
                  ) -> None:
    """Give `source` (served from `file`) a history of `revisions`, oldest first."""
    manifest = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    spec = next(s for s in manifest["sources"] if s["id"] == source)
    spec["history"] = {"folder": f"history/{source}"}
    (folder / "sources.json").write_text(json.dumps(manifest, ensure_ascii=False),
                                         encoding="utf-8")
    (folder / "history" / source).mkdir(parents=True)
    listed = []
    for n, nodes in enumerate(revisions, start=1):
        data = json.dumps(nodes, ensure_ascii=False).encode()
        name = f"2023-0{n}-01_r{n}.json"
        (folder / "history" / source / name).write_bytes(data)
        listed.append({"file": name, "date": f"2023-0{n}-01", "subject": f"revision {n}",
                       "commit": f"{n}" * 9, "sha256": hashlib.sha256(data).hexdigest()})
    (folder / "history" / source / "revisions.json").write_text(
        json.dumps({"revisions": listed}))
    assert (folder / file).is_file()


_SWARMING = "무리 X 키워드가 있는 적은 우두머리 적과 무리 카드 X장으로 이루어집니다."


def test_an_id_renamed_on_one_side_still_pairs_through_its_history(tmp_path: Path) -> None:
    # Upstream renamed `Swarming X` to `Swarming` in the Korean file only (2023-01-26).
    folder = _pair(tmp_path, [{"id": "Swarming", "title": "무리 X", "text": _SWARMING}],
                   [{"id": "Swarming X", "title": "Swarming X", "text": "Swarming X enemies."}])
    _with_history(folder, "ko", RULES,
                  [[{"id": "Swarming X", "title": "무리 X", "text": _SWARMING}]])
    corpus = load_corpus(folder)
    assert corpus.entries["Swarming"].translations == {"en": "en/Swarming X"}
    assert corpus.entries["en/Swarming X"].translations == {"ko": "Swarming"}
    assert corpus.english_name(corpus.entries["Swarming"]) == "Swarming X"
    assert not [p for p in check_data(folder) if "translation" in p.message]


def test_the_other_side_renamed_pairs_too(tmp_path: Path) -> None:
    folder = _pair(tmp_path, [{"id": "Old", "title": "가", "text": "하나."}],
                   [{"id": "New", "title": "Aa", "text": "One rule, renamed."}])
    _with_history(folder, "en", "en.json",
                  [[{"id": "Old", "title": "Aa", "text": "One rule, renamed."}]])
    assert load_corpus(folder).entries["Old"].translations == {"en": "en/New"}


def test_without_a_history_a_different_id_stays_unpaired(tmp_path: Path) -> None:
    folder = _pair(tmp_path, [{"id": "Swarming", "title": "무리 X", "text": _SWARMING}],
                   [{"id": "Swarming X", "title": "Swarming X", "text": "Swarming X enemies."}])
    assert load_corpus(folder).entries["Swarming"].translations == {}


def _spec(source: str, lang: str = "ko", translation_of: str | None = None) -> SourceSpec:
    return SourceSpec(id=source, game="ahlcg", title=source, parser="rules-json",
                      file=f"{source}.json", lang=lang, translation_of=translation_of)


def test_a_renamed_id_whose_length_disagrees_is_not_paired() -> None:
    # The Korean `Appendix_IV_Card_Anatomy` was the player-card key (14 lines) when it shared
    # its id with the English appendix introduction (3 lines); renamed, it must not pair with
    # that introduction. Twelve pairs by id give the ratio: the Korean is half the English.
    ko, en = _spec("ko"), _spec("en", "en", "ko")
    ids = [f"R{n}" for n in range(12)]
    order = {"ko": [*ids, "Key", "Intro"], "en": [f"en/{i}" for i in [*ids, "Old"]]}
    sizes = {**{i: 500 for i in ids}, **{f"en/{i}": 1000 for i in ids}}

    def pairs_with(key_size: int) -> dict[str, str]:
        def formers(spec: SourceSpec, wanted: Collection[str]) -> dict[str, str]:
            return {"Old": "Key"} if spec.id == "ko" and "Old" in wanted else {}
        pairs, _ = pair_translations([ko, en], order, formers,
                                     {**sizes, "Key": key_size, "en/Old": 400})
        return pairs.get("Key", {})

    assert pairs_with(600) == {}  # 1.5 × the English where the pairs by id are 0.5 ×
    assert pairs_with(220) == {"en": "en/Old"}


def test_the_bundled_english_file_pairs_with_the_korean_reference(corpus: Corpus) -> None:
    korean = corpus.entries["Attack_of_Opportunity"]
    english = corpus.translation(korean, "en")
    assert english is not None and english.title == "Attack of Opportunity"
    assert corpus.english_name(corpus.entries["Joes_Hunch_Deck"]) == 'Joe\'s "Hunch Deck"'
    assert corpus.entries["en/Frost_Tokens"].translations == {}
    # Renamed in the Korean file in 2023, not in the English one.
    assert corpus.entries["Swarming"].translations == {"en": "en/Swarming X"}
    # Renamed too, but the English id is the appendix's introduction, not the card key.
    assert corpus.entries["Player_Card_Anatomy_Key"].translations == {}


def test_the_entry_page_offers_the_original_without_a_second_request(client: TestClient) -> None:
    page = client.get("/rules/Attack_of_Opportunity").text
    assert '<html lang="ko"' in page
    original = page.split('<details class="original" lang="en">', 1)[1].split("</details>", 1)[0]
    # The publisher's original (the manifest's "original": true) is 원문; others are 번역.
    assert '원문 보기 · <span lang="en">English</span>' in original
    assert "makes an attack of opportunity against the investigator" in original
    assert 'href="/rules/en/Attack_of_Opportunity" hreflang="en"' in original
    # The Korean rule comes first.
    assert page.index("준비 상태인 적과 교전 중인") < page.index('<details class="original"')


def test_an_english_page_is_marked_english_and_links_back(client: TestClient) -> None:
    page = client.get("/rules/en/Attack_of_Opportunity").text
    assert '<html lang="en"' in page and '<header class="site-header" lang="ko">' in page
    assert 'href="/rules/Attack_of_Opportunity" hreflang="ko"' in page
    only = client.get("/rules/en/Frost_Tokens").text
    assert '<html lang="en"' in only and 'aria-label="Frost"' in only


def test_the_english_index_is_grouped_a_to_z(client: TestClient) -> None:
    page = client.get("/sources/ahlcg-reference-en").text
    assert '<html lang="en"' in page and 'id="letter-A"' in page and 'id="letter-기타"' not in page
    data = client.get("/api/sources/ahlcg-reference-en").json()
    letters = [group["letter"] for group in data["index"]]
    assert letters == sorted(letters) and set(letters) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    chaos = next(g for g in data["index"] if g["letter"] == "C")
    tokens = next(t for t in chaos["terms"] if t["title"] == "Chaos Tokens")
    assert "Frost Tokens" in [t["title"] for t in tokens["children"]]  # only in English


def test_english_words_find_the_korean_rule_with_the_english_sentence(
        client: TestClient) -> None:
    found = client.get("/api/search", params={"q": "attack of opportunity"}).json()
    top = found["results"][0]
    assert top["id"] == "Attack_of_Opportunity" and top["lang"] == "ko"
    assert "<mark>Attack</mark>" in top["snippet"] or "<mark>attack</mark>" in top["snippet"]
    frost = client.get("/api/search", params={"q": "frost token"}).json()["results"][0]
    assert frost["id"] == "en/Frost_Tokens" and frost["lang"] == "en"
    ids = [r["id"] for r in client.get("/api/search", params={"q": "enemy phase"}).json()[
        "results"]]
    assert ids[0] == "Enemy_Phase" and not [i for i in ids if i == "en/Enemy_Phase"]


def test_translated_timing_tables_link_their_rows_by_step_label(corpus: Corpus) -> None:
    for table_id in ("Skill_Test_Timing", "en/Skill_Test_Timing"):
        rows = [r for r in corpus.entries[table_id].table or () if r.cells]
        assert rows and all(r.target for r in rows), table_id
    step4 = next(r for r in corpus.entries["en/Skill_Test_Timing"].table or ()
                 if r.cells and r.cells[0].text.startswith("ST.4"))
    assert step4.target == "en/Skilll_Test_4"


def test_the_timing_page_shows_every_table_grouped_by_source(client: TestClient) -> None:
    data = client.get("/timing").text
    korean, english = data.index(">아컴호러 카드게임 참조 안내서<"), data.index(
        ">Arkham Horror: The Card Game Rules Reference<")
    assert (korean < data.index('Skill_Test_Timing">능력 테스트 순서</a></h3>') < english
            < data.index('en/Skill_Test_Timing">Skill Test Timing</a></h3>'))

"""Ranking properties, filters, pagination and the quality floor, on the real corpus."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from app.corpus.build import load_corpus
from app.corpus.models import Corpus, Entry
from app.errors import DataError
from app.search import SearchIndex
from app.search.analysis import compact_title, title_parts
from app.search.documents import documents
from bench.search import evaluate, load_queries, project_search


@pytest.fixture(scope="module")
def index(corpus: Corpus, tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return SearchIndex.open_or_build(corpus, tmp_path_factory.getbasetemp() / "search-index")


def ids(index: SearchIndex, query: str, **kwargs: object) -> list[str]:
    return [hit.id for hit in index.search(query, limit=50, **kwargs).hits]  # type: ignore[arg-type]


def _unique_titles(corpus: Corpus) -> list[Entry]:
    """Real entries whose title (as a compact key) no other entry shares."""
    searchable = [d.entry for d in documents(corpus)]
    keys = Counter(compact_title(e.title) for e in searchable)
    parts = Counter(p for e in searchable for p in set(title_parts(e.title)))
    return [e for e in searchable if not e.placeholder and keys[compact_title(e.title)] == 1
            and all(parts[p] == 1 for p in title_parts(e.title)[:1])]


def test_exact_title_ranks_first(index: SearchIndex, corpus: Corpus) -> None:
    entries = _unique_titles(corpus)
    assert len(entries) > 100
    wrong = [(e.id, e.title, ids(index, e.title)[:3]) for e in entries
             if ids(index, e.title)[:1] != [e.id]]
    assert not wrong


def test_title_beats_mention_in_long_entry(index: SearchIndex) -> None:
    ranked = ids(index, "급증")
    assert ranked[0] == "Surge"


def test_child_beats_parent_when_it_is_the_answer(index: SearchIndex, corpus: Corpus) -> None:
    checked = 0
    for entry in _unique_titles(corpus):
        if entry.parent is None:
            continue
        parent = corpus.entries[entry.parent]
        ranked = ids(index, entry.title)
        if parent.id in ranked:
            assert ranked.index(entry.id) < ranked.index(parent.id), entry.id
            checked += 1
    assert checked > 10


def test_placeholder_ranks_below_its_target(index: SearchIndex, corpus: Corpus) -> None:
    placeholders = [e for e in corpus if e.placeholder and e.links_to]
    assert placeholders
    for entry in placeholders:
        ranked = ids(index, entry.title)
        target = entry.links_to[0]
        assert entry.id in ranked and target in ranked, entry.id
        assert ranked.index(target) < ranked.index(entry.id), entry.id


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("틈새 공격", "Attack_of_Opportunity"),
        ("틈새공격", "Attack_of_Opportunity"),
        ("틈세 공격", "Attack_of_Opportunity"),
        ("ㅌㅅㄱㄱ", "Attack_of_Opportunity"),
        ("틈ㅅ", "Attack_of_Opportunity"),
        ("attack of opportunity", "Attack_of_Opportunity"),
        ("Attack_of_Opportunity", "Attack_of_Opportunity"),
        ("atack of oportunity", "Attack_of_Opportunity"),
        ("surge", "Surge"),
        ("the grim rule", "The_Grim_Rule"),
        ("조사자가 회피하면", "Evade"),
        ("단서", "Clues"),
        ("교전", "ahr-교전"),
    ],
)
def test_player_queries(index: SearchIndex, query: str, expected: str) -> None:
    assert expected in ids(index, query)[:3]


@pytest.mark.parametrize(("query", "expected"), [
    ("후퇴하려는데 쓰러진 건가요", "Resign"),
    ("적이랑 싸우면서 이동해도 돼요", "Attack_of_Opportunity"),
])
def test_a_situation_told_with_what_a_player_was_about_to_do_finds_its_rule(
        index: SearchIndex, query: str, expected: str) -> None:
    # The verb before -려는데 or -면서 is the situation's: 후퇴 (resign), 싸우다 (fight).
    assert ids(index, query)[0] == expected


def test_one_test_started_in_the_middle_of_another_is_the_nested_rule(index: SearchIndex) -> None:
    # 도중 alone is a light word (테스트 도중에: the noun carries the meaning), but "도중에 또"
    # is how players say that one thing starts inside another: the rules' 중간에 낀.
    query = "지식 테스트 도중에 또 테스트를 하라는 카드를 쓰면"
    assert ids(index, query)[0] == "Nested_Skill_Tests"


def test_icon_labels_are_searchable(index: SearchIndex, corpus: Corpus) -> None:
    shown = {e.id for e in corpus if 'aria-label="반응 격발"' in e.html}
    assert shown
    assert set(ids(index, "반응")[:10]) & shown


def test_game_and_source_filters(index: SearchIndex, corpus: Corpus) -> None:
    for game in ("ahlcg", "eh"):
        found = ids(index, "단서", game=game)
        assert found and all(corpus.entries[i].game == game for i in found)
    source = corpus.sources[0].id
    found = ids(index, "행동", source=source)
    assert found and all(corpus.entries[i].source == source for i in found)
    assert index.search("단서", game="nope").total == 0


def test_pagination(index: SearchIndex) -> None:
    everything = index.search("카드", limit=100)
    assert everything.total > 20
    pages = [hit.id for offset in range(0, 20, 5)
             for hit in index.search("카드", limit=5, offset=offset).hits]
    assert pages == [hit.id for hit in everything.hits[:20]]
    assert index.search("카드", limit=5, offset=10_000).hits == ()
    assert index.search("카드", limit=0).total == everything.total


def test_did_you_mean(index: SearchIndex, corpus: Corpus) -> None:
    nothing = index.search("mulliganxxx")  # three edits: too many to match, close enough to ask
    assert nothing.total == 0 and nothing.hits == ()
    assert nothing.suggestion == corpus.entries["Mulligan"].title
    assert index.search("zqzqzqzq").suggestion is None
    assert index.search("틈새 공격").suggestion is None


def test_snippets_are_marked_and_escaped(index: SearchIndex) -> None:
    hit = index.search("틈새 공격").hits[0]
    assert "<mark>" in hit.snippet
    assert len(hit.snippet.replace("<mark>", "").replace("</mark>", "")) <= 170
    assert "<script" not in index.search("<script>").hits[0].snippet if index.search(
        "<script>").hits else True


def test_suggest(index: SearchIndex) -> None:
    assert index.suggest("ㅌㅅㄱㄱ")[0] == "Attack_of_Opportunity"
    assert index.suggest("틈ㅅ")[0] == "Attack_of_Opportunity"
    assert index.suggest("틈")[0] == "Attack_of_Opportunity"
    assert "Attack_of_Opportunity" in index.suggest("attack")
    assert index.suggest("강제 기능")[0] == "Abilities_Forced_Abilities"
    assert len(index.suggest("ㄱ", limit=3)) == 3
    assert index.suggest("") == []


#: Per category of the development set, the MRR@10 the search must keep (a floor a little
#: under today's figures, docs/figures.md: a regression fails, noise does not). #23's blind
#: categories are far from their targets yet; their floors keep what was won.
QUALITY_FLOORS = {"title": 0.95, "inflection": 0.85, "spacing": 0.95, "typo": 0.95,
                  "chosung": 0.95, "english": 0.80, "concept": 0.8, "eh": 0.9, "rulebook": 0.72,
                  "community": 0.9, "question": 0.78, "situation": 0.58, "everyday": 0.7,
                  "faq": 0.88}


def test_quality_floor_on_dev_set(index: SearchIndex, corpus: Corpus) -> None:
    scores = evaluate(project_search(index), corpus, load_queries())
    low = {cat: round(scores.mrr(cat), 3) for cat, floor in QUALITY_FLOORS.items()
           if scores.count(cat) and scores.mrr(cat) < floor}
    assert not low, f"categories below their floor: {low}"
    assert scores.hit5() >= 0.9


def test_the_re_rank_factor_rewards_coverage_proximity_and_titles() -> None:
    from app.search.contract import CONTRACT
    from app.search.rank import Features
    base = Features(coordination=0.5, proximity=0.0, title_coverage=0.0, authority=1.0)
    assert Features(1.0, 0.0, 0.0, 1.0).factor > base.factor              # every word present
    assert Features(0.5, 1.0, 0.0, 1.0).factor > base.factor              # words side by side
    assert Features(0.5, 0.0, 1.0, 1.0).factor > base.factor              # the title explains it
    assert Features(0.0, 0.0, 0.0, 1.0).factor == CONTRACT.rerank.coord_floor  # never zero
    assert Features(0.5, 0.0, 0.0, 1.0, passage=1.0).factor > base.factor  # in one sentence


def test_a_question_finds_the_entry_whose_one_sentence_holds_its_words(
        index: SearchIndex) -> None:
    from app.search.rank import Features
    plan = index.plan("같은 카드 덱에 몇 장까지 넣을 포함 수 있어요")
    prepared = index._reranker.prepare(plan)
    # Deckbuilding says it in one bullet: "덱에는 (명칭이 같은) … 카드 사본이 2장까지만 포함".
    deckbuilding = index._reranker.features(prepared, "Deckbuilding")
    assert deckbuilding.passage > 0.8
    # This entry's title shares 덱, 카드, 1장 with the query, but no sentence of it holds them.
    spread = index._reranker.features(
        prepared, "Shuffling_A_Card_Into_An_Empty_Player_Encounter_Deck")
    assert isinstance(spread, Features) and spread.passage < 0.6
    # Its title words (덱, 카드, 넣기) give it the higher BM25; the re-rank weighs it less.
    assert deckbuilding.factor > spread.factor * 1.5
    # Short queries are not phrases a sentence answers: the feature stays off.
    short = index._reranker.features(index._reranker.prepare(index.plan("덱 구성")),
                                     "Deckbuilding")
    assert short.passage == 0.0


def test_an_english_question_s_words_in_one_english_sentence_count_as_a_passage(
        index: SearchIndex) -> None:
    prepared = index._reranker.prepare(
        index.plan("how many cards can other players commit to my skill test"))
    # Skill_Test_2's English text: "Each other investigator at the same location … may commit
    # one card … to this test": most of the question in one sentence; Skill_Tests spreads it.
    one = index._reranker.features(prepared, "Skill_Test_2")
    spread = index._reranker.features(prepared, "Skill_Tests")
    assert one.passage > 0.8 > 0.4 > spread.passage



def test_an_english_plural_whose_stem_is_not_its_start_counts_as_present(
        index: SearchIndex) -> None:
    # `copies` is searched as its stem `copy`, which the text's "2 copies (by title)" does not
    # start with: Deckbuilding must still have every word of the question.
    prepared = index._reranker.prepare(
        index.plan("how many copies of a card can I have in my deck"))
    assert index._reranker.features(prepared, "Deckbuilding").coordination == 1.0


def _learn_and_reference(tmp_path: Path, weights: dict[str, float], learn: list[dict[str, str]],
                         rules: list[dict[str, str]]) -> SearchIndex:
    """An index over a rulebook (`learn`, with the manifest's `weights`) and a reference."""
    from tests.conftest import write_manifest
    folder = write_manifest(tmp_path / "data", [
        {"id": "learn", "game": "ahlcg", "title": "규칙서", "parser": "rules-json",
         "file": "learn.json", **weights},
        {"id": "ref", "game": "ahlcg", "title": "참조 안내서", "parser": "rules-json",
         "file": "ref.json"},
    ])
    (folder / "learn.json").write_text(json.dumps(learn, ensure_ascii=False), encoding="utf-8")
    (folder / "ref.json").write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
    return SearchIndex.open_or_build(load_corpus(folder), tmp_path / "index")


def test_a_book_that_teaches_the_game_ranks_below_the_reference(tmp_path: Path) -> None:
    index = _learn_and_reference(tmp_path, {"search_weight": 0.8}, [
        {"id": "Learn_Resources", "title": "자원",
         "text": "자원은 카드를 플레이할 때 씁니다. 자원 토큰을 받습니다."},
    ], [{"id": "Resources", "title": "자원", "text": "자원은 카드를 플레이할 때 씁니다."}])
    try:
        # The rulebook says 자원 twice and comes first in the manifest; the reference wins.
        assert [h.id for h in index.search("자원").hits] == ["Resources", "Learn_Resources"]
    finally:
        index.close()


def test_a_rulebook_passage_repeating_a_reference_entry_ranks_below_it(tmp_path: Path) -> None:
    # #23: with equal weights the learn-to-play passage 교전 (which says 교전 more often) took
    # the first place from the reference's entry of the same title; a passage no other
    # source has keeps its full weight, and with it its place.
    index = _learn_and_reference(tmp_path, {"repeated_weight": 0.9}, [
        {"id": "Learn_Engage", "title": "교전",
         "text": "교전 중인 적은 교전한 조사자를 따라 이동합니다. 교전은 교전입니다."},
        {"id": "Learn_Tips", "title": "교전 요령", "text": "교전 중인 적을 먼저 처치합니다."},
    ], [
        {"id": "Engagement", "title": "교전", "text": "교전 중인 적은 조사자와 함께 이동합니다."},
        {"id": "Other", "title": "처치", "text": "교전 중인 적을 처치하면 버립니다."},
    ])
    try:
        assert [h.id for h in index.search("교전").hits][:2] == ["Engagement", "Learn_Engage"]
        assert index.search("교전 요령").hits[0].id == "Learn_Tips"
    finally:
        index.close()


@pytest.mark.parametrize("key", ["search_weight", "repeated_weight"])
@pytest.mark.parametrize("weight", [0, 1.5, "0.8", True, -1])
def test_a_search_weight_outside_0_to_1_is_refused_in_one_line(tmp_path: Path, key: str,
                                                                weight: object) -> None:
    from tests.conftest import write_manifest
    folder = write_manifest(tmp_path, [{"id": "t", "game": "ahlcg", "title": "가",
                                        "parser": "rules-json", "file": "rules.json",
                                        key: weight}])
    (folder / "rules.json").write_text("[]", encoding="utf-8")
    with pytest.raises(DataError, match=rf'^sources.json: sources\[0\]: "{key}" must be '
                                        r"a number above 0 and at most 1$"):
        load_corpus(folder)


def test_a_related_word_and_the_word_it_joins_count_once(index: SearchIndex) -> None:
    rewrite = index.rewrite("덱에 같은 이름의 카드를 몇 장까지 넣을 수 있나요")
    assert ("포함", "넣을") in rewrite.related
    joined = index.plan(rewrite.text, related=rewrite.related)
    apart = index.plan(rewrite.text)
    # Deckbuilding's text says 포함 and 명칭 where the player said 넣다 and 이름: with the
    # related words joined to the typed ones it has every word of the question; counted
    # apart, it lacked two of seven. (Its text alone: the answers file asks it in the
    # player's words too.)
    import dataclasses

    from app.search.documents import documents
    from app.search.rank import Reranker
    reranker = Reranker([dataclasses.replace(d, asks="") for d in documents(index.corpus)])
    prepared = reranker.prepare(joined)
    assert reranker.features(prepared, "Deckbuilding").coordination == 1.0
    assert reranker.features(reranker.prepare(apart), "Deckbuilding").coordination < 1.0
    assert len(prepared.groups) == len(reranker.prepare(apart).groups) - 2


def test_real_words_are_never_corrected(index: SearchIndex) -> None:
    # 서리 (frost: an icon the English file names), 사기 (buying, a related word of 구입),
    # 딜 (damage dealt, a players' word): none is a typo of some title word.
    frost = index.search("서리 토큰")
    assert not frost.corrections and frost.hits[0].id == "en/Frost_Tokens"
    buying = index.search("경험치로 카드 사기")
    assert not buying.corrections
    assert index.search("딜").loanwords == ()
    assert index.search("딜").synonyms == (("딜", "피해"),)
    # A count written together (한장: one card) was "corrected" to 한정 (limited), and a
    # spoken 거임 (것 + 이다) to 게임.
    assert index.search("덱에 카드 한장도 없으면").corrections == ()
    assert index.search("이 규칙 언제 쓰는 거임").corrections == ()


def test_everyday_words_are_left_as_typed(index: SearchIndex) -> None:
    # 머리 (head), 우산 (umbrella), 가방, 의자, 사진 are one jamo from rules' words (버리, 우선,
    # 가장, 의지, 소진) and were "corrected" into them: the everyday words file lists them.
    found = index.search("머리 빗자루 우산")
    assert not found.corrections and not found.fallback
    assert "우산" in found.dropped and "eh-버리기" not in [h.id for h in found.hits]
    for word in ("가방", "의자", "사진", "가방을"):
        result = index.search(word)
        assert not result.corrections and not result.fallback, word
    # Real typos still are corrected.
    assert index.search("틈세 공격").corrections == (("틈세", "틈새"),)
    assert index.search("조사쟈").corrections == (("조사쟈", "조사자"),)


def test_verb_and_adjective_forms_are_never_corrected(index: SearchIndex) -> None:
    # #23: `머리가 아파요` said "‘아파요’ 결과가 없어 ‘앞에’로 찾았습니다"; the everyday words
    # list Kiwi's verb and adjective stems (아프-), and a form is known by its stem.
    for query in ("머리가 아파요", "아파요", "먹었어요", "좋아요", "죽었는데", "미쳤어",
                  "어려워요 조사자"):
        found = index.search(query)
        assert not found.corrections and not found.fallback, query
        assert found.total or found.suggestion is None, query
    assert "아파요" in index.search("머리가 아파요").dropped  # said, not "corrected"
    # A real word that finds nothing is offered no title it is no typo of (가방 → 추방).
    bag = index.search("가방")
    assert bag.total == 0 and bag.suggestion is None
    assert index.suggest("가방") == []
    # Real typos still are corrected, and a typo's did-you-mean stays.
    assert index.search("틈세 공격").corrections == (("틈세", "틈새"),)
    assert index.search("춰가 비용").corrections == (("춰가", "추가"),)
    assert index.search("퉁새콩격").suggestion is not None


def test_a_correction_must_find_more_of_the_query_than_the_words_as_typed(
        index: SearchIndex) -> None:
    # 미혼자 (an unmarried person: no word of the file, rarer than its cut) is 혼자 (alone) one
    # edit away; corrected, the best result holds no more of the query than 조건 alone finds:
    # no correction, and the page says the word was left out.
    plan = index.plan("미혼자 조건")
    assert plan.words[0].corrections  # the typo path proposes one ...
    found = index.search("미혼자 조건")
    assert not found.corrections and found.dropped == ("미혼자",)  # ... the rule declines it
    assert found.hits[0].id == "Triggering_Condition"
    # 틈세 공격: corrected, the best result has both words; as typed, only 공격.
    assert index.search("틈세 공격").hits[0].id == "Attack_of_Opportunity"


def test_a_word_only_a_faq_question_s_title_has_is_no_correction_s_target(
        index: SearchIndex) -> None:
    # 자기 (oneself) is a word of one title only, a question ("… 자기 자신에게도 사용할 수
    # 있습니까?"): 파기 (scrapping) was "corrected" into it.
    found = index.search("파기")
    assert not found.corrections and not found.loanwords
    assert "자기" not in index.plan("파기").words[0].corrections
    # A typo of a rule's name is still corrected.
    assert index.search("토쿤").corrections == (("토쿤", "토큰"),)
    # 자기 itself is known: it finds that question.
    assert not index.search("자기 자신").corrections


def test_verb_compounds_count_as_their_noun(index: SearchIndex) -> None:
    for query in ("교전 중에 이동하면 공격받나요", "교전 중에 이동하면 공격당하나요"):
        assert "Attack_of_Opportunity" in ids(index, query)[:5], query


def test_a_remark_s_noun_form_is_its_verb_never_a_loanword(index: SearchIndex) -> None:
    # 때림 is 때리- + ㅁ ("hits?"), as a player ends a remark: it once sounded like "trauma"
    # and found 트라우마 first. It is the verb, and 때리다 is a related word of 전투.
    found = index.search("교전 중에 자원 얻으면 적이 때림?")
    assert found.loanwords == ()
    assert found.hits[0].id == "Attack_of_Opportunity"
    # A form of a listed verb is no loanword either (내주- + 어도: not "미개척로").
    assert index.search("카드 내줘도 됨").loanwords == ()


def test_a_verb_with_its_auxiliary_is_the_main_verb_never_a_loanword(index: SearchIndex) -> None:
    # 깔아둬요 = 깔- + -아 두다: it once sounded like "killed" and put the rule for killed
    # investigators above the one about a weapon whose ammunition is spent.
    found = index.search("총알 다 쓴 권총도 계속 깔아둬요?")
    assert found.loanwords == ()
    assert found.hits[0].id == "Uses"
    assert index.search("공격받을때 피해를 내 조력자한테 나눠줘도 돼요?").loanwords == ()


def test_players_loanwords_for_shuffle_and_phase_are_their_rules_words(index: SearchIndex) -> None:
    # 셔플 sounded like "spell" (Eldritch Horror's 마법) and 페이즈 was corrected to 헤이즈.
    assert index.search("셔플").synonyms == (("셔플", "섞다"),)
    found = index.search("페이즈")
    assert found.synonyms == (("페이즈", "단계"),) and found.corrections == ()


def test_a_state_written_as_one_word_with_its_있다_is_its_verb(index: SearchIndex) -> None:
    # 눕혀져있어요 = 눕혀지- + -어 있다, written together as players type it: the investigator
    # laid down, Eldritch Horror's 지체 (`지체 ~ 눕혀지다` in the synonyms file).
    top = ids(index, "엘드리치 조사자 말이 눕혀져있어요")[:2]
    assert {"eh-지체", "ehr-지체된_조사자"} & set(top), top


def test_a_filter_offers_the_better_match_in_the_other_game(index: SearchIndex) -> None:
    found = index.search("틈새 공격", game="eh")
    assert found.elsewhere == "Attack_of_Opportunity"
    assert all(h.id.startswith(("eh", "ehr")) for h in found.hits)
    assert index.search("전투 조우", game="eh").elsewhere is None


def test_nothing_found_falls_back_to_the_nearest_word_of_the_texts(index: SearchIndex) -> None:
    # 베팅 is no word of any rule; 세팅 is (게임 세팅, a synonym's word), 2 jamo away: the
    # fallback allows the search's edits, so it finds nothing here either, and says nothing.
    found = index.search("쭈꾸미")
    assert found.total == 0 and not found.fallback
    near = index.search("준비물품")
    assert near.total > 0
    # 고갈시키 is a word of the texts (고갈시킵니다) and of no title: found through the
    # fallback, which says so, rather than through entries sharing two letters of it.
    drained = index.search("고걀시키")
    assert drained.fallback == (("고걀시키", "고갈시키"),)
    assert drained.hits[0].id in ("ahr-피해와_공포", "Dealing_Damage_Horror")
    assert not drained.dropped


def test_left_out_words_are_said_only_when_no_result_has_them(index: SearchIndex) -> None:
    assert index.search("틈새 공격 뷁").dropped == ("뷁",)
    assert not index.search("AoO").dropped            # a players' word, replaced
    assert not index.search("교전중").dropped          # "교전 중인": the spaces differ
    assert not index.search("적이 두마리").dropped      # a count names no rule: not "left out"
    assert not index.search("틈새 공격 뷁").partial
    # No entry has the one word: what is found only shares letters of it, and says so.
    letters = index.search("단서뭉치")
    assert letters.hits and letters.dropped == ("단서뭉치",) and letters.partial
    # A verb in its dictionary form is its stem (떨어트리), one jamo from a word of the texts
    # (떨어뜨립니다): found through the fallback, which says so.
    dropped = index.search("떨어트리다")
    assert dropped.fallback == (("떨어트리다", "떨어뜨리"),) and not dropped.dropped


def test_suggestions_use_the_search_analysis(index: SearchIndex, corpus: Corpus) -> None:
    assert index.suggest("서지")[0] == "Surge"            # players' words
    assert index.suggest("클루")[0] == "Clues"
    assert index.suggest("AoO")[0] == "Attack_of_Opportunity"
    assert index.suggest("틈세 공")[0] == "Attack_of_Opportunity"  # a typo, being typed
    assert index.suggest("교전중")                         # no title: the search's results
    assert len(set(index.suggest("카드"))) == len(index.suggest("카드"))


def test_title_hits_read_from_the_rules_opening(index: SearchIndex, corpus: Corpus) -> None:
    hit = index.search("틈새 공격").hits[0]
    assert hit.id == "Attack_of_Opportunity"
    assert not hit.snippet.startswith("…")


def test_a_card_a_worked_example_names_counts_less_than_the_rule_s_words(
        tmp_path: Path) -> None:
    from tests.conftest import write_rules_data
    rules = [
        {"id": "Slots", "title": "슬롯",
         "text": "자산은 슬롯을 차지합니다. 손 슬롯은 2개입니다.\n\n"
                 "예시: 로랜드는 ‘신성한 거울’을 손 슬롯에 둡니다."},
        {"id": "Blessed", "title": "축복받은 카드", "text": "신성한 카드는 축복받은 카드입니다."},
    ]
    corpus = load_corpus(write_rules_data(tmp_path / "data", rules))
    index = SearchIndex.open_or_build(corpus, tmp_path / "index")
    try:
        reranker = index._reranker
        # 신성한 and 거울 are in Slots only inside the card name its example quotes.
        named = reranker.features(reranker.prepare(index.plan("신성한 거울")), "Slots")
        assert named.coordination == pytest.approx(0.5)
        # The example's other words are the rule's (로랜드, 슬롯): they count in full.
        plain = reranker.features(reranker.prepare(index.plan("로랜드 슬롯")), "Slots")
        assert plain.coordination == 1.0
        # 신성한 outside a worked example (the Blessed rule says it) counts in full there.
        said = reranker.features(reranker.prepare(index.plan("신성한 거울")), "Blessed")
        assert said.coordination == pytest.approx(0.5)  # it has 신성한, not 거울
        # Without the languages' example words, a name counts like any word.
        from app.search.documents import documents
        from app.search.rank import Reranker
        bare = Reranker(documents(corpus))
        assert bare.features(bare.prepare(index.plan("신성한 거울")), "Slots").coordination == 1.0
    finally:
        index.close()


@pytest.mark.parametrize(("verb", "expected"), [
    ("맞다", "Attack_of_Opportunity"), ("죽다", "Defeat"),
    ("미치다", "Killed_Insane_Investigators"), ("버리다", None), ("뽑다", None)])
def test_a_verb_in_its_dictionary_form_is_its_stem_and_never_corrected(
        index: SearchIndex, verb: str, expected: str | None) -> None:
    # 맞다 was "corrected" to 찾다, 미치다 to 미친 and 버리다 to 버리: the 다 of the dictionary
    # form is an ending, and the related-words lines (공격 ~ 맞다) meet the stem.
    found = index.search(verb)
    assert not found.corrections and found.total
    assert index.plan(verb).words[0].known
    if expected is not None:
        assert expected in [h.id for h in found.hits[:3]]


def test_a_short_word_falls_back_only_to_a_word_of_the_rules(index: SearchIndex) -> None:
    # 파기 (scrapping) is one jamo from 자기 (oneself), a word of the texts but no rules term:
    # when nothing is found it is not "corrected" into it. A long word still falls back to
    # any word of the texts.
    assert index.nearest_words(index.plan("파기", correct=False)) == ()
    assert index.nearest_words(index.plan("고걀시키", correct=False)) == (("고걀시키", "고갈시키"),)


def test_a_page_is_the_full_ranking_s_first_places(index: SearchIndex) -> None:
    """A page leaves out the candidates that cannot reach it (`Ranker._best_only`), yet
    shows what the full ranking's first places are, in its order, with the same total."""
    skipped = 0
    for query in load_queries():
        plan = index.plan(index.rewrite(query.q).text)
        if plan.empty:
            continue
        full = index.ranking(plan)
        for places in (1, 10):
            page = index.ranking(plan, prefix=places)
            assert page.order[:places] == full.order[:places], (query.q, places)
            # The same pages (a page past the sure places may be listed by another of its
            # documents: an entry or one of its steps, `one_per_page`).
            def pages(order: list[str]) -> list[str]:
                return sorted(i.split("#", 1)[0] for i in order)
            assert pages(page.order) == pages(full.order)
            assert {i: f for i, f in full.features.items() if i in page.features} == page.features
            skipped += len(full.features) - len(page.features)
    assert skipped > 1000  # the page is cheaper: most candidates are never measured in full

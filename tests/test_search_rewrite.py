"""Synonyms: the words players use, replaced by the official terms before planning."""

from __future__ import annotations

from app.search.contract import Budget
from app.search.rewrite import Rewrite, Rewriter

TABLES = {"ahlcg": {"서지": ("급증",), "어택오브오퍼튜니티": ("틈새 공격",), "aoo": ("틈새 공격",),
                    "클루": ("단서",)},
          "eh": {"서지": ("괴물 급증",), "몬스터서지": ("괴물 급증",)}}
REWRITER = Rewriter(TABLES)


def test_a_variant_becomes_its_official_term_and_is_reported_without_its_particle() -> None:
    out = REWRITER.rewrite("서지가 뭐예요", "ahlcg")
    assert out.text == "급증 뭐예요" and out.synonyms == (("서지", "급증"),)


def test_runs_of_words_and_spacing_variants_match() -> None:
    assert REWRITER.rewrite("어택 오브 오퍼튜니티", "ahlcg").text == "틈새 공격"
    assert REWRITER.rewrite("어택오브 오퍼튜니티", "ahlcg").text == "틈새 공격"


def test_without_a_game_the_first_game_decides_and_longer_variants_reach_the_others() -> None:
    assert REWRITER.rewrite("서지", None).text == "급증"
    assert REWRITER.rewrite("몬스터 서지", None).text == "괴물 급증"
    assert REWRITER.rewrite("서지", "eh").text == "괴물 급증"


def test_english_variants_count_only_when_the_index_does_not_know_them() -> None:
    def nothing_known(word: str) -> bool:
        return False

    assert REWRITER.rewrite("AoO", "ahlcg", known=nothing_known).text == "틈새 공격 aoo"
    # An abbreviation in an English sentence is the player's word for the term too: the
    # English text never spells it.
    sentence = REWRITER.rewrite("does the enemy exhaust after an aoo", "ahlcg",
                                known=lambda w: w != "aoo")
    assert sentence.synonyms == (("aoo", "틈새 공격"),)
    assert sentence.text == "does the enemy exhaust after an 틈새 공격 aoo"
    # Words the index knows find the English originals themselves.
    assert REWRITER.rewrite("AoO", "ahlcg", known=lambda w: True).synonyms == ()
    # Inside a Korean query, an English abbreviation is the player's word for the term.
    mixed = REWRITER.rewrite("AoO 규칙", "ahlcg", known=lambda w: w == "규칙")
    assert mixed.text == "틈새 공격 aoo 규칙" and mixed.synonyms == (("aoo", "틈새 공격"),)


def test_only_the_budgeted_words_are_looked_at() -> None:
    out = REWRITER.rewrite("가 나 다 클루", "ahlcg", Budget(words=3), known=lambda w: False)
    assert out.synonyms == () and out.text.endswith("클루")


def test_a_near_miss_of_a_long_hangul_variant_counts_as_it() -> None:
    rewriter = Rewriter({"eh": {"레커닝": ("응보",), "서지": ("괴물 급증",)}})
    out = rewriter.rewrite("리커닝", "eh", known=lambda w: False)
    assert out.text == "응보" and out.synonyms == (("리커닝", "응보"),)
    # Two-syllable variants need the exact spelling (서리 is a different word), and a word
    # the index knows is never taken for a misspelt variant.
    assert rewriter.rewrite("서리", "eh", known=lambda w: False).synonyms == ()
    assert rewriter.rewrite("리커닝", "eh", known=lambda w: True).synonyms == ()
    # Two jamo apart is another word, not a spelling: 트로피 (trophy) is not 트로마 (trauma).
    trauma = Rewriter({"ahlcg": {"트로마": ("트라우마",)}})
    assert trauma.rewrite("트로마스", "ahlcg", known=lambda w: False).synonyms == ()
    assert trauma.rewrite("트로피", "ahlcg", known=lambda w: False).synonyms == ()
    assert trauma.rewrite("트러마", "ahlcg", known=lambda w: False).synonyms == (
        ("트러마", "트라우마"),)


def test_a_related_word_stays_and_the_rules_word_joins_it_unannounced() -> None:
    rewriter = Rewriter(TABLES, {"ahlcg": {"넣": ("포함",), "세우": ("준비",)}, "eh": {}})
    out = rewriter.rewrite("덱에 몇 장까지 넣을 수 있나요", "ahlcg")
    assert out.text == "덱에 몇 장까지 넣을 포함 수 있나요"
    assert out.synonyms == ()  # nothing to teach: 넣다 is not wrong, the rules say 포함
    # 세워서 reaches 세우 by its merged -어 form; a synonym on the same query is still reported.
    both = rewriter.rewrite("서지 카드 세워서", "ahlcg")
    assert both.text == "급증 카드 세워서 준비" and both.synonyms == (("서지", "급증"),)
    assert rewriter.rewrite("넣을", "eh").text == "넣을"  # another game's words stay apart


def test_a_light_word_opens_a_players_phrase_but_is_never_one_alone() -> None:
    # 한, 내 and 다 are light words (a count, "my", "all"): alone they are nobody's term, but
    # the players' phrases they open are (`한 턴`, `내 덱`).
    rewriter = Rewriter({"ahlcg": {"한턴": ("라운드",), "내덱": ("조사자 덱",), "한": ("하나",)},
                         "eh": {}},
                        {"ahlcg": {"다떨어지": ("더 이상 없다",), "다": ("모두",)}, "eh": {}})
    assert rewriter.rewrite("한 턴에 몇 번", "ahlcg").text == "라운드 몇 번"
    mine = rewriter.rewrite("내 덱 다 떨어지면", "ahlcg")
    assert mine.text == "조사자 덱 다 떨어지면" and mine.synonyms == (("내 덱", "조사자 덱"),)
    # A related phrase is looked up from a word that is not light: typed as one word.
    assert mine.related == ()
    glued = rewriter.rewrite("내 덱 다떨어지면", "ahlcg")
    assert glued.related == (("더 이상 없다", "다떨어지면"),)
    assert rewriter.rewrite("한 번 다 봤어요", "ahlcg").text == "한 번 다 봤어요"


def test_a_word_light_only_by_its_ending_is_the_line_s_that_lists_it() -> None:
    # 막 is a filler (막 해도 돼요) and 게 is 것 (하는 게): 막을 and 게인 look light, but 막다 (to
    # block) and 게인 (gain) are players' words the files list.
    rewriter = Rewriter({"ahlcg": {"게인": ("획득하다",)}, "eh": {}},
                        {"ahlcg": {"막": ("취소",)}, "eh": {}})
    blocked = rewriter.rewrite("공격을 막을 수 있나요", "ahlcg")
    assert blocked.related == (("취소", "막을"),)
    assert rewriter.rewrite("자원 게인", "ahlcg").synonyms == (("게인", "획득하다"),)
    assert rewriter.rewrite("막 해도 돼요", "ahlcg").text == "막 해도 돼요"  # the filler itself


def test_a_verb_whose_l_dropped_before_neun_is_the_line_s_that_lists_it() -> None:
    # 까는 is 깔다's (to put into play: `플레이 영역에 두다 ~ 깔다`), not 까다's.
    rewriter = Rewriter(TABLES, {"ahlcg": {"깔": ("플레이 영역에 두다",)}, "eh": {}})
    assert rewriter.rewrite("바로 까는 효과", "ahlcg").related == (
        ("플레이 영역에 두다", "까는"),)
    assert rewriter.rewrite("바로 까고", "ahlcg").related == ()


def test_a_game_named_in_a_longer_query_is_taken_out_and_reported() -> None:
    from app.search.rewrite import name_keys
    names = name_keys({"ahlcg": ("아컴호러 카드게임", "아컴"), "eh": ("엘드리치 호러", "엘호")},
                      titles=[["엘드리치", "토큰"], ["엘드리치", "토큰", "놓기"], ["조사", "행동"]])
    assert "아컴호러" in names.keys and names.keys["엘드리치호러"] == ("eh",)
    rewriter = Rewriter(TABLES, {}, names)
    out = rewriter.rewrite("엘드리치 호러에서 라운드 진행", None)
    assert out.text == "라운드 진행" and out.game == ("엘드리치 호러", "eh")
    assert rewriter.rewrite("아컴에서 서지", None).game == ("아컴", "ahlcg")
    # A name alone is a search for it, not a preference.
    assert rewriter.rewrite("엘호", None) == Rewrite("엘호")
    # The first word of a name is how players say the game (엘드리치 for 엘드리치 호러), also
    # when a title has the word: unless the query goes on as that title does (엘드리치 토큰).
    assert names.guards == {"엘드리치": ("토큰",)}
    assert rewriter.rewrite("엘드리치 한 차례에 행동 몇 번", None).game == ("엘드리치", "eh")
    assert rewriter.rewrite("엘드리치에서 괴물 잡기", None).game == ("엘드리치", "eh")
    token = rewriter.rewrite("엘드리치 토큰을 언제 놓아요", None)
    assert token.game is None and token.text == "엘드리치 토큰을 언제 놓아요"
    # A word that ends a title (or is one) never names a game: nothing tells the two apart.
    ending = name_keys({"ahlcg": ("조사 행동", "조사자단")},
                       titles=[["조사", "행동"], ["조사자단"]])
    assert "조사자단" not in ending.keys


def test_a_players_word_typed_together_with_the_next_word_is_found() -> None:
    # `빚내서 템사기` (buying items on a loan) was "corrected" to 탐사 (explore); `몹잡기`
    # and `템줍기` found nothing at all.
    rewriter = Rewriter({"eh": {"템": ("자산 카드",), "몹": ("괴물",)}})
    words = {"사기", "교환"}

    def known(word: str) -> bool:
        return word in words

    out = rewriter.rewrite("템사기", "eh", known=known)
    assert out.text == "자산 카드 사기" and out.synonyms == (("템", "자산 카드"),)
    # The rest may be an everyday word, or a form of an everyday verb (잡기 of 잡-).
    out = rewriter.rewrite("빨리 몹잡기", "eh", known=known, everyday=frozenset({"잡-"}))
    assert out.text == "빨리 괴물 잡기" and out.synonyms == (("몹", "괴물"),)
    # Never before a form of 하다 or 되다: 피할까 is the verb 피하다, not 피 (blood) + 할까.
    blood = Rewriter({"ahlcg": {"피": ("체력",)}})
    assert blood.rewrite("피할까", "ahlcg", known=lambda w: w == "할까").synonyms == ()
    assert blood.rewrite("피됐어요", "ahlcg", known=lambda w: w == "됐어요").synonyms == ()
    # Not when the rest is no word (템사: 사 alone), nor a word the search knows as typed.
    assert rewriter.rewrite("템사", "eh", known=known).synonyms == ()
    assert rewriter.rewrite("템교환", "eh", known=lambda w: True).synonyms == ()

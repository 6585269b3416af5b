"""Korean analysis: particles and endings, spacing, bigrams, titles and English aliases."""

from __future__ import annotations

import pytest

from app.search import analysis


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("조사자가", "조사자"),
        ("조사자는", "조사자"),
        ("회피하면", "회피"),
        ("파멸이", "파멸"),
        ("취소하면", "취소"),
        ("공격받은", "공격"),
        ("부착된", "부착"),
        ("장소에서", "장소"),
        ("카드를", "카드"),
        ("단서", "단서"),
        ("교전", "교전"),
    ],
)
def test_particles_and_endings_are_stripped(word: str, stem: str) -> None:
    assert analysis.stem(word) == stem
    assert analysis.variants(word)[0] == word
    assert stem in analysis.variants(word)


@pytest.mark.parametrize("word", ["단서", "교전", "파멸", "행동", "피해", "확인", "무기", "의지",
                                  "가면", "소지", "위기"])
def test_a_one_syllable_ending_never_cuts_a_two_syllable_word(word: str) -> None:
    # 피해 is not 피 + 해, 확인 not 확 + 인, 무기 not 무 + 기, 의지 not 의 + 지.
    assert analysis.variants(word) == (word,)


@pytest.mark.parametrize(("word", "stem"), [("뽑게", "뽑"), ("잃게", "잃"), ("패배하게", "패배"),
                                            ("소진되게", "소진")])
def test_the_ge_ending_may_leave_a_one_syllable_verb_stem(word: str, stem: str) -> None:
    # "한 장 더 뽑게 하는 키워드": no noun of the rules ends in 게, so 뽑게 is 뽑 + 게 (and is
    # not "corrected" to the title word 뽑기). 참고 and 금지 keep their form.
    assert analysis.stem(word) == stem
    assert analysis.variants("참고") == ("참고",) and analysis.variants("금지") == ("금지",)


def test_particles_and_longer_endings_may_leave_one_syllable() -> None:
    assert analysis.variants("적이") == ("적이", "적")
    assert analysis.stem("뽑습니다") == "뽑"
    assert analysis.stem("받으면") == "받"


@pytest.mark.parametrize(("word", "stem"),
                         [("갑니다", "가"), ("줍니다", "주"), ("버립니다", "버리")])
def test_the_b_nida_ending_is_taken_off_the_stems_last_syllable(word: str, stem: str) -> None:
    # -ㅂ니다 is a jamo ending: its ㅂ is the final consonant of the stem's last syllable.
    assert analysis.stem(word) == stem
    assert analysis.stem("뽑습니다") == "뽑"  # 습니다 is not ㅂ니다 after 스


@pytest.mark.parametrize(("word", "stem"), [
    ("세워서", "세우"), ("버려도", "버리"), ("쌓여서", "쌓이"), ("봐야", "보"), ("돼요", "되"),
    ("버렸다", "버리"), ("세웠고", "세우")])
def test_a_merged_a_eo_form_gives_back_the_verbs_stem(word: str, stem: str) -> None:
    # 세우+어 is written 세워: the question's 세워서 and the rules' 세웁니다 meet on 세우.
    assert stem in analysis.variants(word)


@pytest.mark.parametrize(("word", "stem"), [
    ("만났다면", "만나"), ("갔다", "가"), ("섰는데", "서"), ("냈다", "내"), ("버렸다면", "버리")])
def test_the_past_of_a_stem_in_a_eo_ae_e_only_gains_its_ss(word: str, stem: str) -> None:
    # 만나+았 is 만났: the question's 만났다면 and the rules' 만납니다 meet on 만나.
    assert stem in analysis.variants(word)
    # Only in the past, before an ending: 가서 keeps its form.
    assert analysis.variants("가서") == ("가서",)


def test_merged_forms_are_undone_only_before_an_ending() -> None:
    # Nouns end in the same syllables: 고려 is not 고리, 배려 not 배리.
    assert analysis.variants("고려") == ("고려",)
    assert analysis.variants("배려") == ("배려",)
    # The rules' -ㅂ니다 form meets the same stem.
    assert "세우" in analysis.index_words("카드를 세웁니다")


@pytest.mark.parametrize(("word", "stem"), [("피하는게", "피하"), ("쌓이는거", "쌓이")])
def test_spoken_nominal_endings_are_stripped(word: str, stem: str) -> None:
    # 는 게 / 는 거 (것이, 것) written together, as players type them.
    assert stem in analysis.variants(word)


@pytest.mark.parametrize(("word", "stem"), [("뽑아서", "뽑"), ("섞어도", "섞"), ("넣어요", "넣")])
def test_a_eo_endings_after_a_consonant_are_stripped(word: str, stem: str) -> None:
    assert analysis.stem(word) == stem


@pytest.mark.parametrize(("word", "inflected"), [
    ("빠지면", True), ("죽거나", True), ("때렸는데", True), ("틈새공걱하면", True),
    ("클루를", False), ("데미지", False), ("캠페인", False), ("연속으로", False), ("면", False)])
def test_verb_forms_are_told_from_nouns_with_particles(word: str, inflected: bool) -> None:
    assert analysis.is_inflected(word) is inflected


def test_query_and_text_meet_on_the_same_stem() -> None:
    text_forms = set(analysis.index_words("조사자는 적을 회피합니다"))
    assert analysis.stem("조사자가") in text_forms
    assert analysis.stem("회피하면") in text_forms


def test_bigrams_ignore_spacing() -> None:
    assert analysis.bigrams("틈새공격") == analysis.bigrams("틈새 공격") == ["틈새", "새공", "공격"]
    assert set(analysis.bigrams("교전중")) <= set(analysis.index_bigrams("교전 중인 적"))


def test_index_bigrams_include_stems_joined() -> None:
    grams = analysis.index_bigrams("조사자가 공격한다")
    assert "자공" in grams  # 조사자 + 공격, as typed without particle or space


def test_words_normalise_and_split_scripts() -> None:
    assert analysis.words("  Attack　of\u00a0Opportunity! 틈새-공격 12 ") == [
        "attack", "of", "opportunity", "틈새", "공격", "12"]


def test_title_parts() -> None:
    assert analysis.title_parts("(1.1) 틈새 공격") == ["틈새공격"]
    parts = analysis.title_parts("회피, 회피 행동")
    assert "회피" in parts and "회피행동" in parts
    assert "조사자당" in analysis.title_parts("조사자당( 조사자당 )")


@pytest.mark.parametrize(
    ("entry_id", "terms", "key"),
    [
        ("Attack_of_Opportunity", ["attack", "of", "opportunity"], "attackofopportunity"),
        ("Chaos_Tokens", ["chaos", "token"], "chaostoken"),
        ("The_Grim_Rule", ["the", "grim", "rul"], "thegrimrul"),  # rule, rules, ruling
        ("Hand_Size", ["hand", "siz"], "handsiz"),
    ],
)
def test_english_aliases(entry_id: str, terms: list[str], key: str) -> None:
    assert analysis.alias_terms(entry_id) == terms
    assert analysis.alias_key(entry_id) == key
    assert analysis.alias_key(entry_id.replace("_", " ").upper()) == key


def test_non_ascii_ids_have_no_alias() -> None:
    assert analysis.alias_terms("ahr-조사_단계") == []


def test_english_stem() -> None:
    assert analysis.english_stem("Clues") == "clue"
    assert analysis.english_stem("abilities") == "ability"
    assert analysis.english_stem("weakness") == "weakness"
    assert analysis.english_stem("fast") == "fast"


def test_function_words() -> None:
    assert analysis.is_function_word("하면")
    assert analysis.is_function_word("에")
    assert not analysis.is_function_word("공격")


@pytest.mark.parametrize("word", ["어떻게", "되나요", "하나요", "있나요", "몇", "언제", "무엇",
                                  "경우에", "하는지", "있을까요", "할까요", "수도"])
def test_question_and_light_forms_are_function_words(word: str) -> None:
    assert analysis.is_function_word(word)


@pytest.mark.parametrize("word", ["장", "장까지", "몇장", "개", "번", "명"])
def test_counters_are_function_words(word: str) -> None:
    # 몇 장까지, 자원 몇 개, 두 번: a counter names no rule, and 장 is in every card count.
    assert analysis.is_function_word(word)


@pytest.mark.parametrize("word", ["다", "그냥", "혹시", "내", "제가", "같이", "돼요", "해도",
                                  "말고", "거", "게", "중일", "도중에"])
def test_fillers_pronouns_and_merged_light_verbs_are_function_words(word: str) -> None:
    # 탄약 다 쓰면, 그냥 버려도, 내 덱이, 어떻게 돼요: the spoken question's light words.
    assert analysis.is_function_word(word)


@pytest.mark.parametrize(("word", "stem"), [("버려진다", "버리"), ("버려집니다", "버리")])
def test_the_n_da_ending_is_taken_off_the_stems_last_syllable(word: str, stem: str) -> None:
    # -ㄴ다 is a jamo ending like -ㅂ니다 (버려지 + ㄴ다); the passive 버려지 is 버리 + 어 + 지.
    assert stem in analysis.variants(word)
    assert analysis.variants("판다") == ("판다",)  # two syllables: a noun more often than not
    # Only 진 (지다 verbs): Hangul loanwords end in -ㄴ다 too, and are not 어제 + ㄴ다.
    assert analysis.variants("어젠다") == ("어젠다",)


@pytest.mark.parametrize("word", ["장소", "번호", "명칭", "개시", "중요", "중앙"])
def test_words_starting_with_a_counter_are_content_words(word: str) -> None:
    assert not analysis.is_function_word(word)


@pytest.mark.parametrize("word", ["의지", "의지를", "가면", "이동", "도움", "만능", "나무"])
def test_content_words_whose_stem_looks_like_a_particle_are_not(word: str) -> None:
    # 의지 (willpower) once counted as a function word because 의 is a particle.
    assert not analysis.is_function_word(word)


@pytest.mark.parametrize("forms", [
    ("resign", "resigns", "resigned", "resigning"), ("move", "moves", "moved", "moving"),
    ("defeat", "defeated", "defeats"), ("clue", "clues"), ("ability", "abilities"),
])
def test_english_verb_forms_meet_on_one_stem(forms: tuple[str, ...]) -> None:
    assert len({analysis.english_stem(f) for f in forms}) == 1, forms


@pytest.mark.parametrize(("word", "stem"), [
    ("공격당하면", "공격"), ("공격받나요", "공격"), ("따라옴", "따라오"), ("뽑았는데", "뽑"),
    ("뽑으라는게", "뽑"), ("사는법", "사"), ("잡아먹힘", "잡아먹히"),
])
def test_spoken_endings_come_off(word: str, stem: str) -> None:
    assert stem in analysis.variants(word)


def test_is_that_right_and_phone_question_words_are_light() -> None:
    for word in ("맞아요", "맞나요", "어케", "어떡함", "머에요", "does", "the"):
        assert analysis.is_function_word(word), word
    for word in ("when", "after", "if", "공격"):
        assert not analysis.is_function_word(word), word


def test_two_and_both_count_and_name_no_rule() -> None:
    # `반응 카드 두 개가 같은 타이밍이면 둘 다 쓸 수 있나요?`: 두 and 둘 weighed as much as 반응.
    for word in ("두", "둘", "둘이"):
        assert analysis.is_function_word(word), word
    # 세 번 is the three actions of a turn: a rule's number.
    assert not analysis.is_function_word("세")


@pytest.mark.parametrize(("word", "stem"), [
    ("아파요", "아프"), ("먹었어요", "먹"), ("좋아요", "좋"), ("죽었는데", "죽"),
    ("미쳤어", "미치"), ("아파서", "아프"), ("먹어", "먹"), ("미쳐", "미치"), ("어려워요", "어렵"),
    ("몰랐어", "모르"),
])
def test_a_verb_form_gives_its_dictionary_stem_for_the_everyday_words(word: str,
                                                                       stem: str) -> None:
    # #23: 아파요 was "corrected" into 앞에; the everyday words list Kiwi's stems (아프-).
    assert stem in analysis.verb_stems(word)
    assert analysis.listed(word, frozenset({stem + analysis.STEM_MARK}))


@pytest.mark.parametrize(("word", "stem"), [
    ("깔아둬요", "깔"), ("깔아둔", "깔"), ("나눠줘도", "나누"), ("넣어놔도", "넣"),
    ("써봐도", "쓰"), ("붙여놨는데", "붙이"), ("올라가", "오르"), ("꺼내놔도", "꺼내"),
    ("치우는", "치우"), ("어려운데", "어렵"),
])
def test_an_auxiliary_verb_or_adnominal_ending_leaves_the_main_verbs_stem(word: str,
                                                                          stem: str) -> None:
    # `총알 다 쓴 권총도 계속 깔아둬요?` heard 깔아둬 as the English "killed" and put the rule
    # for killed investigators first; 나눠줘도 was heard as an English title too.
    assert stem in analysis.verb_stems(word)
    assert analysis.is_verb_form(word, frozenset({stem + analysis.STEM_MARK}))


@pytest.mark.parametrize(("word", "stem"), [
    ("까는", "깔"), ("드는", "들"), ("만드는", "만들"), ("여는", "열"), ("푸는", "풀"),
    ("드나요", "들"), ("만드나요", "만들"), ("까세요", "깔"), ("까니까", "깔"), ("여네요", "열"),
])
def test_the_l_a_verb_drops_before_neun_comes_back(word: str, stem: str) -> None:
    # 깔다 (to put into play) says 까는 (비용 안 내고 바로 까는 효과): its ㄹ drops before -는
    # (and -나요, -세요, -니까, -네요), and
    # the stem `variants` leaves (까) is another verb. `카드 까는 법` found no rule about
    # putting cards into play.
    assert analysis.dropped_l_stem(word) == stem
    assert stem in analysis.verb_stems(word)
    assert analysis.is_verb_form(word, frozenset({stem + analysis.STEM_MARK}))


@pytest.mark.parametrize(("word", "stem"), [
    ("뽑으려는데", "뽑"), ("후퇴하려는데", "후퇴"), ("막으려면", "막"), ("뽑았더니", "뽑"),
    ("쓰면서", "쓰"), ("교전하면서", "교전"),
    # glued to the clause they open, and a remark's ending
    ("뽑자마자", "뽑"), ("해결하고나서", "해결"), ("이동하기전에", "이동"),
    ("공개하는중에", "공개"), ("버릴때", "버리"), ("뽑을때", "뽑"), ("섞잖아요", "섞"),
    ("뽑지않나요", "뽑"), ("뽑으니까", "뽑"),
])
def test_what_a_player_was_about_to_do_or_did_meanwhile_leaves_the_stem(word: str,
                                                                        stem: str) -> None:
    # -(으)려는데, -(으)려면, -았더니, -(으)면서: a described situation's verbs (`후퇴하려는데
    # 이러면 쓰러진 걸로 치나요` did not reach 후퇴, and found Resign fourth).
    assert stem in analysis.variants(word)


def test_only_a_syllable_with_no_final_before_neun_can_have_lost_its_l() -> None:
    assert analysis.dropped_l_stem("먹는") == ""  # 먹다: the ㄱ stays
    assert analysis.dropped_l_stem("는") == ""
    assert analysis.dropped_l_stem("까고") == ""
    assert analysis.dropped_l_stem("되나요") == ""  # 되다 has no ㄹ to lose
    assert analysis.dropped_l_stem("이동하는") == ""


@pytest.mark.parametrize(("word", "stem"), [
    ("골라도", "고르"), ("빨라도", "빠르"), ("써도", "쓰"), ("까도", "까"), ("불러도", "부르"),
])
def test_the_even_if_ending_leaves_the_stem_though_do_is_a_particle_too(word: str,
                                                                        stem: str) -> None:
    # `-아도/-어도` ("even if", the commonest ending of a question): 빨라도 had no stem and was
    # heard as the English "player".
    assert stem in analysis.verb_stems(word)
    assert analysis.is_verb_form(word, frozenset({stem + analysis.STEM_MARK}))


def test_a_noun_before_do_is_undone_only_where_a_vowel_merged() -> None:
    # 도 after a final consonant is the particle alone (자원도, 행동도): nothing to undo.
    assert analysis.verb_stems("자원도") == ()
    assert not analysis.listed("자원도", frozenset({"자원-", "자우-"}))


def test_a_noun_before_its_particle_is_no_verb_form() -> None:
    # 춰가 (a typo of 추가) is 춰 + 가: 춰 is not undone into 추, the stem of 추다.
    assert "추" not in analysis.verb_stems("춰가")
    assert not analysis.listed("춰가", frozenset({"추-"}))
    # A stem is matched only by a form of it, a noun only as a word.
    assert not analysis.listed("먹", frozenset({"먹-"}))
    assert analysis.listed("가방을", frozenset({"가방"}))
    assert not analysis.listed("가방을", frozenset({"가방-"}))


@pytest.mark.parametrize(("word", "stem"), [("잡기", "잡"), ("줍기", "줍"), ("만들기", "만들")])
def test_the_noun_ending_gi_leaves_the_verbs_stem(word: str, stem: str) -> None:
    # `몹 잡기`, `템 줍기`: a player's "how to"; 잡기 was no form of 잡- and found nothing.
    assert stem in analysis.verb_stems(word)
    assert analysis.listed(word, frozenset({stem + analysis.STEM_MARK}))

"""Korean analysis without a morphological analyzer: words, particle stripping, bigrams, aliases.

The same functions run on the entries (at index time) and on the query, so a consistent
approximation beats a linguistically perfect one on one side only:

* **words** — runs of Hangul, of digits, of Han ideographs or of other letters (any script:
  `scripts.py`) from `normalize_text`;
* **variants** — a Hangul word plus every stem left after removing a known particle or ending
  (`조사자가` → 조사자가, 조사자; `회피하면` → 회피하면, 회피; `공격받은` → 공격받은, 공격받, 공격);
* **bigrams** — Hangul syllable bigrams of the text with spaces removed, so `틈새공격` and
  `틈새 공격` share 틈새, 새공, 공격;
* **English** — Latin words lower-cased with a light plural stem (`clues` → clue), and the
  English rule names hidden in ids (`Attack_of_Opportunity`) as aliases;
* **other scripts** (`scripts.py`) — words of other letters as written and with accents folded
  (`fatalité`, `fatalite`), Cyrillic ones without their case endings; Han words by their
  character bigrams (`han_grams`).

Whoosh only ever sees the tokens produced here, joined by spaces (see `index.py`), so its
pickled schema holds nothing but its own stock tokenizer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Set

from app.corpus.hangul import is_syllable
from app.corpus.normalize import compact, normalize_text
from app.corpus.words import STEM_MARK
from app.search import scripts
from app.search.contract import CONTRACT

__all__ = [
    "STEM_MARK",
    "alias_terms",
    "bigrams",
    "english_stem",
    "han_grams",
    "index_bigrams",
    "index_words",
    "is_count",
    "is_function_word",
    "is_hangul",
    "is_inflected",
    "is_light_as_typed",
    "is_particle",
    "is_verb_form",
    "listed",
    "stem",
    "title_parts",
    "variants",
    "verb_stems",
    "words",
]

# A word: a run of Hangul syllables, of digits, of bare jamo, of Han ideographs, or of any
# other letters (Unicode's: `[^\W\d_]` is a letter, or a digit that is not a decimal digit);
# other Hangul letters are never part of a word (they never were). The browser engine gets
# the same classes in JavaScript's syntax (`_JS_WORD`): `\p{L}\p{Nl}\p{No}` for letters.
_HAN, _HANGUL_LETTERS = scripts.han_class(), scripts.hangul_class()
_OTHER_LETTER = f"[^\\W\\d_{_HANGUL_LETTERS}{_HAN}]"
_WORD = re.compile(rf"[가-힣]+|[0-9]+|[ㄱ-ㅎㅏ-ㅣ]+|[{_HAN}]+|{_OTHER_LETTER}+")
_OTHER_WORD = re.compile(f"{_OTHER_LETTER}+")
_JS_OTHER_LETTER = f"(?:(?![{_HANGUL_LETTERS}{_HAN}])[\\p{{L}}\\p{{Nl}}\\p{{No}}])"
_JS_WORD = f"[가-힣]+|[0-9]+|[ㄱ-ㅎㅏ-ㅣ]+|[{_HAN}]+|{_JS_OTHER_LETTER}+"
#: A word of bare jamo (`ㅌㅅ`): initials being typed, never looked up as a word.
JAMO_RUN = re.compile(r"[ㄱ-ㅎㅏ-ㅣ]+")
# An English name's separators, and its words (`alias_key`).
_ALIAS_SEPARATORS = re.compile(r"[_\-]+")
_ALIAS_WORD = re.compile(r"[a-z]+|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

# Particles (조사) and endings (어미, with the light verbs 하다/되다/받다/시키다) that players
# and the rules attach to nouns. Longer forms first is not required: every match yields a stem.
_PARTICLES = (
    "이", "가", "은", "는", "을", "를", "의", "에", "도", "만", "로", "와", "과", "나", "랑",
    "으로", "에서", "에게", "한테", "까지", "부터", "마다", "처럼", "보다", "조차", "만큼",
    "이나", "이랑", "이며", "이고", "이다", "이면", "이라", "이란", "에는", "에도", "에만",
    "으로는", "으로도", "에서는", "에서도", "에게는", "에게도", "로는", "로도", "로서", "로써",
    "으로서", "으로써", "부터는", "까지는", "이라도", "이라고", "이라는", "이라면", "입니다",
    "에서부터", "으로부터", "로부터", "에게서", "한테서", "들", "들이", "들은", "들을", "들의",
    "들에게", "들과", "들도",
)
_ENDINGS = (
    # 하다
    "하다", "한다", "합니다", "하는", "하면", "하여", "해서", "하고", "했다", "했을", "할", "한",
    "함", "해", "하지", "하기", "하며", "하려면", "하거나", "하도록", "할때", "하는데", "했습니다",
    "해야", "하세요", "합", "했", "할수", "하라", "하라는", "하라고", "하는게", "하는거", "하는건",
    "하게", "하려는데", "하려는", "하려고", "했더니", "하면서", "하자마자", "하고나서", "하기전에",
    "하기전", "하는중에", "하는중", "하네요", "하잖아요", "하지않",
    # 되다
    "되다", "된다", "됩니다", "되는", "되면", "되어", "돼", "된", "될", "됨", "되지", "되기",
    "되었다", "되었을", "되고", "되거나", "되도록", "되며", "되었", "됐", "되게",
    # 받다 (공격받은 적)
    "받다", "받은", "받는", "받을", "받으면", "받아", "받고", "받기", "받습니다", "받지",
    "받나요", "받아요", "받았", "받음", "받는지", "받을까요",
    # 당하다, the passive players say of what is done to them (공격당하면, 취소당했어요)
    "당하다", "당한다", "당합니다", "당하는", "당하면", "당해서", "당하고", "당했다", "당했을",
    "당할", "당한", "당함", "당해", "당하지", "당하기", "당했", "당하나요", "당하는지",
    # 시키다
    "시키다", "시키는", "시킨", "시키면", "시킬", "시켜",
    # generic verbal endings after a stem
    "인", "으면", "면", "는다", "었다", "았다", "었", "았", "고", "며", "거나", "도록", "려면",
    "습니다", "세요", "어야", "아야", "지", "기",
    # -아/-어 forms after a stem ending in a consonant: 뽑아서, 섞어도, 넣어요 (after a vowel the
    # 아/어 merges into the stem's syllable: see _CONTRACTED below)
    "아서", "어서", "아도", "어도", "아요", "어요",
    # -아/-어 있다 and -고 있다 written together, what is on the table (붙어있는데, 남아있어요,
    # 들고있는데; after a vowel: `_AFTER_MERGED`'s 있, 눕혀져있는데 → 눕혀지)
    "어있", "아있", "고있",
    # questions: 되나요, 하나요, 있나요, 할까요, 되는지, 인가요
    "나요", "까요", "가요", "는지", "은지", "던가요", "는가요", "습니까", "니까", "을까요", "을까",
    "나", "을지", "는가", "은가", "죠", "지요", "요", "는데", "은데", "인데",
    # spoken nominal endings (는 게, 는 거 written together): 피하는게, 쌓이는거, 버린건
    "는게", "은게", "는거", "은거", "는건", "은건", "는걸", "은걸",
    # -게 (하게 하다): 뽑게, 받게, 잃게, 패배하게
    "게",
    # "how to", written together: 사는법, 버는법, 하는법
    "는법", "은법",
    # spoken Korean of a described situation (#23): what a card says to do (뽑으라는게, 버리래요,
    # 써있대요), what one had (들고있던), what one wants (하고싶은데)
    "으라는", "으라고", "으라는게", "으라는데", "라는게", "라는데", "으래요", "래요", "대요",
    "는대요", "던", "던데", "고싶", "고싶은데", "고싶어요", "고싶대요", "려고", "으려고",
    "는거에요", "는건가요", "을게요", "는다는데", "다는데",
    # what one was about to do, did just before, or does meanwhile (뽑으려는데, 후퇴하려는데,
    # 막으려면, 뽑았더니, 쓰면서)
    "려는데", "으려는데", "려는", "으려는", "으려면", "더니", "았더니", "었더니", "면서", "으면서",
    # glued to the clause they open (뽑자마자, 해결하고나서, 뽑기전에, 이동하는중에) and a spoken
    # remark's ending (뽑네요, 섞잖아요, 뽑지않나요, 뽑으니까)
    "자마자", "고나서", "기전에", "기전", "는중에", "는중", "네요", "잖아요", "잖아", "지않",
    "으니까", "을때",
    # a verb as a dictionary writes it, as players name what happened (맞다, 죽다, 버리다)
    "다",
)
# One-syllable endings that may leave a one-syllable stem (뽑게 → 뽑, 뽑았 → 뽑, 맞다 → 맞): no
# noun of the rules ends in them (무게, 가게 and 바다 are not rules words), unlike 고 (참고), 기
# (무기) or 지 (금지).
_SHORT_STEM_ENDINGS = frozenset({"게", "았", "었", "다"})
# Endings that are none after a syllable with this final consonant (index into
# hangul.JONGSEONG): the dictionary form's 다 after ㄴ is the -ㄴ다 of `_JAMO_ENDINGS`, or the
# end of a noun or loanword (판다, 어젠다, 프로파간다), never 판 + 다.
_ENDING_NOT_AFTER_FINAL = {"다": 4}
_PARTICLE_SET = frozenset(_PARTICLES)
# Endings that make a word a verb form, never a noun with a particle: two syllables or more
# (-는데, -거나, -으면, -하면), and -면. What `is_inflected` looks for.
_VERB_ENDINGS = tuple(sorted((s for s in dict.fromkeys(_ENDINGS)
                              if s not in _PARTICLE_SET and (len(s) >= 2 or s == "면")),
                             key=len, reverse=True))
# Longest first, then in the lists' order: a set here made the order of equal-length suffixes,
# and so the order of `variants`, depend on the process's string hash seed.
_SUFFIXES = tuple(sorted(dict.fromkeys(_PARTICLES + _ENDINGS), key=len, reverse=True))
_SUFFIX_SET = frozenset(_SUFFIXES)
_BY_LAST: dict[str, tuple[str, ...]] = {}
for _suffix in _SUFFIXES:
    _BY_LAST[_suffix[-1]] = (*_BY_LAST.get(_suffix[-1], ()), _suffix)
# `-ㅂ니다` and `-ㄴ다` are not syllable suffixes: their ㅂ and ㄴ are the final consonant of the
# stem's last syllable (갑니다 = 가 + ㅂ니다, 버려진다 = 버려지 + ㄴ다), and so is the ㅁ of the
# noun form players end a short question or remark with (따라옴, 잡아먹힘, 빗나감: 따라오 +
# ㅁ; in words of `jamo_ending_min` syllables or more only). Handled in `variants` by
# arithmetic: (syllables after the jamo, index of the jamo among the final consonants,
# hangul.JONGSEONG, the syllables that may carry it, or "" for any). 습니다 is its own ending
# (뽑습니다), never 스 + ㅂ니다. -ㄴ다 only on 진 (지다: 버려진다, 떨어진다): Hangul loanwords end
# in -ㄴ다 too (어젠다, 프로파간다), and a notice quoting ‘어제’ for 어젠다 is wrong.
# -ㄹ 때 written together (버릴때, 쓰러질때: 버리 + ㄹ때; after a consonant -을때 is a syllable
# ending of its own).
_B_FINAL = 17
_M_FINAL = 16
_JAMO_ENDINGS = (("니다", _B_FINAL, ""), ("다", 4, "진"), ("", _M_FINAL, ""), ("때", 8, ""))
# -아/-어 merged into a stem's last vowel: 세우+어 = 세워, 버리+어 = 버려, 보+아 = 봐, 되+어 = 돼,
# also in the past (세웠다, 버렸고). Players' questions use these forms (세워서, 버려도), the rules
# mostly -ㅂ니다 (세웁니다, 버립니다), so the stem is restored on both sides: vowel of the merged
# syllable → vowel of the stem (indices into hangul.JUNGSEONG: ㅝ→ㅜ, ㅕ→ㅣ, ㅘ→ㅗ, ㅙ→ㅚ).
# Only after one of _AFTER_MERGED (or ㅆ + _AFTER_PAST), never on a bare word: nouns end in these
# syllables too (고려, 배려, 교과), and a bare 세워 is rare in questions.
_CONTRACTED = {14: 13, 6: 20, 9: 8, 10: 11}
_AFTER_MERGED = ("서", "도", "야", "요", "서는", "서도", "야만", "야지", "야하", "도록", "지", "있")
_AFTER_PAST = ("다", "고", "는데", "으면", "을", "을때", "습니다", "어요", "지만", "던", "다면")
_SS_FINAL = 20  # index of ㅆ among the final consonants
# -아도/-어도 ("even if": 골라도, 써도, 까도, the commonest ending of a question) is the particle
# 도 too (카드도), which `variants` strips as a noun's: `verb_stems` keeps the syllable before it
# only when it has no final consonant, where the -아/-어 merged into it.
_MERGED_BEFORE_PARTICLE = ("도",)
# The light verbs 하다 and 되다 make a verb of the word before them (피하다, 공격되다): their
# forms begin with these syllables, less any final consonant (할까, 했는데, 됐어요, 돼요).
_LIGHT_VERB_SYLLABLES = ("하", "해", "되", "돼")
# -기 makes a noun of a verb (잡기, 줍기, 만들기: "how to" in a player's words, 몹 잡기): the
# stem is the syllables before it.
_NOMINAL_ENDINGS = ("기",)
# Merged syllables undone bare, with nothing after them (쓰러져 누워 있는 → 쓰러지): 져 (지+어)
# ends no noun, unlike 려 (고려, 배려) or 워 (타워).
_BARE_MERGED = {"져": "지"}
# What `verb_stems` undoes besides the index's stripping (never in `variants`, so the index is
# unchanged): the spoken ending -어/-아 (먹어, 좋아, 미쳤어); a stem in ㅡ, whose ㅡ the -아/-어
# replaces (아프+아요 = 아파요, 기쁘+어 = 기뻐: vowels ㅏ, ㅓ back to ㅡ); the ㅂ that became 우
# (어렵+어 = 어려워 → 어려우 → 어렵); 르 whose ㄹ moved to the syllable before (모르+아 = 몰라).
_SPOKEN_ENDINGS = ("어", "아")
_EU_VOWELS = (0, 4)
_EU = 18  # index of ㅡ among the vowels
_L_FINAL = 8  # index of ㄹ among the final consonants
_NO_INITIAL = 11  # index of ㅇ among the initial consonants
_REU = ("라", "러")
# The noun form a short remark ends with, undone by `verb_stems` in words of any length
# (`variants` reads the ㅁ only in longer words, `Stems.jamo_ending_min`): the ㅁ in a
# vowel-final stem's last syllable (때림 → 때리, 버림 → 버리) and -음 after a consonant-final
# one (붙음 → 붙, 맞음 → 맞).
_NOUN_FORM = "음"
# ㄴ and ㄹ: the finals of the adnominal endings (빠져나간, 깔린, 할) (`adnominal_stem`).
_ADNOMINAL_FINALS = (4, 8)
# The adnominal ending that is a syllable of its own after a vowel (치우는, 버리는): no verb stem
# ends in 느, so the whole syllable comes off (`adnominal_stem`). Not -은 and -을 (먹은, 먹을):
# after a final consonant they are a noun's particles as often (가방을).
_ADNOMINAL_SYLLABLES = ("는",)
# Endings before which a verb stem's final ㄹ drops (깔다: 까는, 까나요, 까니까, 까세요, 까네요),
# longest first: `dropped_l_stem` puts it back.
_L_DROPPING = ("니까", "나요", "세요", "네요", "는")
# What follows an adnominal form in one word, as a spoken clause ending (어려운데 = 어려운 +
# 데, 없는지): undone by `verb_stems` to the adnominal form, then to its stem.
_AFTER_ADNOMINAL_CLAUSE = ("데", "지")
# Auxiliary verbs after the -아/-어 of the main verb, written together (깔아둬요: 깔 + 아 + 두,
# 나눠줘도: 나누 + 어 + 주, 넣어놔도: 넣 + 어 + 놓, whose 놔 is undone to 노, 올라가: 오르 + 아 +
# 가): `verb_stems` takes the auxiliary off, so the main verb is matched (`listed`).
_AUXILIARIES = ("두", "놓", "노", "주", "보", "버리", "있", "내", "가", "오", "대", "드리")
# The -아/-어 (and 하다's -여) that links a main verb to its auxiliary when it stays a syllable
# of its own (깔아, 넣어, 하여); otherwise it is merged into the stem's last syllable (나눠).
_AUXILIARY_LINKS = ("아", "어", "여")
# Light nouns a verb's adnominal form takes, written together (살 때 → 살때, 보는 것 → 보는것):
# the word is the verb's (`is_inflected`).
_AFTER_ADNOMINAL = ("때", "것", "거", "게", "건", "걸")
# In the past, a stem ending in ㅏ, ㅓ, ㅐ or ㅔ keeps its vowel and only gains the ㅆ: 만나+았 =
# 만났, 서+었 = 섰, 내+었 = 냈 (만났다면 → 만나). ㅆ ends no noun, so only the past is undone so.
_PAST_SAME_VOWEL = frozenset({0, 4, 1, 5})
# (suffix, final consonant the merged syllable must have) by the suffix's last character, in
# the lists' order: `variants` runs on every word of every query and text.
_MERGED_BY_LAST: dict[str, tuple[tuple[str, int], ...]] = {}
for _suffix, _final in [(s, 0) for s in _AFTER_MERGED] + [(s, _SS_FINAL) for s in _AFTER_PAST]:
    _MERGED_BY_LAST[_suffix[-1]] = (*_MERGED_BY_LAST.get(_suffix[-1], ()), (_suffix, _final))

_STEMS = CONTRACT.stems
_SCRIPTS = CONTRACT.scripts
_PLURALS = tuple((least, re.compile(pattern), added)
                 for least, pattern, added in _STEMS.english_suffixes)
# What `title_parts` drops and splits at: numbering (`(1.1)`, `3단계.`), appendix and roman
# numbering, bracketed asides, and the separators between a title's alternatives.
_NUMBERING = re.compile(r"^\(?\d+(?:\.\d+)*\)?\s*(?:단계)?\s*[.:]?\s*")
_APPENDIX = re.compile(r"^(?:부록\s*\d+[.:]|[ivx]+\.)\s*")
_ASIDE = re.compile(r"\([^)]*\)")
_ALTERNATIVES = re.compile(r"[,/()]|\bvs\b|과\s|와\s|및|또는")

#: Light words a question or sentence is made of: they weigh little against content words.
#: Interrogatives, light verbs and nouns with no rule meaning of their own.
_LIGHT = frozenset({
    "하", "되", "것", "수", "등", "및", "또는", "그", "이", "저", "있", "없", "있다", "없다",
    "어떻게", "어떤", "어느", "무엇", "무엇인가요", "뭔가요", "뭐", "뭔가", "몇", "언제", "어디",
    "왜", "누가", "누구", "얼마나", "가능", "가능한가요", "경우", "때", "궁금합니다", "질문",
    "해도", "돼도", "되나", "하나", "있나", "없나", "인가", "건가", "건가요", "거죠", "건지",
    "어떻", "뭘", "해야", "하나요", "되나요", "있나요", "없나요", "할까요", "될까요",
    # "Is that right?" at a question's end (뽑는 게 맞아요?): not 맞다, to be hit.
    "맞아요", "맞나요", "맞죠", "맞음", "맞는지", "맞는거", "맞는건가요", "맞습니까", "맞아",
    # A question as typed on a phone (어케 돼요, 어떡함, 머에요, 뭐임): the same question words.
    "어케", "어캐", "어떡", "어떡함", "어떡해", "어떡해요", "어떡하죠", "어떡하나요", "어케됨",
    "어케돼", "어케해", "머", "머에요", "머예요", "뭐에요", "뭐예요", "뭐임", "뭔데", "뭐죠",
    "됨", "됌", "함", "임", "인가요", "건데", "거에요", "거예요", "나요",
    # English forum questions' function words (can I move while engaged, does resigning count
    # as …); not the words the rules name entries by (when, after, if, then, may, must).
    "a", "an", "the", "is", "are", "was", "were", "be", "being", "been", "do", "does", "did",
    "can", "could", "will", "would", "should", "i", "me", "my", "you", "your", "we", "our",
    "it", "its", "they", "their", "this", "that", "these", "those", "there", "what", "which",
    "who", "how", "why", "where", "to", "of", "in", "on", "at", "for", "with", "by", "from",
    "into", "and", "or", "but", "so", "still", "get", "got", "happen", "happens", "much", "many",
    # Fillers and pronouns of a spoken question (다 쓰면, 그냥 버려도, 내 덱이, 혹시 …).
    "다", "또", "그냥", "좀", "꼭", "막", "이제", "혹시", "만약", "만약에", "그럼", "그러면",
    "근데", "그런데", "아니면", "내", "제", "저희", "우리", "같이",
    # 하다/되다 in their merged forms, which take endings of their own (돼요, 해도, 됐는데).
    "돼", "해", "됐", "했",
    # weighing options: 싸우지 말고 피하는게 나음?
    "말고", "나음", "좋음",
    # 것 as spoken, apart: 하는 게, 쌓이는 거
    "거", "게", "건", "걸",
    # "in the middle of": 교전 중일 때, 테스트 도중에 (the noun before it carries the meaning)
    # (not a bare 중: 중요 would then be 중 + 요)
    "중일", "중인", "중에", "중이", "도중",
    # Counters: after 몇 or a number they count, they do not name a rule (몇 장까지, 두 번,
    # 자원 몇 개); alone in a query they are never a rules term either.
    "장", "개", "번", "명", "몇장", "몇개", "몇번", "몇명", "몇마리",
    # Two and both apart from a counter (두 개, 둘 다, 우리 둘이): how many, not which rule. Not
    # 세 (세 번 연속으로: the three actions of a turn are a rule's number; measured: 2 down).
    "두", "둘",
    # "the way to" (버는 법, 사는 방법): the verb before it says what is asked.
    "법", "방법",
    # 것 + 이다 as spoken (쓰는 거임?, 그런 거야): not 게임
    "거임", "거야", "거냐", "거고",
})
#: A native numeral and a counter written together (한장, 두번, 세개): a count, searched as
#: typed (the texts say 두 번, and the re-rank reads them without spaces) but never a typo
#: (한장 is not 한정). `is_count`.
_COUNTS = frozenset(numeral + counter
                    for numeral in ("한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉",
                                    "열")
                    for counter in ("장", "개", "번", "명", "마리"))
_FUNCTION = frozenset(_SUFFIXES) | _LIGHT


def is_light_as_typed(word: str) -> bool:
    """True for a word listed as light itself (`막`, `맞아요`, `나음`), not only by a light stem
    and an ending (`막을` is 막 + 을, but also 막다, to block)."""
    return word in _FUNCTION


def is_function_word(word: str) -> bool:
    """True for a word that is only a particle, an ending, a light verb or a question word
    (`하면`, `에`, `되나요`, `어떻게`): not a content word. A content word whose stem merely
    looks like a particle (의지 → 의, 가면 → 가) is not one."""
    if word in _FUNCTION:
        return True
    # A light word with a particle or ending on it (`경우에`, `있을까요`, `하는지`).
    return is_hangul(word) and any(
        word[:i] in _LIGHT and word[i:] in _SUFFIX_SET for i in range(1, len(word)))


def is_count(word: str) -> bool:
    """True for a native numeral and a counter written together, perhaps with a particle
    (`한장도`, `두번`): a count, never a misspelt rules term."""
    return any(f in _COUNTS for f in variants(word))


def is_particle(text: str) -> bool:
    """True when `text` is one of the particles (조사) the analysis strips."""
    return text in _PARTICLE_SET


def is_inflected(word: str) -> bool:
    """True for a Hangul word that ends in a verb ending (`빠지면`, `죽거나`, `때렸는데`) after at
    least one syllable, or in a light noun after an adnominal form (`살때`, `쓸때`, `보는것`:
    `_AFTER_ADNOMINAL`): a verb form, which is neither a misspelt rules term nor a loanword."""
    return is_hangul(word) and (
        any(len(word) > len(e) and word.endswith(e) for e in _VERB_ENDINGS)
        # With a particle too (살때도, 보는것도).
        or any(len(form) > len(n) and form.endswith(n)
               and (ord(form[-len(n) - 1]) - 0xAC00) % 28 in _ADNOMINAL_FINALS
               for form in variants(word) for n in _AFTER_ADNOMINAL))


_SYLLABLES = re.compile("[가-힣]+")


def is_hangul(word: str) -> bool:
    """True when `word` is made of precomposed syllables only (a regex: it is asked of every
    term of the index at start-up)."""
    return _SYLLABLES.fullmatch(word) is not None


def words(text: str) -> list[str]:
    """The words of `text` after normalisation: Hangul, Latin, digit or bare-jamo runs."""
    return _WORD.findall(normalize_text(text))


# Memoised, bounded: the reranker stems every English word of the corpus at start-up (52,000
# words, 5,000 distinct), and a bound keeps typed words from filling memory.
@functools.lru_cache(maxsize=8192)
def english_stem(word: str) -> str:
    """A light English stem: lower-cased, regular plurals removed (`clues` → clue), by the
    contract's `stems.english_suffixes`, applied until none matches."""
    word = word.lower()
    changed = True
    while changed:
        changed = False
        for least, pattern, added in _PLURALS:
            found = pattern.match(word) if len(word) >= least else None
            if found is not None:
                word, changed = found.group(1) + added, True
                break
    return word


# Not memoised: a cache keyed by what players type is memory an attacker fills (65,536 random
# words took 26 MiB), and it saved 4 % of an index build and nothing measurable per query.
def variants(word: str) -> tuple[str, ...]:
    """The word and the stems left after stripping one known particle or ending.

    `stems.passes` passes cover a particle after an ending (`부착된` → 부착; `공격받은` → 공격).
    The word itself always comes first. A particle may leave a one-syllable noun (`적이` →
    적), and so may an ending of two syllables or more (`뽑습니다` → 뽑); a one-syllable
    ending needs a longer stem, so nouns whose last syllable looks like an ending keep their
    form (피해, 확인, 무기, 의지 are not 피, 확, 무, 의).
    """
    if not is_hangul(word):
        if word.isascii():
            return (english_stem(word),) if word.isalpha() else (word,)
        if not _OTHER_WORD.fullmatch(word):
            return (word,)  # bare jamo; a Han word (searched by its `han_grams`)
        # As written first (it matches its own form and the folded one: it ranks first).
        return tuple(unique(scripts.light_stem(english_stem(form))
                            for form in scripts.letter_forms(word)))
    found = [word]
    frontier = [word]
    for _ in range(_STEMS.passes):
        nxt: list[str] = []
        for form in frontier:
            for base in _stripped(form):
                if base not in found:
                    found.append(base)
                    nxt.append(base)
        frontier = nxt
    return tuple(found)


def adnominal_stem(word: str) -> str:
    """The verb stem of an adnominal form (`빠져나간` → 빠져나가, `깔린` → 깔리): the last
    syllable without its final ㄴ or ㄹ, for matching a word against a short list of verbs
    (the synonyms files' related words); "" when the word is no such form (or too short)."""
    if len(word) < _STEMS.short_ending_stem or not is_hangul(word):
        return ""
    if word[-1] in _ADNOMINAL_SYLLABLES:
        return word[:-1]
    code = ord(word[-1]) - 0xAC00
    if code % 28 not in _ADNOMINAL_FINALS:
        return ""
    return word[:-1] + chr(0xAC00 + code - code % 28)


def dropped_l_stem(word: str) -> str:
    """The stem of a ㄹ verb whose ㄹ an ending dropped (`_L_DROPPING`: 까는 → 깔, 만드는 →
    만들, 드나요 → 들, 여세요 → 열): the syllable before the ending with ㄹ as its final; ""
    when `word` can be no such form."""
    for ending in _L_DROPPING:
        cut = len(word) - len(ending)
        if cut >= 1 and word.endswith(ending) and is_syllable(word[cut - 1]):
            # 하다 and 되다 have no ㄹ to lose (하나요, 되나요).
            if (ord(word[cut - 1]) - 0xAC00) % 28 or word[cut - 1] in _LIGHT_VERB_SYLLABLES:
                return ""
            return word[: cut - 1] + chr(ord(word[cut - 1]) + _L_FINAL)
    return ""


def loose_stems(word: str) -> list[str]:
    """Every stem left by removing one known suffix, however short, or the noun form -ㅁ/-음
    (`때림` → 때리): for matching a word against a short list of known terms (`탭된` → 탭),
    where a wrong cut finds nothing."""
    cut = [word[: -len(s)] for s in _BY_LAST.get(word[-1:], ())
           if len(word) > len(s) and word.endswith(s)]
    if len(word) > 1 and is_hangul(word):
        cut += [f for f in _noun_form_stems(word) if f not in cut]
    return cut


def _stripped(form: str) -> Iterator[str]:
    """Each stem left after removing one known suffix from `form`."""
    for suffix in _BY_LAST.get(form[-1], ()):
        if len(form) > len(suffix) and form.endswith(suffix):
            base = form[: -len(suffix)]
            not_after = _ENDING_NOT_AFTER_FINAL.get(suffix)
            if (not_after is not None and is_syllable(base[-1])
                    and (ord(base[-1]) - 0xAC00) % 28 == not_after):
                continue
            # A one-syllable ending (해, 인, 기, 지, 면) on a two-syllable word is most often
            # the noun's own last syllable; a longer one (습니다, 으면) is an ending.
            if (len(base) >= _STEMS.short_ending_stem or len(suffix) > 1
                    or suffix in _PARTICLE_SET or suffix in _SHORT_STEM_ENDINGS):
                yield base
    # 갑니다, 놓입니다, 버려진다: the ㅂ of -ㅂ니다 and the ㄴ of -ㄴ다 sit in the last syllable.
    for tail, final, only in _JAMO_ENDINGS:
        at = len(form) - len(tail) - 1
        if (at >= 0 and form.endswith(tail) and form[at] != _STEMS.jamo_ending_not_after
                and is_syllable(form[at]) and (not only or form[at] in only)):
            code = ord(form[at]) - 0xAC00
            if code % 28 == final and len(form) >= _STEMS.jamo_ending_min:
                yield form[:at] + chr(0xAC00 + code - final)
    yield from _unmerged(form)
    merged = _BARE_MERGED.get(form[-1])
    if merged is not None and len(form) > 1:
        yield form[:-1] + merged


def _unmerged(form: str) -> Iterator[str]:
    """The stem of a merged -아/-어 form (`세워서` → 세우, `버렸다` → 버리), if `form` is one."""
    for suffix, final in _MERGED_BY_LAST.get(form[-1:], ()):
        yield from _restore(form, suffix, final)


def _restore(form: str, suffix: str, final: int) -> Iterator[str]:
    if len(form) <= len(suffix) or not form.endswith(suffix):
        return
    merged = form[-len(suffix) - 1]
    if not is_syllable(merged):
        return
    code = ord(merged) - 0xAC00
    vowel, has = (code % 588) // 28, code % 28
    to = _CONTRACTED.get(vowel)
    if to is None and final == _SS_FINAL and vowel in _PAST_SAME_VOWEL:
        to = vowel
    if has != final or to is None:
        return
    syllable = chr(0xAC00 + code - code % 588 + to * 28)
    yield form[: -len(suffix) - 1] + syllable


@functools.lru_cache(maxsize=4096)
def verb_stems(word: str) -> tuple[str, ...]:
    """The stems a Hangul verb or adjective form may have, for telling a real word from a typo
    (`listed`): the stems `variants` strips to, except a noun before its particle (가방을 →
    가방) and what is undone from it, and what the spoken -어/-아 and the irregular stems hide
    (미쳤어 → 미치, 아파요 → 아프, 어려워요 → 어렵, 몰라 → 모르). Never for indexing: a wrong
    stem here only matters if it is a listed verb's."""
    if not is_hangul(word) or len(word) <= 1:
        return ()
    # Not a noun before its particle (춰가 → 춰 would be undone into 추, a verb's stem).
    pool = [f for f in variants(word)
            if not (f != word and word.startswith(f) and is_particle(word[len(f):]))]
    if word[-1] in _SPOKEN_ENDINGS:
        pool += [f for f in variants(word[:-1]) if f not in pool]
    # The merged syllable before -서, -요, -었다 …, bare (아파서 → 아파), for `_irregular`.
    pool += [word[: -len(s)] for s in (*_AFTER_MERGED, *_AFTER_PAST)
             if len(word) > len(s) and word.endswith(s) and not is_particle(s)
             and word[: -len(s)] not in pool]
    pool += [word[: -len(s)] for s in _MERGED_BEFORE_PARTICLE
             if len(word) > len(s) and word.endswith(s) and is_syllable(word[-len(s) - 1])
             and not (ord(word[-len(s) - 1]) - 0xAC00) % 28 and word[: -len(s)] not in pool]
    pool += [word[: -len(s)] for s in _NOMINAL_ENDINGS
             if len(word) > len(s) and word.endswith(s) and word[: -len(s)] not in pool]
    pool += [f for f in _noun_form_stems(word) if f not in pool]
    # An adnominal form (깔아둔 → 깔아두), also before a clause ending (어려운데 → 어려우).
    adnominal = (adnominal_stem(word[:-1]) if word[-1] in _AFTER_ADNOMINAL_CLAUSE
                 and len(word) > _STEMS.short_ending_stem else "")
    for form in (adnominal_stem(word), adnominal, dropped_l_stem(word)):
        if form and form not in pool:
            pool.append(form)
    for form in pool:  # grows while it is read: each new stem is undone further
        for found in (*_restore(form, "", 0), *_restore(form, "", _SS_FINAL), *_irregular(form),
                      *_main_verb(form)):
            if found not in pool:
                pool.append(found)
    return tuple(f for f in pool if f != word)


def _main_verb(form: str) -> Iterator[str]:
    """The main verb's form before an auxiliary verb (`_AUXILIARIES`): 깔아두 → 깔, 나눠주 → 나눠
    (then undone to 나누 by `verb_stems`)."""
    for auxiliary in _AUXILIARIES:
        if len(form) <= len(auxiliary) or not form.endswith(auxiliary):
            continue
        before = form[: -len(auxiliary)]
        if len(before) > 1:
            # 붙여 is 붙이 + 어 merged (undone by `verb_stems`), or 붙 + 여 linked.
            if before[-1] in _AUXILIARY_LINKS:
                yield before[:-1]
            yield before
        elif not is_particle(auxiliary):
            # One merged syllable (써보 → 써 → 쓰), never before a particle (춰가 is 추가
            # misspelt, not 추 + 어 + 가).
            yield from (*_restore(before, "", 0), *_irregular(before))


def _noun_form_stems(word: str) -> Iterator[str]:
    """The stem of the noun form -ㅁ/-음 (때림 → 때리, 붙음 → 붙), if `word` may be one."""
    last = ord(word[-1]) - 0xAC00
    if last % 28 == _M_FINAL and word[-1] != _NOUN_FORM:
        yield word[:-1] + chr(0xAC00 + last - _M_FINAL)
    elif word[-1] == _NOUN_FORM and (ord(word[-2]) - 0xAC00) % 28:
        yield word[:-1]


def is_verb_form(word: str, everyday: Set[str]) -> bool:
    """True for a form of a listed verb's or adjective's stem (`Corpus.words`: 때리-) that is
    no listed word itself (때림, 붙음, 먹었어요, the adnominal 바꾼; not 파기): a verb, never a
    loanword."""
    return (bool(everyday) and is_hangul(word)
            and not any(f in everyday for f in variants(word))
            and any(f + STEM_MARK in everyday for f in verb_stems(word)))


def _irregular(form: str) -> Iterator[str]:
    """The regular stem behind `form`'s last syllable, for the ㅡ, ㅂ and 르 stems."""
    last = form[-1]
    if not is_syllable(last):
        return
    code = ord(last) - 0xAC00
    vowel, final = (code % 588) // 28, code % 28
    # Not after no consonant: 먹어, 좋아 are -어/-아 after the stem, not 먹으 + 어.
    if vowel in _EU_VOWELS and final in (0, _SS_FINAL) and code // 588 != _NO_INITIAL:
        yield form[:-1] + chr(0xAC00 + code - code % 588 + _EU * 28)
    if len(form) >= 2 and is_syllable(form[-2]):
        before = ord(form[-2]) - 0xAC00
        if last == "우" and before % 28 == 0:
            yield form[:-2] + chr(0xAC00 + before + _B_FINAL)
        if last in _REU and before % 28 == _L_FINAL:
            yield form[:-2] + chr(0xAC00 + before - _L_FINAL) + "르"


def makes_a_verb(rest: str) -> bool:
    """Whether `rest` begins as a form of the light verbs 하다 or 되다 does (할까, 했는데, 돼요):
    joined to the word before it, the two are one verb (피할까 is 피하다's, not 피's)."""
    if not rest or not is_syllable(rest[0]):
        return False
    code = ord(rest[0]) - 0xAC00
    return chr(0xAC00 + code - code % 28) in _LIGHT_VERB_SYLLABLES


def listed(word: str, everyday: Set[str]) -> bool:
    """Whether `word` is a real word of `everyday` (`Corpus.words`): as typed, without its
    particle or ending, or a form of a listed verb's or adjective's stem (`먹-`: 먹었어요)."""
    if not everyday or not is_hangul(word):
        return False
    return (any(f in everyday for f in variants(word))
            or any(f + STEM_MARK in everyday for f in verb_stems(word)))


def stem(word: str) -> str:
    """The shortest variant: the word with its particles and endings removed."""
    return min(variants(word), key=len)


def bigrams(text: str) -> list[str]:
    """Hangul syllable bigrams of `text` with everything but syllables removed."""
    syllables = "".join(c for c in text if is_syllable(c))
    return [syllables[i : i + 2] for i in range(len(syllables) - 1)]


def han_grams(word: str) -> list[str]:
    """A Han word's character bigrams (`contract.scripts.han_gram`), the tokens it is indexed
    and searched by; [] for a word of any other script."""
    return scripts.grams(word, _SCRIPTS.han_gram) if scripts.is_han(word) else []


def index_words(text: str) -> list[str]:
    """The word tokens stored for `text`: every variant of every word, a Han word's grams."""
    out: list[str] = []
    for word in words(text):
        out.extend(han_grams(word) or variants(word))
    return out


def index_bigrams(text: str) -> list[str]:
    """The bigram tokens stored for `text`: space-insensitive, over the raw text and stems.

    Bigrams of the stems joined together let `조사자공격` (no particle, no space) find
    `조사자가 공격한다`.
    """
    hangul = [w for w in words(text) if is_hangul(w)]
    raw = bigrams("".join(hangul))
    stems = bigrams("".join(stem(w) for w in hangul))
    seen = set(raw)
    return raw + [b for b in stems if b not in seen]


def title_parts(title: str) -> list[str]:
    """The compact forms a title answers to: the whole title and its alternatives.

    `(1.1) 틈새 공격` → 틈새공격; `회피, 회피 행동` → 회피,회피행동 / 회피 / 회피행동;
    `조사자당( 조사자당 )` → 조사자당. Numbering and bracketed asides are dropped.
    """
    text = normalize_text(title)
    text = _NUMBERING.sub("", text)
    text = _APPENDIX.sub("", text)
    parts = [text, _ASIDE.sub(" ", text)]
    for piece in _ALTERNATIVES.split(parts[1]):
        parts.append(piece)
    out: list[str] = []
    for part in parts:
        key = "".join(_WORD.findall(part))
        if key and key not in out:
            out.append(key)
    # A title in another script answers to its plain spelling too (`Élimination`).
    for key in [k for k in out if not scripts.unfolded(k)]:
        for form in scripts.letter_forms(key):
            if form not in out:
                out.append(form)
    return out


def alias_terms(name: str) -> list[str]:
    """English words of an English name: `Attack of Opportunity` → attack, of, opportunity."""
    if not name.isascii():
        return []
    out: list[str] = []
    for chunk in re.split(r"[_\-\s]+", name):
        out.extend(english_stem(w) for w in _CAMEL.findall(chunk) if w)
    return out


def alias_key(text: str) -> str:
    """The case-, space- and underscore-insensitive form of an English name."""
    return "".join(english_stem(w) for w in _ALIAS_WORD.findall(compact_ascii(text)))


def compact_ascii(text: str) -> str:
    """Lower-case text with underscores and hyphens read as spaces."""
    return normalize_text(_ALIAS_SEPARATORS.sub(" ", text))


def unique(items: Iterable[str]) -> Iterator[str]:
    """`items` without repeats, first occurrence kept."""
    seen: set[str] = set()
    for item in items:
        if item not in seen:
            seen.add(item)
            yield item


def compact_title(title: str) -> str:
    """The whole title without spaces or punctuation."""
    return "".join(_WORD.findall(compact(title)))


def client_tables(*, unicode_tables: bool = True) -> dict[str, object]:
    """The analysis rules as data, for the browser engine (`app/search/client_index.py`,
    `static/engine.js`): the lists and patterns live here only, and the engine reads them.

    Patterns are given as their source text; each is written in the common subset of Python
    and JavaScript regular expressions, except the word patterns, given in JavaScript's syntax
    for the same Unicode classes (`\\p{L}`: Python's `re` has no property escapes). Without
    `unicode_tables`, the tables derived from this Python's Unicode data alone are left out
    (the case folding table: ~0.2 s to make; the analysis version hashes the Unicode version).
    """
    return {
        "particles": list(_PARTICLES),
        "short_stem_endings": sorted(_SHORT_STEM_ENDINGS),
        "ending_not_after_final": dict(_ENDING_NOT_AFTER_FINAL),
        "verb_endings": list(_VERB_ENDINGS),
        "suffixes": list(_SUFFIXES),
        "light": sorted(_LIGHT),
        "counts": sorted(_COUNTS),
        "jamo_endings": [list(rule) for rule in _JAMO_ENDINGS],
        "contracted": {str(k): v for k, v in _CONTRACTED.items()},
        "after_merged": list(_AFTER_MERGED),
        "after_past": list(_AFTER_PAST),
        "ss_final": _SS_FINAL,
        "bare_merged": dict(_BARE_MERGED),
        "past_same_vowel": sorted(_PAST_SAME_VOWEL),
        "adnominal_finals": list(_ADNOMINAL_FINALS),
        "adnominal_syllables": list(_ADNOMINAL_SYLLABLES),
        "l_dropping": list(_L_DROPPING),
        "after_adnominal_clause": list(_AFTER_ADNOMINAL_CLAUSE),
        "merged_before_particle": list(_MERGED_BEFORE_PARTICLE),
        "nominal_endings": list(_NOMINAL_ENDINGS),
        "light_verb_syllables": list(_LIGHT_VERB_SYLLABLES),
        "auxiliaries": list(_AUXILIARIES),
        "auxiliary_links": list(_AUXILIARY_LINKS),
        "after_adnominal": list(_AFTER_ADNOMINAL),
        "spoken_endings": list(_SPOKEN_ENDINGS),
        "eu_vowels": list(_EU_VOWELS),
        "eu": _EU,
        "b_final": _B_FINAL,
        "l_final": _L_FINAL,
        "no_initial": _NO_INITIAL,
        "reu": list(_REU),
        "noun_form": _NOUN_FORM,
        "m_final": _M_FINAL,
        "stem_mark": STEM_MARK,
        "word": _JS_WORD,
        "other_word": f"^{_JS_OTHER_LETTER}+$",
        "han_word": f"^[{_HAN}]+$",
        **scripts.client_tables(unicode_tables=unicode_tables),
        "jamo_run": JAMO_RUN.pattern,
        "alias_separators": _ALIAS_SEPARATORS.pattern,
        "alias_word": _ALIAS_WORD.pattern,
        "camel": _CAMEL.pattern,
        "numbering": _NUMBERING.pattern,
        "appendix": _APPENDIX.pattern,
        "aside": _ASIDE.pattern,
        "alternatives": _ALTERNATIVES.pattern,
    }

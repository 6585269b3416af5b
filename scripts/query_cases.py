"""Write what both search engines must reproduce, from the Python side:

* `tests/cases/query_analysis.json`: what the Python analysis gives for each case input
  (tests/test_client_index.py checks app/search/analysis.py and static/analysis.js against it);
* `tests/cases/traces.json`: each stage of a search (clean, rewrite, plan, lookups, BM25,
  tiers, re-rank features, results) for each trace query over the tiny corpus in
  `tests/cases/tiny/` (tests/test_search_traces.py checks both engines against it);
* `types/contract.d.ts`: the search contract's type, for the JS type check.

After an intended change to the analysis, the contract or the ranking, regenerate them, read
the diff, and commit them with the change (the tests fail until then):

    .venv/bin/python -m scripts.query_cases
"""

from __future__ import annotations

import collections.abc
import dataclasses
import json
import typing
from pathlib import Path
from typing import Any

from app.corpus.build import load_corpus
from app.corpus.hangul import choseong
from app.search import SearchIndex, analysis, contract
from app.search.fuzzy import max_distance
from app.search.index import load_index
from app.search.query import clean
from app.search.trace import trace

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "cases" / "query_analysis.json"
TRACES = ROOT / "tests" / "cases" / "traces.json"
TINY = ROOT / "tests" / "cases" / "tiny"
CONTRACT_TYPES = ROOT / "types" / "contract.d.ts"
ABOUT = ("Query analysis both engines must agree on: app/search/analysis.py and "
         "static/analysis.js, both checked by tests/test_client_index.py. Each case: the input "
         "and the expected words, per-word variants and stems, index bigrams, function words, "
         "verb forms, counts (한장), the stems a verb form may have (verb_stems), the "
         "stems a word is matched to a short list with (loose_stems), "
         "초성, title parts, English alias key, each word's typo allowance "
         "(fuzzy.max_distance, also of the whole input) and the cleaned text (query.clean). "
         "Written by scripts/query_cases.py; add inputs there.")
INPUTS = (
    "조사자가 공격받으면",
    "틈새공격을",
    "회피하면 어떻게 되나요",
    "갑니다 줍니다 놓입니다",
    "뽑습니다",
    "피해 확인 무기 의지",
    "적이",
    "부착된",
    "(1.1) 틈새 공격",
    "회피, 회피 행동",
    "조사자당( 조사자당 )",
    "Attack of Opportunity",
    "clues boxes abilities",
    "ㅌㅅㄱㄱ",
    "틈ㅅ",
    "경우에 있을까요 하는지",
    "부록 2: 타이밍 표",
    "조우덱에서 카드를 뽑을 때",
    "AoO",
    "Ｆｕｌｌ\u3000ｗｉｄｔｈ",
    "엘더사인이랑 촉수",
    "ㅌㅅ 틈새공격은 clue investigators",
    "세워서 버려도 봐야 돼요 버렸다 세웠고",
    "뽑아서 섞어도 넣어요 고려 배려",
    "몇 장까지 몇장 자원 몇 개 두 번",
    "버려진다 버려집니다 간다 판다 세워지면 어젠다 에젠다",
    "혹시 내 덱이 다 떨어지면 그냥 돼요 해도",
    "싸우지 말고 피하는게 나음 쌓이는 거",
    "조우 카드 한 장 더 뽑게 하는 키워드",
    "게임에서 빠지면 죽거나 때렸는데 틈새공걱하면 클루를 연속으로",
    "무시무시한 적을 만났다면 갔다 섰는데 냈다 버렸다면",
    # clean(): format, unassigned and private-use characters become spaces; a die stays.
    "틈새\u061c공격\u180e단서\u0378 \ue000파멸\u200b토큰 🎲",
    # Typo allowances by letters in scripts other than Hangul and Latin.
    "中文字中文字 ДжонДжонс",
    # Accents folded, umlauts spelt out, case folding beyond lower case (ß, final sigma).
    "Fatalité Élimination Nachrüsten Straße ΟΔΟΣ Zagłada Ørsted",
    # Cyrillic case endings and ё; a Han run, a lone ideograph, Han beside Hangul.
    "внеочередной атаки безысходности ещё Повёрнутая",
    "趁乱攻击 毁 涌动卡牌 冰霜标记을",
    # A verb's or adjective's forms and their stems (#23): the spoken -어/-아, the past, the
    # ㅡ, ㅂ and 르 stems; a noun's particle is no verb ending.
    "머리가 아파요 먹었어요 좋아요 죽었는데 미쳤어",
    "아파서 아팠어요 어려워요 몰랐어 미쳐 먹어 가방을 단셔",
    # The noun form a remark ends with: -ㅁ after a vowel, -음 after a consonant (때림, 붙음);
    # 음 alone and a vowel before 음 (다음) are none.
    "때림 버림 붙음 맞음 빼둠 다음 음 쓰러짐",
    # -아/-어 있다, -고 있다 written together; 있 alone and 할 수 있 are none.
    "눕혀져있는데 붙어있는데 쓰러져있어요 들고있는데 할수있어요 있어요",
    # Counts written together (never typos) and 것 + 이다 as spoken (light words).
    "한장도 두번 세개 몇장 쓰는 거임 그런 거야",
    # A light noun after an adnominal form, written together, is the verb's (살때, 보는것); after
    # a noun it is not (테스트때).
    "살때 셀때 고를때도 개일때도 보는것도 쓸때는 테스트때",
    # A bare merged 져 is undone (쓰러져 → 쓰러지); 려 and 워 are not (고려, 배려, 타워).
    "쓰러져 누워 떨어져 고려 배려 타워",
    # An auxiliary verb after -아/-어 comes off to the main verb (깔아둬요 → 깔, 나눠줘도 → 나누,
    # 써봐도 → 쓰), an adnominal ending too (치우는, 깔아둔, 어려운데); never after a particle
    # (춰가, 가방을).
    "깔아둬요 깔아둔 나눠줘도 넣어놔도 써봐도 붙여놨는데 올라가 치우는 어려운데 춰가 가방을",
    # -아도/-어도 leaves the stem though 도 is a particle too (골라도 → 고르, 까도 → 까); after a
    # final consonant 도 is the particle alone (자원도).
    "골라도 빨라도 써도 까도 불러도 자원도 카드도",
    # -기 makes a noun of a verb: the stem is before it (잡기 → 잡, 줍기 → 줍, 만들기 → 만들).
    "잡기 줍기 만들기 몹잡기 무기",
)

TRACES_ABOUT = ("Each stage of a search over the tiny corpus in tests/cases/tiny/, per query: the "
                "cleaned text, the rewrite, the plan, the (field, term, boost) lookups, each "
                "candidate's BM25F score, the title tiers, the re-rank features of the "
                "candidates within the budget's depth, the order and the page of results. "
                "Both engines must reproduce it (tests/test_search_traces.py). Written by "
                "scripts/query_cases.py; add queries there.")
#: (query, game filter): each stage and each budget limit is reached by one of them.
TRACE_QUERIES: tuple[tuple[str, str | None], ...] = (
    ("틈새 공격", None),                      # the whole title
    ("(1.1) 능력 테스트 난이도 결정", None),   # numbering included
    ("틈세공격", None),                        # a typo'd title
    ("ㅌㅅㄱㄱ", None),                        # 초성
    ("틈ㅅ", None),                            # typing: a syllable, then an initial
    ("조사자가 공격받으면", None),             # particles and endings
    ("회피하면 어떻게 되나요", None),          # light words
    ("서지", None),                            # a synonym
    ("AoO", None),                             # an English variant
    ("클루지", None),                          # one jamo from a listed spelling (클루즈)
    ("클루발견", None),                        # a listed spelling typed with the next word
    ("attack of opportunity", None),           # an English name
    ("clues", None),                           # an English plural
    ("덱에 같은 카드 몇 장까지 넣을 수 있나요", None),  # a question; a related word; passage
    ("카드 효과", None),                       # more candidates than the re-rank depth
    ("엘드리치 호러 파멸은", None),            # a game named in the query
    ("파멸", "eh"),                            # a game filter
    ("파멸", None),                            # one title in two games
    ("손 크기", None),                         # a "see X" pointer
    ("퉁새콩격", None),                        # nothing found: did you mean
    ("\u061c틈새\u180e공격\u0378", None),  # blanked characters
    # The budget: more distinct words than analysed, more typos than corrected, more
    # lookups than scored, more matched terms than highlighted.
    ("조사자 교전 중인 적 틈새 공격 회피 행동 피해 단서 장소 파멸 악당 토큰 신화 단계 카드 "
     "자원 정리", None),
    ("틈세 단셔 파먈 급쯩 교젼 회퓌 정리단게 악당카드", None),
    ("조우카드처리순서 능력테스트난이도결정 혼돈주머니토큰공개 자동실패토큰효과 정리단계자원획득 "
     "악당카드파멸토큰 신화단계마다파멸 교전중인적공격 장소단서수치만큼 조사행동성공하면 "
     "급증키워드조우 회피행동교전종료", None),
    ("올려놓습니다 진행됩니다 도달하면 들어가면 교섭하기 무작위로 바뀌었습니다 공격하지 성공하면 "
     "시작하면 공개합니다 카드를 테스트를", None),
    # Other scripts (#26), in the translations of the tiny corpus: a translation's title is
    # the entry's; accents folded both ways (the written form first); a German umlaut spelt
    # out; Cyrillic case endings; Han bigrams; an entry only a translation has; a typo.
    ("Verderben", None),
    ("fatalite", None),
    ("Fatalité", None),
    ("nachruesten", None),
    ("внеочередной атаки", None),
    ("趁乱攻击", None),
    ("混乱标记", None),
    ("élimination d'un joueur", None),
    ("Ausschwärmen", None),
    ("Verderbem", None),
)


def case(text: str) -> dict[str, Any]:
    """Everything the Python analysis says about `text`."""
    words = analysis.words(text)
    return {"input": text, "words": words,
            "variants": [list(analysis.variants(w)) for w in words],
            "stems": [analysis.stem(w) for w in words],
            "bigrams": analysis.index_bigrams(text),
            "function_words": [w for w in words if analysis.is_function_word(w)],
            "inflected": [w for w in words if analysis.is_inflected(w)],
            "counts": [w for w in words if analysis.is_count(w)],
            "verb_stems": [list(analysis.verb_stems(w)) for w in words],
            "loose_stems": [analysis.loose_stems(w) for w in words],
            "choseong": choseong(text), "title_parts": analysis.title_parts(text),
            "alias_key": analysis.alias_key(text),
            "max_distance": [max_distance(w) for w in words],
            "max_distance_whole": max_distance(text), "clean": clean(text)}


def tiny_index() -> SearchIndex:
    """The server's search over the tiny corpus, built in memory."""
    corpus = load_corpus(TINY)
    return SearchIndex(corpus, load_index(corpus, None))


def traces(index: SearchIndex | None = None) -> list[dict[str, Any]]:
    """Each trace query's stages (`app.search.trace.trace`) over the tiny corpus."""
    index = index or tiny_index()
    found = [trace(index, q, game=game) for q, game in TRACE_QUERIES]
    unported = [t["query"] for t in found if any(w["english"] for w in t["plan"]["words"])]
    if unported:  # the browser engine cannot reproduce a loanword read by sound
        raise SystemExit(f"trace queries use loanwords, which the browser does not port: "
                         f"{unported}")
    return found


def contract_types() -> str:
    """`types/contract.d.ts`: the TypeScript type of `contract.shipped()`."""
    out = ["// Written by scripts/query_cases.py from app/search/contract.py: do not edit.",
           "// The search contract as the client index ships it (`index.contract`).", ""]
    sections: list[str] = []
    for section in dataclasses.fields(contract.Contract):
        name = "Contract" + section.name.title().replace("_", "")
        kind = typing.get_type_hints(contract.Contract)[section.name]
        hints = typing.get_type_hints(kind)
        members = [f"  {f.name}: {_ts(hints[f.name])};" for f in dataclasses.fields(kind)]
        if kind is contract.Clean:
            members.append("  /** `contract.blank_ranges`: [gap, length - 1] per range. */")
            members.append("  blank_ranges: [number, number][];")
        out += [f"interface {name} {{", *members, "}", ""]
        sections.append(f"  {section.name}: {name};")
    for extra, enum in (("tier", contract.Tier), ("title_rank", contract.TitleRank)):
        keys = "; ".join(f"{member.name}: number" for member in enum)
        sections.append(f"  {extra}: {{ {keys} }};")
    out += ["interface Contract {", *sections, "}", ""]
    return "\n".join(out)


def _ts(kind: Any) -> str:
    """A Python annotation of the contract as a TypeScript type."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind in (int, float):
        return "number"
    if kind is str:
        return "string"
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return f"{_ts(args[0])}[]"
    if origin is tuple:
        return "[" + ", ".join(_ts(a) for a in args) + "]"
    if origin is collections.abc.Mapping:
        return f"Record<{_ts(args[0])}, {_ts(args[1])}>"
    raise TypeError(f"no TypeScript type for {kind!r}: add it to scripts/query_cases._ts")


def main() -> None:
    data = {"about": ABOUT, "cases": [case(text) for text in INPUTS]}
    CASES.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    traced = {"about": TRACES_ABOUT, "traces": traces()}
    TRACES.write_text(json.dumps(traced, ensure_ascii=False, indent=1) + "\n",
                      encoding="utf-8")
    CONTRACT_TYPES.write_text(contract_types(), encoding="utf-8")


if __name__ == "__main__":
    main()

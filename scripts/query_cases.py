"""Write tests/cases/query_analysis.json: what the Python analysis gives for each case input.

The file is the contract between app/search/analysis.py and static/analysis.js
(tests/test_client_index.py checks both against it). After an intended change to the analysis,
regenerate it, read the diff, and commit both together:

    .venv/bin/python -m scripts.query_cases
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.corpus.hangul import choseong
from app.search import analysis
from app.search.fuzzy import max_distance

CASES = Path(__file__).resolve().parents[1] / "tests" / "cases" / "query_analysis.json"
ABOUT = ("Query analysis both engines must agree on: app/search/analysis.py and "
         "static/analysis.js, both checked by tests/test_client_index.py. Each case: the input "
         "and the expected words, per-word variants and stems, index bigrams, function words, "
         "초성, title parts, English alias key and each word's typo allowance "
         "(fuzzy.max_distance). Written by scripts/query_cases.py; add inputs there.")
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
            "choseong": choseong(text), "title_parts": analysis.title_parts(text),
            "alias_key": analysis.alias_key(text),
            "max_distance": [max_distance(w) for w in words]}


def main() -> None:
    data = {"about": ABOUT, "cases": [case(text) for text in INPUTS]}
    CASES.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

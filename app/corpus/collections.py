"""The AHLCG collections (보유 게임) named by rules.json `cycle` codes, with their Korean names.

The names are the ones the rules text itself uses ("잊힌 시대” 사이클에서 추가되었습니다").
"""

from __future__ import annotations

COLLECTIONS: dict[str, str] = {
    "dwl": "던위치의 유산",
    "ptc": "카르코사로 가는 길",
    "tfa": "잊힌 시대",
    "tcu": "끝맺지 못한 의식",
    "tde": "꿈을 먹는 자",
    "tic": "인스머스에 드리운 음모",
    "eoe": "지구의 끝자락",
    "side": "단독 시나리오",
    "investigator": "조사자 확장",
    "parallel": "평행 조사자",
}


def collection_name(code: str) -> str:
    """The Korean name of a collection code; unknown codes are shown as they are."""
    return COLLECTIONS.get(code, code)

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


#: The cookie value for "I own none of the expansions" (an empty cookie means "show all").
NONE_OWNED = "none"


def parse_owned(value: str | None) -> frozenset[str] | None:
    """The collections a player owns, from the `owned` cookie; None means "show everything".

    The cookie holds codes joined by dots (`dwl.ptc`); unknown codes are ignored.
    """
    if not value:
        return None
    if value == NONE_OWNED:
        return frozenset()
    codes = frozenset(c for c in value.split(".") if c in COLLECTIONS)
    return codes or None


def format_owned(codes: frozenset[str] | set[str] | list[str]) -> str:
    """The cookie value for a set of owned collections (all of them: an empty value)."""
    known = sorted(c for c in set(codes) if c in COLLECTIONS)
    if len(known) == len(COLLECTIONS):
        return ""
    return ".".join(known) if known else NONE_OWNED


def is_hidden(cycles: tuple[str, ...], owned: frozenset[str] | None) -> bool:
    """A rule tagged with collections is hidden when the player owns none of them."""
    return owned is not None and bool(cycles) and not (set(cycles) & owned)

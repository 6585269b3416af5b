"""The owned-collections setting (보유 게임): which tagged rules a player wants to see.

The collections themselves (codes, names, order) are data: the games' names files, plus any
code the rules use undeclared (`Corpus.collections`). This module reads and writes the
`owned` cookie against a set of known codes.

The cookie lists what the player does *not* own, after a "-": `-tfa.tcu`. A collection that
newer data adds is then shown until the player unticks it, instead of being hidden by a
choice made before it existed. Two older forms are still read: codes joined by dots (`dwl.ptc`,
the owned ones) and `none`.
"""

from __future__ import annotations

from collections.abc import Iterable

#: The cookie value for "I own none of the expansions" (older form, still read).
NONE_OWNED = "none"
_EXCLUDE = "-"


def parse_owned(value: str | None, known: frozenset[str]) -> frozenset[str] | None:
    """The collections a player owns, among `known`; None means "show everything".

    Unknown codes are ignored, so a cookie can only select among the data's own collections
    (the response cache's keys stay bounded by them).
    """
    if not value:
        return None
    if value == NONE_OWNED:
        return frozenset()
    if value.startswith(_EXCLUDE):
        unowned = set(value[1:].split(".")) & known
        return known - unowned if unowned else None
    codes = frozenset(c for c in value.split(".") if c in known)
    return codes or None


def format_owned(ticked: Iterable[str], known: frozenset[str]) -> str:
    """The cookie value for the ticked collections (all of them: an empty value)."""
    unowned = sorted(known - set(ticked))
    return _EXCLUDE + ".".join(unowned) if unowned else ""


def is_hidden(codes: tuple[str, ...], owned: frozenset[str] | None) -> bool:
    """A rule tagged with collections is hidden when the player owns none of them."""
    return owned is not None and bool(codes) and not (set(codes) & owned)

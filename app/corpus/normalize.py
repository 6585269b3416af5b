"""Text normalisation: the one `normalize_text()` used for matching titles, ids and queries."""

from __future__ import annotations

import re
import unicodedata

# Characters that behave as spaces in the data: NBSP (blog transcription), full-width space
# (centring in rules.json), and the zero-width family that copy-paste from PDFs leaves behind.
SPACES = re.compile(r"[\s\u00a0\u3000\u200b\u200c\u200d\ufeff]+")
_SLUG_DROP = re.compile(r"[^\w\s-]+")
#: Lower-case letters that have no decomposition to strip an accent from, and their plain
#: spellings (`fold_accents`; the browser engine gets them through the search contract).
PLAIN_LETTERS = {"ł": "l", "đ": "d", "ð": "d", "ø": "o", "ħ": "h", "ı": "i", "ŀ": "l",
                 "ŧ": "t", "þ": "th", "æ": "ae", "œ": "oe"}
_PLAIN_TABLE = str.maketrans(PLAIN_LETTERS)


def normalize_text(text: str) -> str:
    """NFC, case-folded, with every run of (Unicode) whitespace collapsed to one space."""
    text = unicodedata.normalize("NFC", text)
    return SPACES.sub(" ", text).strip().casefold()


def fold_accents(text: str) -> str:
    """`text` without accents: decomposed (compatibility forms too: full-width `ｆｕｌｌ` is
    full), every nonspacing mark (Mn) dropped, recomposed, and the lower-case letters without
    a decomposition spelled plainly (`ł` → l, `ø` → o): the search's folding and the index
    letters' (`Łowca` under L) are this one."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text)
                   if unicodedata.category(c) != "Mn")
    return unicodedata.normalize("NFC", bare).translate(_PLAIN_TABLE)


def compact(text: str) -> str:
    """`normalize_text` without any spaces: `틈새 공격` and `틈새공격` compare equal."""
    return normalize_text(text).replace(" ", "")


def slugify(text: str) -> str:
    """A URL-friendly, readable slug that keeps Hangul: `체력과 정신력` → `체력과_정신력`.

    Punctuation is dropped and spaces become underscores, matching the style of the
    rules.json ids (`Attack_of_Opportunity`).
    """
    text = unicodedata.normalize("NFC", text)
    text = _SLUG_DROP.sub(" ", text)
    text = SPACES.sub("_", text.strip())
    return text.strip("_-") or "section"

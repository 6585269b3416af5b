"""Everyday words that are not typos (the manifest's `words` file, `data/ko-words.txt`).

A player types real words the rules never use (머리, 우산, 가방); one jamo away from a rules'
term (버리, 우선, 가장), such a word looked like a typo and was "corrected" into it (#23). The
file lists the common words of the language that lie within the typo allowance of the
index's correction targets: only those could be taken for typos, which keeps it small enough
to ship to the browser engine too. Both engines leave a listed word as typed (never corrected,
never swapped for a similar word of the texts).

`scripts/everyday_words.py` writes it at build time from kiwipiepy's dictionary (not a
run-time dependency). The format: one word per line, `#` starts a comment line. A verb's or
adjective's stem ends in "-" (먹-, 아프-): its forms are real words (`analysis.listed`: 먹었어요,
아파요), the stem alone is none.
"""

from __future__ import annotations

from pathlib import Path

from app.corpus.hangul import is_syllable
from app.errors import DataError

__all__ = ["MAX_WORD", "STEM_MARK", "load_words"]

#: How the file marks a verb's or adjective's stem (먹-, 아프-), as dictionaries do: the
#: search matches it by `analysis.verb_stems`, never as a word.
STEM_MARK = "-"

#: The longest word the file may list: far above any Korean noun.
MAX_WORD = 20


def load_words(data_dir: Path, file: str) -> frozenset[str]:
    """The words of `data_dir/file`, or `DataError` naming the first bad line: each word is
    Hangul syllables only, at most `MAX_WORD` of them, with a stem's "-" after them or not,
    listed once."""
    try:
        text = (data_dir / file).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError(file, "", "file not found (the everyday words file)") from None
    except UnicodeDecodeError as exc:
        raise DataError(file, f"byte {exc.start}", "not UTF-8 text") from None
    found: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        letters = word.removesuffix(STEM_MARK)
        if not letters or len(letters) > MAX_WORD or not all(is_syllable(c) for c in letters):
            raise DataError(file, f"line {number}",
                            f"expected one word of Hangul syllables (at most {MAX_WORD}), "
                            f'or a verb\'s stem marked "{STEM_MARK}"')
        if word in found:
            raise DataError(file, f"line {number}", f'"{word}" is listed twice')
        found.add(word)
    return frozenset(found)

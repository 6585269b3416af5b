"""How well Hangul loanwords find their English names, without the synonyms files.

The synonyms files pair players' words with official terms; their Hangul spellings of English
terms (클루 → 단서) are a ready test set for the loanword matcher, which must find them with
no synonyms line at all. For each such variant whose official term titles an entry with an
English name (from the English translation), the matcher's answer is right when it is that
name or one of its words. A naive peer in the same run: romanise the Hangul and take the
English name with the closest spelling (rapidfuzz), no consonant skeleton.

    .venv/bin/python -m bench.loanwords
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rapidfuzz import fuzz, process

from app.corpus.build import load_corpus
from app.corpus.normalize import compact
from app.search import analysis
from app.search.documents import documents
from app.search.loanwords import LoanwordTable, romanise

DATA = Path(__file__).resolve().parents[1] / "data"


def main() -> None:
    corpus = load_corpus(DATA)
    docs = documents(corpus)
    names = [d.english or (d.entry.title if d.entry.lang == "en" else "") for d in docs]
    names += [corpus.icons.label(t, "en") for t in corpus.icons.icons]
    table = LoanwordTable(filter(None, names))
    phrases = sorted({LoanwordTable.phrase(n) for n in names if n})
    by_title: dict[str, str] = {}
    for doc in docs:
        if doc.english and not doc.entry.placeholder:
            by_title.setdefault(compact(doc.entry.title), LoanwordTable.phrase(doc.english))
    cases: list[tuple[str, str]] = []
    for game in corpus.games:
        for variant_key, officials in game.synonyms.items():
            if not analysis.is_hangul(variant_key):
                continue
            expected = by_title.get(compact(officials[0]))
            if expected:
                cases.append((variant_key, expected))
    rows = []
    for name, answer in (("project (skeleton)", table.english),
                         ("naive (romanised spelling)", _naive(phrases))):
        right = wrong = none = 0
        start = time.perf_counter()
        for variant, expected in cases:
            found = answer(variant)
            if found is None:
                none += 1
            elif found == expected or found in expected.split():
                right += 1
            else:
                wrong += 1
        ms = (time.perf_counter() - start) * 1000 / max(1, len(cases))
        rows.append((name, right, wrong, none, ms))
    print(f"loanword bench: {len(cases)} Hangul variants from the synonyms files whose official "
          f"term names an entry with an English name; {len(table)} skeletons")
    print(f"{'matcher':<28}{'right':>8}{'wrong':>8}{'none':>8}{'precision':>11}{'ms/word':>9}")
    for name, right, wrong, none, ms in rows:
        precision = right / max(1, right + wrong)
        print(f"{name:<28}{right:>8}{wrong:>8}{none:>8}{precision:>11.2f}{ms:>9.3f}")


def _naive(phrases: list[str]) -> Callable[[str], str | None]:
    def answer(hangul: str) -> str | None:
        found = process.extractOne(romanise(hangul), phrases, scorer=fuzz.ratio,
                                   score_cutoff=50)
        return found[0] if found else None
    return answer


if __name__ == "__main__":
    main()

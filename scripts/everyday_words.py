"""Write `data/ko-words.txt`: the common Korean words the search would take for typos or
loanwords.

A real word the rules never use (머리, 우산) that is one jamo from a rules' term (버리, 우선)
was "corrected" into it (#23). This script lists, from kiwipiepy's dictionary, the common nouns
(NNG) and adverbs (MAG) of at least two syllables that the engine, with no such list, would
change: correct into a rules' term, take for a near miss of a players' word, swap for a
similar word of the texts when nothing is found, or hear as an English word (친구 sounded like
"joining", 벌써 like "bless"). A listed word is never heard as a loanword (the true loanwords
among Kiwi's nouns that players use for a term are synonyms lines: 콘트롤). Only the words the
engine would change are listed, so the file stays small enough to ship in the browser's index
(`app/corpus/words.py` reads it).

Verbs and adjectives are not nouns: `머리가 아파요` had 아파요 "corrected" into 앞에 (#23). The
file also lists Kiwi's common verb and adjective stems (VV, VA), marked as stems (`먹-`,
`아프-`), all of them: the search recognises a form by its stem (`analysis.verb_stems`:
먹었어요 → 먹, 아파요 → 아프), and the forms are too many to test one by one.

kiwipiepy is a build-time tool here, never a run-time dependency:

    .venv/bin/pip install kiwipiepy kiwipiepy-model
    .venv/bin/python -m scripts.everyday_words

Kiwi numbers its morphemes by their frequency in its training corpus (가격 is 1000th, 검속
50000th): `--top` keeps the nouns among the most frequent morphemes, the words an everyday
query is made of. Re-run it after the data changes (new rules' terms are new targets).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from app.corpus.build import load_corpus
from app.corpus.hangul import is_syllable
from app.search import SearchIndex, analysis

ROOT = Path(__file__).resolve().parents[1]
#: Morphemes this far down Kiwi's frequency order are rare words (50000th: 검속, 균제); at
#: 30000 the nouns are still everyday ones (빗자루 13080th, 딜 20907th, 조사자 34806th).
TOP = 30000
HEADER = """\
# Everyday Korean words that are never taken for typos (#23): the common nouns and adverbs
# (NNG, MAG) among the {top} most frequent morphemes of kiwipiepy {version}'s dictionary that
# the search, without this list, would have corrected into a rules' term, swapped for a
# similar word of the texts or heard as an English word in a sentence; then the verb and
# adjective stems (VV, VA) among those morphemes, marked "-" (먹-,
# 아프-): a form of one (먹었어요, 아파요) is a real word too. Written by
# `python -m scripts.everyday_words` (do not edit by hand: re-run it after the data changes).
# {count} words and {stems} stems, each in Kiwi's frequency order.
"""


#: A morpheme of Kiwi's dictionary: its frequency rank, its form and its tag (NNG, VV, …).
Morpheme = tuple[int, str, str]


def frequent_morphemes(top: int) -> list[Morpheme]:
    """Kiwi's `top` most frequent morphemes written in Hangul syllables only, most frequent
    first (one walk of the dictionary serves the nouns and the stems)."""
    from kiwipiepy import Kiwi  # build-time only

    kiwi = Kiwi(model_type="cong")
    found: list[Morpheme] = []
    for number in range(top):
        try:
            morpheme = kiwi.morpheme(number)
        except (IndexError, ValueError, RuntimeError):
            break
        form = str(morpheme.form)
        if form and all(is_syllable(c) for c in form):
            found.append((number, form, str(morpheme.tag)))
    return found


def common_nouns(morphemes: Iterable[Morpheme]) -> list[str]:
    """The common nouns and adverbs of two syllables or more among `morphemes`, in their
    order."""
    found = {form: None for _, form, tag in morphemes
             if tag in ("NNG", "MAG") and len(form) >= 2}
    return list(found)


def common_stems(morphemes: Iterable[Morpheme]) -> list[str]:
    """The verb and adjective stems among `morphemes`, in their order, each marked as a stem
    (먹-, 아프-: `analysis.STEM_MARK`). Kiwi tags a stem whose final consonant could conjugate
    irregularly by how it does: VV-I/VA-I irregular (어렵, 돕, 듣), VV-R/VA-R regular (받, 뽑,
    좁). Those are verbs and adjectives too: 어려운데 is a real word, not a typo of 라운드."""
    found = {form + analysis.STEM_MARK: None for _, form, tag in morphemes
             if tag.split("-")[0] in ("VV", "VA")}
    return list(found)


def mistaken(index: SearchIndex, word: str) -> bool:
    """Whether the search, with no everyday words, would change `word` as a typo or hear it
    as a loanword."""
    plan = index.plan(word, everyday=False)
    if not plan.words:
        return False
    first = plan.words[0]
    if first.known:
        return False
    rewrite = index.rewrite(word, everyday=False)
    return bool(first.corrections or first.english or rewrite.synonyms
                or index.nearest_words(plan))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--top", type=int, default=TOP)
    args = parser.parse_args(argv)
    import kiwipiepy

    corpus = load_corpus(args.data)
    index = SearchIndex.open_or_build(corpus, None)
    morphemes = frequent_morphemes(args.top)
    listed = [w for w in common_nouns(morphemes) if mistaken(index, w)]
    stems = common_stems(morphemes)
    target = args.data / "ko-words.txt"
    target.write_text(HEADER.format(top=args.top, version=kiwipiepy.__version__,
                                    count=len(listed), stems=len(stems))
                      + "\n".join(listed + stems) + "\n", encoding="utf-8")
    print(f"{target}: {len(listed)} words, {len(stems)} stems")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

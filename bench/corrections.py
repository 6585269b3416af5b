"""Honest corrections (#23): real words left as typed, real typos corrected.

    .venv/bin/python -m bench.corrections --write /tmp/cases.json   # makes the sets (kiwipiepy)
    .venv/bin/python -m bench.corrections --cases /tmp/cases.json   # measures (any checkout)

Two sets made from the data and kiwipiepy's dictionary, never hand-picked:

* **real words** (held out from `data/ko-words.txt`): Kiwi's common nouns ranked after the
  file's cut (`scripts.everyday_words.TOP` to three times it), that the search with no
  everyday words would change (`scripts.everyday_words.mistaken`): every n-th, up to
  `--sample`. Each is searched alone and beside a rules' term (a word of a title, in turn):
  a false correction is a results page that says it corrected or swapped the word;
* **real verb forms**: Kiwi's verb and adjective stems (every n-th, irregular ones included:
  어렵, 돕, 듣), each conjugated by Kiwi with one of `ENDINGS` in turn (어려워요, 도우면,
  들었어요): those ranked before the file's cut (the file lists them), and those after it, to
  three times it (held out). Searched alone, a false reading is a page that says it corrected
  or swapped the word or heard it as an English word;
* **real typos**: one jamo of a word of a multi-word title replaced by its neighbour in the
  jamo table (every n-th title word of two syllables or more), the title's other words kept
  (`틈새 공격` → `틈세 공격`), when the result is no word of the index, of the file or of
  Kiwi's nouns. Corrected when the page corrects the typo back to the title's word.

The measuring half uses `SearchIndex.search` only, so the same sets can be measured on another
checkout (`PYTHONPATH=/that/checkout`) for a before/after.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from app.corpus.build import load_corpus
from app.corpus.hangul import CHOSEONG, JONGSEONG, JUNGSEONG, is_syllable
from app.search import SearchIndex, analysis

ROOT = Path(__file__).resolve().parents[1]


def _typo(word: str, at: int) -> str:
    """`word` with the vowel of its `at`-th syllable replaced by the next one in the table."""
    code = ord(word[at]) - 0xAC00
    initial, vowel, final = code // 588, (code % 588) // 28, code % 28
    vowel = (vowel + 1) % len(JUNGSEONG)
    return word[:at] + chr(0xAC00 + initial * 588 + vowel * 28 + final) + word[at + 1:]


#: Endings the verb forms are made with, as Kiwi joins them (its tag, then the text): polite
#: present, "if", "even if", polite past, and the adnominal (어려운 카드).
ENDINGS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("어요", "EF"),), (("으면", "EC"),), (("어도", "EC"),), (("었", "EP"), ("어요", "EF")),
    (("은", "ETM"),))


def verb_forms(morphemes: list[tuple[int, str, str]], sample: int) -> list[str]:
    """Every n-th distinct verb or adjective stem of `morphemes`, conjugated (`ENDINGS` in
    turn)."""
    from kiwipiepy import Kiwi  # build-time only

    stems = list({form: tag for _, form, tag in reversed(morphemes)
                  if tag.split("-")[0] in ("VV", "VA")}.items())[::-1]
    chosen = stems[:: max(1, len(stems) // sample)][:sample]
    kiwi = Kiwi(model_type="cong")
    return [kiwi.join([(stem, tag), *ENDINGS[n % len(ENDINGS)]])
            for n, (stem, tag) in enumerate(chosen)]


def write_cases(index: SearchIndex, sample: int) -> dict[str, Any]:
    from scripts.everyday_words import TOP, common_nouns, frequent_morphemes, mistaken

    morphemes = frequent_morphemes(3 * TOP)
    nouns = common_nouns(morphemes)
    early = set(common_nouns(m for m in morphemes if m[0] < TOP))
    held = [w for w in nouns if w not in early and mistaken(index, w)]
    real = held[:: max(1, len(held) // sample)][:sample]
    titles = [e.title for e in index.corpus if e.lang == "ko" and not e.placeholder
              and not e.title.endswith("?") and len(e.title) <= 20]
    words = [w for t in titles for w in analysis.words(t)
             if len(w) >= 2 and all(is_syllable(c) for c in w)]
    terms = list(dict.fromkeys(w for w in words if index.plan(w).words[0].known))
    nouns_set = set(nouns) | index.corpus.words
    typos: list[dict[str, str]] = []
    for title in dict.fromkeys(titles):
        parts = analysis.words(title)
        if len(parts) < 2:
            continue
        for n, part in enumerate(parts):
            if len(part) < 2 or not all(is_syllable(c) for c in part):
                continue
            typo = _typo(part, len(typos) % len(part))
            if typo in nouns_set or index.plan(typo, everyday=False).words[0].known:
                continue
            typos.append({"q": " ".join([*parts[:n], typo, *parts[n + 1:]]), "typo": typo,
                          "meant": part})
            break
    typos = typos[:: max(1, len(typos) // sample)][:sample]
    pairs = [f"{w} {terms[i % len(terms)]}" for i, w in enumerate(real)]
    assert CHOSEONG and JONGSEONG  # the jamo tables the typos are made with
    return {"real": real, "real_pairs": pairs, "typos": typos,
            "verbs": verb_forms([m for m in morphemes if m[0] < TOP], sample),
            "verbs_held": verb_forms([m for m in morphemes if m[0] >= TOP], sample)}


def measure(index: SearchIndex, cases: dict[str, Any]) -> list[str]:
    def changed(query: str, word: str) -> bool:
        found = index.search(query)
        return any(typed == word for typed, _ in (*found.corrections, *found.fallback))

    started = time.perf_counter()
    alone = sum(changed(w, w) for w in cases["real"])
    paired = sum(changed(q, q.split()[0]) for q in cases["real_pairs"])
    fixed = 0
    for case in cases["typos"]:
        found = index.search(case["q"])
        meant = {case["meant"], *analysis.variants(case["meant"])}
        fixed += any(typed == case["typo"] and term in meant
                     for typed, term in found.corrections)
    def misread(forms: list[str]) -> int:
        read = (index.search(form) for form in forms)
        return sum(bool(f.corrections or f.fallback or f.loanwords) for f in read)

    # Sets written before verb forms were measured lack them.
    verbs = {"listed": cases.get("verbs", []), "held out": cases.get("verbs_held", [])}
    misreads = {name: misread(forms) for name, forms in verbs.items()}
    took = time.perf_counter() - started
    n, m = len(cases["real"]), len(cases["typos"])
    return [
        "| set | queries | result |",
        "|---|---:|---:|",
        f"| real word alone: falsely corrected | {n} | {alone} ({alone / max(n, 1):.1%}) |",
        f"| real word + rules' term: falsely corrected | {n} | {paired} "
        f"({paired / max(n, 1):.1%}) |",
        f"| real typo in a title: corrected back | {m} | {fixed} ({fixed / max(m, 1):.1%}) |",
        *(f"| real verb form alone ({name}): corrected, swapped or heard as English | "
          f"{len(forms)} | {misreads[name]} ({misreads[name] / len(forms):.1%}) |"
          for name, forms in verbs.items() if forms),
        "",
        f"{took:.1f} s, load average {os.getloadavg()[0]:.1f}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--write", type=Path, help="make the sets and write them here")
    parser.add_argument("--cases", type=Path, help="measure the sets written here")
    parser.add_argument("--sample", type=int, default=200)
    args = parser.parse_args(argv)
    index = SearchIndex.open_or_build(load_corpus(args.data), None)
    if args.write:
        cases = write_cases(index, args.sample)
        args.write.write_text(json.dumps(cases, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"{args.write}: {len(cases['real'])} real words, {len(cases['typos'])} typos")
    if args.cases:
        print("\n".join(measure(index, json.loads(args.cases.read_text(encoding="utf-8")))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

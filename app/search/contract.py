"""The search contract: every value the server's search and the browser engine share.

Declared here once, stage by stage in the pipeline's order (docs/search.md): clean, rewrite,
stems, scripts, typos, titles, boosts, BM25, tiers, re-rank, order, snippets; the budget and the
result limits bound them all. The Python modules read `CONTRACT` (`CONTRACT.rerank.proximity`);
`client_index.index` ships it whole (`shipped()`, every field of every section, no list of
names to keep), and static/engine.js reads every number and list from the index it loads.
Change a value here and both engines follow; `tests/test_client_parity.py` and the stage
traces in `tests/cases/` check that they still agree (after an intended change, `python -m
scripts.query_cases` rewrites the traces, which record what the server did).

To extend it (a new stage, another script's rules): add a field or a section; the JS reads it
as `index.contract.<section>.<field>`, and `python -m scripts.query_cases` rewrites
`types/contract.d.ts`, the type the JS check (`tsc`) holds the engine to.

"Hand-tuned" below means: set by hand while watching `python -m bench.search` on the
development queries (since #10 on their tuning half, the held-out half reported beside it);
"conventional" means the textbook value. Change one, and run the bench before and after.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["CONTRACT", "Budget", "Contract", "Tier", "TitleRank", "blank_ranges", "digest",
           "shipped"]


class Tier(IntEnum):
    """How a query matched a title, from title matching alone; a higher tier always ranks
    above a lower one, whatever the BM25 scores (`Ranker.ranking`)."""

    #: No title-level match: BM25 and the re-rank decide.
    NONE = 0
    #: The query starts a title (`틈새` → 틈새 공격), or a typo of a title two edits away.
    STARTS = 1
    #: The query is a title's 초성 (`ㅌㅅㄱㄱ`), or a typo of a title one edit away.
    CLOSE = 2
    #: The query, its stems or its English reading *is* a title, a title's part or a name.
    NAMES = 3
    #: The query is the whole title, numbering included (`(1.1) 틈새 공격`).
    WHOLE = 4


class TitleRank(IntEnum):
    """How well typed text matches one title (`titles.TitleTable`), best (lowest) first."""

    EXACT = 0
    #: The text is the title's 초성.
    INITIALS_EXACT = 1
    #: The text starts the whole title.
    START = 2
    #: The text starts one of the title's alternatives (`회피 행동` of `회피, 회피 행동`).
    PART_START = 3
    #: The text is inside a title.
    INSIDE = 4
    #: A typo: FUZZY + the number of jamo edits.
    FUZZY = 5


@dataclass(frozen=True)
class Budget:
    """How much work one query may cause: every per-query loop of the search is bounded here.

    A 200-character query of made-up words used to cost up to ~55 ms in-process. Under these
    limits the worst query `bench/hostile_queries.py` generates costs under 10 ms on the
    reference 2-core machine, while no query of the development set and no title of the corpus
    reaches any limit (the longest title, a pasted FAQ question, has 15 words and 90 lookups).
    Limits are spent in query order: a query over the budget is answered from its leading
    words; it never fails. A memoised correction still counts as an attempt, so results never
    depend on what earlier queries left in a cache.
    """

    #: Distinct words analysed (groups and word pairs to re-rank, snippet terms): the corpus's
    #: longest title has 15, the dev set's longest query 6.
    words: int = 16
    #: Calls to `Vocabulary.corrections` per vocabulary: the index's correction targets (title
    #: words, ~1,350: ~50 µs each) and the synonyms' near-miss list (~600: ~25 µs). The dev
    #: set needs 2, a title at most 3; a hurried player may get a few more words wrong.
    corrections: int = 6
    #: (field, term) pairs scored by BM25 (frequent terms ~40 µs each): a title needs at most
    #: 90, the dev set 39; 120 of the most frequent terms cost ~6 ms.
    lookups: int = 120
    #: Best BM25 candidates re-scored by `rank.Reranker` (~20 µs each at 16 words): the depth
    #: the ranking was tuned with (40 was measured and not kept: docs/search.md).
    rerank: int = 60
    #: Characters of query terms compiled into the snippet pattern (~10 µs each to compile),
    #: counting only terms found on the page: a long question's words and stems fit.
    highlight_chars: int = 80


@dataclass(frozen=True)
class Clean:
    """`query.clean`: what is left of the typed text before anything reads it."""

    #: Longer queries are cut: no rule is looked up with more than a sentence or two.
    max_query: int = 200
    #: Code points read before normalising (NFC can shorten the text, never lengthen it much).
    read: int = 400
    #: Unicode general categories that become a space: controls, format characters (the
    #: zero-width and bidi marks), surrogates, private use and unassigned code points. The
    #: browser engine gets them as code point ranges generated from Python's `unicodedata`
    #: (`blank_ranges`), so both engines blank exactly the same characters.
    blank_categories: tuple[str, ...] = ("Cc", "Cf", "Cs", "Co", "Cn")


@dataclass(frozen=True)
class Rewriting:
    """`rewrite.Rewriter`: synonyms, related words and game names in the query."""

    #: The longest run of words a synonyms line is looked up for ("어택 오브 오퍼튜니티").
    longest_run: int = 4
    #: How many jamo edits apart a word may be from a listed spelling and count as it (레커닝,
    #: 리커닝); two apart is another word (트로피 is not 트로마).
    spelling_distance: int = 1
    #: Listed spellings shorter than this are never matched as near misses: a two-syllable
    #: loanword one edit from a Korean word (서지, 서리) is a different word.
    spelling_min_length: int = 3
    #: A players' word run together with the word after it (템사기, 몹잡기) is split when what
    #: follows is a word of this many syllables at least that the search knows: one syllable
    #: after a listed word is too often the rest of another word.
    glued_min_rest: int = 2


@dataclass(frozen=True)
class Stems:
    """`analysis.variants`: how particles, endings and plurals come off a word. The lists of
    particles and endings themselves are `analysis.py`'s tables, shipped beside this."""

    #: Suffixes removed one after another: a particle after an ending (`공격받은` → 공격).
    passes: int = 2
    #: A one-syllable ending (해, 인, 기, 지, 면) needs a stem this long: on a two-syllable word
    #: it is most often the noun's own last syllable (피해, 확인, 무기, 의지).
    short_ending_stem: int = 2
    #: -ㅂ니다 and -ㄴ다 are read inside a syllable only in words this long: 간다, 판다 are too
    #: often a noun or a one-syllable stem.
    jamo_ending_min: int = 3
    #: The syllable -ㅂ니다 is never read after: 습니다 is its own ending (뽑습니다).
    jamo_ending_not_after: str = "습"
    #: English endings: (shortest word, pattern, added). The first rule whose pattern matches
    #: a word at least that long keeps the pattern's group 1 and adds the text, and the rules
    #: run again on what is left, until none matches: plurals (`clues` → clue, `boxes` → box,
    #: `abilities` → ability; `class`, `bus`, `axis` keep their s), then -ing, -ed, -es and a
    #: final -e after a consonant, so every form of a verb meets on one stem (`resigning`,
    #: `resigns`, `resigned` → resign; `move`, `moves`, `moving`, `moved` → mov; #23). Index
    #: and query are stemmed alike, so a stem need not be a word.
    english_suffixes: tuple[tuple[int, str, str], ...] = (
        (5, r"^(.*)ies$", "y"), (5, r"^(.*(?:ss|sh|ch|x|z))es$", ""),
        (6, r"^(.*[^aeiou])ing$", ""), (5, r"^(.*[^aeiou])ed$", ""),
        (5, r"^(.*[^aeiou])es$", ""), (4, r"^(.*[^suio])s$", ""),
        (4, r"^(.*[^aeiou])e$", ""))


@dataclass(frozen=True)
class Scripts:
    """`scripts.py` and `analysis.han_grams`: words of scripts other than Hangul."""

    #: A run of Han ideographs (no spaces between words) is indexed and searched by its
    #: character bigrams, as Lucene's CJK analysis does; a lone ideograph by itself.
    han_gram: int = 2


@dataclass(frozen=True)
class Typos:
    """`fuzzy.py`: how far a typo may be from what was meant, and how many are looked at."""

    #: Jamo edits a Hangul word may carry by its syllables: (from this many syllables, edits).
    #: One syllable carries none; with one edit for two syllables `공격` never becomes `구역`
    #: (two edits: ㅗ→ㅜ and a dropped ㄱ).
    hangul_edits: tuple[tuple[int, int], ...] = ((2, 1), (3, 2))
    #: The same by letters, for words of other scripts.
    letter_edits: tuple[tuple[int, int], ...] = ((4, 1), (8, 2))
    #: The same by ideographs, for Han words: none, since one ideograph more or less is
    #: another word.
    han_edits: tuple[tuple[int, int], ...] = ()
    #: Closest terms a correction considers before the script and length checks.
    candidates: int = 32
    #: A correction differs from the word by at most this many characters in length.
    length_slack: int = 1
    #: Corrections kept per word (the closest, ties broken by frequency).
    kept: int = 3
    #: Title parts a typo'd title is looked for among (`TitleTable.fuzzy_matches`).
    title_candidates: int = 20
    #: Shorter typed text is never matched to a title as a typo.
    title_min_length: int = 2
    #: "Did you mean" allows this many more edits than search does.
    did_you_mean_extra: int = 1
    #: The shortest stem of a verb form that is still corrected as a typo (`틈새공걱하면`):
    #: shorter ones are everyday verbs (빠지면 is not 가지 misspelt).
    inflected_stem: int = 3
    #: Title words and names shorter than this are known but never a correction's target.
    target_min_length: int = 2
    #: A title longer than this, or one that ends in a question mark (`question_marks`),
    #: is a sentence (a FAQ question: "조사자에게 적용되는 효과는 자기 자신에게도 사용할 수
    #: 있습니까?") of ordinary words, not the rules' terms: a word only such titles have is
    #: known but never a correction's target, so a real word the rules do not use (파기) is
    #: not "corrected" into one (자기). 40 is the suggestions' cut (`limits.suggest_title`),
    #: where a title stops reading as a name.
    target_title_most: int = 40
    question_marks: str = "?？"
    #: When nothing is found, a Hangul word whose stem has fewer syllables than this falls
    #: back only to a word of the rules' vocabulary (the correction targets), never to any
    #: word of the texts: one jamo turns a short word into another real one (파기 → 자기, 사기
    #: → 자기), and a real word is never "corrected" (#23). Longer words fall back to any word
    #: of the texts (고걀시키 → 고갈시키).
    wide_fallback_min: int = 3
    #: A correction is offered only when its best result holds more of the query's words
    #: than the words as typed find (`SearchIndex.clearly_better`): by more than this, which
    #: only absorbs floating-point rounding (a word weighs 0.4 at least). Written so that
    #: every JSON encoder spells it alike (`1e-9` is `1e-09` to `json.dumps`).
    gain_tolerance: float = 0.001


@dataclass(frozen=True)
class Titles:
    """`titles.TitleTable`: title matching while typing."""

    #: Typed text this long may match inside a title (`TitleRank.INSIDE`), not only its start.
    inside_min_typed: int = 2
    #: English text this long may match an English name's start.
    alias_prefix_min: int = 2


@dataclass(frozen=True)
class Boosts:
    """`query.weighted_terms`: the boost of each (field, term) lookup."""

    #: A query word found among a title's words. Hand-tuned.
    title_w: float = 6.0
    #: A query syllable bigram in a title: spacing-insensitive (`틈새공격` vs `틈새 공격`).
    #: Hand-tuned.
    title_bg: float = 2.0
    #: A query word in the body: the unit the others are measured against.
    body_w: float = 1.0
    #: A bigram in the body: weak (bigrams of common words are everywhere). Hand-tuned.
    body_bg: float = 0.4
    #: A query word among the questions the entry answers (`ask_w`: its answers file's
    #: lines, in players' words), against a body word. Appended to the body, as they were
    #: before (#23), a few short lines were diluted by the rule's long text; in a field of
    #: their own (its statistics over the documents that have one) they count. Set on the
    #: tuning half: 0.896 → 0.907 at 2, no category lower; 2.5 scored 0.911 and 3 0.911 but
    #: the rulebook category fell (0.884 → 0.875, 0.852), and from 3 a common word of a few
    #: lines (토큰) outranked a rule the query names (`서리 토큰`), and an entry's line its own
    #: step (the setup appendix's).
    ask_w: float = 2.0
    #: An English word in an entry's English name (from the translation or the id): above
    #: title_w, because English queries are names more often than prose. Hand-tuned.
    alias: float = 8.0
    #: The whole English query as one name (`attackofopportunity`): twice `alias`.
    alias_whole: float = 16.0
    #: A word in a translation's title (not English's, which is the alias), against a title
    #: word (`title_w`): the same, since it is the entry's title in the query's language.
    title_tr: float = 1.0
    #: A word in a translation's text, against a body word: the same.
    body_tr: float = 1.0
    #: The whole query, spaces removed, as a title word (`조우덱` = 조우 덱). Hand-tuned.
    title_whole: float = 10.0
    #: A correction or a loanword counts for this much of the word it stands for: the player
    #: did not type it. Hand-tuned.
    corrected: float = 0.8
    #: A one-syllable stem of a longer word (`적이` → 적) matches too much to count in full.
    short_stem: float = 0.4
    #: Up to this many content words a title word keeps its full boost; beyond, title_w scales
    #: by long_query / words, so in a question the content words together decide (#10). Set on
    #: the question category's tuning half (questions MRR 0.76 → 0.82 with it); 3 → 2.5 on the
    #: whole tuning half (#23): in a described situation of three words a title that holds one
    #: common word (카드, 비용) still outweighed the rule whose text holds them all together
    #: (tuning MRR 0.891 → 0.896, no category lower, the blind set 0.953 → 0.954). 2 scored
    #: 0.899 but parted the browser engine from the server on 3 more top-5 lists.
    long_query: float = 2.5


def _field_b() -> Mapping[str, float]:
    return MappingProxyType({"title_w": 0.4, "title_bg": 0.4, "alias": 0.2, "body_w": 0.75,
                             "body_bg": 0.75, "title_tr": 0.4, "body_tr": 0.75,
                             "ask_w": 0.4})


@dataclass(frozen=True)
class Bm25:
    """`bm25.score_terms`: BM25F over the index's postings."""

    #: Term-frequency saturation. Conventional.
    k1: float = 1.2
    #: Length normalisation per field (every field has one): titles and names barely (their
    #: lengths say little), bodies fully (a long entry mentioning a word once is less about
    #: it). Body: conventional; titles and names: hand-tuned lower. The questions an entry
    #: answers (`ask_w`) as titles: a list of alternative questions, whose length is how many
    #: were written, not how much the entry is about a word. At the body's 0.75 an entry with
    #: five questions lost to one with two on its own question's words (`조사자 덱이 다
    #: 떨어지면`: the encounter deck's rule above the player's); at 0.4, over all 928 bench
    #: queries (2026-12-07), twelve answers rose (five to first place) and three fell from
    #: first to second, and the development set's everyday words rose to 0.85 held-out.
    field_b: Mapping[str, float] = field(default_factory=_field_b)


@dataclass(frozen=True)
class Rerank:
    """`rank.Reranker`: the features BM25 does not see. The depth is `Budget.rerank`."""

    #: The factor an entry with none of the query's content words keeps: never zero, so BM25
    #: order survives among them; also what candidates past the re-rank depth get.
    coord_floor: float = 0.05
    #: Up to +60% when adjacent query words stand side by side in the text. Hand-tuned.
    proximity: float = 0.6
    #: Up to +50% when the title is explained by the query and explains it. Hand-tuned.
    title_coverage: float = 0.5
    #: Backlinks: +10% per e-fold of entries linking here (a rule many rules cite is central).
    authority: float = 0.1
    #: Characters allowed between adjacent query words for proximity (a particle, an ending).
    near_gap: int = 4
    #: Up to this factor (+passage × share²) when one sentence of the entry holds the query's
    #: content words: a question's words together in one sentence point at its answer (#10).
    #: Hand-tuned on the tuning half.
    passage: float = 1.0
    #: Queries with fewer content words are not phrases a sentence answers: passage is off.
    passage_min_words: int = 3
    #: What a content word whose stem is one syllable (`적`) counts for in coordination and
    #: passage, against 1 for any other: it is found almost everywhere.
    short_word: float = 0.5
    #: What a content word found only in a name a worked example quotes (‘…’ in a paragraph
    #: that starts with a language's example word, `예시:`: `languages.json`) counts for in
    #: coordination, against 1 anywhere else: a card the example names must not outrank the
    #: rule the example illustrates (#23). Hand-tuned on the tuning half.
    example: float = 0.5


@dataclass(frozen=True)
class Order:
    """`Ranker.ranking`: the final order."""

    #: A title-tier match BM25 did not score starts at this share of the top score.
    title_only: float = 0.5
    #: A "see X" pointer's score is halved (it is then also placed right below X).
    placeholder: float = 0.5


@dataclass(frozen=True)
class Snippet:
    """`snippet.make_snippet` and `Plan.highlight_terms`."""

    #: The longest snippet, in characters.
    chars: int = 160
    #: Characters of context kept before the first match.
    lead: int = 40
    #: A snippet cut at a space keeps at least this many characters.
    min_cut: int = 80
    #: Shorter forms are marked only when they are the whole query.
    min_term: int = 2
    #: A term of ASCII letters is marked as words are read: from a word's start (`un` is not
    #: marked inside "opportunity"), and on to the word's end (the index keeps English stems,
    #: vengeanc; the reader reads vengeance). Both case-insensitive.
    word_head: str = "(?<![a-z])"
    word_tail: str = "[a-z]*"
    #: The window starts where the sentence holding the first match starts, when that is at
    #: most this many characters before the match (else `lead` characters before it): a
    #: snippet reads from a sentence's start, not from mid-sentence ("…활성화) 외에…").
    sentence_reach: int = 100
    #: What ends a sentence in the flattened text.
    sentence_ends: tuple[str, ...] = (". ", "? ", "! ")


@dataclass(frozen=True)
class Layout:
    """`layout.py`: text typed with the keyboard in the other layout (한/영), by the 2-set
    (두벌식) keyboard, the Korean standard (KS X 5002), as es-hangul's convertQwertyToHangul
    and inko document it: `xmatorhdrur` → 틈새공격, `wntkdnl` → 주사위."""

    #: Each key's jamo (shifted keys as capitals; a capital with no shifted jamo is its
    #: lower-case key's).
    keys: tuple[tuple[str, str], ...] = (
        ("q", "ㅂ"), ("w", "ㅈ"), ("e", "ㄷ"), ("r", "ㄱ"), ("t", "ㅅ"), ("y", "ㅛ"), ("u", "ㅕ"),
        ("i", "ㅑ"), ("o", "ㅐ"), ("p", "ㅔ"), ("a", "ㅁ"), ("s", "ㄴ"), ("d", "ㅇ"), ("f", "ㄹ"),
        ("g", "ㅎ"), ("h", "ㅗ"), ("j", "ㅓ"), ("k", "ㅏ"), ("l", "ㅣ"), ("z", "ㅋ"), ("x", "ㅌ"),
        ("c", "ㅊ"), ("v", "ㅍ"), ("b", "ㅠ"), ("n", "ㅜ"), ("m", "ㅡ"),
        ("Q", "ㅃ"), ("W", "ㅉ"), ("E", "ㄸ"), ("R", "ㄲ"), ("T", "ㅆ"), ("O", "ㅒ"), ("P", "ㅖ"))
    #: Two vowel keys in a row that make one vowel.
    vowels: tuple[tuple[str, str], ...] = (
        ("ㅗㅏ", "ㅘ"), ("ㅗㅐ", "ㅙ"), ("ㅗㅣ", "ㅚ"), ("ㅜㅓ", "ㅝ"), ("ㅜㅔ", "ㅞ"),
        ("ㅜㅣ", "ㅟ"), ("ㅡㅣ", "ㅢ"))
    #: Two consonant keys in a row that make one final consonant (split again when a vowel
    #: follows: the second starts the next syllable).
    finals: tuple[tuple[str, str], ...] = (
        ("ㄱㅅ", "ㄳ"), ("ㄴㅈ", "ㄵ"), ("ㄴㅎ", "ㄶ"), ("ㄹㄱ", "ㄺ"), ("ㄹㅁ", "ㄻ"),
        ("ㄹㅂ", "ㄼ"), ("ㄹㅅ", "ㄽ"), ("ㄹㅌ", "ㄾ"), ("ㄹㅍ", "ㄿ"), ("ㄹㅎ", "ㅀ"),
        ("ㅂㅅ", "ㅄ"))
    #: A Latin word shorter than this is never converted (`go`, `ok`): too many words are
    #: two letters of both layouts.
    min_letters: int = 3


@dataclass(frozen=True)
class Loanwords:
    """`loanwords.py`: a Hangul spelling of an English name heard by sound (클루 → clue). The
    English side (each name's consonant skeletons) is made on the server and shipped as a
    table (`loanwords.LoanwordVocabulary.shipped`); both engines reduce the Hangul side with
    these tables and pick among candidates with the same rule."""

    #: Each initial consonant's sound, in `hangul.CHOSEONG` order: voiced and voiceless pairs
    #: merge, ㅇ is silent.
    initial_sounds: tuple[str, ...] = ("k", "k", "n", "t", "t", "l", "m", "p", "p", "s", "s", "",
                                       "j", "j", "j", "k", "t", "p", "h")
    #: Each final consonant's sound, in `hangul.JONGSEONG` order (none first; ㅇ is "ng").
    final_sounds: tuple[str, ...] = ("", "k", "k", "k", "n", "n", "n", "t", "l", "l", "m", "l",
                                     "l", "l", "l", "l", "m", "p", "p", "t", "t", "nk", "t", "t",
                                     "k", "t", "p", "")
    #: The finals Korean writes English words with (외래어 표기법 1장 3항: 받침에는 ㄱ, ㄴ, ㄹ,
    #: ㅁ, ㅂ, ㅅ, ㅇ만을 쓴다), as indices into JONGSEONG (0: none). A word with another
    #: final (찼는데: ㅆ) is Korean, whatever its skeleton sounds like.
    finals: tuple[int, ...] = (0, 1, 4, 8, 16, 17, 19, 21)
    #: Revised Romanisation, for the tie-break between candidates with the same skeleton.
    roman_initial: tuple[str, ...] = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss",
                                      "", "j", "jj", "ch", "k", "t", "p", "h")
    roman_medial: tuple[str, ...] = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa",
                                     "wae", "oe", "yo", "u", "wo", "we", "wi", "yu", "eu", "ui",
                                     "i")
    roman_final: tuple[str, ...] = ("", "k", "k", "k", "n", "n", "n", "t", "l", "l", "l", "l",
                                    "l", "l", "l", "l", "m", "p", "p", "t", "t", "ng", "t", "t",
                                    "k", "t", "p", "t")
    #: An English spelling in the letters Revised Romanisation would use for its sounds,
    #: replaced in this order.
    korean_letters: tuple[tuple[str, str], ...] = (
        ("ph", "p"), ("th", "t"), ("sh", "s"), ("ck", "k"), ("f", "p"), ("v", "b"), ("c", "k"),
        ("q", "k"), ("z", "j"), ("x", "ks"), ("w", "u"), ("y", "i"))
    #: Points of spelling similarity (rapidfuzz's ratio, 0–100) a whole name is worth over a
    #: word inside one, and the least similarity a match needs: the true matches of
    #: `bench/loanwords.py`'s list score 33–100 (데미지/damage lowest), coincidences such as
    #: 어재다/chart 17.
    name_bonus: int = 8
    min_likeness: int = 30
    #: The fewest consonants a loanword has (둠, 클루: two); a word of a sentence (more than
    #: `short_query` words) needs `sentence_skeleton`: in a sentence two consonants (보태:
    #: p-t) sound like too many English words (evade).
    least_skeleton: int = 2
    sentence_skeleton: int = 3
    #: A query of at most this many words may be heard as loanwords in any of its words, a
    #: lone syllable too (둠, 씰); in a longer one a lone syllable is grammar (쓸, 들).
    short_query: int = 2
    #: rapidfuzz's ratio is a percentage: `name_bonus` and `min_likeness` are points of it.
    ratio_scale: int = 100
    #: At most this many spellings per English word (each ambiguous letter doubles them).
    max_alternatives: int = 8


@dataclass(frozen=True)
class Steps:
    """`documents.steps`: the numbered steps of a long procedure searched as documents of
    their own, each landing on its anchor of the entry's page (#23)."""

    #: An entry with at least this many anchored steps (the four phases, the setup appendix)
    #: has its steps searched apart; fewer are read with the entry.
    least: int = 3
    #: A query with fewer content words is a name or a few words, which the entry answers,
    #: not a question one step answers: steps are not candidates. Counted as the re-rank
    #: counts them, after the players' words became the rules' (`탭된 카드` → 소진 상태, 카드:
    #: three), hence one more than `Rerank.passage_min_words`. Set on the tuning half (3 let
    #: a step outrank the glossary entry for a community word).
    min_words: int = 4


@dataclass(frozen=True)
class Limits:
    """Default and largest numbers of results."""

    #: Results per search page.
    search: int = 10
    #: Titles suggested while typing.
    suggest: int = 8
    #: A suggested title longer than this (a pasted FAQ question) is cut at a space before
    #: it, with an ellipsis: eight suggestions must fit a phone's screen (its scenario is
    #: the suggestion's context).
    suggest_title: int = 40
    #: The most results one call returns.
    most: int = 100
    #: Queries of at most this many words say which of their words no entry has.
    dropped_most: int = 3
    #: Results the offline page lists (it has no pages).
    offline: int = 20


@dataclass(frozen=True)
class Contract:
    """Every section; `CONTRACT` is the one the search uses."""

    clean: Clean = Clean()
    rewrite: Rewriting = Rewriting()
    stems: Stems = Stems()
    scripts: Scripts = Scripts()
    typos: Typos = Typos()
    titles: Titles = Titles()
    boosts: Boosts = Boosts()
    bm25: Bm25 = Bm25()
    rerank: Rerank = Rerank()
    order: Order = Order()
    snippet: Snippet = Snippet()
    budget: Budget = Budget()
    layout: Layout = Layout()
    loanwords: Loanwords = Loanwords()
    steps: Steps = Steps()
    limits: Limits = Limits()


CONTRACT = Contract()


def _plain(value: Any) -> Any:
    """`value` as JSON data: dataclasses as objects of their fields, in declaration order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def shipped(contract: Contract = CONTRACT) -> dict[str, Any]:
    """The contract as the client index ships it: every section, plus the enums by name and
    the blank characters of `clean` as code point ranges."""
    out: dict[str, Any] = _plain(contract)
    out["tier"] = {t.name: int(t) for t in Tier}
    out["title_rank"] = {r.name: int(r) for r in TitleRank}
    out["clean"]["blank_ranges"] = blank_ranges(contract.clean.blank_categories)
    return out


@functools.cache
def blank_ranges(categories: tuple[str, ...]) -> list[tuple[int, int]]:
    """The code points of `categories`, as this Python's `unicodedata` has them: (gap,
    length - 1) per range, each gap counted from the previous range's last code point (the
    first from 0). ~700 ranges; made once per process (~0.2 s)."""
    wanted = frozenset(categories)
    out: list[tuple[int, int]] = []
    previous, start = 0, -1
    for code in range(0x110000):
        blank = unicodedata.category(chr(code)) in wanted
        if blank and start < 0:
            start = code
        elif not blank and start >= 0:
            out.append((start - previous, code - 1 - start))
            previous, start = code - 1, -1
    if start >= 0:
        out.append((start - previous, 0x10FFFF - start))
    return out


#: The modules whose code decides the index's tokens and the client index's layout: a change
#: to any of them, as to the contract or the tables, makes a new analysis version.
# The pairing of translations is here too: a paired translation is folded into its original's
# document (`documents.py`), an unpaired one is a document of its own.
_VERSIONED = ("app/corpus/hangul.py", "app/corpus/normalize.py", "app/corpus/translations.py",
              "app/corpus/renames.py", "app/search/analysis.py",
              "app/search/scripts.py", "app/search/layout.py", "app/search/contract.py",
              "app/search/documents.py", "app/search/index.py", "app/search/client_index.py")
_ROOT = Path(__file__).resolve().parents[2]


def digest(tables: Mapping[str, Any], contract: Contract = CONTRACT) -> str:
    """The analysis version: a hash of the contract, the analysis tables, the Unicode data
    they were generated with and the code of `_VERSIONED`. Indexes built under another
    version are rebuilt, and the browser engine refuses a client index of another version."""
    hashed = hashlib.sha256()
    data = {"contract": _plain(contract), "tables": tables,
            "unicode": unicodedata.unidata_version}
    hashed.update(json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    for name in _VERSIONED:
        hashed.update(name.encode("utf-8") + b"\0" + (_ROOT / name).read_bytes())
    return hashed.hexdigest()[:16]

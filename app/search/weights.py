"""Every number the ranking uses, in one place, each with what it does and how it was chosen.

The pipeline they act in is described in `docs/search.md`. "Hand-tuned" below means: set by
hand while watching `python -m bench.search` on the development queries (since #10 on their
tuning half, with the held-out half reported beside it), not found by a systematic sweep;
"conventional" means the textbook value. Change one, and run the bench before and after.
"""

from __future__ import annotations

from enum import IntEnum


class Tier(IntEnum):
    """How a query matched a title, from title matching alone; a higher tier always ranks
    above a lower one, whatever the BM25 scores (`SearchIndex._rank`)."""

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


# --- BM25F (bm25.py) -------------------------------------------------------------------------

#: Term-frequency saturation. Conventional.
K1 = 1.2
#: Length normalisation per field: titles and names barely (their lengths say little), bodies
#: fully (a long entry mentioning a word once is less about it). Body: conventional; titles
#: and names: hand-tuned lower, so a long title is not penalised for its length.
FIELD_B = {"title_w": 0.4, "title_bg": 0.4, "alias": 0.2, "body_w": 0.75, "body_bg": 0.75}

# --- Field boosts per lookup (query.py) ------------------------------------------------------

#: A query word found among a title's words. Hand-tuned.
TITLE_W = 6.0
#: A query syllable bigram in a title: spacing-insensitive (`틈새공격` vs `틈새 공격`).
#: Hand-tuned.
TITLE_BG = 2.0
#: A query word in the body: the unit the others are measured against.
BODY_W = 1.0
#: A bigram in the body: weak (bigrams of common words are everywhere). Hand-tuned.
BODY_BG = 0.4
#: An English word in an entry's English name (from the translation or the id): above
#: TITLE_W, because English queries are names more often than prose. Hand-tuned.
ALIAS = 8.0
#: The whole query, spaces removed, as a title word (`조우덱` = 조우 덱). Hand-tuned.
TITLE_WHOLE = 10.0
#: A correction or a loanword counts for this much of the word it stands for: the player did
#: not type it. Hand-tuned.
CORRECTED = 0.8
#: A one-syllable stem of a longer word (`적이` → 적) matches too much to count in full.
SHORT_STEM = 0.4
#: Up to this many content words a title word keeps its full boost; beyond, TITLE_W scales
#: by LONG_QUERY / words, so in a question the content words together decide (#10). Set on
#: the question category's tuning half (questions MRR 0.76 → 0.82 with it); other values
#: were not tried.
LONG_QUERY = 3.0

# --- Re-rank (rank.py) -----------------------------------------------------------------------

#: The factor an entry with none of the query's content words keeps: never zero, so BM25
#: order survives among them; also what candidates past the re-rank depth get.
COORD_FLOOR = 0.05
#: Up to +60% when adjacent query words stand side by side in the text. Hand-tuned.
PROXIMITY = 0.6
#: Up to +50% when the title is explained by the query and explains it. Hand-tuned.
TITLE_COVERAGE = 0.5
#: Backlinks: +10% per e-fold of entries linking here (a rule many rules cite is central).
AUTHORITY = 0.1
#: Characters allowed between adjacent query words for PROXIMITY (a particle or an ending).
NEAR_GAP = 4
#: Up to this factor (+PASSAGE × share²) when one sentence of the entry holds the query's
#: content words: a question's words together in one sentence point at its answer (#10).
#: Hand-tuned on the tuning half.
PASSAGE = 1.0
#: Queries with fewer content words are not phrases a sentence answers: the feature is off.
PASSAGE_MIN_WORDS = 3

# --- Ordering (searcher.py) ------------------------------------------------------------------

#: A title-tier match BM25 did not score starts at this share of the top score.
TITLE_ONLY = 0.5
#: A "see X" pointer's score is halved (it is then also placed right below X).
PLACEHOLDER = 0.5
#: How much a tier adds to the score reported in results (order comes from the tier itself;
#: this keeps the reported scores decreasing down the list).
TIER_STEP = 10.0

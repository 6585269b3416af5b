"""The words players use, turned into the words the rules use, before the query is planned.

A word or run of up to four words that a game's synonyms file lists (`서지`, `어택 오브
오퍼튜니티`, `AoO`, also with a particle: `서지가`) is replaced by the official term (`급증`),
and reported back so the results page can teach it. Hangul spellings of English words vary
(레커닝, 리커닝): a word the index does not know that is a jamo-level near miss of a listed
variant of three syllables or more counts as that variant. An English variant is kept beside the
term, since English words also find the English originals. (Hangul loanwords that no file
lists are matched by sound later, in the query plan: `query.make_plan`, `loanwords`.)

Related words (`~` lines: `포함 ~ 넣다`) are everyday words the rules say otherwise: the word
stays, the rules' word is searched beside it, and nothing is announced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from app.corpus.normalize import compact
from app.search import analysis
from app.search.budget import DEFAULT_BUDGET, Budget
from app.search.fuzzy import Vocabulary

__all__ = ["Rewrite", "Rewriter"]

#: The longest run of words a synonyms line is looked up for ("어택 오브 오퍼튜니티").
_LONGEST = 4


@dataclass(frozen=True)
class Rewrite:
    """The query to search, and what was replaced on the way."""

    text: str
    #: (as typed, official term) for each synonym used.
    synonyms: tuple[tuple[str, str], ...] = ()


class Rewriter:
    """Synonyms per game, applied to a cleaned query."""

    def __init__(self, synonyms: Mapping[str, Mapping[str, tuple[str, ...]]],
                 related: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None) -> None:
        """`synonyms`: game → compact variant → official terms (`GameSpec.synonyms`);
        `related`: the same for related words (`GameSpec.related`)."""
        self._related: dict[str | None, Mapping[str, tuple[str, ...]]] = {
            game: table for game, table in (related or {}).items()}
        merged_related: dict[str, tuple[str, ...]] = {}
        for table in self._related.values():
            for key, terms in table.items():
                merged_related.setdefault(key, terms)
        self._related[None] = merged_related
        #: game → compact variant → official terms; None (no game filter) → every game's.
        self._tables: dict[str | None, Mapping[str, tuple[str, ...]]] = {
            game: table for game, table in synonyms.items()}
        # Without a game filter, a word two games' files both list means what the first
        # declared game says (서지 → 급증, not also 괴물 급증): a longer variant (몬스터 서지)
        # still reaches the other game's term, and the game filter reaches all of them.
        merged: dict[str, tuple[str, ...]] = {}
        for table in synonyms.values():
            for key, terms in table.items():
                merged.setdefault(key, terms)
        self._tables[None] = merged
        # Near misses are looked for among long Hangul variants only: a two-syllable loanword
        # one edit away from a Korean word (서지, 서리) is a different word, not a spelling.
        self._near: dict[str | None, Vocabulary] = {
            game: Vocabulary([k for k in table if len(k) >= 3 and analysis.is_hangul(k)])
            for game, table in self._tables.items()}

    def rewrite(self, text: str, game: str | None, budget: Budget = DEFAULT_BUDGET,
                known: Callable[[str], bool] = lambda word: True) -> Rewrite:
        """`text` with the synonyms of `game` (of every game: None) replaced by their terms.

        Only the first `budget.words` words are looked at, as the query planner would, and
        only `budget.corrections` words the index does not know (`known`) are looked up as
        near misses of a variant."""
        table = self._tables.get(game, self._tables[None])
        related = self._related.get(game, self._related[None])
        near = self._near.get(game, self._near[None])
        asks_left = budget.corrections
        words = analysis.words(text)
        out: list[str] = []
        synonyms: list[tuple[str, str]] = []
        # Each word's forms as the last word of a run, made once: every run ending at a word
        # and both tables look them up.
        lasts: dict[int, tuple[str, ...]] = {}
        expanded = False
        i = 0
        while i < len(words):
            if i >= budget.words:
                out.extend(words[i:])  # past the budget: left as typed, never looked at
                break
            found = _synonym_at(words, i, table, lasts)
            word = words[i]
            if (found is None and asks_left > 0 and analysis.is_hangul(word)
                    and not analysis.is_function_word(word)
                    and not any(known(v) for v in analysis.variants(word))):
                asks_left -= 1
                close = near.corrections(analysis.stem(word), limit=1)
                if close:
                    found = (1, table[close[0].term], analysis.stem(word))
            # An English variant counts only as the whole query, and only when the index does
            # not know its words ("AoO", "XP"): English words find the English originals
            # themselves (with the English sentence as the snippet), and an English title
            # ("Clues on Player Cards") must not turn into a Korean term's search.
            if found is not None and words[i].isascii() and (
                    found[0] != len(words) or all(
                        any(known(v) for v in analysis.variants(w)) for w in words)):
                found = None
            if found is not None:
                length, officials, said = found
                typed = " ".join(words[i : i + length])
                out.extend(officials)
                if typed.isascii():
                    out.append(typed)
                # The notice quotes the player's words without their particle (‘클루’, not
                # ‘클루를’): the form that matched the synonyms line.
                synonyms.extend((said, o) for o in officials)
                i += length
                continue
            # A related word stays, and the rules' word for it joins it, unannounced.
            also = _synonym_at(words, i, related, lasts) if related else None
            if also is not None:
                length, officials, _ = also
                out.extend(words[i : i + length])
                out.extend(o for o in officials if o not in out)
                expanded = True
                i += length
                continue
            out.append(words[i])
            i += 1
        if not synonyms and not expanded:
            return Rewrite(text)
        return Rewrite(" ".join(out), tuple(synonyms))


def _synonym_at(words: Sequence[str], start: int, table: Mapping[str, tuple[str, ...]],
                lasts: dict[int, tuple[str, ...]] | None = None,
                ) -> tuple[int, tuple[str, ...], str] | None:
    """The longest synonyms entry starting at `words[start]`: (words used, official terms, the
    words as they matched, the last one without its particle)."""
    for length in range(min(_LONGEST, len(words) - start), 0, -1):
        run = words[start : start + length]
        # The last word may carry a particle: `서지가`, `클루를`.
        end = start + length - 1
        forms = lasts.get(end) if lasts is not None else None
        if forms is None:
            forms = tuple(dict.fromkeys((run[-1], *analysis.variants(run[-1]),
                                         *analysis.loose_stems(run[-1]))))
            if lasts is not None:
                lasts[end] = forms
        for last in forms:
            key = compact("".join([*run[:-1], last]))
            if key in table:
                return length, table[key], " ".join([*run[:-1], last])
    return None

"""The words players use, turned into the words the rules use, before the query is planned.

A word or run of up to four words that a game's synonyms file lists (`서지`, `어택 오브
오퍼튜니티`, `AoO`, also with a particle: `서지가`) is replaced by the official term (`급증`),
and reported back so the results page can teach it. Hangul spellings of English words vary
(레커닝, 리커닝): a word the index does not know that is a jamo-level near miss of a listed
variant of three syllables or more counts as that variant. An English variant is kept beside the
term, since English words also find the English originals. (Hangul loanwords that no file
lists are matched by sound later, in the query plan: `query.make_plan`, `loanwords`.)

Related words (`~` lines: `포함 ~ 넣다`) are everyday words the rules say otherwise: the word
stays, the rules' word is searched beside it, and nothing is announced. A game's name in a
longer query (`엘드리치 호러 한 라운드에 …`) is taken out and reported: that game comes first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass

from app.corpus.lookup import merged_terms
from app.corpus.models import Corpus
from app.corpus.normalize import compact
from app.search import analysis
from app.search.contract import CONTRACT, Budget
from app.search.documents import Document
from app.search.fuzzy import Vocabulary

__all__ = ["GameNames", "Rewrite", "Rewriter", "game_name_keys", "name_keys", "related_tables"]

_RULES = CONTRACT.rewrite


@dataclass(frozen=True)
class Rewrite:
    """The query to search, and what was replaced on the way."""

    text: str
    #: (as typed, official term) for each synonym used.
    synonyms: tuple[tuple[str, str], ...] = ()
    #: (as typed, game id) when the query names a game (`엘드리치 호러 …`, `아컴에서 …`): the
    #: name is taken out of the words searched, and that game's rules come first.
    game: tuple[str, str] | None = None
    #: (rules' word, the typed word it joins) for each related word added: the re-rank counts
    #: the two as one word of the query (an entry with either has it).
    related: tuple[tuple[str, str], ...] = ()


def related_tables(corpus: Corpus, docs: Iterable[Document]) -> dict[
        str, Mapping[str, tuple[str, ...]]]:
    """Each game's related words (`GameSpec.related`), with the icons' labels that no text
    of `docs` says: such a label stands for the icon's labels in the other languages (`서리`
    → frost: only the English file has the frost token so far), so a word of the icon file is
    searched where it is written and is never taken for a typo. The one table both engines
    use."""
    said = {w for d in docs for w in analysis.words(f"{d.entry.title} {d.text}")}
    icons: dict[str, list[str]] = {}
    for icon in corpus.icons.icons.values():
        labels = list(dict.fromkeys(" ".join(analysis.words(v)) for v in icon.labels.values()))
        for label in labels:
            key = compact(label)
            others = [o for o in labels if compact(o) != key]
            if key and others and not all(w in said for w in label.split()):
                icons[key] = list(dict.fromkeys([*icons.get(key, []), *others]))
    out: dict[str, Mapping[str, tuple[str, ...]]] = {}
    for game in corpus.games:
        table = {key: tuple(words) for key, words in icons.items()}
        for key, words in game.related.items():
            table[key] = tuple(dict.fromkeys([*words, *table.get(key, ())]))
        out[game.id] = table
    return out


@dataclass(frozen=True)
class GameNames:
    """The forms a query may name a game by, and when a form that is also a title's word is
    that word instead."""

    #: Compact form → (game id,).
    keys: Mapping[str, tuple[str, ...]]
    #: A form that is a word of some title too → the words that follow it in those titles
    #: (엘드리치 → 토큰): followed by one of them it is the title's word (엘드리치 토큰), not
    #: the game's name (엘드리치 한 라운드에 …).
    guards: Mapping[str, tuple[str, ...]]


def game_name_keys(corpus: Corpus, docs: Iterable[Document]) -> GameNames:
    """`name_keys` of the corpus's games, against the words of the searched titles `docs`:
    the one table the server and the browser engine both use."""
    return name_keys(
        {g.id: tuple(filter(None, (g.name, g.short_name, g.name_en))) for g in corpus.games},
        [analysis.words(d.entry.title) for d in docs])


def name_keys(names: Mapping[str, Sequence[str]],
              titles: Iterable[Sequence[str]] = ()) -> GameNames:
    """Compact forms a query may name each game by → (game id,): its names as declared
    (`엘드리치 호러`, `엘호`, `Eldritch Horror`) and the first word of a Korean name of three
    syllables or more (`아컴호러`, `엘드리치`), unless two games share a form.

    A form that is a word of some title of `titles` (each a title's words) names the game
    only when the query does not go on as that title does (`GameNames.guards`: 엘드리치 토큰 is
    the token); a form that ends a title (or is one) never does: nothing tells the two apart."""
    followers: dict[str, set[str]] = {}
    ending: set[str] = set()
    for words in titles:
        for n, word in enumerate(words):
            if n + 1 < len(words):
                followers.setdefault(word, set()).add(words[n + 1])
            else:
                ending.add(word)
    found: dict[str, list[str]] = {}
    for game, declared in names.items():
        forms: list[str] = []
        for name in declared:
            forms.append("".join(analysis.words(name)))  # as a query's words join
            first = analysis.words(name)[:1]
            if first and analysis.is_hangul(first[0]) and len(first[0]) >= 3:
                forms.append(first[0])
        for form in dict.fromkeys(f for f in forms if f and f not in ending):
            found.setdefault(form, []).append(game)
    keys = {form: (games[0],) for form, games in found.items() if len(games) == 1}
    return GameNames(keys, {form: tuple(sorted(followers[form])) for form in keys
                            if form in followers})


class Rewriter:
    """Synonyms per game, applied to a cleaned query."""

    def __init__(self, synonyms: Mapping[str, Mapping[str, tuple[str, ...]]],
                 related: Mapping[str, Mapping[str, tuple[str, ...]]] | None = None,
                 names: GameNames | None = None) -> None:
        """`synonyms`: game → compact variant → official terms (`GameSpec.synonyms`);
        `related`: the same for related words (`GameSpec.related`); `names`: the forms that
        name a game (`name_keys`)."""
        self._names = dict(names.keys) if names else {}
        self._name_guards = dict(names.guards) if names else {}
        #: game → compact variant → official terms; None (no game filter) → every game's.
        self._tables = merged_terms(synonyms)
        self._related = merged_terms(related or {})
        # Near misses are looked for among long Hangul variants only: a two-syllable loanword
        # one edit away from a Korean word (서지, 서리) is a different word, not a spelling.
        self._near: dict[str | None, Vocabulary] = {
            game: Vocabulary([k for k in table if len(k) >= _RULES.spelling_min_length
                              and analysis.is_hangul(k)])
            for game, table in self._tables.items()}

    def lists(self, word: str) -> bool:
        """True when a synonyms or related-words line, or a game's name, lists `word` (one
        word, any form): a word players use, whatever the index holds."""
        forms = (word, *analysis.variants(word), *analysis.loose_stems(word))
        return any(f in table for f in forms
                   for table in (self._tables[None], self._related[None], self._names))

    @staticmethod
    def _lists_in(word: str, *tables: Mapping[str, tuple[str, ...]]) -> bool:
        """Whether one of `tables` has `word` in one of its forms."""
        forms = (word, *analysis.variants(word))
        return any(f in table for f in forms for table in tables)

    def rewrite(self, text: str, game: str | None, budget: Budget = CONTRACT.budget,
                known: Callable[[str], bool] = lambda word: True,
                everyday: Set[str] = frozenset()) -> Rewrite:
        """`text` with the synonyms of `game` (of every game: None) replaced by their terms.

        Only the first `budget.words` words are looked at, as the query planner would, and
        only `budget.corrections` words the index does not know (`known`) are looked up as
        near misses of a variant; never a word of `everyday` (`Corpus.words`), a real word."""
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
        joined: list[tuple[str, str]] = []
        game_named: tuple[str, str] | None = None
        i = 0
        while i < len(words):
            if i >= budget.words:
                out.extend(words[i:])  # past the budget: left as typed, never looked at
                break
            named = _synonym_at(words, i, self._names, lasts) if self._names else None
            # A game's name alone is a search for it, not a preference (`엘드리치 호러`); a
            # title's word followed as in the title is the title's (`엘드리치 토큰`).
            if named is not None and named[0] < len(words) and game_named is None \
                    and not self._title_goes_on(named, words, i):
                game_named = (named[2], named[1][0])
                i += named[0]
                continue
            word = words[i]
            # A light word alone is never a players' word for a term (말고 is not 말, a pawn);
            # it may open one of several words (`한 턴`, `내 덱`). A word light only by its
            # stem and ending that a line lists is that line's: 막을 is the filler 막 and 을,
            # and 막다, to block (`취소 ~ 막다`); 게인 is 게 (것) and 인, and gain.
            function = analysis.is_function_word(word)
            light = function and (
                analysis.is_light_as_typed(word) or not self._lists_in(word, table, related))
            found = _synonym_at(words, i, table, lasts, known, light=light)
            glued = (None if found is not None or function
                     else _glued(word, table, known, everyday))
            if glued is not None:
                # 템사기 is 템 사기: the players' word is looked up again on its own.
                words[i : i + 1] = glued
                lasts.clear()  # the words after this one moved
                continue
            if (found is None and asks_left > 0 and analysis.is_hangul(word)
                    and not function
                    and not any(known(v) for v in analysis.variants(word))
                    and not analysis.listed(word, everyday)):
                asks_left -= 1
                close = near.corrections(analysis.stem(word), limit=1)
                # One jamo apart: spellings of one loanword differ by a vowel (레커닝,
                # 리커닝); two apart is another word (트로피 is not 트로마).
                if close and close[0].distance <= _RULES.spelling_distance:
                    found = (1, table[close[0].term], analysis.stem(word))
            # An English (or other non-Hangul) variant counts only when the index does not know
            # its words ("AoO", "XP"): English words find the English originals themselves
            # (with the English sentence as the snippet), and an English title ("Clues on
            # Player Cards") must not turn into a Korean term's search. An abbreviation counts
            # in an English sentence too (`does the enemy exhaust after an aoo`): the English
            # text never spells it.
            if found is not None and not analysis.is_hangul(words[i]) and all(
                    any(known(v) for v in analysis.variants(w))
                    for w in words[i : i + found[0]]):
                found = None
            if found is not None:
                length, officials, said = found
                typed = " ".join(words[i : i + length])
                out.extend(officials)
                if not any(analysis.is_hangul(w) for w in words[i : i + length]):
                    out.append(typed)
                # The notice quotes the player's words without their particle (‘클루’, not
                # ‘클루를’): the form that matched the synonyms line.
                synonyms.extend((said, o) for o in officials)
                i += length
                continue
            # A related word stays, and the rules' word for it joins it, unannounced.
            # A light word is never a related word's, nor opens one (맞아요? asks "is it
            # right", not 맞다): a related line's `다 떨어지다` is `다떨어지다`, typed as one
            # word. Spaced, such phrases cost the blind sets two first places (2026-12-07:
            # 한 대 took 공격 from the 맞고 after it; 다 떨어지다, said of anything that runs
            # out, pulled the encounter deck's rule above the player's).
            also = (_synonym_at(words, i, related, lasts, known)
                    if related and not light else None)
            if also is not None:
                length, officials, _ = also
                out.extend(words[i : i + length])
                for official in officials:
                    if official not in out:
                        out.append(official)
                        joined.append((official, words[i + length - 1]))
                i += length
                continue
            out.append(words[i])
            i += 1
        if not synonyms and not joined and game_named is None:
            return Rewrite(text)
        return Rewrite(" ".join(out), tuple(synonyms), game_named, tuple(joined))

    def _title_goes_on(self, named: tuple[int, tuple[str, ...], str], words: Sequence[str],
                       start: int) -> bool:
        """Whether the game name `named` found at `words[start]` is a title's word that the
        next word continues as that title does (엘드리치 토큰)."""
        guards = self._name_guards.get("".join(named[2].split()))
        after = start + named[0]
        if not guards or after >= len(words):
            return False
        return any(f in guards for f in (words[after], *analysis.variants(words[after])))


def _glued(word: str, table: Mapping[str, tuple[str, ...]], known: Callable[[str], bool],
           everyday: Set[str]) -> list[str] | None:
    """`word` as a players' word of `table` and the word typed after it without a space
    (템사기 → 템, 사기; 몹잡기 → 몹, 잡기), or None. Only a Hangul word the search does not
    know in any form and that is no everyday word is split, at the longest listed start
    whose rest is a word the search knows or an everyday word (a form of one included), and
    never before a form of 하다 or 되다 (피할까 is the verb 피하다, not 피, blood)."""
    if not analysis.is_hangul(word) or analysis.listed(word, everyday) or any(
            known(v) for v in analysis.variants(word)):
        return None
    for cut in range(len(word) - _RULES.glued_min_rest, 0, -1):
        head, rest = word[:cut], word[cut:]
        if head in table and not analysis.makes_a_verb(rest) and (
                analysis.listed(rest, everyday) or any(known(v) for v in analysis.variants(rest))):
            return [head, rest]
    return None


def _synonym_at(words: Sequence[str], start: int, table: Mapping[str, tuple[str, ...]],
                lasts: dict[int, tuple[str, ...]] | None = None,
                known: Callable[[str], bool] | None = None, *, light: bool = False,
                ) -> tuple[int, tuple[str, ...], str] | None:
    """The longest synonyms entry starting at `words[start]`, of several words when that word
    is `light` (a function word: alone it is nobody's term): (words used, official terms, the
    words as they matched, the last one without its particle)."""
    for length in range(min(_RULES.longest_run, len(words) - start), 1 if light else 0, -1):
        run = words[start : start + length]
        # The last word may carry a particle: `서지가`, `클루를`.
        end = start + length - 1
        forms = lasts.get(end) if lasts is not None else None
        if forms is None:
            forms = tuple(dict.fromkeys(filter(None, (
                run[-1], *analysis.variants(run[-1]), *analysis.loose_stems(run[-1]),
                analysis.adnominal_stem(run[-1]), analysis.dropped_l_stem(run[-1])))))
            if lasts is not None:
                lasts[end] = forms
        # The words are already normalised (`analysis.words`): joined, they are compact.
        head = "".join(run[:-1])
        for last in forms:
            key = head + last
            # A one-syllable term with an ending is another word when the index knows the word
            # or a longer stem of it (`피해`, `피하면`: 피하, to evade, are not 피, blood;
            # `탭된` is 탭).
            if (len(key) == 1 and last != run[-1] and known is not None
                    and not analysis.is_particle(run[-1][len(last):])
                    and any(len(f) > 1 and known(f) for f in forms)):
                continue
            if key in table:
                return length, table[key], " ".join([*run[:-1], last])
    return None

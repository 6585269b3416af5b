"""Pair a translation's entries with the original's, by the data's own ids.

A manifest source that declares `"translation_of": "<source>", "lang": "en"` translates that
source: the upstream files share ids across languages (`Attack_of_Opportunity` in the Korean
and the English rules.json), so an entry pairs with the original's entry of the same id. The
translation's ids live under its namespace (`en/Attack_of_Opportunity`) in the corpus.

When one side renamed an id and the other has not followed yet (the Korean file renamed
`Swarming X` to `Swarming` in 2023; the English still says `Swarming X`), the ids left over on
both sides pair through the renamed side's history (`app.corpus.renames.former_ids`), when
their lengths agree as a translation's do (Gale and Church's sentence alignment rests on the
same fact): a renamed id may have held other content before (the Korean
`Appendix_IV_Card_Anatomy` was the player-card key, the English one is the appendix's
introduction).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Collection, Mapping, Sequence

from app.corpus.models import SourceSpec

#: The ids a source renamed, of those asked for → their ids now (`renames.former_ids`).
Formers = Callable[[SourceSpec, Collection[str]], Mapping[str, str]]
#: How many ids a "found on one side only" warning names before it says "and N more".
_LISTED = 40
#: A pair by rename is kept when its length ratio (original / translation) is within this
#: factor of the median ratio of the pairs by id. Korean runs at 0.55 of the English here,
#: 90% of the pairs within 0.37–0.71; the player-card key against the English introduction
#: that once shared its id is at 1.54.
_LENGTH_FACTOR = 2.0
#: Entries shorter than this (a "see X" pointer) say nothing about the ratio.
_LENGTH_MIN = 100
#: Fewer pairs than this give no ratio: a rename alone pairs.
_LENGTH_PAIRS = 10


def pair_translations(
    specs: Sequence[SourceSpec], order: Mapping[str, list[str]],
    formers: Formers | None = None,
    sizes: Mapping[str, int] | None = None,
) -> tuple[dict[str, dict[str, str]], list[tuple[SourceSpec, str]]]:
    """Entry id → {lang: paired entry id}, and warnings about ids found on one side only.

    `formers(spec, ids)` gives those of the `ids` that `spec` renamed → their ids now
    (namespaced); it is asked only for a pair of sources with ids left over on both sides.
    `sizes` gives each entry's text length, which a pair by rename must agree with."""
    pairs: dict[str, dict[str, str]] = {}
    warnings: list[tuple[SourceSpec, str]] = []
    by_id = {spec.id: spec for spec in specs}
    for spec in specs:
        original = by_id.get(spec.translation_of or "")
        if original is None or spec.id not in order or original.id not in order:
            continue
        ns = spec.namespace
        translated = {entry_id[len(ns):]: entry_id for entry_id in order[spec.id]}
        originals = order[original.id]
        for entry_id in originals:
            other = translated.get(entry_id)
            if other is not None:
                pairs.setdefault(entry_id, {})[spec.lang] = other
                pairs.setdefault(other, {})[original.lang] = entry_id
        known = set(originals)
        only_here = [i for i in translated if i not in known]
        only_there = [i for i in originals if i not in translated]
        if only_here and only_there and formers is not None:
            ratio = _ratio(pairs, spec.lang, originals, sizes or {})
            for here, there in _renamed(spec, original, only_here, only_there, formers):
                if not _agree(sizes or {}, there, ns + here, ratio):
                    continue
                pairs.setdefault(there, {})[spec.lang] = ns + here
                pairs.setdefault(ns + here, {})[original.lang] = there
                only_here.remove(here)
                only_there.remove(there)
        if only_here:
            warnings.append((spec, f"{len(only_here)} ids only in this translation (own "
                                   f"pages, {spec.lang}): {_listed(only_here)}"))
        if only_there:
            warnings.append((spec, f'{len(only_there)} ids of "{original.id}" have no '
                                   f"translation here: {_listed(only_there)}"))
    return pairs, warnings


def _ratio(pairs: Mapping[str, Mapping[str, str]], lang: str, originals: Sequence[str],
           sizes: Mapping[str, int]) -> float | None:
    """The median length ratio (original / translation) of the entries paired by id."""
    ratios = [sizes[i] / sizes[pairs[i][lang]] for i in originals
              if lang in pairs.get(i, {}) and sizes.get(i, 0) >= _LENGTH_MIN
              and sizes.get(pairs[i][lang], 0) >= _LENGTH_MIN]
    return statistics.median(ratios) if len(ratios) >= _LENGTH_PAIRS else None


def _agree(sizes: Mapping[str, int], original: str, translation: str,
           ratio: float | None) -> bool:
    """Whether two entries' lengths agree with `ratio`, as a translation's do."""
    there, here = sizes.get(original, 0), sizes.get(translation, 0)
    if ratio is None or there < _LENGTH_MIN or here < _LENGTH_MIN:
        return True
    return abs(math.log(there / here / ratio)) <= math.log(_LENGTH_FACTOR)


def _renamed(spec: SourceSpec, original: SourceSpec, only_here: list[str],
             only_there: list[str], formers: Formers) -> list[tuple[str, str]]:
    """(translation's id less its namespace, original's id) for the ids left over on both
    sides that one side renamed and the other still uses."""
    ns = spec.namespace
    found: list[tuple[str, str]] = []
    there = set(only_there)
    # The translation still has the original's old id.
    renamed_there = formers(original, only_here)
    for here in only_here:
        now = renamed_there.get(here)
        if now is not None and now in there:
            found.append((here, now))
            there.discard(now)
    here_left = {ns + i for i in only_here} - {ns + h for h, _ in found}
    # The original still has the translation's old id.
    renamed_here = formers(spec, [ns + i for i in sorted(there)])
    for old in sorted(there):
        now = renamed_here.get(ns + old)
        if now is not None and now in here_left:
            found.append((now[len(ns):], old))
            here_left.discard(now)
    return found


def _listed(ids: list[str]) -> str:
    shown = ", ".join(ids[:_LISTED])
    return shown + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")

"""Pair a translation's entries with the original's, by the data's own ids.

A manifest source that declares `"translation_of": "<source>", "lang": "en"` translates that
source: the upstream files share ids across languages (`Attack_of_Opportunity` in the Korean
and the English rules.json), so an entry pairs with the original's entry of the same id. The
translation's ids live under its namespace (`en/Attack_of_Opportunity`) in the corpus.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.corpus.models import SourceSpec

#: How many ids a "found on one side only" warning names before it says "and N more".
_LISTED = 40


def pair_translations(
    specs: Sequence[SourceSpec], order: Mapping[str, list[str]]
) -> tuple[dict[str, dict[str, str]], list[tuple[SourceSpec, str]]]:
    """Entry id → {lang: paired entry id}, and warnings about ids found on one side only."""
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
        only_here = [i for i in translated if i not in set(originals)]
        only_there = [i for i in originals if i not in translated]
        if only_here:
            warnings.append((spec, f"{len(only_here)} ids only in this translation (own "
                                   f"pages, {spec.lang}): {_listed(only_here)}"))
        if only_there:
            warnings.append((spec, f'{len(only_there)} ids of "{original.id}" have no '
                                   f"translation here: {_listed(only_there)}"))
    return pairs, warnings


def _listed(ids: list[str]) -> str:
    shown = ", ".join(ids[:_LISTED])
    return shown + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")

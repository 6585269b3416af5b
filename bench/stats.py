"""The one percentile the benches report: nearest rank over the sorted values."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["percentile"]


def percentile(values: Sequence[float], pct: float, *, empty: float = 0.0) -> float:
    """The `pct` percentile of `values` by nearest rank (sorted here; sorting sorted values
    costs one pass), or `empty` when there are none."""
    if not values:
        return empty
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]

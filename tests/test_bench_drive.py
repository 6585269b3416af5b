"""bench.drive: the load benches' request plan and their bounds on what a typo can ask; and
bench.stats' percentile, which every bench reports."""

from __future__ import annotations

import argparse
from collections import Counter

from bench.drive import MIX, bounded, draw_plan
from bench.stats import percentile


def test_a_plan_follows_the_mix_and_is_the_same_in_every_run() -> None:
    paths = {kind: [f"/{kind}/{n}" for n in range(5)] for kind, _ in MIX}
    plan = draw_plan(paths, 20_000)
    assert plan == draw_plan(paths, 20_000)  # the same seed, the same requests
    shares = Counter(path.split("/")[1] for path in plan)
    for kind, share in MIX:
        assert abs(shares[kind] / len(plan) - share) < 0.01
    assert set(plan) == {p for listed in paths.values() for p in listed}


def test_a_partial_mix_draws_only_its_kinds() -> None:
    paths = {"entry": ["/rules/a"], "static": ["/static/x"], "suggest": ["/api/suggest?q=a"]}
    plan = draw_plan(paths, 1_000, mix=(("entry", 0.9), ("static", 0.1)))
    assert set(plan) == {"/rules/a", "/static/x"}


def test_options_beyond_their_bounds_are_brought_back() -> None:
    args = bounded(argparse.Namespace(duration=86_400, warmup=-3, clients=1_000_000))
    assert (args.duration, args.warmup, args.clients) == (600, 0, 1000)


def test_percentiles_are_nearest_rank_and_empty_is_zero() -> None:
    ordered = [float(n) for n in range(1, 101)]
    assert percentile(ordered, 50) == 51.0
    assert percentile(ordered, 99) == 99.0
    assert percentile(ordered, 100) == 100.0
    assert percentile([], 99) == 0.0

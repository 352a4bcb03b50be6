"""`tokens.tally` / `fold` / `summarize`: the per-value counts a shard sends give exactly the statistics of the
per-row sizes they replace (nearest-rank percentiles, mean, max, fit shares), however the rows are split into
shards and folded."""
from __future__ import annotations

import math
import random

import pytest

from generator import tokens


def listed(chars: list[int], counts: list[int]) -> dict:
    """The statistics from per-row lists, as `tokens.summarize` computed them before the tallies."""
    def summary(values: list[int]) -> dict:
        if not values:
            return {"mean": None, "p50": None, "p90": None, "max": None}
        ordered = sorted(values)
        rank = lambda q: ordered[max(0, math.ceil(q * len(ordered)) - 1)]       # noqa: E731
        return {"mean": round(sum(ordered) / len(ordered), 1), "p50": rank(0.5), "p90": rank(0.9),
                "max": ordered[-1]}

    out = {"rows": len(counts), "chars": summary(chars), "tokens": summary(counts)}
    for window in tokens.WINDOWS:
        out[f"fit_{window // 1024}k"] = round(sum(t <= window for t in counts) / len(counts), 4) if counts else None
    return out


def messages(size: int) -> dict:
    return {"messages": [{"role": "user", "content": "x" * size}]}


@pytest.mark.parametrize("seed", range(40))
def test_folded_tallies_give_the_lists_statistics(seed):
    rng = random.Random(seed)
    # few distinct values (many ties) or many; around the fit windows' edges too
    spread = rng.choice([5, 300, 200_000])
    rows = [rng.choice([messages(rng.randrange(1, spread)), messages(2 * (tokens.WINDOWS[0] - tokens.PER_MESSAGE)
                                                                         + rng.randrange(-2, 3))])
            for _ in range(rng.randrange(1, 400))]
    cuts = sorted(rng.sample(range(len(rows) + 1), min(len(rows) + 1, rng.randrange(1, 6))))
    shards = [rows[a:b] for a, b in zip([0, *cuts], [*cuts, len(rows)])]
    total = ({}, {})
    for shard in shards:
        tokens.fold(total, tokens.tally(shard))
    assert tokens.summarize(total) == listed(*tokens.sizes(rows))
    assert sum(total[1].values()) == len(rows) and len(total[1]) <= len(set(tokens.sizes(rows)[1]))


def test_no_rows():
    assert tokens.summarize(({}, {})) == listed([], [])

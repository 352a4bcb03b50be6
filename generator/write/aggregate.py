"""Aggregation helpers shared by every dataset's stats: summaries of per-row values and shard merging.

Each dataset's `stats` module computes its own per-shard summaries in the writer's workers; these helpers merge
them in shard order and summarize them the same way for every dataset.
"""
from __future__ import annotations

from collections import Counter

import numpy as np


def sig(x: float, digits: int = 4) -> float:
    return float(f"{x:.{digits}g}")


def counter_dict(counter: Counter) -> dict[str, int]:
    return {k: counter[k] for k in sorted(counter)}


def summary(values: list[float], digits: int = 4) -> dict[str, float]:
    a = np.asarray(values, dtype=float)
    return {"mean": sig(a.mean(), digits), "median": sig(float(np.median(a)), digits),
            "min": sig(a.min(), digits), "max": sig(a.max(), digits)}


def speedup_summary(values: list[float]) -> dict[str, float]:
    """Mean/median/min/max plus the geometric mean (the fair average of ratios)."""
    return {**summary(values), "geomean": sig(float(np.exp(np.log(np.asarray(values, dtype=float)).mean())))}


def merge_shards(shards: list[dict], list_keys: tuple[str, ...], counter_keys: tuple[str, ...]
                 ) -> tuple[dict[str, list], dict[str, Counter]]:
    """Concatenate the per-row lists and add up the counters of shard summaries, in shard order."""
    lists: dict[str, list] = {k: [] for k in list_keys}
    counters = {k: Counter() for k in counter_keys}
    for shard in shards:
        for k, values in lists.items():
            values.extend(shard[k])
        for k, c in counters.items():
            c.update(shard[k])
    return lists, counters

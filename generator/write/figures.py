"""What the card's plots and result tables show (`stats.json` `figures`), computed from the rows like every other
statistic, so the plots (`generator.write.plots`) and the card can be remade from `stats.json` alone.

Same two stages as the datasets' `stats` modules: `shard_figures(dataset, rows)` in the worker that wrote the shard
(plain lists and dicts: the scale engines keep it in a JSON marker), `combine(dataset, shards)` in shard order.
Histograms have fixed edges (efficiency, rewards) or edges from the merged values (steps, hours), so a plot never
depends on how the rows were split into shards or processes.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

import numpy as np

from generator.catalog.ops import OPS
from generator.kernelinfer.stats import STATUSES
from generator.kernelswarm.stats import RESULT_STATUSES
from generator.write.aggregate import sig

BINS = 20
EFFICIENCY_EDGES = [i / BINS for i in range(BINS + 1)]              # roofline time / best time, 0..1
RESULT_REWARD_EDGES = [round(-0.3 + i * 0.065, 3) for i in range(BINS + 1)]   # the reward range: -0.3 .. 1
LENGTH = {"kernelinfer": ("steps", "session"), "kernelswarm": ("messages", "episode")}
STATUS_ORDER = {"kernelinfer": STATUSES, "kernelswarm": RESULT_STATUSES}


def row_facts(dataset: str, row: Mapping[str, Any]) -> tuple[float, float, int, list[str], list[float], list[float]]:
    """(best speedup, best time ms, length, statuses, result rewards, verdict rewards) of one row: kernelinfer's
    statuses are its steps', kernelswarm's those of its env results."""
    if dataset == "kernelinfer":
        return (row["best"]["speedup"], row["best"]["time_ms"], row["num_steps"],
                [e["status"] for e in row["trace"]], [], [])
    results = [m for m in row["messages"] if m["kind"] == "result"]
    return (row["speedup"], row["best_ms"], row["num_messages"], [m["status"] for m in results],
            [m["reward"] for m in results], [m["reward"] for m in row["messages"] if m["kind"] == "verdict"])


def efficiency(row: Mapping[str, Any], best_ms: float) -> float:
    """The fraction of the roofline speed the best kernel reached (roofline time / best time, <= 1)."""
    return row["roofline_ms"] / best_ms


def shard_figures(dataset: str, rows: Iterable[Mapping[str, Any]]) -> dict:
    """Per-row values (op, gpu, speedup, efficiency, length, hours) and per-GPU status counts of one shard."""
    out: dict[str, Any] = {"op": [], "gpu": [], "speedup": [], "efficiency": [], "length": [], "hours": [],
                           "status_by_gpu": {}, "result_rewards": [], "verdict_rewards": []}
    for row in rows:
        speedup, best_ms, length, statuses, results, verdicts = row_facts(dataset, row)
        out["op"].append(row["op"])
        out["gpu"].append(row["gpu"])
        out["speedup"].append(speedup)
        out["efficiency"].append(efficiency(row, best_ms))
        out["length"].append(length)
        out["hours"].append(row["elapsed_s"] / 3600)
        counts = out["status_by_gpu"].setdefault(row["gpu"], {})
        for status, n in Counter(statuses).items():
            counts[status] = counts.get(status, 0) + n
        out["result_rewards"] += results
        out["verdict_rewards"] += verdicts
    return out


def histogram(values: list[float], edges: list[float] | None = None) -> dict:
    """{"edges", "counts"}: `BINS` equal bins over the values' range unless `edges` are given (numpy's rule: the
    last bin holds its right edge)."""
    counts, bin_edges = np.histogram(np.asarray(values, dtype=float), bins=edges if edges is not None else BINS)
    return {"edges": [float(e) for e in bin_edges], "counts": [int(c) for c in counts]}


def geomean(values: list[float]) -> float:
    return sig(float(np.exp(np.log(np.asarray(values, dtype=float)).mean())))


def combine(dataset: str, shards: list[dict]) -> dict:
    """The `figures` of stats.json, from the shard figures in shard order."""
    merged = {k: [v for s in shards for v in s[k]] for k in ("op", "gpu", "speedup", "efficiency", "length", "hours",
                                                                 "result_rewards", "verdict_rewards")}
    family = [OPS[op].family for op in merged["op"]]   # rows only name catalog ops (the validator's rule)
    by_cell: dict[tuple[str, str], list[float]] = {}
    by_family: dict[str, list[float]] = {}
    for fam, gpu, speedup, eff in zip(family, merged["gpu"], merged["speedup"], merged["efficiency"]):
        by_cell.setdefault((fam, gpu), []).append(speedup)
        by_family.setdefault(fam, []).append(eff)
    statuses: dict[str, Counter] = {}
    for shard in shards:
        for gpu, counts in shard["status_by_gpu"].items():
            statuses.setdefault(gpu, Counter()).update(counts)
    unit, row_unit = LENGTH[dataset]
    out = {
        "speedup_by_family_gpu": {fam: {gpu: {"rows": len(by_cell[fam, gpu]), "geomean": geomean(by_cell[fam, gpu])}
                                        for gpu in sorted({g for f, g in by_cell if f == fam})}
                                  for fam in sorted(by_family)},
        "length": {"unit": unit, "per": row_unit, **histogram(merged["length"])},
        "hours": {"per": row_unit, **histogram(merged["hours"])},
        "status_by_gpu": {gpu: {s: statuses[gpu][s] for s in STATUS_ORDER[dataset]} for gpu in sorted(statuses)},
        "efficiency": {"edges": EFFICIENCY_EDGES,
                       "median_by_family": {f: sig(float(np.median(v))) for f, v in sorted(by_family.items())},
                       "counts_by_family": {f: histogram(v, EFFICIENCY_EDGES)["counts"]
                                            for f, v in sorted(by_family.items())}},
    }
    if dataset == "kernelswarm":
        out["rewards"] = {"result": histogram(merged["result_rewards"], RESULT_REWARD_EDGES),
                          "verdict": histogram(merged["verdict_rewards"])}
    return out

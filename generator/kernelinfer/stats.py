"""Aggregate statistics of a kernelinfer folder, computed from the rows themselves (never typed in).

Two stages so the work parallelizes with the writer: `shard_stats(rows)` runs in the worker that wrote the
shard and returns a small mergeable summary; `combine(...)` merges the summaries in shard order into the
`stats.json` dict that the card prints. Per-row values kept for exact medians are a few floats per row.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

from generator.write.aggregate import counter_dict, merge_shards, sig, speedup_summary, summary

STATUSES = ("ok", "compile_error", "launch_error", "wrong_result")
KINDS = ("new_variant", "tune", "fix", "revert")
ATTEMPTS_DEFINITION = ("number of candidates that reached the benchmark: steps whose kernel compiled, launched, "
                       "passed the correctness check and was timed (status ok)")


def shard_stats(rows: Iterable[Mapping[str, Any]]) -> dict:
    """Per-shard summary: per-row steps/seconds/speedup lists and counters over rows and steps."""
    steps, seconds, speedups, attempts = [], [], [], []
    statuses, kinds, tags = Counter(), Counter(), Counter()
    ops, gpus, impls, dtypes = Counter(), Counter(), Counter(), Counter()
    for row in rows:
        steps.append(row["num_steps"])
        seconds.append(row["elapsed_s"])
        speedups.append(row["best"]["speedup"])
        attempts.append(row["attempts"])
        ops[row["op"]] += 1
        gpus[row["gpu"]] += 1
        impls[row["impl"]] += 1
        dtypes[row["dtype"]] += 1
        for entry in row["trace"]:
            statuses[entry["status"]] += 1
            kinds[entry["kind"]] += 1
            tags[entry["tag"]] += 1
    return {"steps": steps, "seconds": seconds, "speedups": speedups, "attempts": attempts,
            "statuses": statuses, "kinds": kinds, "tags": tags,
            "ops": ops, "gpus": gpus, "impls": impls, "dtypes": dtypes}


def combine(shards: list[dict], *, holdout_tasks: int, data_bytes: int, options: Mapping[str, Any]) -> dict:
    """Merge shard summaries (in shard order) into the stats.json dict (less the name the descriptor adds)."""
    merged, counters = merge_shards(shards, ("steps", "seconds", "speedups", "attempts"),
                                    ("statuses", "kinds", "tags", "ops", "gpus", "impls", "dtypes"))
    total_steps = int(sum(merged["steps"]))
    statuses = {s: counters["statuses"][s] for s in STATUSES}
    return {
        "generator": dict(options),
        "sessions": len(merged["steps"]),
        "shards": len(shards),
        "holdout_tasks": holdout_tasks,
        "total_steps": total_steps,
        "data_bytes": data_bytes,
        "steps_per_session": summary(merged["steps"]),
        "hours_per_session": summary([s / 3600 for s in merged["seconds"]]),
        "best_speedup": speedup_summary(merged["speedups"]),
        "attempts": {**summary(merged["attempts"]), "definition": ATTEMPTS_DEFINITION},
        "step_statuses": statuses,
        "step_status_fractions": {s: sig(n / total_steps) for s, n in statuses.items()},
        "step_kinds": {k: counters["kinds"][k] for k in KINDS},
        "variant_tags": counter_dict(counters["tags"]),
        "num_ops": len(counters["ops"]),
        "num_gpus": len(counters["gpus"]),
        "ops": counter_dict(counters["ops"]),
        "gpus": counter_dict(counters["gpus"]),
        "impls": counter_dict(counters["impls"]),
        "dtypes": counter_dict(counters["dtypes"]),
    }

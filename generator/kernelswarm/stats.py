"""Aggregate statistics of a kernelswarm folder, computed from the episodes (never typed in).

Same two stages as kernelinfer's `stats`: `shard_stats` in the worker that wrote the shard, `combine` over the
shards in order.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

import numpy as np

from generator.write.aggregate import counter_dict, merge_shards, sig, speedup_summary, summary

RESULT_STATUSES = ("ok", "compile_error", "launch_error", "wrong_result", "unsupported_arch")
LIST_KEYS = ("messages", "agents", "seconds", "speedups", "result_rewards", "verdict_rewards")
COUNTER_KEYS = ("scenarios", "kinds", "statuses", "ops", "gpus", "impls", "dtypes", "verdicts")


def shard_stats(rows: Iterable[Mapping[str, Any]]) -> dict:
    messages, agents, seconds, speedups, result_rewards, verdict_rewards = [], [], [], [], [], []
    counters = {k: Counter() for k in COUNTER_KEYS}
    kinds, statuses, verdicts = counters["kinds"], counters["statuses"], counters["verdicts"]
    for row in rows:
        messages.append(row["num_messages"])
        agents.append(row["n_agents"])
        seconds.append(row["elapsed_s"])
        speedups.append(row["speedup"])
        for key, field in (("scenarios", "scenario"), ("ops", "op"), ("gpus", "gpu"), ("impls", "impl"),
                           ("dtypes", "dtype")):
            counters[key][row[field]] += 1
        # ~75 messages a row: counted in C (Counter.update) from lists, not one Python step per message
        kinds.update([m["kind"] for m in row["messages"]])
        results = [m for m in row["messages"] if m["kind"] == "result"]
        statuses.update([m["status"] for m in results])
        result_rewards += [m["reward"] for m in results]
        said = [m for m in row["messages"] if m["kind"] == "verdict"]
        verdict_rewards += [m["reward"] for m in said]
        verdicts.update([m.get("kept") or "best" for m in said])     # "baseline": the team beat nothing
    return {"messages": messages, "agents": agents, "seconds": seconds, "speedups": speedups,
            "result_rewards": result_rewards, "verdict_rewards": verdict_rewards, **counters}


def combine(shards: list[dict], *, holdout_tasks: int, data_bytes: int, options: Mapping[str, Any]) -> dict:
    lists, counters = merge_shards(shards, LIST_KEYS, COUNTER_KEYS)
    results = sum(counters["statuses"].values())
    return {
        "generator": dict(options),
        "episodes": len(lists["messages"]),
        "shards": len(shards),
        "holdout_tasks": holdout_tasks,
        "total_messages": int(sum(lists["messages"])),
        "data_bytes": data_bytes,
        "messages_per_episode": summary(lists["messages"]),
        "agents_per_episode": summary(lists["agents"]),
        "hours_per_episode": summary([s / 3600 for s in lists["seconds"]]),
        "speedup": speedup_summary(lists["speedups"]),
        "no_improvement": counters["verdicts"]["baseline"],
        "scenarios": counter_dict(counters["scenarios"]),
        "message_kinds": counter_dict(counters["kinds"]),
        "result_statuses": {s: counters["statuses"][s] for s in RESULT_STATUSES},
        "result_status_fractions": {s: sig(counters["statuses"][s] / max(1, results)) for s in RESULT_STATUSES},
        "reward": {"result_mean": sig(float(np.mean(lists["result_rewards"] or [0.0]))),
                   "verdict_mean": sig(float(np.mean(lists["verdict_rewards"] or [0.0])))},
        "num_ops": len(counters["ops"]),
        "num_gpus": len(counters["gpus"]),
        "ops": counter_dict(counters["ops"]),
        "gpus": counter_dict(counters["gpus"]),
        "impls": counter_dict(counters["impls"]),
        "dtypes": counter_dict(counters["dtypes"]),
    }

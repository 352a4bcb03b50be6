"""The `steps` view's rewards, from a session's trace, and the validator's rule that recomputes them.

Why one module: the view writes each step's `reward` from `rewards` and `python -m generator validate` checks a
written steps file against the session rows of its shard with `problems`, so a reward edited after generation,
or a step row that no longer matches its session's trace, is found with the view file and row named. A step is
scored as kernelswarm scores an env result (`generator.sim.rewards`) against the running best, which starts at
the baseline and moves with every faster ok step; a step whose variant needs a feature the GPU lacks (an arch
refusal) scores as unsupported_arch. Imports no `datasets`: the validator runs it.
"""
from __future__ import annotations

from typing import Iterator

from generator.catalog.variants import gpu_lacks
from generator.sim.rewards import result_reward

SAME = ("kind", "tag", "status", "time_ms")      # a step row's fields copied from its trace entry


def rewards(row: dict) -> list[float]:
    """The reward of every step of session `row`, in trace order."""
    lacks = gpu_lacks(row["op"], row["impl"], row["dtype"], row["gpu"])
    best_ms = row["baseline_ms"]
    out = []
    for step in row["trace"]:
        status = "unsupported_arch" if lacks[step["tag"]] else step["status"]
        out.append(result_reward(status, step["time_ms"], best_ms))
        if step["status"] == "ok" and step["time_ms"] < best_ms:
            best_ms = step["time_ms"]
    return out


def problems(row: dict, steps: list[dict]) -> Iterator[tuple[int, str]]:
    """(index in `steps`, message) for each step row of session `row` that its trace does not give: an unknown
    step, a copied field that differs, a completion that is not the step's kernel, a reward not the formula's."""
    trace, msgs = row["trace"], row["messages"]
    want = rewards(row)
    for k, view in enumerate(steps):
        n = view["step"]
        if not 1 <= n <= len(trace):
            yield k, f"step {n}: session {row['session_id']} has {len(trace)} steps"
            continue
        step = trace[n - 1]
        for field in SAME:
            if view[field] != step[field]:
                yield k, f"step {n}: {field} {view[field]!r} but the trace says {step[field]!r}"
        if [m["content"] for m in view["completion"]] != [msgs[2 * n]["content"]]:
            yield k, f"step {n}: the completion is not the kernel of the session's step {n}"
        if view["reward"] != want[n - 1]:
            yield k, f"step {n}: reward {view['reward']} but the formula on the trace gives {want[n - 1]}"

"""The validator's rule for the `transitions` view: every row is one env result of its episode, as written there.

Why: a transition's `reward` must be the episode's own result reward (which the episode rule `rewards` recomputes
from the seed card's formula), so `python -m generator validate` pairs each transitions file with its shard and
finds a reward, status or time edited after generation, or a completion that is not the candidate the result
answers, with the view file and row named. Imports no `datasets`: the validator runs it.
"""
from __future__ import annotations

from typing import Iterator

SAME = {"agent": "to", "variant": "variant", "status": "status", "time_ms": "time_ms", "reward": "reward"}


def problems(row: dict, transitions: list[dict]) -> Iterator[tuple[int, str]]:
    """(index in `transitions`, message) for each transition row of episode `row` that its messages do not give."""
    msgs = row["messages"]
    for k, view in enumerate(transitions):
        i = view["index"]
        if not 0 <= i < len(msgs) or msgs[i]["kind"] != "result":
            yield k, f"index {i}: not an env result of episode {row['episode_id']}"
            continue
        result = msgs[i]
        for field, source in SAME.items():
            if view[field] != result[source]:
                yield k, f"result {i}: {field} {view[field]!r} but the episode's result says {result[source]!r}"
        if [m["content"] for m in view["completion"]] != [msgs[result["ref"]]["content"]]:
            yield k, f"result {i}: the completion is not the candidate the result answers (message {result['ref']})"

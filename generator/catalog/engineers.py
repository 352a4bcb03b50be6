"""Several independent engineers per task: the rows a run asks for, as (engineer, task) picks.

The catalog's task space is finite (a few thousand training tasks), so a run that asks for more rows than there
are tasks gives each task to several engineers; engineer e of a task is just another row, simulated from its own
row generator, with an id that says which engineer it is. Up to the pool's size a run has one engineer per task
and draws exactly as before, so the default scale keeps its shape. Picks are engineer-major: a shard of
consecutive rows holds each task at most once.
"""
from __future__ import annotations

import numpy as np

MAX_ENGINEERS = 64   # 190,000 kernelinfer sessions need 55 over ~3,500 training tasks


def pick(rng: np.random.Generator, pool: int, n: int, what: str) -> list[tuple[int, int]]:
    """`n` distinct (engineer, pool index) pairs in engineer-major order, drawn from `rng`."""
    engineers = -(-n // pool) if pool else 0
    if n > pool * MAX_ENGINEERS or not pool:
        raise ValueError(f"asked for {n} {what} but only {pool} remain, {pool * MAX_ENGINEERS} with "
                         f"{MAX_ENGINEERS} engineers per task")
    if engineers == 1:
        return [(0, i) for i in sorted(rng.choice(pool, size=n, replace=False).tolist())]
    return [divmod(c, pool) for c in sorted(rng.choice(pool * engineers, size=n, replace=False).tolist())]


def suffix(engineer: int) -> str:
    """What an id carries for engineer `engineer` (nothing for the first, so default-scale ids are unchanged)."""
    return f"_e{engineer}" if engineer else ""

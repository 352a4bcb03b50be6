"""The fixed held-out benchmark: which (op, gpu, shape) groups are held out, by a rule that reads neither the
seed nor the run's size, so every seed and every size trains on the same complement and reports against the
same tasks.

Rule (version `v1`): rank every group by the blake2b digest of `v1|op|gpu|shape_label`. The benchmark of a
dataset with benchmark size n takes from each op its lowest-ranked groups, as many as the op's share of the
groups (n * op groups / all groups, the remainders going to the largest fractions), so every op is benchmarked
and the training pool keeps the catalog's op mix (an unstratified pick held out twice flash_decode's share,
shifting training statistics by ~4 % of steps). Each group is represented by its task of smallest digest. A new rule (or new catalog groups that should join the benchmark) is a
new version: v1's digests never change, so a v1 result stays comparable.

The toolkit publishes two v1 benchmarks (`PUBLISHED`), and no dataset trains on a group of either
(`tasks.withheld_groups`): kernelswarm's quota over its 17 ops holds out more of those ops' groups than
kernelinfer's quota over every op does (23 of its 100 groups are not in kernelinfer's 195), so without that a model
trained on kernelinfer would have seen 23 % of kernelswarm's benchmark.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import NamedTuple

from generator.catalog.ops import SWARM_OPS, shape_label

VERSION = "v1"


class Benchmark(NamedTuple):
    ops: tuple[str, ...] | None   # the ops its dataset draws from (None: every op of the catalog)
    size: int                     # its (op, gpu, shape) groups


KERNELINFER = Benchmark(None, 195)        # 195: the kernelinfer seed's held-out count
KERNELSWARM = Benchmark(SWARM_OPS, 100)   # 100: kernelswarm's default held-out count, over the seed's 17 ops
PUBLISHED = (KERNELINFER, KERNELSWARM)


def _digest(*parts: str) -> bytes:
    return hashlib.blake2b("|".join((VERSION, *parts)).encode(), digest_size=16).digest()


def group_rank(group: tuple) -> bytes:
    """The sort key of an (op, gpu, shape) group in the benchmark ranking."""
    op, gpu, shape = group
    return _digest(op, gpu, shape_label(dict(shape)))


def representative(tasks) -> object:
    """The one task of a group the benchmark asks for (its impl and dtype), stable across versions of the catalog
    that keep the task."""
    return min(tasks, key=lambda t: _digest(t.op, t.impl, t.gpu, t.dtype, shape_label(dict(t.shape))))


@lru_cache(maxsize=8)
def held_groups(groups: tuple[tuple, ...], size: int) -> tuple[tuple, ...]:
    """The `size` benchmark groups among `groups`, in ranking order."""
    if size > len(groups):
        raise ValueError(f"benchmark {VERSION} needs {size} (op, gpu, shape) groups but only {len(groups)} exist")
    by_op: dict[str, list[tuple]] = {}
    for g in groups:
        by_op.setdefault(g[0], []).append(g)
    exact = {op: size * len(gs) / len(groups) for op, gs in by_op.items()}
    quota = {op: int(x) for op, x in exact.items()}
    for op in sorted(exact, key=lambda o: (quota[o] - exact[o], o))[:size - sum(quota.values())]:
        quota[op] += 1
    held = [g for op, gs in by_op.items() for g in sorted(gs, key=group_rank)[:quota[op]]]
    return tuple(sorted(held, key=group_rank))

"""The fixed held-out benchmark: which (op, gpu, shape) groups are held out, by a rule that reads neither the
seed nor the run's size, so every seed and every size trains on the same complement and reports against the
same tasks.

Rule (version `v1`): rank every group by the blake2b digest of `v1|op|gpu|shape_label`; the benchmark of a
dataset with benchmark size n is the first n groups of its ops in that ranking, each represented by the task of
the group whose own digest is smallest. A new rule (or new catalog groups that should join the benchmark) is a
new version: v1's digests never change, so a v1 result stays comparable.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache

from generator.catalog.ops import shape_label

VERSION = "v1"


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
    return tuple(sorted(groups, key=group_rank)[:size])
